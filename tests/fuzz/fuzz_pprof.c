// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target over perfcap pprof: the COMM/FORK pass, the map pass,
 * every sample's frames into locations and aggregated samples, the
 * symbols of whatever files the input's maps name, and the profile
 * encoded and gzipped (to /dev/null). A DWARF input is unwound first, as
 * the command does. See tests/fuzz/README.md.
 */
#include "fuzz-common.h"
#include "profile/pprof.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz__quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz__file(data, size, path, sizeof(path));
	struct pprof_opts o = {
		.input = path, .output = "/dev/null", .threads = 1,
		.labels = PPROF_LABEL_PID | PPROF_LABEL_TID | PPROF_LABEL_COMM | PPROF_LABEL_CPU,
	};
	struct pprof_stats st;

	pprof_write(&o, &st);
	close(fd);
	return 0;
}
