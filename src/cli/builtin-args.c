// SPDX-License-Identifier: GPL-2.0
/* What the small read-side commands (inject, pprof) share of their argv handling. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/builtin.h"

int builtin__bad_option(const char *cmd, char **argv, const char *usage)
{
	if (optopt)
		fprintf(stderr, "perfcap %s: option -%c needs a value or is unknown\n", cmd, optopt);
	else
		fprintf(stderr, "perfcap %s: unknown option '%s'\n", cmd, argv[optind - 1]);
	fputs(usage, stderr);
	return 2;
}

int builtin__parse_count(const char *cmd, const char *opt, const char *arg, int lo, int hi,
			 int *out)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (!*arg || *end || v < lo || v > hi) {
		fprintf(stderr, "perfcap %s: %s '%s': a number from %d to %d\n", cmd, opt, arg, lo, hi);
		return -1;
	}
	*out = (int)v;
	return 0;
}
