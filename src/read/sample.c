// SPDX-License-Identifier: GPL-2.0
/*
 * Decoding samples: a PERF_RECORD_SAMPLE field by field as its attr's
 * sample_type lays it out, and the sample_id trailer of other kernel
 * records. Works on one record in memory, bounds-checked by the cursor;
 * nothing here reads the file.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "read/reader-internal.h"
#include "read/reader.h"

size_t perf_reader__id_hdr_size(uint64_t st)
{
	return perf_sample_id_size(st);
}

/* The attr whose layout decodes a record: by id when there is more than one. */
static const struct perf_reader_attr *pick_attr(const struct perf_reader *r, bool have_id,
						uint64_t id, int *idx)
{
	int i = 0;

	if (r->nr_attrs > 1)
		i = have_id ? perf_reader__attr_of_id(r, id) : -1;
	*idx = i;
	/* An id we do not know: perf requires one layout, so the first attr's does. */
	return &r->attrs[i < 0 ? 0 : i];
}

static bool skip_read(struct cursor *c, uint64_t read_format)
{
	size_t per = 8;
	uint64_t nr;

	if (!(read_format & PERF_FORMAT_GROUP)) {
		per += 8 * !!(read_format & PERF_FORMAT_TOTAL_TIME_ENABLED);
		per += 8 * !!(read_format & PERF_FORMAT_TOTAL_TIME_RUNNING);
		per += 8 * !!(read_format & PERF_FORMAT_ID);
		per += 8 * !!(read_format & PERF_FORMAT_LOST);
		return take(c, NULL, per);
	}
	if (!take_u64(c, &nr))
		return false;
	if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED && !take(c, NULL, 8))
		return false;
	if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING && !take(c, NULL, 8))
		return false;
	per += 8 * !!(read_format & PERF_FORMAT_ID);
	per += 8 * !!(read_format & PERF_FORMAT_LOST);
	return skip_n(c, nr, per);
}

static bool skip_regs(struct cursor *c, uint64_t mask, uint64_t *abi)
{
	if (!take_u64(c, abi))
		return false;
	return !*abi || skip_n(c, (uint64_t)__builtin_popcountll(mask), 8);
}

int perf_reader__parse_sample(const struct perf_reader *r, const struct perf_event_header *ev,
			      struct perf_reader_sample *s)
{
	const struct perf_reader_attr *a;
	const struct perf_event_attr *attr;
	struct cursor c = { (const unsigned char *)(ev + 1),
			    (const unsigned char *)ev + ev->size };
	uint64_t st, id = 0;
	bool have_id = false;
	uint32_t u32[2];

	memset(s, 0, sizeof(*s));
	if (ev->type != PERF_RECORD_SAMPLE || ev->size < sizeof(*ev) || !r->nr_attrs)
		return -EINVAL;
	if (r->id_pos >= 0 && (size_t)(c.end - c.p) >= (size_t)(r->id_pos + 1) * 8) {
		memcpy(&id, c.p + r->id_pos * 8, 8);
		have_id = true;
	}
	a = pick_attr(r, have_id, id, &s->attr);
	attr = &a->attr;
	st = s->sample_type = attr->sample_type;

	if (st & PERF_SAMPLE_IDENTIFIER && !take_u64(&c, &s->id))
		return -EINVAL;
	if (st & PERF_SAMPLE_IP && !take_u64(&c, &s->ip))
		return -EINVAL;
	if (st & PERF_SAMPLE_TID) {
		if (!take(&c, u32, 8))
			return -EINVAL;
		s->pid = u32[0];
		s->tid = u32[1];
	}
	if (st & PERF_SAMPLE_TIME && !take_u64(&c, &s->time))
		return -EINVAL;
	if (st & PERF_SAMPLE_ADDR && !take_u64(&c, &s->addr))
		return -EINVAL;
	if (st & PERF_SAMPLE_ID && !take_u64(&c, &s->id))
		return -EINVAL;
	if (st & PERF_SAMPLE_STREAM_ID && !take_u64(&c, &s->stream_id))
		return -EINVAL;
	if (st & PERF_SAMPLE_CPU) {
		if (!take(&c, u32, 8))
			return -EINVAL;
		s->cpu = u32[0];
	}
	if (st & PERF_SAMPLE_PERIOD && !take_u64(&c, &s->period))
		return -EINVAL;
	if (st & PERF_SAMPLE_READ && !skip_read(&c, attr->read_format))
		return -EINVAL;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (!take_u64(&c, &s->callchain_nr))
			return -EINVAL;
		s->callchain = c.p;
		if (!skip_n(&c, s->callchain_nr, 8))
			return -EINVAL;
	}
	if (st & PERF_SAMPLE_RAW) {
		/* u32 size + data; the kernel pads size so that the next field is aligned */
		if (!take_u32(&c, &s->raw_size))
			return -EINVAL;
		s->raw = c.p;
		if (!take(&c, NULL, s->raw_size))
			return -EINVAL;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		if (!take_u64(&c, &s->branch_nr))
			return -EINVAL;
		if (attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX && !take(&c, NULL, 8))
			return -EINVAL;
		if (!skip_n(&c, s->branch_nr, 3 * 8)) /* from, to, flags */
			return -EINVAL;
	}
	if (st & PERF_SAMPLE_REGS_USER &&
	    !skip_regs(&c, attr->sample_regs_user, &s->user_regs_abi))
		return -EINVAL;
	if (st & PERF_SAMPLE_STACK_USER) {
		if (!take_u64(&c, &s->user_stack_size) ||
		    !skip_n(&c, s->user_stack_size, 1))
			return -EINVAL;
		/* dyn_size only follows a non-empty stack */
		if (s->user_stack_size && !take_u64(&c, &s->user_stack_dyn_size))
			return -EINVAL;
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT) && !take_u64(&c, &s->weight))
		return -EINVAL;
	if (st & PERF_SAMPLE_DATA_SRC && !take_u64(&c, &s->data_src))
		return -EINVAL;
	if (st & PERF_SAMPLE_TRANSACTION && !take_u64(&c, &s->transaction))
		return -EINVAL;
	if (st & PERF_SAMPLE_REGS_INTR) {
		uint64_t abi;

		if (!skip_regs(&c, attr->sample_regs_intr, &abi))
			return -EINVAL;
	}
	if (st & PERF_SAMPLE_PHYS_ADDR && !take_u64(&c, &s->phys_addr))
		return -EINVAL;
	if (st & PERF_SAMPLE_CGROUP && !take_u64(&c, &s->cgroup))
		return -EINVAL;
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE && !take_u64(&c, &s->data_page_size))
		return -EINVAL;
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE && !take_u64(&c, &s->code_page_size))
		return -EINVAL;
	if (st & PERF_SAMPLE_AUX) {
		if (!take_u64(&c, &s->aux_size) || !skip_n(&c, s->aux_size, 1))
			return -EINVAL;
	}
	return 0;
}

int perf_reader__parse_id_sample(const struct perf_reader *r,
				 const struct perf_event_header *ev,
				 struct perf_reader_sample *s)
{
	const struct perf_reader_attr *a;
	const unsigned char *end = (const unsigned char *)ev + ev->size;
	struct cursor c;
	uint64_t st, id = 0;
	bool have_id = false;
	uint32_t u32[2];

	memset(s, 0, sizeof(*s));
	s->attr = -1;
	if (ev->type == PERF_RECORD_SAMPLE || ev->type >= PERF_RECORD_USER_TYPE_START ||
	    !r->sample_id_all || !r->nr_attrs)
		return -ENOENT;
	if (ev->size < sizeof(*ev))
		return -EINVAL;
	if (r->is_pos > 0 && ev->size >= sizeof(*ev) + (size_t)r->is_pos * 8) {
		memcpy(&id, end - r->is_pos * 8, 8);
		have_id = true;
	}
	a = pick_attr(r, have_id, id, &s->attr);
	st = s->sample_type = a->attr.sample_type;
	if (ev->size < sizeof(*ev) + a->id_hdr_size)
		return -EINVAL;
	c.p = end - a->id_hdr_size;
	c.end = end;
	if (st & PERF_SAMPLE_TID) {
		take(&c, u32, 8);
		s->pid = u32[0];
		s->tid = u32[1];
	}
	if (st & PERF_SAMPLE_TIME)
		take_u64(&c, &s->time);
	if (st & PERF_SAMPLE_ID)
		take_u64(&c, &s->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		take_u64(&c, &s->stream_id);
	if (st & PERF_SAMPLE_CPU) {
		take(&c, u32, 8);
		s->cpu = u32[0];
	}
	if (st & PERF_SAMPLE_IDENTIFIER)
		take_u64(&c, &s->id);
	return 0;
}
