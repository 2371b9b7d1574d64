// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/sample-layout.h"
#include "perf-file.h"
#include "util.h"

void sample_layout__init(struct sample_layout *l, const struct perf_event_attr *a)
{
	memset(l, 0, sizeof(*l));
	l->sample_type = a->sample_type;
	l->read_format = a->read_format;
	l->regs_user = a->sample_regs_user;
	l->regs_intr = a->sample_regs_intr;
	l->branch_sample_type = a->branch_sample_type;
	l->sample_id_all = a->sample_id_all;
}

struct walk {
	const unsigned char *base;
	size_t at, size;
};

static bool skip(struct walk *w, uint64_t n)
{
	if (n > w->size - w->at)
		return false;
	w->at += n;
	return true;
}

static bool take_u64(struct walk *w, uint64_t *v)
{
	if (w->size - w->at < 8)
		return false;
	memcpy(v, w->base + w->at, 8);
	w->at += 8;
	return true;
}

/* Where the field of bytes n starts, or 0 if it does not fit. */
static size_t field(struct walk *w, size_t n)
{
	size_t at = w->at;

	return skip(w, n) ? at : 0;
}

static bool skip_read(struct walk *w, uint64_t rf)
{
	uint64_t nr = 1, per = 8;

	if (rf & PERF_FORMAT_ID)
		per += 8;
	if (rf & PERF_FORMAT_LOST)
		per += 8;
	if (rf & PERF_FORMAT_GROUP && !take_u64(w, &nr))
		return false;
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED && !skip(w, 8))
		return false;
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING && !skip(w, 8))
		return false;
	return nr <= w->size / per && skip(w, nr * per);
}

static bool skip_regs(struct walk *w, uint64_t mask)
{
	uint64_t abi;

	if (!take_u64(w, &abi))
		return false;
	return !abi || skip(w, 8 * (uint64_t)__builtin_popcountll(mask));
}

int sample_layout__parse(const struct sample_layout *l, const void *rec, size_t size,
			 struct sample_fields *f)
{
	struct walk w = { rec, sizeof(struct perf_event_header), size };
	uint64_t st = l->sample_type, n;

	memset(f, 0, sizeof(*f));
	if (size < w.at)
		return -EINVAL;
	if (st & PERF_SAMPLE_IDENTIFIER && !(f->id = field(&w, 8)))
		return -EINVAL;
	if (st & PERF_SAMPLE_IP && !skip(&w, 8))
		return -EINVAL;
	if (st & PERF_SAMPLE_TID && !(f->tid = field(&w, 8)))
		return -EINVAL;
	if (st & PERF_SAMPLE_TIME && !(f->time = field(&w, 8)))
		return -EINVAL;
	if (st & PERF_SAMPLE_ADDR && !skip(&w, 8))
		return -EINVAL;
	if (st & PERF_SAMPLE_ID) {
		size_t at = field(&w, 8);

		if (!at)
			return -EINVAL;
		if (!f->id)
			f->id = at;
	}
	if (st & PERF_SAMPLE_STREAM_ID && !(f->stream_id = field(&w, 8)))
		return -EINVAL;
	if (st & PERF_SAMPLE_CPU && !(f->cpu = field(&w, 8)))
		return -EINVAL;
	if (st & PERF_SAMPLE_PERIOD && !(f->period = field(&w, 8)))
		return -EINVAL;
	if (!(st & PERF_SAMPLE_STACK_USER))
		return 0; /* nothing further is looked for */
	if (st & PERF_SAMPLE_READ && !skip_read(&w, l->read_format))
		return -EINVAL;
	f->callchain = w.at;
	if (st & PERF_SAMPLE_CALLCHAIN &&
	    !(take_u64(&w, &n) && n <= size / 8 && skip(&w, 8 * n)))
		return -EINVAL;
	if (st & PERF_SAMPLE_RAW) {
		uint32_t raw;

		if (size - w.at < 4)
			return -EINVAL;
		memcpy(&raw, w.base + w.at, 4);
		/* u32 size + data, padded by the kernel so that what follows is aligned */
		if (!skip(&w, 4 + (uint64_t)raw))
			return -EINVAL;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		if (!take_u64(&w, &n) || n > size / 24)
			return -EINVAL;
		if (l->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX && !skip(&w, 8))
			return -EINVAL;
		if (!skip(&w, 24 * n))
			return -EINVAL;
	}
	f->regs_user = w.at;
	if (st & PERF_SAMPLE_REGS_USER && !skip_regs(&w, l->regs_user))
		return -EINVAL;
	f->stack = w.at;
	if (!take_u64(&w, &n) || !skip(&w, n))
		return -EINVAL;
	/* dyn_size only follows a stack that is not empty */
	if (n && !skip(&w, 8))
		return -EINVAL;
	f->after_stack = w.at;
	return 0;
}

static void put(unsigned char *out, size_t *len, const void *rec, size_t at)
{
	if (at)
		memcpy(out + *len, (const unsigned char *)rec + at, 8);
	else
		memset(out + *len, 0, 8);
	*len += 8;
}

size_t sample_layout__id_trailer(const struct sample_layout *l, const void *rec,
				 const struct sample_fields *f, void *out)
{
	uint64_t st = l->sample_type;
	size_t len = 0;

	if (!l->sample_id_all)
		return 0;
	/* The order of the kernel's __perf_event_header__init_id(). */
	if (st & PERF_SAMPLE_TID)
		put(out, &len, rec, f->tid);
	if (st & PERF_SAMPLE_TIME)
		put(out, &len, rec, f->time);
	if (st & PERF_SAMPLE_ID)
		put(out, &len, rec, f->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		put(out, &len, rec, f->stream_id);
	if (st & PERF_SAMPLE_CPU)
		put(out, &len, rec, f->cpu);
	if (st & PERF_SAMPLE_IDENTIFIER)
		put(out, &len, rec, f->id);
	return len;
}

void sample_layouts__init(struct sample_layouts *ls)
{
	memset(ls, 0, sizeof(*ls));
	ls->identifier = true;
	atomic_init(&ls->nr_late, 0);
}

void sample_layouts__add(struct sample_layouts *ls, const struct perf_event_attr *a,
			 const uint64_t *ids, size_t nr_ids)
{
	int k = ls->nr++;

	ls->l = xrealloc(ls->l, ls->nr * sizeof(*ls->l));
	sample_layout__init(&ls->l[k], a);
	if (!(a->sample_type & PERF_SAMPLE_IDENTIFIER))
		ls->identifier = false;
	ls->ids = xrealloc(ls->ids, (ls->nr_ids + nr_ids + 1) * sizeof(*ls->ids));
	ls->idx = xrealloc(ls->idx, (ls->nr_ids + nr_ids + 1) * sizeof(*ls->idx));
	for (size_t i = 0; i < nr_ids; i++) {
		/* Insertion sort: a recording has a few hundred ids at most. */
		size_t j = ls->nr_ids++;

		while (j && ls->ids[j - 1] > ids[i]) {
			ls->ids[j] = ls->ids[j - 1];
			ls->idx[j] = ls->idx[j - 1];
			j--;
		}
		ls->ids[j] = ids[i];
		ls->idx[j] = k;
	}
}

void sample_layouts__exit(struct sample_layouts *ls)
{
	free(ls->l);
	free(ls->ids);
	free(ls->idx);
	free(ls->late_ids);
	free(ls->late_idx);
	memset(ls, 0, sizeof(*ls));
}

int sample_layouts__add_late(struct sample_layouts *ls, int k, uint64_t id)
{
	size_t n = atomic_load_explicit(&ls->nr_late, memory_order_relaxed);

	if (n == SAMPLE_LAYOUTS_LATE_MAX)
		return -ENOSPC;
	if (!ls->late_ids) {
		/* Before any reader can look: the first CPU to come back, in the loop. */
		ls->late_ids = xzalloc(SAMPLE_LAYOUTS_LATE_MAX * sizeof(*ls->late_ids));
		ls->late_idx = xzalloc(SAMPLE_LAYOUTS_LATE_MAX * sizeof(*ls->late_idx));
	}
	ls->late_ids[n] = id;
	ls->late_idx[n] = k;
	atomic_store_explicit(&ls->nr_late, n + 1, memory_order_release);
	return 0;
}

/* A late id (sample_layouts__add_late): the layout, or NULL. */
static const struct sample_layout *find_late(const struct sample_layouts *ls, uint64_t id)
{
	size_t n = atomic_load_explicit(&((struct sample_layouts *)ls)->nr_late,
					memory_order_acquire);

	for (size_t i = 0; i < n; i++)
		if (ls->late_ids[i] == id)
			return &ls->l[ls->late_idx[i]];
	return NULL;
}

const struct sample_layout *sample_layouts__find(const struct sample_layouts *ls, const void *rec,
						 size_t size)
{
	size_t lo = 0, hi = ls->nr_ids;
	uint64_t id;

	if (ls->nr == 1)
		return &ls->l[0];
	/* With several events every sample starts with its id (evlist-config.c). */
	if (!ls->nr || !ls->identifier || size < sizeof(struct perf_event_header) + 8)
		return NULL;
	memcpy(&id, (const unsigned char *)rec + sizeof(struct perf_event_header), 8);
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ls->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ls->nr_ids && ls->ids[lo] == id)
		return &ls->l[ls->idx[lo]];
	return find_late(ls, id);
}
