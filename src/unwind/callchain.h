/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A DWARF sample turned into a callchain sample, and its event's attr
 * with it: what perfcap inject --convert-callchain and perfcap record
 * --unwind write for each sample, the way perf 6.1 reads fp callchains.
 *
 * The callchain keeps what the kernel put there (the kernel's frames,
 * behind PERF_CONTEXT_KERNEL) up to any PERF_CONTEXT_USER, then gets
 * PERF_CONTEXT_USER and the unwound user frames; REGS_USER and
 * STACK_USER go. Every other field keeps its bytes and its place.
 */
#ifndef PERFCAP_UNWIND_CALLCHAIN_H
#define PERFCAP_UNWIND_CALLCHAIN_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/sample-layout.h"
#include "unwind/unwind.h"

/* Whether attr a has DWARF stacks to convert (it samples STACK_USER). */
bool callchain__attr_converts(const struct perf_event_attr *a);
/* a, as the converted file says it: CALLCHAIN in, REGS_USER and STACK_USER out. */
void callchain__convert_attr(struct perf_event_attr *a);
/* The same on an attr of asize bytes as a file holds it (EVENT_DESC, HEADER_ATTR). */
void callchain__convert_attr_bytes(void *attr, size_t asize);

/*
 * The converted sample: rec (size bytes, layout l, fields f from
 * sample_layout__parse) with the nr user frames ips. out has room for
 * size + 8 * (nr + 2) bytes. Returns the new record's size.
 */
size_t callchain__rewrite(const void *rec, size_t size, const struct sample_layout *l,
			  const struct sample_fields *f, const uint64_t *ips, int nr, void *out);
/* The bytes a rewritten sample may take at most. */
static inline size_t callchain__max_size(size_t size, int nr)
{
	return size + 8 * ((size_t)nr + 2);
}

/*
 * Unwind the DWARF sample rec (size bytes, layout l, fields f, with
 * f->after_stack) of process pid at time with u, and write the converted
 * sample into out, which has room for callchain__max_size(size, max).
 * At most max user frames (fewer where the record would pass header.size's
 * 16 bits), into ips (room for max). Returns the new record's size; where
 * the unwinding stopped in *why, the DSO it stopped in (or -1) in *dso_idx.
 */
size_t callchain__unwind(struct unwinder *u, const void *rec, size_t size,
			 const struct sample_layout *l, const struct sample_fields *f,
			 uint32_t pid, uint64_t time, int max, uint64_t *ips, void *out,
			 enum unwind_stop *why, int *dso_idx);

#endif
