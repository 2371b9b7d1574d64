// SPDX-License-Identifier: GPL-2.0
/*
 * control.c: perf 6.1's control commands, lines fed in pieces, the ack
 * bytes, and a real FIFO read by the control thread; switch-output.c:
 * when a switch is due, perf's file names, --switch-max-files, the
 * command's process tree.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/control.h"
#include "record/switch-output.h"
#include "tmpdir.h"
#include "util.h"

#define MS 1000000ULL

static void test_parse(void **state)
{
	static const struct {
		const char *line;
		enum control_cmd cmd;
		const char *arg;
	} rows[] = {
		{ "enable", CONTROL_ENABLE, NULL },
		{ "disable", CONTROL_DISABLE, NULL },
		{ "enable cs", CONTROL_ENABLE, "cs" },
		{ "disable cpu-clock", CONTROL_DISABLE, "cpu-clock" },
		{ "snapshot", CONTROL_SNAPSHOT, NULL },
		{ "stop", CONTROL_STOP, NULL },
		{ "ping", CONTROL_PING, NULL },
		{ "evlist", CONTROL_EVLIST, NULL },
		/* perf matches the tag as a prefix */
		{ "stopnow", CONTROL_STOP, NULL },
		{ "snapshot please", CONTROL_SNAPSHOT, NULL },
		/* ... but enable/disable/evlist then want a space and an argument */
		{ "enabled", CONTROL_UNSUPPORTED, NULL },
		{ "ack", CONTROL_UNSUPPORTED, NULL },
		{ "Enable", CONTROL_UNSUPPORTED, NULL },
		{ "", CONTROL_UNSUPPORTED, NULL },
		{ "start", CONTROL_UNSUPPORTED, NULL },
	};

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		const char *arg;
		enum control_cmd cmd = control__parse(rows[i].line, &arg);

		if (cmd != rows[i].cmd)
			fail_msg("'%s': %s, want %s", rows[i].line, control__name(cmd),
				 control__name(rows[i].cmd));
		if (rows[i].arg)
			assert_string_equal(arg, rows[i].arg);
		else
			assert_null(arg);
	}
}

static void test_feed_pieces(void **state)
{
	struct control c;
	char arg[CONTROL_LINE_MAX];
	char longline[200];

	control__init(&c);
	assert_false(control__pending(&c));
	/* A command in two reads is one command. */
	assert_int_equal(control__feed(&c, "ena", 3), 0);
	assert_false(control__pending(&c));
	assert_int_equal(control__feed(&c, "ble\ndisa", 8), 1);
	assert_true(control__pending(&c));
	/* NUL ends a command too; empty lines are nothing. */
	assert_int_equal(control__feed(&c, "ble cs\0\n\nstop\n", 14), 2);
	assert_int_equal(control__next(&c, arg), CONTROL_ENABLE);
	assert_string_equal(arg, "");
	assert_int_equal(control__next(&c, arg), CONTROL_DISABLE);
	assert_string_equal(arg, "cs");
	assert_int_equal(control__next(&c, arg), CONTROL_STOP);
	assert_int_equal(control__next(&c, arg), CONTROL_NONE);
	assert_false(control__pending(&c));

	/* A line past perf's 64 bytes is cut there, not split into two commands. */
	memset(longline, 'x', sizeof(longline));
	memcpy(longline, "disable ", 8);
	longline[sizeof(longline) - 1] = '\n';
	assert_int_equal(control__feed(&c, longline, sizeof(longline)), 1);
	assert_int_equal(control__next(&c, arg), CONTROL_DISABLE);
	assert_int_equal(strlen(arg), CONTROL_LINE_MAX - 1 - 8);

	/* A full queue drops, it does not overwrite. */
	for (int i = 0; i < CONTROL_QUEUE + 3; i++)
		control__feed(&c, i == 0 ? "ping\n" : "stop\n", 5);
	assert_int_equal(control__next(&c, arg), CONTROL_PING);
	for (int i = 1; i < CONTROL_QUEUE; i++)
		assert_int_equal(control__next(&c, arg), CONTROL_STOP);
	assert_int_equal(control__next(&c, arg), CONTROL_NONE);
	control__close(&c);
}

static void test_ack_bytes(void **state)
{
	struct control_spec spec = { .given = true };
	struct control c;
	char buf[16];
	int ctl[2], ack[2];

	assert_int_equal(pipe(ctl), 0);
	assert_int_equal(pipe(ack), 0);
	spec.ctl_fd = ctl[0];
	spec.ack_fd = ack[1];
	assert_int_equal(control__open(&c, &spec), 0);
	assert_int_equal(control__ack(&c), 0);
	/* perf writes sizeof("ack\n"): the NUL too. */
	assert_int_equal(read(ack[0], buf, sizeof(buf)), 5);
	assert_memory_equal(buf, "ack\n\0", 5);
	control__close(&c);
	/* fd: numbers are the caller's: still open. */
	assert_int_equal(write(ctl[1], "x", 1), 1);
	close(ctl[0]);
	close(ctl[1]);
	close(ack[0]);
	close(ack[1]);

	spec.ctl_fd = 1000;	/* not open */
	spec.ack_fd = -1;
	assert_int_equal(control__open(&c, &spec), -EBADF);
	control__close(&c);
}

static void test_fifo_thread(void **state)
{
	struct control_spec spec = { .given = true, .fifo = true };
	struct control c;
	char arg[CONTROL_LINE_MAX];
	struct pollfd pfd;
	int wake = eventfd(0, EFD_CLOEXEC), w;
	uint64_t v;

	assert_true(wake >= 0);
	spec.ctl_path = tpath("ctl");
	spec.ack_path = tpath("ack");
	assert_int_equal(mkfifo(spec.ctl_path, 0600), 0);
	assert_int_equal(mkfifo(spec.ack_path, 0600), 0);
	assert_int_equal(control__open(&c, &spec), 0);
	assert_int_equal(control__start(&c, wake), 0);

	/* A controller that opens, writes and closes, twice: no hang-up ends it. */
	for (int round = 0; round < 2; round++) {
		w = open(spec.ctl_path, O_WRONLY);
		assert_true(w >= 0);
		assert_int_equal(write(w, "disable\n", 8), 8);
		close(w);
		pfd = (struct pollfd){ .fd = wake, .events = POLLIN };
		assert_int_equal(poll(&pfd, 1, 5000), 1);
		assert_int_equal(read(wake, &v, sizeof(v)), sizeof(v));
		assert_int_equal(control__next(&c, arg), CONTROL_DISABLE);
	}
	/* The ack goes to the ack FIFO, which nobody had open yet. */
	assert_int_equal(control__ack(&c), 0);
	w = open(spec.ack_path, O_RDONLY | O_NONBLOCK);
	assert_true(w >= 0);
	control__close(&c);
	close(w);
	close(wake);
}

static void test_switch_due(void **state)
{
	struct record_opts o = { 0 };
	struct switch_output so;

	switch_output__init(&so, &o, 0);
	assert_false(switch_output__enabled(&so));
	assert_false(so.timestamp_filename);
	assert_false(switch_output__due(&so, 10 * MS, true, 1 << 30));
	switch_output__exit(&so);

	o.timestamp_filename = true;
	switch_output__init(&so, &o, 0);
	assert_true(so.timestamp_filename);	/* alone: only the name at the end */
	assert_false(switch_output__enabled(&so));
	switch_output__exit(&so);
	o.timestamp_filename = false;

	o.switch_output = SWITCH_OUTPUT_SIGNAL;
	switch_output__init(&so, &o, 0);
	assert_true(so.timestamp_filename);	/* perf turns it on with --switch-output */
	assert_true(switch_output__due(&so, 0, true, 0));
	assert_false(switch_output__due(&so, 0, false, 1 << 30));
	assert_int_equal(switch_output__timeout(&so, 0, 100), 100);
	switch_output__exit(&so);

	o.switch_output = SWITCH_OUTPUT_SIZE;
	o.switch_output_size = 1 << 20;
	switch_output__init(&so, &o, 0);
	assert_false(switch_output__due(&so, 0, true, (1 << 20) - 1));
	assert_true(switch_output__due(&so, 0, false, 1 << 20));
	switch_output__exit(&so);

	o.switch_output = SWITCH_OUTPUT_TIME;
	o.switch_output_ns = 250 * MS;
	switch_output__init(&so, &o, 1000 * MS);
	assert_false(switch_output__due(&so, 1249 * MS, true, 1 << 30));
	assert_true(switch_output__due(&so, 1250 * MS, false, 0));
	assert_int_equal(switch_output__timeout(&so, 1200 * MS, 100), 50);
	assert_int_equal(switch_output__timeout(&so, 1000 * MS, 100), 100);
	assert_int_equal(switch_output__timeout(&so, 1300 * MS, 100), 0);
	switch_output__rearm(&so, 1300 * MS);
	assert_false(switch_output__due(&so, 1500 * MS, false, 0));
	assert_true(switch_output__due(&so, 1550 * MS, false, 0));
	switch_output__exit(&so);
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static void test_rename_and_max_files(void **state)
{
	struct record_opts o = { .switch_output = SWITCH_OUTPUT_SIGNAL, .switch_max_files = 2 };
	struct switch_output so;
	char names[4][512], ts[SWITCH_TIMESTAMP_LEN + 8];
	const char *path = tpath("perf.data");

	/* perf's stamp: YYYYmmddHHMMSS and centiseconds, 16 digits. */
	assert_int_equal(switch_output__timestamp(ts, sizeof(ts)), 0);
	assert_int_equal(strlen(ts), SWITCH_TIMESTAMP_LEN);
	assert_int_equal(strspn(ts, "0123456789"), SWITCH_TIMESTAMP_LEN);
	assert_true(!strncmp(ts, "20", 2));

	switch_output__init(&so, &o, 0);
	for (int i = 0; i < 4; i++) {
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		fprintf(f, "file %d\n", i);
		fclose(f);
		/* Two switches in one centisecond get two names, never one file over another. */
		assert_int_equal(switch_output__rename(&so, path, names[i], sizeof(names[i])), 0);
		assert_false(exists(path));
		assert_true(exists(names[i]));
		assert_int_equal(strlen(names[i]), strlen(path) + 1 + SWITCH_TIMESTAMP_LEN);
		assert_true(!strncmp(names[i], path, strlen(path)));
		assert_int_equal(names[i][strlen(path)], '.');
		for (int k = 0; k < i; k++)
			assert_string_not_equal(names[i], names[k]);
	}
	/* --switch-max-files 2: the two newest stay. */
	assert_false(exists(names[0]));
	assert_false(exists(names[1]));
	assert_true(exists(names[2]));
	assert_true(exists(names[3]));
	assert_int_equal(so.nr_switches, 4);
	switch_output__exit(&so);
}

/* The parent as /proc/PID/status says it (switch-output.c reads /proc/PID/stat). */
static pid_t ppid_of(pid_t pid)
{
	char path[64], line[256];
	int ppid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "PPid: %d", &ppid) == 1)
			break;
	fclose(f);
	return ppid;
}

static void test_descendants(void **state)
{
	pid_t child, grandchild_seen = 0, *pids;
	int nr, fds[2];

	/* A child that forks a grandchild; both wait on a pipe. */
	assert_int_equal(pipe(fds), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		char c;

		close(fds[1]);
		if (fork() == 0) {
			(void)!read(fds[0], &c, 1);
			_exit(0);
		}
		(void)!read(fds[0], &c, 1);
		wait(NULL);
		_exit(0);
	}
	close(fds[0]);
	for (int tries = 0; tries < 200 && !grandchild_seen; tries++) {
		nr = switch_output__descendants(getpid(), &pids);
		assert_int_equal(pids[0], getpid());
		for (int i = 1; i < nr; i++)
			if (pids[i] != child && ppid_of(pids[i]) == child)
				grandchild_seen = pids[i];
		free(pids);
		if (!grandchild_seen)
			usleep(10000);
	}
	close(fds[1]);
	waitpid(child, NULL, 0);
	assert_true(grandchild_seen > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_feed_pieces),
		cmocka_unit_test(test_ack_bytes),
		cmocka_unit_test(test_fifo_thread),
		cmocka_unit_test(test_switch_due),
		cmocka_unit_test(test_rename_and_max_files),
		cmocka_unit_test(test_descendants),
	};

	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
