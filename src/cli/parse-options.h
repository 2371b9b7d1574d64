/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The option engine: a command's options as a table of rows, and the
 * argv parse, --help text and --list-options made from those rows, so an
 * option exists in all three or in none. It knows nothing of any
 * command's options (cli/options.c holds record's table and handlers,
 * as perf keeps parse-options apart from builtin-record). Pure: no
 * system calls, so the unit tests run its tables anywhere.
 */
#ifndef PERFCAP_PARSE_OPTIONS_H
#define PERFCAP_PARSE_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum opt_arg { ARG_NONE, ARG_REQUIRED, ARG_OPTIONAL };
enum opt_kind { KIND_SECTION, KIND_FLAG, KIND_COUNT, KIND_FN };

/* What a handler is told besides its value. */
struct opt_ctx {
	void *state;	/* the command's own parse state, as given to opt_table__parse */
	bool unset;	/* the --no- form of a row that takes no value */
};

/*
 * A row's handler: checks arg once and fills obj. 0, or -EINVAL with a
 * one-line message in err (usage_err).
 */
typedef int (*opt_fn)(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen);

struct opt_def {
	const char *name;	/* long name; NULL: short only */
	char key;		/* short letter; 0: long only */
	enum opt_arg arg;
	const char *meta;	/* the value in --help: "<n>" */
	enum opt_kind kind;
	size_t off;		/* KIND_FLAG (bool) and KIND_COUNT (int): the field in obj */
	opt_fn fn;		/* KIND_FN */
	const char *help;	/* NULL: hidden from --help (an alias) */
};

#define SECTION(title) { .kind = KIND_SECTION, .help = title }
#define OPT(lname, k, a, m, handler, h) \
	{ .name = lname, .key = k, .arg = a, .meta = m, .kind = KIND_FN, .fn = handler, .help = h }

/* A command's rows, and getopt's tables built from them on first use. */
struct opt_table {
	const struct opt_def *rows;
	size_t nr;
	const char *cmd;	/* "record": the messages say "see perfcap record --help" */
	struct option *long_options;
	char *short_options;
	char (*neg_names)[64];
};

/*
 * Parses argv (argv[0] is the command's name) into obj, row by row,
 * stopping at the first non-option or "--". Returns the index of the
 * first argument that is not an option, or -EINVAL with a one-line
 * message in err. Every boolean row (FLAG, COUNT, or a handler that takes
 * no value) has perf's --no- form: --no-X clears X, and a row named no-X
 * has X for its negation; the --no- form of a row with a value is refused.
 */
int opt_table__parse(struct opt_table *t, int argc, char **argv, void *obj, void *state,
		     char *err, int errlen);
/* The --help text: head, a line (or more) per row that has help, tail; malloc'ed. */
char *opt_table__usage(const struct opt_table *t, const char *head, const char *tail);
/* --list-options: every option, "--name" ("--name=" when its value is optional) and "-x", a line each. */
void opt_table__list(const struct opt_table *t, FILE *f);

/* Words a usage error into err (when err is not NULL); returns -EINVAL. */
int usage_err(char *err, int errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
