/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A DWARF sample's user stack (PERF_SAMPLE_STACK_USER: u64 size, char
 * data[size], u64 dyn_size) cut to the part the kernel filled: size
 * becomes dyn_size rounded up to 8 (the record stays 8-byte aligned),
 * dyn_size stays, the fields behind move up, header.size shrinks. A
 * stack with dyn_size 0 becomes the kernel's empty stack: size 0 and no
 * dyn_size. perf reads only dyn_size bytes of a stack, so perf report,
 * perf script and hotspot unwind the same chains (as simpleperf, which
 * trims every sample so).
 *
 * A limit below dyn_size cuts further, keeping the bytes nearest the
 * stack pointer (the innermost frames): dyn_size then says the limit.
 */
#ifndef PERFCAP_FORMAT_STACK_TRIM_H
#define PERFCAP_FORMAT_STACK_TRIM_H

#include <stddef.h>
#include <stdint.h>

#include "format/sample-layout.h"

/* No limit but dyn_size. */
#define STACK_TRIM_ALL SIZE_MAX

struct stack_trim_stats {
	uint64_t samples;	/* samples with a user stack seen */
	uint64_t cut;		/* ... cut below dyn_size by a limit */
	uint64_t bytes_in, bytes_out;	/* of all records walked */
	uint64_t bad;		/* samples that did not parse: left as they are */
};

/*
 * Trim the stack of sample rec in place (f from sample_layout__parse),
 * to at most max bytes. Returns the record's new size.
 */
size_t stack_trim__sample(void *rec, const struct sample_fields *f, size_t max);
/*
 * Every record of buf[0, len) (whole records) copied to out (room for
 * len bytes; out may be buf), each sample's stack trimmed to max. Returns
 * the bytes written to out.
 */
size_t stack_trim__records(const void *buf, size_t len, void *out,
			   const struct sample_layouts *ls, size_t max,
			   struct stack_trim_stats *st);

#endif
