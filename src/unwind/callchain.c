// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "unwind/callchain.h"
#include "util.h"

bool callchain__attr_converts(const struct perf_event_attr *a)
{
	return a->sample_type & PERF_SAMPLE_STACK_USER;
}

void callchain__convert_attr(struct perf_event_attr *a)
{
	if (!callchain__attr_converts(a))
		return;
	a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	a->sample_type &= ~(uint64_t)(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
	a->sample_regs_user = 0;
	a->sample_stack_user = 0;
	/* The user part is in the callchain now, as with fp. */
	a->exclude_callchain_user = 0;
}

void callchain__convert_attr_bytes(void *attr, size_t asize)
{
	struct perf_event_attr a;
	size_t n = MIN(asize, sizeof(a));

	if (n < PERF_ATTR_SIZE_VER0)
		return;
	memset(&a, 0, sizeof(a));
	memcpy(&a, attr, n);
	callchain__convert_attr(&a);
	memcpy(attr, &a, n);
}

size_t callchain__rewrite(const void *rec, size_t size, const struct sample_layout *l,
			  const struct sample_fields *f, const uint64_t *ips, int nr, void *out)
{
	const unsigned char *in = rec;
	unsigned char *o = out;
	size_t len, after_cc, after_regs;
	uint64_t old_nr = 0, new_nr = 0, v;
	struct perf_event_header h;

	/* Everything up to the callchain as it was. */
	memcpy(o, in, f->callchain);
	len = f->callchain;
	after_cc = f->callchain;
	if (l->sample_type & PERF_SAMPLE_CALLCHAIN) {
		memcpy(&old_nr, in + f->callchain, 8);
		after_cc = f->callchain + 8 + 8 * old_nr;
	}
	len += 8;	/* the new nr, filled in below */
	for (uint64_t i = 0; i < old_nr; i++) {
		memcpy(&v, in + f->callchain + 8 + 8 * i, 8);
		if (v == PERF_CONTEXT_USER)
			break;
		memcpy(o + len, &v, 8);
		len += 8;
		new_nr++;
	}
	if (nr > 0) {
		v = PERF_CONTEXT_USER;
		memcpy(o + len, &v, 8);
		len += 8;
		memcpy(o + len, ips, 8 * (size_t)nr);
		len += 8 * (size_t)nr;
		new_nr += 1 + (uint64_t)nr;
	}
	memcpy(o + f->callchain, &new_nr, 8);
	/* RAW and BRANCH_STACK as they were; REGS_USER and STACK_USER gone; the rest as it was. */
	memcpy(o + len, in + after_cc, f->regs_user - after_cc);
	len += f->regs_user - after_cc;
	after_regs = f->after_stack;
	memcpy(o + len, in + after_regs, size - after_regs);
	len += size - after_regs;
	memcpy(&h, o, sizeof(h));
	h.size = (uint16_t)len;
	memcpy(o, &h, sizeof(h));
	return len;
}

size_t callchain__unwind(struct unwinder *u, const void *rec, size_t size,
			 const struct sample_layout *l, const struct sample_fields *f,
			 uint32_t pid, uint64_t time, int max, uint64_t *ips, void *out,
			 enum unwind_stop *why, int *dso_idx)
{
	const unsigned char *p = rec;
	struct unwind_sample us = { .pid = pid, .time = time };
	uint64_t stack_size = 0, dyn = 0, abi = 0;
	int n;

	memcpy(&stack_size, p + f->stack, 8);
	if (stack_size)
		memcpy(&dyn, p + f->stack + 8 + stack_size, 8);
	if (l->sample_type & PERF_SAMPLE_REGS_USER)
		memcpy(&abi, p + f->regs_user, 8);
	us.regs_mask = abi ? l->regs_user : 0;
	us.regs = p + f->regs_user + 8;
	us.stack = p + f->stack + 8;
	us.stack_size = MIN(dyn, stack_size);
	/* The rewritten record must fit header.size's 16 bits. */
	while (max > 0 && callchain__max_size(size - (f->after_stack - f->regs_user), max) > 65528)
		max--;
	n = unwinder__unwind(u, &us, ips, max, why, dso_idx);
	return callchain__rewrite(rec, size, l, f, ips, n, out);
}
