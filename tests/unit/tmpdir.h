/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For unit tests that write files: one temporary directory per test
 * program, made by tmpdir_setup() (a cmocka group setup) and removed with
 * everything in it by tmpdir_teardown(). tpath(NAME) is NAME inside it;
 * the last four results stay valid.
 */
#ifndef PERFCAP_TEST_TMPDIR_H
#define PERFCAP_TEST_TMPDIR_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char tmpdir[256];

static inline char *tpath(const char *name)
{
	static char buf[4][512];
	static int n;
	char *p = buf[n++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", tmpdir, name);
	return p;
}

static inline int tmpdir_setup(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/perfcap-unit.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static inline int tmpdir_teardown(void **state)
{
	char cmd[sizeof(tmpdir) + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

#endif
