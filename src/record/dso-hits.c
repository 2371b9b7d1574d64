// SPDX-License-Identifier: GPL-2.0
/*
 * Hit DSOs noted as the records go by (dso-hits.h). The reader's cost per
 * sample is a compare with the last page hit and, on a new page, one
 * probe of an open-addressing table; the map records are few.
 */
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "record/dso-hits.h"
#include "util.h"

#ifndef PERF_RECORD_MISC_MMAP_BUILD_ID
#define PERF_RECORD_MISC_MMAP_BUILD_ID (1 << 14)
#endif
#ifndef PERF_RECORD_MISC_MMAP_DATA
#define PERF_RECORD_MISC_MMAP_DATA (1 << 13)
#endif

#define PAGE_SHIFT_HITS 12
#define KERNEL_PID (-1)

void dso_hits__init(struct dso_hits *h, uint64_t st, bool track_samples)
{
	size_t off = sizeof(struct perf_event_header), id_hdr = 0;

	memset(h, 0, sizeof(*h));
	h->track_samples = track_samples;
	if (st & PERF_SAMPLE_IDENTIFIER)
		off += 8;
	if (st & PERF_SAMPLE_IP) {
		h->ip_off = off;
		off += 8;
	}
	if (st & PERF_SAMPLE_TID) {
		h->tid_off = off;
		off += 8;
	}
	if (st & PERF_SAMPLE_TIME)
		h->time_off = off;
	/* sample_id_all: {pid,tid} {time} {id} {stream_id} {cpu,res} {identifier} */
	id_hdr = 8 * !!(st & PERF_SAMPLE_TID) + 8 * !!(st & PERF_SAMPLE_TIME) +
		 8 * !!(st & PERF_SAMPLE_ID) + 8 * !!(st & PERF_SAMPLE_STREAM_ID) +
		 8 * !!(st & PERF_SAMPLE_CPU) + 8 * !!(st & PERF_SAMPLE_IDENTIFIER);
	if (st & PERF_SAMPLE_TIME)
		h->trailer_time_from_end = id_hdr - 8 * !!(st & PERF_SAMPLE_TID);
}

void dso_hits__reset(struct dso_hits *h)
{
	if (h->cap_pages)
		memset(h->pages, 0, h->cap_pages * sizeof(*h->pages));
	h->nr_pages = 0;
	h->last_hit = NULL;
	h->overflow = false;
	h->nr_maps = 0;
	h->nr_forks = 0;
	h->names_len = 0;
	h->have_last_name = false;
}

void dso_hits__exit(struct dso_hits *h)
{
	free(h->pages);
	free(h->maps);
	free(h->forks);
	free(h->names);
	memset(h, 0, sizeof(*h));
}

static size_t page_hash(int32_t pid, uint64_t page)
{
	return (size_t)(((page ^ ((uint64_t)(uint32_t)pid << 40)) * 0x9e3779b97f4a7c15ULL) >> 24);
}

static struct hit_page *pages__slot(struct hit_page *tab, size_t cap, int32_t pid,
				    uint64_t page)
{
	size_t i = page_hash(pid, page) & (cap - 1);

	while (tab[i].used && (tab[i].page != page || tab[i].pid != pid))
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

static void pages__grow(struct dso_hits *h)
{
	size_t cap = h->cap_pages ? h->cap_pages * 2 : 1024;
	struct hit_page *tab = xzalloc(cap * sizeof(*tab));

	for (size_t i = 0; i < h->cap_pages; i++)
		if (h->pages[i].used)
			*pages__slot(tab, cap, h->pages[i].pid, h->pages[i].page) = h->pages[i];
	free(h->pages);
	h->pages = tab;
	h->cap_pages = cap;
	h->last_hit = NULL;
}

static void note_sample(struct dso_hits *h, const char *p, const struct perf_event_header *hd)
{
	uint64_t ip, page, time = 0;
	int32_t pid = KERNEL_PID;
	uint16_t mode = hd->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	struct hit_page *e = h->last_hit;

	if (!h->ip_off || h->ip_off + 8 > hd->size)
		return;
	if (mode != PERF_RECORD_MISC_KERNEL && mode != PERF_RECORD_MISC_USER)
		return;	/* guests, the hypervisor: perfcap records the host only */
	memcpy(&ip, p + h->ip_off, 8);
	if (mode == PERF_RECORD_MISC_USER && h->tid_off && h->tid_off + 4 <= hd->size)
		memcpy(&pid, p + h->tid_off, 4);
	if (h->time_off && h->time_off + 8 <= hd->size)
		memcpy(&time, p + h->time_off, 8);
	page = ip >> PAGE_SHIFT_HITS;
	/* Most samples land on the page the one before did. */
	if (e && e->page == page && e->pid == pid) {
		if (time > e->last)
			e->last = time;
		return;
	}
	if (h->overflow)
		return;
	if ((h->nr_pages + 1) * 2 > h->cap_pages) {
		if (h->nr_pages >= DSO_HITS_MAX_PAGES) {
			h->overflow = true;
			return;
		}
		pages__grow(h);
	}
	e = pages__slot(h->pages, h->cap_pages, pid, page);
	if (!e->used) {
		e->used = 1;
		e->pid = pid;
		e->page = page;
		e->first = e->last = time;
		h->nr_pages++;
	} else {
		if (time < e->first)
			e->first = time;
		if (time > e->last)
			e->last = time;
	}
	h->last_hit = e;
}

static uint32_t add_name(struct dso_hits *h, const char *name, size_t max)
{
	size_t len = strnlen(name, max);
	uint32_t off;

	/* A file's maps come one after another (text, then its other parts). */
	if (h->have_last_name && !strncmp(h->names + h->last_name, name, len) &&
	    h->names[h->last_name + len] == 0)
		return h->last_name;
	if (h->names_len + len + 1 > h->names_cap) {
		h->names_cap = MAX(h->names_cap * 2, h->names_len + len + 1 + 4096);
		h->names = xrealloc(h->names, h->names_cap);
	}
	off = (uint32_t)h->names_len;
	memcpy(h->names + off, name, len);
	h->names[off + len] = 0;
	h->names_len += len + 1;
	h->last_name = off;
	h->have_last_name = true;
	return off;
}

static uint64_t record_time(const struct dso_hits *h, const char *p, size_t size)
{
	uint64_t t = 0;

	if (h->trailer_time_from_end && size >= h->trailer_time_from_end + 8)
		memcpy(&t, p + size - h->trailer_time_from_end, 8);
	return t;
}

static struct hit_map *new_map(struct dso_hits *h)
{
	if (h->nr_maps == h->cap_maps) {
		h->cap_maps = h->cap_maps ? h->cap_maps * 2 : 64;
		h->maps = xrealloc(h->maps, h->cap_maps * sizeof(*h->maps));
	}
	memset(&h->maps[h->nr_maps], 0, sizeof(*h->maps));
	return &h->maps[h->nr_maps++];
}

/*
 * MMAP: header, u32 pid, tid, u64 start, len, pgoff, filename.
 * MMAP2: the same, then {u32 maj, min, u64 ino, ino_generation} or
 * {u8 build_id_size, 3 pad, u8 build_id[20]}, u32 prot, flags, filename.
 */
static void note_map(struct dso_hits *h, const char *p, const struct perf_event_header *hd)
{
	size_t name_off = hd->type == PERF_RECORD_MMAP2 ? 72 : 40;
	uint64_t start, len;
	int32_t pid;
	struct hit_map *m;

	if (hd->size <= name_off || (hd->misc & PERF_RECORD_MISC_MMAP_DATA))
		return;	/* only code is hit by a sample's ip */
	memcpy(&pid, p + 8, 4);
	memcpy(&start, p + 16, 8);
	memcpy(&len, p + 24, 8);
	if ((hd->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
		pid = KERNEL_PID;
	m = new_map(h);
	m->pid = pid;
	m->start = start;
	m->end = start + len;
	m->time = record_time(h, p, hd->size);
	if (hd->type == PERF_RECORD_MMAP2) {
		if (hd->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			uint8_t n = (uint8_t)p[40];

			if (n > BUILD_ID_MAX)
				n = BUILD_ID_MAX;
			memcpy(m->bid.data, p + 44, n);
			m->bid.size = n;
		} else {
			memcpy(&m->maj, p + 40, 4);
			memcpy(&m->min, p + 44, 4);
			memcpy(&m->ino, p + 48, 8);
		}
	}
	m->name = add_name(h, p + name_off, hd->size - name_off);
}

/* FORK: header, u32 pid, ppid, tid, ptid, u64 time. A new process only. */
static void note_fork(struct dso_hits *h, const char *p, const struct perf_event_header *hd)
{
	int32_t pid, ppid;
	struct hit_fork *f;

	if (hd->size < 32)
		return;
	memcpy(&pid, p + 8, 4);
	memcpy(&ppid, p + 12, 4);
	if (pid == ppid)
		return;	/* a thread: same maps */
	if (h->nr_forks == h->cap_forks) {
		h->cap_forks = h->cap_forks ? h->cap_forks * 2 : 64;
		h->forks = xrealloc(h->forks, h->cap_forks * sizeof(*h->forks));
	}
	f = &h->forks[h->nr_forks++];
	f->pid = pid;
	f->ppid = ppid;
	memcpy(&f->time, p + 24, 8);
}

void dso_hits__observe(struct dso_hits *h, const void *buf, size_t len)
{
	const char *p = buf, *end = p + len;

	while (p + sizeof(struct perf_event_header) <= end) {
		const struct perf_event_header *hd = (const void *)p;

		if (hd->size < sizeof(*hd) || p + hd->size > end)
			return;	/* record_stats counts it as bad */
		switch (hd->type) {
		case PERF_RECORD_SAMPLE:
			if (h->track_samples)
				note_sample(h, p, hd);
			break;
		case PERF_RECORD_MMAP:
		case PERF_RECORD_MMAP2:
			note_map(h, p, hd);
			break;
		case PERF_RECORD_FORK:
			note_fork(h, p, hd);
			break;
		}
		p += hd->size;
	}
}

/* ---- the end: pages to maps to DSOs ------------------------------------ */

struct rmap {
	const struct hit_map *m;
	const char *name;
	bool hit;
};

struct resolver {
	struct rmap *maps;	/* sorted by pid */
	size_t nr_maps;
	struct hit_fork *forks;	/* sorted by pid, time */
	size_t nr_forks;
	bool kernel_hit;
};

static int rmap_cmp(const void *a, const void *b)
{
	const struct rmap *x = a, *y = b;

	if (x->m->pid != y->m->pid)
		return x->m->pid < y->m->pid ? -1 : 1;
	return x->m->start < y->m->start ? -1 : x->m->start > y->m->start;
}

static int fork_cmp(const void *a, const void *b)
{
	const struct hit_fork *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

/* The first map of pid in r->maps (r->nr_maps when none). */
static size_t first_of_pid(const struct resolver *r, int32_t pid)
{
	size_t lo = 0, hi = r->nr_maps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->maps[mid].m->pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool is_kernel_image(const char *name)
{
	return !strncmp(name, "[kernel.kallsyms]", 17);
}

/*
 * The map of pid that held addr at time t: of those covering addr, the
 * one mapped last before t (a later map over the same range replaced it).
 * A process without one got its maps from its parent at the fork.
 */
static struct rmap *find_map(struct resolver *r, int32_t pid, uint64_t addr, uint64_t t)
{
	for (int depth = 0; depth < 32; depth++) {
		struct rmap *best = NULL;
		size_t lo, hi;

		for (size_t i = first_of_pid(r, pid); i < r->nr_maps && r->maps[i].m->pid == pid; i++) {
			const struct hit_map *m = r->maps[i].m;

			if (m->start > addr)
				break;
			if (addr >= m->end || (m->time && m->time > t))
				continue;
			if (pid == KERNEL_PID && is_kernel_image(r->maps[i].name))
				continue;	/* modules first; the rest is the kernel's */
			if (!best || m->time >= best->m->time)
				best = &r->maps[i];
		}
		if (best || pid == KERNEL_PID)
			return best;
		/* The fork of pid last before t. */
		lo = 0;
		hi = r->nr_forks;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (r->forks[mid].pid < pid ||
			    (r->forks[mid].pid == pid && r->forks[mid].time <= t))
				lo = mid + 1;
			else
				hi = mid;
		}
		if (!lo || r->forks[lo - 1].pid != pid)
			return NULL;
		t = r->forks[lo - 1].time;
		pid = r->forks[lo - 1].ppid;
	}
	return NULL;
}

static void resolve_page(struct resolver *r, const struct hit_page *pg)
{
	uint64_t addr = pg->page << PAGE_SHIFT_HITS;
	uint64_t times[2] = { pg->first, pg->last };

	for (int k = 0; k < 2; k++) {
		struct rmap *m = find_map(r, pg->pid, addr, times[k]);

		if (m)
			m->hit = true;
		else if (pg->pid == KERNEL_PID)
			r->kernel_hit = true;
		if (pg->first == pg->last)
			break;
	}
}

/* Only files and the vdso have build ids: not //anon, [heap], [stack]. */
static bool has_file(const char *name)
{
	return (name[0] == '/' && name[1] != '/') || !strcmp(name, "[vdso]");
}

static int dso_cmp(const void *a, const void *b)
{
	const struct hit_dso *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->bid.size != y->bid.size)
		return x->bid.size < y->bid.size ? -1 : 1;
	c = memcmp(x->bid.data, y->bid.data, x->bid.size);
	if (c || x->bid.size)
		return c;
	if (x->maj != y->maj)
		return x->maj < y->maj ? -1 : 1;
	if (x->min != y->min)
		return x->min < y->min ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

size_t dso_hits__resolve(struct dso_hits *const *h, int n, bool every_dso,
			 struct hit_dso **out)
{
	struct resolver r = { 0 };
	struct hit_dso *d;
	size_t nr = 0, k = 0, nmaps = 0, nforks = 0;
	bool all = every_dso;

	for (int i = 0; i < n; i++) {
		nmaps += h[i]->nr_maps;
		nforks += h[i]->nr_forks;
		all |= h[i]->overflow;
	}
	r.maps = xzalloc((nmaps + 1) * sizeof(*r.maps));
	r.forks = xzalloc((nforks + 1) * sizeof(*r.forks));
	for (int i = 0; i < n; i++) {
		for (size_t j = 0; j < h[i]->nr_maps; j++) {
			r.maps[r.nr_maps].m = &h[i]->maps[j];
			r.maps[r.nr_maps++].name = h[i]->names + h[i]->maps[j].name;
		}
		if (h[i]->nr_forks)
			memcpy(r.forks + r.nr_forks, h[i]->forks, h[i]->nr_forks * sizeof(*r.forks));
		r.nr_forks += h[i]->nr_forks;
	}
	qsort(r.maps, r.nr_maps, sizeof(*r.maps), rmap_cmp);
	qsort(r.forks, r.nr_forks, sizeof(*r.forks), fork_cmp);
	if (all) {
		r.kernel_hit = true;
		for (size_t i = 0; i < r.nr_maps; i++)
			r.maps[i].hit = true;
	} else {
		for (int i = 0; i < n; i++)
			for (size_t j = 0; j < h[i]->cap_pages; j++)
				if (h[i]->pages[j].used)
					resolve_page(&r, &h[i]->pages[j]);
	}

	d = xzalloc((r.nr_maps + 1) * sizeof(*d));
	if (r.kernel_hit) {
		d[nr].name = "[kernel.kallsyms]";
		d[nr].kernel = d[nr].is_kernel_image = true;
		d[nr++].pid = -1;
	}
	for (size_t i = 0; i < r.nr_maps; i++) {
		const struct hit_map *m = r.maps[i].m;
		const char *name = r.maps[i].name;
		bool vdso = !strcmp(name, "[vdso]");

		/* perf lists the vdso of any process, hit or not. */
		if (!(r.maps[i].hit || vdso))
			continue;
		if (m->pid == KERNEL_PID) {
			if (is_kernel_image(name))
				continue;
		} else if (!has_file(name)) {
			continue;
		}
		d[nr].name = name;
		d[nr].kernel = m->pid == KERNEL_PID;
		d[nr].maj = vdso ? 0 : m->maj;
		d[nr].min = vdso ? 0 : m->min;
		d[nr].ino = vdso ? 0 : m->ino;
		d[nr].bid = vdso ? (struct build_id){ .size = 0 } : m->bid;
		d[nr++].pid = m->pid;
	}
	qsort(d, nr, sizeof(*d), dso_cmp);
	/* Each DSO once. */
	for (size_t i = 0; i < nr; i++)
		if (!k || dso_cmp(&d[k - 1], &d[i]))
			d[k++] = d[i];
	free(r.maps);
	free(r.forks);
	*out = d;
	return k;
}
