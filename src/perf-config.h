/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf's own config files, read for a value perfcap must agree with perf
 * on (buildid.dir: where perf report and perf archive look for the
 * build-id cache). The files perf 6.1 reads, in its order: only
 * $PERF_CONFIG when it is set; else /etc/perfconfig (not with
 * $PERF_CONFIG_NOSYSTEM) and then ~/.perfconfig (not with
 * $PERF_CONFIG_NOGLOBAL), a later value winning. The syntax is git's:
 * "[section]" lines, "name = value" lines, '#' and ';' comments, section
 * and name in any case, a value in double quotes kept as it is.
 */
#ifndef PERFCAP_PERF_CONFIG_H
#define PERFCAP_PERF_CONFIG_H

#include <stddef.h>

/* SECTION.NAME from perf's files into buf. 0, or -ENOENT when unset. */
int perf_config__get(const char *section, const char *name, char *buf, size_t size);
/* SECTION.NAME from one file's text, its last value. 0, or -ENOENT. */
int perf_config__parse(const char *text, const char *section, const char *name,
		       char *buf, size_t size);

#endif
