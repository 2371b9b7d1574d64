// SPDX-License-Identifier: GPL-2.0
/*
 * The option engine: argv against a table of rows, and the --help and
 * --list-options text from the same rows (parse-options.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/parse-options.h"
#include "util.h"

int usage_err(char *err, int errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* ---- --help and --list-options ------------------------------------------ */

/* The help column starts here; a longer option spec puts its help on the next line. */
#define HELP_COL 26

static size_t option_spec(const struct opt_def *d, char *buf, size_t size)
{
	size_t n = 0;

	n += snprintf(buf + n, size - n, "  ");
	if (d->key)
		n += snprintf(buf + n, size - n, "-%c%s", d->key, d->name ? ", " : "");
	else
		n += snprintf(buf + n, size - n, "    ");
	if (d->name)
		n += snprintf(buf + n, size - n, "--%s", d->name);
	if (d->arg == ARG_REQUIRED)
		n += snprintf(buf + n, size - n, " %s", d->meta);
	else if (d->arg == ARG_OPTIONAL)
		n += snprintf(buf + n, size - n, "[=%s]", d->meta);
	return n;
}

char *opt_table__usage(const struct opt_table *t, const char *head, const char *tail)
{
	char *buf;
	size_t len;
	FILE *f;

	f = open_memstream(&buf, &len);
	if (!f)
		abort();
	fputs(head, f);
	for (size_t i = 0; i < t->nr; i++) {
		const struct opt_def *d = &t->rows[i];
		char spec[80];
		size_t n;

		if (d->kind == KIND_SECTION) {
			fprintf(f, "\n%s\n", d->help);
			continue;
		}
		if (!d->help)
			continue;
		n = option_spec(d, spec, sizeof(spec));
		fputs(spec, f);
		if (n + 2 > HELP_COL) {
			fputc('\n', f);
			n = 0;
		}
		/* Continuation lines of the help line up under its first line. */
		for (const char *h = d->help; *h; ) {
			size_t l = strcspn(h, "\n");

			fprintf(f, "%*s%.*s\n", (int)(HELP_COL - n), "", (int)l, h);
			n = 0;
			h += l;
			if (*h)
				h++;
		}
	}
	fputs(tail, f);
	if (fclose(f))
		abort();
	return buf;
}

void opt_table__list(const struct opt_table *t, FILE *f)
{
	for (size_t i = 0; i < t->nr; i++) {
		const struct opt_def *d = &t->rows[i];

		if (d->kind == KIND_SECTION)
			continue;
		if (d->name)
			fprintf(f, "--%s%s\n", d->name, d->arg == ARG_OPTIONAL ? "=" : "");
		if (d->key)
			fprintf(f, "-%c\n", d->key);
	}
}

/* ---- getopt's tables, from the rows ------------------------------------- */

/* getopt_long's val for a long-only row: past every char. */
#define LONG_VAL(i) (256 + (int)(i))
/*
 * perf's parser gives every option a --no- form unless the option says
 * otherwise; this engine gives it to every boolean row: NEG_VAL(i) is
 * --no-X of row i, NOVAL_VAL(i) the --no-X of a row with a value, which
 * is refused.
 */
#define NEG_VAL(t, i) (256 + (int)(t)->nr + (int)(i))
#define NOVAL_VAL(t, i) (256 + 2 * (int)(t)->nr + (int)(i))

static bool is_boolean(const struct opt_def *d)
{
	return d->kind == KIND_FLAG || d->kind == KIND_COUNT ||
	       (d->kind == KIND_FN && d->arg == ARG_NONE);
}

static bool has_long_name(const struct opt_table *t, size_t nl, const char *name)
{
	for (size_t i = 0; i < nl; i++)
		if (!strcmp(t->long_options[i].name, name))
			return true;
	return false;
}

/* --no-X of row i (X of a row named no-X); NULL where a row already has that name. */
static const char *negation(struct opt_table *t, size_t i)
{
	const char *name = t->rows[i].name;
	char *neg = t->neg_names[i];

	if (!strncmp(name, "no-", 3))
		snprintf(neg, sizeof(t->neg_names[i]), "%s", name + 3);
	else
		snprintf(neg, sizeof(t->neg_names[i]), "no-%s", name);
	for (size_t j = 0; j < t->nr; j++)
		if (t->rows[j].kind != KIND_SECTION && t->rows[j].name &&
		    !strcmp(t->rows[j].name, neg))
			return NULL;
	return neg;
}

/* Built once per table: the rows never change. */
static void build_getopt_tables(struct opt_table *t)
{
	size_t nl = 0, ns = 0;

	if (t->short_options)
		return;
	t->long_options = xzalloc((2 * t->nr + 1) * sizeof(*t->long_options));
	t->short_options = xzalloc(2 + 3 * t->nr + 1);
	t->neg_names = xzalloc(t->nr * sizeof(*t->neg_names));
	/*
	 * '+': stop at the first non-option, so "perfcap record sleep 1 -x"
	 * hands -x to sleep, as perf does. ':': report a missing value as ':'
	 * so we can word the message ourselves.
	 */
	t->short_options[ns++] = '+';
	t->short_options[ns++] = ':';
	for (size_t i = 0; i < t->nr; i++) {
		const struct opt_def *d = &t->rows[i];
		int has = d->arg == ARG_REQUIRED ? required_argument :
			  d->arg == ARG_OPTIONAL ? optional_argument : no_argument;

		if (d->kind == KIND_SECTION)
			continue;
		if (d->name)
			t->long_options[nl++] = (struct option){ d->name, has, NULL,
								 d->key ? d->key : LONG_VAL(i) };
		if (d->key) {
			t->short_options[ns++] = d->key;
			if (d->arg != ARG_NONE)
				t->short_options[ns++] = ':';
			if (d->arg == ARG_OPTIONAL)
				t->short_options[ns++] = ':';
		}
	}
	/* The negations come after every row's own name, so they never shadow one. */
	for (size_t i = 0; i < t->nr; i++) {
		const struct opt_def *d = &t->rows[i];
		const char *neg;

		if (d->kind == KIND_SECTION || !d->name || !(neg = negation(t, i)) ||
		    has_long_name(t, nl, neg))
			continue;
		t->long_options[nl++] = (struct option){ neg, no_argument, NULL,
							 is_boolean(d) ? NEG_VAL(t, i)
								       : NOVAL_VAL(t, i) };
	}
}

/* ---- the parse ----------------------------------------------------------- */

static const struct opt_def *find_row(const struct opt_table *t, int c)
{
	if (c >= 256 && (size_t)(c - 256) < t->nr)
		return &t->rows[c - 256];
	if (c >= NEG_VAL(t, 0) && c < NOVAL_VAL(t, 0))
		return &t->rows[c - NEG_VAL(t, 0)];
	for (size_t i = 0; i < t->nr; i++)
		if (t->rows[i].kind != KIND_SECTION && t->rows[i].key == c)
			return &t->rows[i];
	return NULL;
}

static int apply(const struct opt_def *d, void *obj, const char *arg, struct opt_ctx *ctx,
		 char *err, int errlen)
{
	switch (d->kind) {
	case KIND_FLAG:
		*(bool *)((char *)obj + d->off) = !ctx->unset;
		return 0;
	case KIND_COUNT:
		if (ctx->unset)
			*(int *)((char *)obj + d->off) = 0;
		else
			(*(int *)((char *)obj + d->off))++;
		return 0;
	case KIND_FN:
		return d->fn(obj, arg, ctx, err, errlen);
	case KIND_SECTION:
		break;
	}
	return -EINVAL;
}

/* Which option the failing argv element spelled, for the message. */
static int option_error(const struct opt_table *t, int c, char **argv, int argc, int cur,
			char *err, int errlen)
{
	const char *arg = cur < argc ? argv[cur] : "";
	int len;

	if (!strncmp(arg, "--", 2)) {
		len = (int)strcspn(arg, "=");
		if (c == ':')
			return usage_err(err, errlen, "option '%.*s' requires a value", len, arg);
		if (optopt)
			return usage_err(err, errlen, "option '%.*s' does not take a value",
					 len, arg);
		return usage_err(err, errlen, "unknown or ambiguous option '%.*s' "
				 "(see perfcap %s --help)", len, arg, t->cmd);
	}
	if (c == ':')
		return usage_err(err, errlen, "option '-%c' requires a value", optopt);
	return usage_err(err, errlen, "unknown option '-%c' (see perfcap %s --help)",
			 optopt, t->cmd);
}

int opt_table__parse(struct opt_table *t, int argc, char **argv, void *obj, void *state,
		     char *err, int errlen)
{
	struct opt_ctx ctx = { .state = state };
	int c, cur, ret;

	build_getopt_tables(t);
	/*
	 * optind = 0 makes glibc re-read the optstring and forget any state
	 * left from an earlier parse; tests parse many command lines.
	 */
	optind = 0;
	opterr = 0;
	for (;;) {
		const struct opt_def *d;

		/* Where getopt starts: the argv element a bad option came from. */
		cur = optind ? optind : 1;
		c = getopt_long(argc, argv, t->short_options, t->long_options, NULL);
		if (c == -1)
			break;
		if (c >= NOVAL_VAL(t, 0) && c < NOVAL_VAL(t, t->nr))
			return usage_err(err, errlen, "option '--no-%s' isn't available: --%s "
					 "takes a value (only options without one have a "
					 "--no- form)", t->rows[c - NOVAL_VAL(t, 0)].name,
					 t->rows[c - NOVAL_VAL(t, 0)].name);
		d = (c == '?' || c == ':') ? NULL : find_row(t, c);
		if (!d)
			return option_error(t, c, argv, argc, cur, err, errlen);
		ctx.unset = c >= NEG_VAL(t, 0) && c < NOVAL_VAL(t, 0);
		ret = apply(d, obj, optarg, &ctx, err, errlen);
		ctx.unset = false;
		if (ret)
			return ret;
	}
	return optind;
}
