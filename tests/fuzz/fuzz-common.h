/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What both fuzz targets share: the input becomes a file (a memfd, so
 * nothing touches the disk) that the reader opens by path, as `perfcap
 * dump` and `perfcap loss` open theirs; stdout and the messages go to
 * /dev/null, so that the fuzzer's own output stays readable. Sanitizer
 * reports write to fd 2 directly and are not affected.
 */
#ifndef PERFCAP_FUZZ_COMMON_H
#define PERFCAP_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* PERFCAP_FUZZ_VERBOSE=1 keeps the messages (to see why an input is refused). */
static inline void fuzz__quiet(void)
{
	if (getenv("PERFCAP_FUZZ_VERBOSE"))
		return;
	if (!freopen("/dev/null", "w", stdout))
		abort();
	stderr = fopen("/dev/null", "w");
	if (!stderr)
		abort();
}

/* The input as a file: returns the fd (path in path) or -1. */
static inline int fuzz__file(const uint8_t *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("perfcap-fuzz", MFD_CLOEXEC);
	size_t done = 0;

	if (fd < 0)
		abort();
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);

		if (n <= 0)
			abort();
		done += n;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
