// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target over the loss accounting: every record of the file
 * through loss_stats__add_record(), then loss_stats__finish(), as
 * `perfcap loss` does; then the command itself with --json, for its
 * printing. See tests/fuzz/README.md.
 */
#include "cli/builtin.h"
#include "fuzz-common.h"
#include "read/loss.h"
#include "read/reader.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz__quiet();
	return 0;
}

static int add_record(struct perf_reader *r, const struct perf_reader_record *rec, void *priv)
{
	return loss_stats__add_record(priv, r, rec->header);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	char *json[] = { "loss", "--json", path, NULL };
	int fd = fuzz__file(data, size, path, sizeof(path));
	struct perf_reader r;

	if (!perf_reader__open(&r, path)) {
		struct loss_stats ls;

		loss_stats__init(&ls, r.nr_attrs);
		perf_reader__for_each_record(&r, add_record, &ls);
		loss_stats__finish(&ls);
		loss_stats__exit(&ls);
		perf_reader__close(&r);
		cmd_loss(3, json);
	}
	fflush(stdout);
	close(fd);
	return 0;
}
