// SPDX-License-Identifier: GPL-2.0
/*
 * perfcap dump: print a perf.data file's header and records, or with
 * --stats the number of records of each type in the layout of
 * `perf report --stats`, so that the two can be compared line by line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/builtin.h"
#include "read/reader.h"
#include "util.h"

static const char dump_usage[] =
	"usage: perfcap dump [--stats] [FILE|DIR]\n"
	"\n"
	"Print a perf.data file's header (sections, feature bits, events with\n"
	"their sample_type and ids), then one line per record:\n"
	"  OFFSET [SIZE] TYPE [cpu C] [time T] [pid P tid T] [ip IP] [event NAME] ...\n"
	"(OFFSET is prefixed by the file name for the data.N files of a directory).\n"
	"\n"
	"  -s, --stats        count records per type, as perf report --stats prints\n"
	"  -i, --input FILE   the file to read (default perf.data)\n"
	"  -h, --help         this text\n"
	"\n"
	"Exit status: 0 read, 1 the file cannot be read, 2 usage error.\n";

/* Record types that fit the table; anything above is counted as unknown. */
#define NR_TYPES 128

struct dump_stats {
	uint64_t total;
	uint64_t nr[NR_TYPES];
	uint64_t nr_other;		/* types >= NR_TYPES */
	uint64_t *samples;		/* per attr */
	uint64_t *lost_samples;		/* per attr: sum of LOST_SAMPLES.lost */
};

static const char *type_name(uint32_t type, char *buf, size_t size)
{
	const char *name = perf_reader__record_name(type);

	if (name)
		return name;
	snprintf(buf, size, "UNKNOWN(%u)", type);
	return buf;
}

static void print_header(struct perf_reader *r)
{
	const struct perf_file_header *h = &r->header;
	char st[512];

	printf("# file: %s%s\n", r->path, r->is_dir ? " (directory)" : "");
	printf("# header: size %" PRIu64 ", attr_size %" PRIu64 ", file size %" PRIu64 "\n",
	       h->size, h->attr_size, r->file_size);
	printf("# attrs: offset %#" PRIx64 ", size %" PRIu64 " (%zu events)\n",
	       h->attrs.offset, h->attrs.size, r->nr_attrs);
	printf("# data: offset %#" PRIx64 ", size %" PRIu64 "\n", h->data.offset, h->data.size);
	printf("# event_types: offset %#" PRIx64 ", size %" PRIu64 "\n",
	       h->event_types.offset, h->event_types.size);
	printf("# features:");
	for (int i = HEADER_FEAT_BITS / 64 - 1; i >= 0; i--)
		if (h->adds_features[i] || !i)
			printf(" %#" PRIx64, h->adds_features[i]);
	printf(" =");
	for (int bit = 0; bit < HEADER_FEAT_BITS; bit++) {
		const char *name = perf_reader__feature_name(bit);

		if (!perf_reader__has_feature(r, bit))
			continue;
		if (name)
			printf(" %s", name);
		else
			printf(" bit%d", bit);
	}
	printf("\n");
	for (size_t i = 0; i < r->nr_features; i++) {
		const struct perf_reader_feature *f = &r->features[i];
		const char *name = perf_reader__feature_name(f->bit);

		printf("#   feature %-16s offset %#" PRIx64 ", size %" PRIu64 "\n",
		       name ? name : "?", f->offset, f->size);
	}
	if (r->is_dir)
		printf("# directory format version %" PRIu64 "\n", r->dir_version);
	for (size_t i = 0; i < r->nr_attrs; i++) {
		const struct perf_reader_attr *a = &r->attrs[i];
		const struct perf_event_attr *attr = &a->attr;

		printf("# event %zu: %s: type %u, config %#llx, size %u, %s %llu, "
		       "sample_type %#llx (%s), read_format %#llx, sample_id_all %u, ids",
		       i, a->name, attr->type, (unsigned long long)attr->config, attr->size,
		       attr->freq ? "sample_freq" : "sample_period",
		       (unsigned long long)attr->sample_period,
		       (unsigned long long)attr->sample_type,
		       perf_reader__sample_type_str(attr->sample_type, st, sizeof(st)),
		       (unsigned long long)attr->read_format, attr->sample_id_all);
		if (!a->nr_ids)
			printf(" none");
		for (size_t j = 0; j < a->nr_ids; j++)
			printf(" %" PRIu64, a->ids[j]);
		printf("\n");
	}
	for (size_t i = 0; i < r->nr_streams; i++)
		printf("# stream %zu: %s, offset %#" PRIx64 ", size %" PRIu64 "\n", i,
		       r->streams[i].path, r->streams[i].offset, r->streams[i].size);
}

static void print_fields(const struct perf_reader *r, const struct perf_reader_sample *s,
			 bool sample)
{
	uint64_t st = s->sample_type;

	if (st & PERF_SAMPLE_CPU)
		printf(" cpu %u", s->cpu);
	if (st & PERF_SAMPLE_TIME)
		printf(" time %" PRIu64, s->time);
	if (st & PERF_SAMPLE_TID)
		printf(" pid %d tid %d", (int)s->pid, (int)s->tid);
	if (sample && st & PERF_SAMPLE_IP)
		printf(" ip %#" PRIx64, s->ip);
	if (sample && st & PERF_SAMPLE_PERIOD)
		printf(" period %" PRIu64, s->period);
	if (sample && st & PERF_SAMPLE_CALLCHAIN)
		printf(" callchain %" PRIu64, s->callchain_nr);
	if (sample && st & PERF_SAMPLE_RAW)
		printf(" raw %u", s->raw_size);
	if (sample && st & PERF_SAMPLE_STACK_USER)
		printf(" stack %" PRIu64 "/%" PRIu64, s->user_stack_dyn_size, s->user_stack_size);
	if (sample && st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		printf(" weight %#" PRIx64, s->weight);
	if (sample && st & PERF_SAMPLE_DATA_SRC)
		printf(" data_src %#" PRIx64, s->data_src);
	if (sample && st & PERF_SAMPLE_PHYS_ADDR)
		printf(" phys_addr %#" PRIx64, s->phys_addr);
	if (sample && st & PERF_SAMPLE_CGROUP)
		printf(" cgroup %" PRIu64, s->cgroup);
	if (sample && st & PERF_SAMPLE_DATA_PAGE_SIZE)
		printf(" data_page_size %" PRIu64, s->data_page_size);
	if (sample && st & PERF_SAMPLE_CODE_PAGE_SIZE)
		printf(" code_page_size %" PRIu64, s->code_page_size);
	if (st & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER))
		printf(" id %" PRIu64, s->id);
	if (sample || s->attr >= 0)
		printf(" event %s", perf_reader__attr_name(r, s->attr));
}

static int dump_record(struct perf_reader *r, const struct perf_reader_record *rec,
		       void *priv)
{
	const struct perf_event_header *h = rec->header;
	struct perf_reader_sample s;
	char buf[32];
	uint64_t v[2];

	if (r->is_dir && rec->stream) {
		const char *slash = strrchr(r->streams[rec->stream].path, '/');

		printf("%s:", slash ? slash + 1 : r->streams[rec->stream].path);
	}
	printf("%#" PRIx64 " [%#x] %s", rec->offset, h->size, type_name(h->type, buf, sizeof(buf)));
	if (h->type == PERF_RECORD_SAMPLE) {
		if (perf_reader__parse_sample(r, h, &s))
			printf(" (too short for its sample_type)");
		else
			print_fields(r, &s, true);
	} else if (h->type < PERF_RECORD_USER_TYPE_START) {
		if (h->type == PERF_RECORD_LOST && h->size >= 24) {
			memcpy(v, h + 1, 16);
			printf(" lost-id %" PRIu64 " lost %" PRIu64, v[0], v[1]);
		} else if (h->type == PERF_RECORD_LOST_SAMPLES && h->size >= 16) {
			memcpy(v, h + 1, 8);
			printf(" lost %" PRIu64, v[0]);
		}
		if (!perf_reader__parse_id_sample(r, h, &s))
			print_fields(r, &s, false);
	}
	if (rec->payload_size)
		printf(" +%" PRIu64 " bytes", rec->payload_size);
	if (rec->compressed)
		printf(" (in the COMPRESSED record at %#" PRIx64 ")", rec->offset);
	printf("\n");
	return 0;
}

static int count_record(struct perf_reader *r, const struct perf_reader_record *rec,
			void *priv)
{
	struct dump_stats *st = priv;
	const struct perf_event_header *h = rec->header;
	struct perf_reader_sample s;

	st->total++;
	if (h->type < NR_TYPES)
		st->nr[h->type]++;
	else
		st->nr_other++;
	if (h->type == PERF_RECORD_SAMPLE) {
		if (!perf_reader__parse_sample(r, h, &s) && s.attr >= 0)
			st->samples[s.attr]++;
	} else if (h->type == PERF_RECORD_LOST_SAMPLES && h->size >= 16) {
		uint64_t lost;

		memcpy(&lost, h + 1, 8);
		if (!perf_reader__parse_id_sample(r, h, &s) && s.attr >= 0)
			st->lost_samples[s.attr] =
				perf_reader__add_count(st->lost_samples[s.attr], lost);
		else if (r->nr_attrs == 1)
			st->lost_samples[0] = perf_reader__add_count(st->lost_samples[0], lost);
	}
	return 0;
}

static void print_count(const char *name, uint64_t n, uint64_t total)
{
	if (total)
		printf("%16s events: %10" PRIu64 "  (%4.1f%%)\n", name, n, n * 100.0 / total);
	else
		printf("%16s events: %10" PRIu64 "\n", name, n);
}

static void print_stats(struct perf_reader *r, const struct dump_stats *st)
{
	char buf[32];

	printf("\nAggregated stats:\n");
	printf("%16s events: %10" PRIu64 "\n", "TOTAL", st->total);
	for (uint32_t t = 1; t < NR_TYPES; t++) {
		/* LOST and LOST_SAMPLES always: "no loss" is an answer too. */
		bool always = t == PERF_RECORD_LOST || t == PERF_RECORD_LOST_SAMPLES;

		if (st->nr[t] || always)
			print_count(type_name(t, buf, sizeof(buf)), st->nr[t], st->total);
	}
	if (st->nr_other)
		print_count("UNKNOWN", st->nr_other, st->total);
	for (size_t i = 0; i < r->nr_attrs; i++) {
		if (!st->samples[i] && !st->lost_samples[i])
			continue;
		printf("%s stats:\n", r->attrs[i].name);
		if (st->samples[i])
			printf("%16s events: %10" PRIu64 "\n", "SAMPLE", st->samples[i]);
		if (st->lost_samples[i])
			printf("%16s events: %10" PRIu64 "\n", "LOST_SAMPLES", st->lost_samples[i]);
	}
}

int cmd_dump(int argc, char **argv)
{
	const char *path = NULL;
	bool stats = false;
	struct perf_reader r;
	int err;

	err = perf_reader__parse_args(argc, argv, "dump", dump_usage, "-s", "--stats", &stats, &path);
	if (err)
		return err > 0 ? 0 : 2;

	if (perf_reader__open(&r, path))
		return 1;
	if (stats) {
		struct dump_stats st = { 0 };

		st.samples = xzalloc(r.nr_attrs * sizeof(*st.samples));
		st.lost_samples = xzalloc(r.nr_attrs * sizeof(*st.lost_samples));
		err = perf_reader__for_each_record(&r, count_record, &st);
		/* What was read before a bad record is still worth seeing. */
		print_stats(&r, &st);
		free(st.samples);
		free(st.lost_samples);
	} else {
		print_header(&r);
		err = perf_reader__for_each_record(&r, dump_record, NULL);
	}
	fflush(stdout);
	perf_reader__close(&r);
	if (err) {
		pr_err("%s: stopped at a corrupt or truncated record\n", path);
		return 1;
	}
	return 0;
}
