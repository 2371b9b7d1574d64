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

#include "builtin.h"
#include "loss.h"
#include "reader.h"
#include "util.h"

static const char loss_usage[] =
	"usage: perfcap loss [--json] [FILE|DIR]\n"
	"\n"
	"Report what was lost while recording FILE (default perf.data), or the\n"
	"directory written by perf record --threads: samples per event, LOST and\n"
	"LOST_SAMPLES records and totals, THROTTLE/UNTHROTTLE, per-CPU counts, the\n"
	"loss fraction and lost_time/elapsed_time. See perfcap-loss(1).\n"
	"\n"
	"  -j, --json         one JSON object instead of the table\n"
	"  -i, --input FILE   the file to read\n"
	"  -h, --help         this text\n"
	"\n"
	"Exit status: 0 the file was read (loss or not), 1 it cannot be read,\n"
	"2 usage error.\n";

/* ---- output ------------------------------------------------------------ */

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
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
		printf("%" PRIu64 "}", c->lost_time);
	else
		printf("null}");
}

static void print_json(const struct perf_reader *r, const struct loss_stats *ls)
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
	json_frac("loss_fraction", ls->loss_fraction_valid, ls->loss_fraction);
	json_u64("throttle", true, ls->throttle, true);
	json_u64("unthrottle", true, ls->unthrottle, true);
	json_u64("first_time_ns", ls->have_time, ls->first_time, true);
	json_u64("last_time_ns", ls->have_time, ls->last_time, true);
	json_u64("elapsed_time_ns", ls->elapsed_valid, ls->elapsed_time, true);
	json_u64("lost_time_ns", ls->lost_time_valid, ls->lost_time, true);
	json_frac("lost_time_fraction", ls->lost_time_fraction_valid, ls->lost_time_fraction);
	json_u64("compressed_records", true, ls->compressed, true);
	printf("  \"cpus\": [");
	for (size_t i = 0; i < ls->nr_cpus; i++)
		if (ls->cpus[i].seen)
			json_cpu(ls, &ls->cpus[i], (int64_t)i, &first);
	if (ls->unknown_cpu.seen)
		json_cpu(ls, &ls->unknown_cpu, -1, &first);
	printf("\n  ]\n}\n");
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
}

static int loss_record(struct perf_reader *r, const struct perf_reader_record *rec,
		       void *priv)
{
	return loss_stats__add_record(priv, r, rec->header);
}

int cmd_loss(int argc, char **argv)
{
	const char *path = NULL;
	bool json = false;
	struct perf_reader r;
	struct loss_stats ls;
	int err;

	err = perf_reader__parse_args(argc, argv, "loss", loss_usage, "-j", "--json", &json, &path);
	if (err)
		return err > 0 ? 0 : 2;

	if (perf_reader__open(&r, path))
		return 1;
	loss_stats__init(&ls, r.nr_attrs);
	err = perf_reader__for_each_record(&r, loss_record, &ls);
	if (err) {
		pr_err("%s: cannot be read to the end; no loss report\n", path);
		goto out;
	}
	loss_stats__finish(&ls);
	if (json)
		print_json(&r, &ls);
	else
		print_table(&r, &ls);
	fflush(stdout);
out:
	loss_stats__exit(&ls);
	perf_reader__close(&r);
	return err ? 1 : 0;
}
