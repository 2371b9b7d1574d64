// SPDX-License-Identifier: GPL-2.0
/*
 * perfcap trim: a pipe-format stream (perf record -o -, perfcap record
 * -o -) copied with every DWARF sample's user stack cut to what the
 * kernel filled (format/stack-trim.h): the same code that perfcap record
 * trims its own samples with, for perf's recordings and for the tests
 * that check that perf unwinds a trimmed file as the untrimmed one.
 * Streams: it reads a record at a time, and learns the events from the
 * HEADER_ATTR records ahead of the samples.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/builtin.h"
#include "format/sample-layout.h"
#include "format/stack-trim.h"
#include "perf-file.h"
#include "util.h"

static const char trim_usage[] =
	"usage: perfcap trim [-i IN] [-o OUT] [--stack-max=BYTES]\n"
	"\n"
	"Copy a pipe-format recording (perf record -o -, perfcap record -o -)\n"
	"with each sample's user stack (--call-graph dwarf) cut to the bytes the\n"
	"kernel filled; perf report and perf script unwind the same call chains.\n"
	"\n"
	"  -i, --input IN       the stream to read (default: standard input)\n"
	"  -o, --output OUT     where to write it (default: standard output)\n"
	"  -s, --stack-max=N    cut every stack to at most N bytes too (a multiple of 8)\n"
	"  -v, --verbose        say how many bytes went\n"
	"  -h, --help           this text\n"
	"\n"
	"Exit status: 0 copied, 1 the stream cannot be read or written, 2 usage error.\n";

#define PIPE_HEADER_SIZE 16

/* A HEADER_ATTR record: the attr (its own size), then its ids. */
static int add_attr(struct sample_layouts *ls, const unsigned char *rec, size_t size)
{
	struct perf_event_attr a;
	uint32_t asize;
	size_t off = sizeof(struct perf_event_header);

	if (size < off + PERF_ATTR_SIZE_VER0)
		return -EINVAL;
	memcpy(&asize, rec + off + offsetof(struct perf_event_attr, size), 4);
	if (asize < PERF_ATTR_SIZE_VER0 || asize > size - off)
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	memcpy(&a, rec + off, MIN((size_t)asize, sizeof(a)));
	{
		size_t nr = (size - off - asize) / 8;
		uint64_t *ids = xzalloc((nr + 1) * sizeof(*ids));

		memcpy(ids, rec + off + asize, nr * 8);
		sample_layouts__add(ls, &a, ids, nr);
		free(ids);
	}
	return 0;
}

int cmd_trim(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "stack-max", required_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *in_path = NULL, *out_path = NULL;
	size_t max = STACK_TRIM_ALL;
	struct sample_layouts ls;
	struct stack_trim_stats st = { 0 };
	unsigned char buf[65536];
	uint64_t magic_size[2];
	FILE *in = stdin, *out = stdout;
	int opt, talk = 0, ret = 1;

	while ((opt = getopt_long(argc, argv, "i:o:s:vh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'i':
			in_path = optarg;
			break;
		case 'o':
			out_path = optarg;
			break;
		case 's': {
			char *end;
			unsigned long long v = strtoull(optarg, &end, 0);

			if (*end || !*optarg || v % 8 || v > 65528) {
				fprintf(stderr, "perfcap trim: --stack-max '%s': a multiple of 8 up to 65528\n",
					optarg);
				return 2;
			}
			max = v;
			break;
		}
		case 'v':
			talk++;
			break;
		case 'h':
			fputs(trim_usage, stdout);
			return 0;
		default:
			fputs(trim_usage, stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "perfcap trim: unexpected '%s'\n%s", argv[optind], trim_usage);
		return 2;
	}
	if (in_path && strcmp(in_path, "-") && !(in = fopen(in_path, "rb"))) {
		fprintf(stderr, "perfcap trim: %s: %s\n", in_path, strerror(errno));
		return 1;
	}
	if (out_path && strcmp(out_path, "-") && !(out = fopen(out_path, "wb"))) {
		fprintf(stderr, "perfcap trim: %s: %s\n", out_path, strerror(errno));
		if (in != stdin)
			fclose(in);
		return 1;
	}
	in_path = in_path ? in_path : "standard input";
	sample_layouts__init(&ls);
	if (fread(magic_size, 1, sizeof(magic_size), in) != sizeof(magic_size) ||
	    magic_size[0] != PERF_MAGIC2 || magic_size[1] != PIPE_HEADER_SIZE) {
		fprintf(stderr, "perfcap trim: %s is not a pipe-format recording (perf record -o -)\n",
			in_path);
		goto out;
	}
	if (fwrite(magic_size, 1, sizeof(magic_size), out) != sizeof(magic_size))
		goto out_write;
	for (;;) {
		struct perf_event_header *h = (struct perf_event_header *)buf;
		size_t n = fread(buf, 1, sizeof(*h), in), len;

		if (n == 0 && feof(in))
			break;
		if (n != sizeof(*h) || h->size < sizeof(*h) ||
		    fread(buf + sizeof(*h), 1, h->size - sizeof(*h), in) != h->size - sizeof(*h)) {
			/* As perf: a stream may end inside a record (its writer stopped). */
			fprintf(stderr, "perfcap trim: %s ends inside a record: the rest is left out\n",
				in_path);
			break;
		}
		if (h->type == PERF_RECORD_HEADER_ATTR && add_attr(&ls, buf, h->size)) {
			fprintf(stderr, "perfcap trim: %s: a HEADER_ATTR record that does not parse\n",
				in_path);
			goto out;
		}
		len = h->size;
		if (h->type == PERF_RECORD_SAMPLE)
			len = stack_trim__records(buf, len, buf, &ls, max, &st);
		if (fwrite(buf, 1, len, out) != len)
			goto out_write;
	}
	if (ferror(in)) {
		fprintf(stderr, "perfcap trim: %s: read error\n", in_path);
		goto out;
	}
	if (fflush(out))
		goto out_write;
	if (talk)
		fprintf(stderr, "perfcap trim: %" PRIu64 " samples with a user stack, %" PRIu64
			" bytes of samples in, %" PRIu64 " out\n", st.samples, st.bytes_in,
			st.bytes_out);
	ret = 0;
	goto out;
out_write:
	fprintf(stderr, "perfcap trim: %s: %s\n", out_path ? out_path : "standard output",
		strerror(errno));
out:
	sample_layouts__exit(&ls);
	if (in != stdin)
		fclose(in);
	if (out != stdout && fclose(out) && !ret) {
		fprintf(stderr, "perfcap trim: %s: %s\n", out_path, strerror(errno));
		ret = 1;
	}
	return ret;
}
