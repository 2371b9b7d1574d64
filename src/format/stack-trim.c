// SPDX-License-Identifier: GPL-2.0
#include <linux/perf_event.h>
#include <string.h>

#include "format/stack-trim.h"
#include "util.h"

size_t stack_trim__sample(void *rec, const struct sample_fields *f, size_t max)
{
	struct perf_event_header *h = rec;
	unsigned char *p = rec;
	uint64_t size, dyn, keep;
	size_t to;

	if (!f->stack)
		return h->size;
	memcpy(&size, p + f->stack, 8);
	if (!size)
		return h->size;
	memcpy(&dyn, p + f->after_stack - 8, 8);
	/* dyn_size is never more than size: the kernel says so; a file may lie. */
	dyn = MIN(dyn, size);
	if (max != STACK_TRIM_ALL && dyn > max)
		dyn = max & ~7ULL;
	keep = (dyn + 7) & ~7ULL;
	if (keep >= size)
		return h->size;
	if (!dyn) {
		/* The kernel's empty stack: size 0, no data, no dyn_size. */
		size = 0;
		memcpy(p + f->stack, &size, 8);
		to = f->stack + 8;
	} else {
		memcpy(p + f->stack, &keep, 8);
		memcpy(p + f->stack + 8 + keep, &dyn, 8);
		to = f->stack + 8 + keep + 8;
	}
	/* What follows the stack (weight, data_src, ...) moves up behind it. */
	memmove(p + to, p + f->after_stack, h->size - f->after_stack);
	h->size -= (uint16_t)(f->after_stack - to);
	return h->size;
}

size_t stack_trim__records(const void *buf, size_t len, void *out,
			   const struct sample_layouts *ls, size_t max,
			   struct stack_trim_stats *st)
{
	const unsigned char *in = buf;
	unsigned char *o = out;
	size_t at = 0, w = 0;

	while (len - at >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		const struct sample_layout *l;
		struct sample_fields f;

		memcpy(&h, in + at, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - at)
			break; /* not a whole record: copied as it is below */
		memmove(o + w, in + at, h.size);
		at += h.size;
		if (h.type == PERF_RECORD_SAMPLE && (l = sample_layouts__find(ls, o + w, h.size)) &&
		    l->sample_type & PERF_SAMPLE_STACK_USER) {
			st->samples++;
			if (sample_layout__parse(l, o + w, h.size, &f)) {
				st->bad++;
			} else {
				uint64_t dyn = 0, size = 0;

				memcpy(&size, o + w + f.stack, 8);
				if (size)
					memcpy(&dyn, o + w + f.after_stack - 8, 8);
				if (max != STACK_TRIM_ALL && dyn > max)
					st->cut++;
				h.size = (uint16_t)stack_trim__sample(o + w, &f, max);
			}
		}
		w += h.size;
	}
	/* A torn tail (cannot be in a ring's copy) goes on untouched. */
	memmove(o + w, in + at, len - at);
	w += len - at;
	st->bytes_in += len;
	st->bytes_out += w;
	return w;
}
