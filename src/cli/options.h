/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf record's options, parsed: record's table of rows and their
 * handlers, run by the option engine (cli/parse-options.h), with the
 * value parsers of cli/option-values.h. Pure: parsing does no system
 * calls, so the tables in tests/unit/test_options.c exercise it without
 * privileges.
 */
#ifndef PERFCAP_OPTIONS_H
#define PERFCAP_OPTIONS_H

#include <stdio.h>

#include "cli/option-values.h"
#include "record-opts.h"

/*
 * Parse "perfcap record" arguments (argv[0] is "record"). On a usage
 * error returns -EINVAL with a one-line message in err (no newline) and
 * opts holds nothing to free. argv is not copied: opts points into it.
 * opts is overwritten: record_opts__exit() a previous parse first.
 * Options stop at the first non-option (or "--"): the rest is the
 * command. -C sets system_wide too (per-CPU recording on those CPUs).
 */
int record_opts__parse(struct record_opts *opts, int argc, char **argv,
		       char *err, int errlen);
/* Frees what a successful parse allocated (the joined -e list, event_args, ...). */
void record_opts__exit(struct record_opts *opts);
/* The text of "perfcap record --help", made from the option table. */
const char *record_opts__usage(void);
/* --list-options: every option, "--name" ("--name=" when its value is optional) and "-x", a line each. */
void record_opts__list_options(FILE *f);

#endif
