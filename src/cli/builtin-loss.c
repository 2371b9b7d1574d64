// SPDX-License-Identifier: GPL-2.0
/*
 * perfcap loss: what the kernel (or the recorder) lost in a perf.data
 * file or directory, ours or upstream's. The definition of every number,
 * and why it is defined so, is in doc/perfcap-loss.1; keep the two in
 * step.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/builtin.h"
#include "unwind/callchain.h"
#include "inject/convert.h"
#include "read/loss-svg.h"
#include "read/loss.h"
#include "read/reader.h"
#include "util.h"

static const char loss_usage[] =
	"usage: perfcap loss [--json|--svg|--html] [FILE|DIR [FILE2|DIR2]]\n"
	"       perfcap loss --unwind [FILE|DIR]\n"
	"\n"
	"Report what was lost while recording FILE (default perf.data), or the\n"
	"directory written by perf record --threads: samples per event, LOST and\n"
	"LOST_SAMPLES records and totals, THROTTLE/UNTHROTTLE, per-CPU counts, the\n"
	"loss fraction and lost_time/elapsed_time. With two files, the two side by\n"
	"side. See perfcap-loss(1).\n"
	"\n"
	"  -j, --json         one JSON object instead of the table (two files: an\n"
	"                     array of two)\n"
	"      --svg          an SVG timeline on stdout: per CPU the record rate, the\n"
	"                     lost intervals and throttles; two files stacked\n"
	"      --html         the same picture in an HTML page with a legend and the\n"
	"                     numbers\n"
	"  -i, --input FILE   a file to read (may be given twice)\n"
	"      --unwind       with the table, of a DWARF recording (--call-graph dwarf):\n"
	"                     how many samples unwind whole, and why the others stop\n"
	"                     early (the unwinding of perfcap inject --convert-callchain)\n"
	"  -h, --help         this text\n"
	"\n"
	"Exit status: 0 the files were read (loss or not), 1 one cannot be read,\n"
	"2 usage error.\n";

/* ---- output ------------------------------------------------------------ */

/*
 * A JSON string: quotes, backslashes and control characters escaped; a
 * byte that is not part of well-formed UTF-8 (a file name may hold any)
 * becomes U+FFFD, so that the output is always valid JSON.
 */
static void json_string(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	putchar('"');
	while (*s) {
		size_t n = utf8_len(s);

		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if (*s < 0x20)
			printf("\\u%04x", *s);
		else if (n)
			fwrite(s, 1, n, stdout);
		else
			fputs("\\ufffd", stdout);
		s += n ? n : 1;
	}
	putchar('"');
}

static void json_u64(const char *key, bool valid, uint64_t v, bool comma)
{
	printf("  \"%s\": ", key);
	if (valid)
		printf("%" PRIu64, v);
	else
		printf("null");
	printf("%s\n", comma ? "," : "");
}

static void json_frac(const char *key, bool valid, double v)
{
	printf("  \"%s\": ", key);
	if (valid)
		printf("%.6f", v);
	else
		printf("null");
	printf(",\n");
}

static void json_cpu(const struct loss_stats *ls, const struct loss_cpu *c, int64_t cpu,
		     bool *first)
{
	printf("%s\n    {\"cpu\": ", *first ? "" : ",");
	*first = false;
	if (cpu >= 0)
		printf("%" PRId64, cpu);
	else
		printf("\"unknown\"");
	printf(", \"samples\": %" PRIu64 ", \"lost_records\": %" PRIu64
	       ", \"lost_events\": %" PRIu64 ", \"lost_time_ns\": ",
	       c->samples, c->lost_records, c->lost_events);
	if (ls->lost_time_valid)
		printf("%" PRIu64, c->lost_time);
	else
		printf("null");
	printf(", \"offline_time_ns\": %" PRIu64 "}", c->offline_time);
}

/* One JSON object; more says another follows in an array. */
static void print_json(const struct perf_reader *r, const struct loss_stats *ls, bool more)
{
	bool first = true;

	printf("{\n  \"file\": ");
	json_string(r->path);
	printf(",\n  \"events\": [");
	for (size_t i = 0; i < ls->nr_events; i++) {
		printf("%s\n    {\"name\": ", i ? "," : "");
		json_string(r->attrs[i].name);
		printf(", \"samples\": %" PRIu64 ", \"lost_samples\": %" PRIu64 "}",
		       ls->event_samples[i], ls->event_lost_samples[i]);
	}
	printf("\n  ],\n");
	json_u64("samples", true, ls->samples, true);
	json_u64("samples_unknown_event", true, ls->unknown_samples, true);
	json_u64("lost_records", true, ls->lost_records, true);
	json_u64("lost_events", true, ls->lost_events, true);
	json_u64("lost_samples_records", true, ls->lost_samples_records, true);
	json_u64("lost_samples", true, ls->lost_samples, true);
	json_u64("lost_samples_final", true, ls->lost_samples_final, true);
	json_u64("lost", true, ls->lost, true);
	json_u64("triage_records", true, ls->triage_records, true);
	json_u64("triage_dropped", true, ls->triage_dropped, true);
	json_frac("loss_fraction", ls->loss_fraction_valid, ls->loss_fraction);
	json_u64("throttle", true, ls->throttle, true);
	json_u64("unthrottle", true, ls->unthrottle, true);
	json_u64("first_time_ns", ls->have_time, ls->first_time, true);
	json_u64("last_time_ns", ls->have_time, ls->last_time, true);
	json_u64("elapsed_time_ns", ls->elapsed_valid, ls->elapsed_time, true);
	json_u64("lost_time_ns", ls->lost_time_valid, ls->lost_time, true);
	json_frac("lost_time_fraction", ls->lost_time_fraction_valid, ls->lost_time_fraction);
	json_u64("compressed_records", true, ls->compressed, true);
	json_u64("offline_time_ns", true, ls->offline_time, true);
	printf("  \"offline\": [");
	for (size_t i = 0; i < ls->nr_gaps; i++) {
		const struct loss_gap *g = &ls->gaps[i];

		printf("%s\n    {\"cpu\": %" PRId64 ", \"start_ns\": %" PRIu64 ", \"end_ns\": %" PRIu64
		       ", \"from_first\": %s, \"to_last\": %s}", i ? "," : "", g->cpu, g->start, g->end,
		       g->from_first ? "true" : "false", g->to_last ? "true" : "false");
	}
	printf("%s],\n", ls->nr_gaps ? "\n  " : "");
	printf("  \"cpus\": [");
	for (size_t i = 0; i < ls->nr_cpus; i++)
		if (ls->cpus[i].seen)
			json_cpu(ls, &ls->cpus[i], (int64_t)i, &first);
	if (ls->unknown_cpu.seen)
		json_cpu(ls, &ls->unknown_cpu, -1, &first);
	printf("\n  ]\n}%s\n", more ? "," : "");
}

/* ns as seconds with 9 decimals, or "n/a". */
static const char *secs(char *buf, size_t size, bool valid, uint64_t ns)
{
	if (!valid)
		snprintf(buf, size, "n/a");
	else
		snprintf(buf, size, "%" PRIu64 ".%09" PRIu64 " s", ns / 1000000000,
			 ns % 1000000000);
	return buf;
}

static const char *percent(char *buf, size_t size, bool valid, double v)
{
	if (!valid)
		snprintf(buf, size, "n/a");
	else
		snprintf(buf, size, "%.3f%%", v * 100);
	return buf;
}

static void print_cpu_row(const struct loss_stats *ls, const struct loss_cpu *c,
			  const char *name)
{
	char b[48];

	printf("  %-8s %12" PRIu64 " %13" PRIu64 " %13" PRIu64 "  %s\n", name, c->samples,
	       c->lost_records, c->lost_events,
	       secs(b, sizeof(b), ls->lost_time_valid, c->lost_time));
}

/*
 * The CPUs that were offline a while and recorded again (perfcap record
 * opens their events again): time not recorded, not lost, since nothing
 * ran there. Times from the first timestamp, as perf script's are not.
 */
static void print_offline(const struct loss_stats *ls)
{
	char b1[48], b2[48], b3[48];

	if (!ls->nr_gaps)
		return;
	printf("\n  CPUs offline (not recorded, nothing lost): %s in all\n",
	       secs(b1, sizeof(b1), true, ls->offline_time));
	printf("  %-8s %15s %15s %15s\n", "cpu", "from", "to", "not recorded");
	for (size_t i = 0; i < ls->nr_gaps; i++) {
		const struct loss_gap *g = &ls->gaps[i];

		printf("  %-8" PRId64 " %15s %15s %15s%s%s\n", g->cpu,
		       secs(b1, sizeof(b1), true, g->start - ls->first_time),
		       secs(b2, sizeof(b2), true, g->end - ls->first_time),
		       secs(b3, sizeof(b3), true, g->end - g->start),
		       g->from_first ? "  (no sample there before)" : "",
		       g->to_last ? "  (no sample there after)" : "");
	}
}

static void print_table(const struct perf_reader *r, const struct loss_stats *ls)
{
	char b1[48], b2[48];

	printf("%s\n", r->path);
	printf("  %-24s %12s %13s\n", "event", "samples", "lost_samples");
	for (size_t i = 0; i < ls->nr_events; i++)
		printf("  %-24s %12" PRIu64 " %13" PRIu64 "\n", r->attrs[i].name,
		       ls->event_samples[i], ls->event_lost_samples[i]);
	if (ls->unknown_samples)
		printf("  %-24s %12" PRIu64 "\n", "(id not in header)", ls->unknown_samples);
	printf("\n");
	printf("  %-22s %12" PRIu64 "\n", "samples", ls->samples);
	printf("  %-22s %12" PRIu64 "   lost events %" PRIu64 "\n", "LOST records",
	       ls->lost_records, ls->lost_events);
	printf("  %-22s %12" PRIu64 "   lost samples %" PRIu64 " (%" PRIu64
	       " in end-of-run counters)\n", "LOST_SAMPLES records",
	       ls->lost_samples_records, ls->lost_samples, ls->lost_samples_final);
	printf("  %-22s %12" PRIu64 "\n", "lost", ls->lost);
	if (ls->triage_records)
		printf("  %-22s %12" PRIu64 "   dropped by the recorder (output behind) in %" PRIu64
		       " LOST_SAMPLES records\n", "triage dropped", ls->triage_dropped,
		       ls->triage_records);
	printf("  %-22s %12s   lost / (lost + samples)\n", "loss fraction",
	       percent(b1, sizeof(b1), ls->loss_fraction_valid, ls->loss_fraction));
	printf("  %-22s %12" PRIu64 "   UNTHROTTLE %" PRIu64 "\n", "THROTTLE", ls->throttle,
	       ls->unthrottle);
	printf("  %-22s %s\n", "elapsed time",
	       secs(b1, sizeof(b1), ls->elapsed_valid, ls->elapsed_time));
	printf("  %-22s %s (%s of elapsed)\n", "lost time",
	       secs(b1, sizeof(b1), ls->lost_time_valid, ls->lost_time),
	       percent(b2, sizeof(b2), ls->lost_time_fraction_valid, ls->lost_time_fraction));
	if (ls->compressed)
		printf("  %-22s %12" PRIu64 "   (perf record -z; their records are counted above)\n",
		       "COMPRESSED records", ls->compressed);
	printf("\n  %-8s %12s %13s %13s  %s\n", "cpu", "samples", "lost_records",
	       "lost_events", "lost_time");
	for (size_t i = 0; i < ls->nr_cpus; i++) {
		if (!ls->cpus[i].seen)
			continue;
		snprintf(b1, sizeof(b1), "%zu", i);
		print_cpu_row(ls, &ls->cpus[i], b1);
	}
	if (ls->unknown_cpu.seen)
		print_cpu_row(ls, &ls->unknown_cpu, "unknown");
	print_offline(ls);
}

/* ---- two files side by side -------------------------------------------- */

static void cmp_u64(const char *name, uint64_t a, uint64_t b)
{
	printf("  %-22s %20" PRIu64 " %20" PRIu64 "\n", name, a, b);
}

static void cmp_str(const char *name, const char *a, const char *b)
{
	printf("  %-22s %20s %20s\n", name, a, b);
}

static const struct loss_cpu *cpu_of(const struct loss_stats *ls, size_t i)
{
	static const struct loss_cpu none;

	if (i == ls->nr_cpus)
		return ls->unknown_cpu.seen ? &ls->unknown_cpu : &none;
	return i < ls->nr_cpus && ls->cpus[i].seen ? &ls->cpus[i] : &none;
}

static void print_compare(struct perf_reader *r, struct loss_stats *ls)
{
	char a[48], b[48];
	size_t nr_cpus = MAX(ls[0].nr_cpus, ls[1].nr_cpus);

	printf("A  %s\nB  %s\n\n", r[0].path, r[1].path);
	printf("  %-22s %20s %20s\n", "", "A", "B");
	cmp_u64("samples", ls[0].samples, ls[1].samples);
	cmp_u64("LOST records", ls[0].lost_records, ls[1].lost_records);
	cmp_u64("lost events", ls[0].lost_events, ls[1].lost_events);
	cmp_u64("lost samples", ls[0].lost_samples, ls[1].lost_samples);
	cmp_u64("lost", ls[0].lost, ls[1].lost);
	cmp_str("loss fraction",
		percent(a, sizeof(a), ls[0].loss_fraction_valid, ls[0].loss_fraction),
		percent(b, sizeof(b), ls[1].loss_fraction_valid, ls[1].loss_fraction));
	cmp_u64("THROTTLE", ls[0].throttle, ls[1].throttle);
	cmp_str("elapsed time", secs(a, sizeof(a), ls[0].elapsed_valid, ls[0].elapsed_time),
		secs(b, sizeof(b), ls[1].elapsed_valid, ls[1].elapsed_time));
	cmp_str("lost time", secs(a, sizeof(a), ls[0].lost_time_valid, ls[0].lost_time),
		secs(b, sizeof(b), ls[1].lost_time_valid, ls[1].lost_time));
	cmp_str("lost time fraction",
		percent(a, sizeof(a), ls[0].lost_time_fraction_valid, ls[0].lost_time_fraction),
		percent(b, sizeof(b), ls[1].lost_time_fraction_valid, ls[1].lost_time_fraction));

	printf("\n  %-8s %12s %12s %13s %13s %15s %15s\n", "cpu", "samples A", "samples B",
	       "lost_events A", "lost_events B", "lost_time A", "lost_time B");
	for (size_t i = 0; i <= nr_cpus; i++) {
		const struct loss_cpu *c0, *c1;
		char name[24];

		if (i == nr_cpus && !ls[0].unknown_cpu.seen && !ls[1].unknown_cpu.seen)
			break;
		c0 = cpu_of(&ls[0], i == nr_cpus ? ls[0].nr_cpus : i);
		c1 = cpu_of(&ls[1], i == nr_cpus ? ls[1].nr_cpus : i);
		if (!c0->seen && !c1->seen)
			continue;
		if (i == nr_cpus)
			snprintf(name, sizeof(name), "unknown");
		else
			snprintf(name, sizeof(name), "%zu", i);
		printf("  %-8s %12" PRIu64 " %12" PRIu64 " %13" PRIu64 " %13" PRIu64 " %15s %15s\n",
		       name, c0->samples, c1->samples, c0->lost_events, c1->lost_events,
		       secs(a, sizeof(a), ls[0].lost_time_valid && c0->seen, c0->lost_time),
		       secs(b, sizeof(b), ls[1].lost_time_valid && c1->seen, c1->lost_time));
	}
}

/* ---- the command -------------------------------------------------------- */

enum loss_format { LOSS_TABLE, LOSS_JSON, LOSS_SVG, LOSS_HTML };

/* argv → format and one or two paths. 0, 1 (help printed) or -EINVAL. */
static int parse_args(int argc, char **argv, enum loss_format *format, const char **paths,
		      size_t *nr_paths, bool *unwind)
{
	bool opts_done = false;

	*unwind = false;
	*format = LOSS_TABLE;
	*nr_paths = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		enum loss_format fmt = LOSS_TABLE;

		if (opts_done || a[0] != '-' || !a[1]) {
			if (*nr_paths == 2)
				goto usage;
			paths[(*nr_paths)++] = a;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(loss_usage, stdout);
			return 1;
		} else if (!strcmp(a, "-j") || !strcmp(a, "--json")) {
			fmt = LOSS_JSON;
		} else if (!strcmp(a, "--unwind")) {
			*unwind = true;
			continue;
		} else if (!strcmp(a, "--svg")) {
			fmt = LOSS_SVG;
		} else if (!strcmp(a, "--html")) {
			fmt = LOSS_HTML;
		} else if (!strcmp(a, "-i") || !strcmp(a, "--input") ||
			   !strncmp(a, "--input=", 8)) {
			const char *p = a[1] == '-' && a[7] == '=' ? a + 8 : argv[++i];

			if (!p || *nr_paths == 2)
				goto usage;
			paths[(*nr_paths)++] = p;
			continue;
		} else if (!strcmp(a, "--")) {
			opts_done = true;
			continue;
		} else {
			fprintf(stderr, "perfcap loss: unknown option '%s'\n", a);
			goto usage;
		}
		if (*format != LOSS_TABLE && *format != fmt) {
			fprintf(stderr, "perfcap loss: --json, --svg and --html exclude each other\n");
			goto usage;
		}
		*format = fmt;
	}
	if (!*nr_paths)
		paths[(*nr_paths)++] = "perf.data";
	if (*unwind && (*nr_paths > 1 || *format != LOSS_TABLE)) {
		fprintf(stderr, "perfcap loss: --unwind goes with one file and the table\n");
		goto usage;
	}
	return 0;
usage:
	fputs(loss_usage, stderr);
	return -EINVAL;
}

static int loss_record(struct perf_reader *r, const struct perf_reader_record *rec,
		       void *priv)
{
	return loss_stats__add_record(priv, r, rec->header);
}

static int timeline_record(struct perf_reader *r, const struct perf_reader_record *rec,
			   void *priv)
{
	return loss_timeline__add_record(priv, r, rec->header);
}

/* The picture needs a second pass: the first gave the time range. */
static int write_picture(struct perf_reader *r, struct loss_stats *ls, size_t n,
			 enum loss_format format)
{
	struct loss_timeline tl[2], *tlp[2];
	uint64_t max_elapsed = 0, bucket_ns;
	size_t inited = 0;
	int err = 0;

	for (size_t i = 0; i < n; i++)
		max_elapsed = MAX(max_elapsed, ls[i].elapsed_time);
	bucket_ns = loss_timeline__bucket_ns(max_elapsed);
	for (; inited < n; inited++) {
		size_t i = inited;

		loss_timeline__init(&tl[i], &r[i], &ls[i], bucket_ns);
		tlp[i] = &tl[i];
		err = perf_reader__for_each_record(&r[i], timeline_record, &tl[i]);
		if (err) {
			pr_err("%s: cannot be read to the end a second time; no picture\n",
			       r[i].path);
			inited++;
			goto out;
		}
	}
	if (format == LOSS_SVG)
		err = loss_svg__write(stdout, tlp, n, true);
	else
		err = loss_html__write(stdout, tlp, n);
	if (err)
		pr_err("cannot write the picture to standard output: %s\n", strerror(-err));
out:
	for (size_t i = 0; i < inited; i++)
		loss_timeline__exit(&tl[i]);
	return err;
}

/*
 * --unwind: the unwinding of inject --convert-callchain, run for its
 * numbers only: how many samples unwind whole, and why the others stop.
 */
static int print_unwinding(const struct perf_reader *r, const char *path)
{
	struct convert_opts o = { .input = path, .output = NULL, .max_stack = 127 };
	struct convert_stats st;
	bool dwarf = false;
	uint64_t t0;
	int err;

	for (size_t i = 0; i < r->nr_attrs; i++)
		dwarf |= callchain__attr_converts(&r->attrs[i].attr);
	printf("\nUnwinding (perfcap inject --convert-callchain):\n");
	if (!dwarf) {
		printf("  no event samples user stacks (--call-graph dwarf): nothing to unwind\n");
		return 0;
	}
	fflush(stdout);
	t0 = mono_ns();
	err = convert_callchain(&o, &st);
	if (!err) {
		printf("  ");
		convert_stats__print(stdout, &st, (mono_ns() - t0) / 1e9, true);
	}
	convert_stats__exit(&st);
	return err;
}

int cmd_loss(int argc, char **argv)
{
	const char *paths[2];
	enum loss_format format;
	struct perf_reader r[2];
	struct loss_stats ls[2];
	size_t n, opened = 0;
	bool unwind;
	int err;

	err = parse_args(argc, argv, &format, paths, &n, &unwind);
	if (err)
		return err > 0 ? 0 : 2;

	for (; opened < n; opened++) {
		size_t i = opened;

		if (perf_reader__open(&r[i], paths[i])) {
			err = -EINVAL;
			goto out;
		}
		loss_stats__init(&ls[i], r[i].nr_attrs);
		err = perf_reader__for_each_record(&r[i], loss_record, &ls[i]);
		if (err) {
			pr_err("%s: cannot be read to the end; no loss report\n", paths[i]);
			opened++;
			goto out;
		}
		loss_stats__finish(&ls[i]);
	}
	switch (format) {
	case LOSS_JSON:
		if (n > 1)
			printf("[\n");
		for (size_t i = 0; i < n; i++)
			print_json(&r[i], &ls[i], i + 1 < n);
		if (n > 1)
			printf("]\n");
		break;
	case LOSS_SVG:
	case LOSS_HTML:
		err = write_picture(r, ls, n, format);
		break;
	case LOSS_TABLE:
		if (n > 1)
			print_compare(r, ls);
		else
			print_table(&r[0], &ls[0]);
		if (unwind)
			err = print_unwinding(&r[0], paths[0]);
		break;
	}
	fflush(stdout);
out:
	for (size_t i = 0; i < opened; i++) {
		loss_stats__exit(&ls[i]);
		perf_reader__close(&r[i]);
	}
	return err ? 1 : 0;
}
