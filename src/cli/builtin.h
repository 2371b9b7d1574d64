/* SPDX-License-Identifier: GPL-2.0 */
/* The commands; each returns the process exit code (0, 1 runtime, 2 usage). */
#ifndef PERFCAP_BUILTIN_H
#define PERFCAP_BUILTIN_H

int cmd_record(int argc, char **argv);	/* builtin-record.c */
int cmd_loss(int argc, char **argv);	/* builtin-loss.c */
int cmd_dump(int argc, char **argv);	/* builtin-dump.c */
int cmd_test(int argc, char **argv);	/* builtin-test.c */
int cmd_trim(int argc, char **argv);	/* builtin-trim.c */
int cmd_inject(int argc, char **argv);	/* builtin-inject.c */
int cmd_pprof(int argc, char **argv);	/* builtin-pprof.c */

/*
 * For commands that parse with getopt_long (opterr 0): the message for the
 * option getopt refused, then usage, on stderr; returns 2.
 */
int builtin__bad_option(const char *cmd, char **argv, const char *usage);
/* arg as an int in [lo, hi] into *out: 0, or -1 with the message printed. */
int builtin__parse_count(const char *cmd, const char *opt, const char *arg, int lo, int hi,
			 int *out);

#endif
