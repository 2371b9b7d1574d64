// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target over the reader: what `perfcap dump` and `perfcap
 * dump --stats` do with a file, plus every feature section read out.
 * Any crash, sanitizer report, leak, timeout or allocation beyond
 * -malloc_limit_mb is a finding. See tests/fuzz/README.md.
 */
#include <string.h>

#include "cli/builtin.h"
#include "fuzz-common.h"
#include "perf-file.h"
#include "read/reader.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz__quiet();
	return 0;
}

static int sample_record(struct perf_reader *r, const struct perf_reader_record *rec,
			 void *priv)
{
	struct perf_reader_sample s;

	perf_reader__parse_sample(r, rec->header, &s);
	perf_reader__parse_id_sample(r, rec->header, &s);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	char *dump[] = { "dump", path, NULL };
	char *stats[] = { "dump", "--stats", path, NULL };
	int fd = fuzz__file(data, size, path, sizeof(path));
	struct perf_reader r;

	cmd_dump(2, dump);
	cmd_dump(3, stats);
	if (!perf_reader__open(&r, path)) {
		for (int bit = 0; bit < HEADER_FEAT_BITS; bit++) {
			void *buf;
			size_t len;

			if (!perf_reader__read_feature(&r, bit, &buf, &len))
				free(buf);
		}
		perf_reader__for_each_record(&r, sample_record, NULL);
		perf_reader__close(&r);
	}
	fflush(stdout);
	close(fd);
	return 0;
}
