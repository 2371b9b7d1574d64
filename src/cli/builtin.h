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

#endif
