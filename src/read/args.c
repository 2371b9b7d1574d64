// SPDX-License-Identifier: GPL-2.0
/*
 * The command line of a command that reads one perf.data (perfcap dump,
 * perfcap loss): [FLAG] [FILE], -i FILE, -h, "--". Here with the reader
 * because both of its commands take it the same way; pure, no system
 * calls.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "read/reader.h"

int perf_reader__parse_args(int argc, char **argv, const char *cmd, const char *usage,
			    const char *flag_short, const char *flag_long, bool *flag,
			    const char **path)
{
	bool opts_done = false;

	*path = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!opts_done && (!strcmp(a, "-h") || !strcmp(a, "--help"))) {
			fputs(usage, stdout);
			return 1;
		} else if (!opts_done && (!strcmp(a, flag_short) || !strcmp(a, flag_long))) {
			*flag = true;
		} else if (!opts_done && (!strcmp(a, "-i") || !strcmp(a, "--input"))) {
			if (++i == argc || *path)
				goto usage;
			*path = argv[i];
		} else if (!opts_done && !strncmp(a, "--input=", 8)) {
			if (*path)
				goto usage;
			*path = a + 8;
		} else if (!opts_done && !strcmp(a, "--")) {
			opts_done = true;
		} else if (!opts_done && a[0] == '-' && a[1]) {
			fprintf(stderr, "perfcap %s: unknown option '%s'\n", cmd, a);
			goto usage;
		} else {
			if (*path)
				goto usage;
			*path = a;
		}
	}
	if (!*path)
		*path = "perf.data";
	return 0;
usage:
	fputs(usage, stderr);
	return -EINVAL;
}
