// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target over perfcap inject --convert-callchain: the map pass,
 * the sample rewrite and the unwinding of every DWARF sample (the CFI of
 * whatever files the input's maps name, the expressions over its
 * registers and stack bytes), on one worker thread, writing nothing (as
 * perfcap loss --unwind does). See tests/fuzz/README.md.
 */
#include "fuzz-common.h"
#include "inject/convert.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz__quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz__file(data, size, path, sizeof(path));
	struct convert_opts o = { .input = path, .output = NULL, .threads = 1, .max_stack = 127 };
	struct convert_stats st;

	convert_callchain(&o, &st);
	convert_stats__exit(&st);
	close(fd);
	return 0;
}
