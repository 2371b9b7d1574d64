// SPDX-License-Identifier: GPL-2.0
/* A recording as a pprof profile (pprof.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <elfutils/libdwelf.h>
#include <zlib.h>

#include "gen/profile.pb-c.h"
#include "format/buildid-cache.h"
#include "inject/convert.h"
#include "inject/recording-maps.h"
#include "perf-file.h"
#include "profile/pprof.h"
#include "profile/symtab.h"
#include "read/reader.h"
#include "unwind/dso.h"
#include "util.h"

/* ---- a table of byte strings, each given the next index --------------------- */

struct kv_slot {
	uint64_t hash;
	void *key;		/* NULL: empty */
	uint32_t len;
	uint32_t idx;
};

struct kv {
	struct kv_slot *slots;
	size_t cap, nr;		/* cap: a power of two */
};

static uint64_t hash_bytes(const void *p, size_t len)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

static void kv_grow(struct kv *t)
{
	size_t cap = t->cap ? 2 * t->cap : 1024;
	struct kv_slot *s = xzalloc(cap * sizeof(*s));

	for (size_t i = 0; i < t->cap; i++) {
		size_t j;

		if (!t->slots[i].key)
			continue;
		for (j = t->slots[i].hash & (cap - 1); s[j].key; j = (j + 1) & (cap - 1))
			;
		s[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = s;
	t->cap = cap;
}

/* The index of key, new (the next one, *added) if it was not there. */
static uint32_t kv_get(struct kv *t, const void *key, uint32_t len, bool *added)
{
	uint64_t h;
	size_t j;

	if (2 * (t->nr + 1) > t->cap)
		kv_grow(t);
	h = hash_bytes(key, len);
	for (j = h & (t->cap - 1); t->slots[j].key; j = (j + 1) & (t->cap - 1))
		if (t->slots[j].hash == h && t->slots[j].len == len &&
		    !memcmp(t->slots[j].key, key, len)) {
			if (added)
				*added = false;
			return t->slots[j].idx;
		}
	t->slots[j].key = xzalloc(len ? len : 1);
	memcpy(t->slots[j].key, key, len);
	t->slots[j].len = len;
	t->slots[j].hash = h;
	t->slots[j].idx = (uint32_t)t->nr++;
	if (added)
		*added = true;
	return t->slots[j].idx;
}

static void kv_free(struct kv *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->slots[i].key);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

/* A growing array of n-byte items. */
#define GROW(arr, nr, cap)							\
	do {									\
		if ((nr) == (cap)) {						\
			(cap) = (cap) ? 2 * (cap) : 64;				\
			(arr) = xrealloc((arr), (cap) * sizeof(*(arr)));	\
		}								\
	} while (0)

/* ---- the profile's tables ------------------------------------------------------ */

struct pmapping {
	uint64_t start, limit, offset;
	int64_t file, build_id;	/* string indexes */
	int dso;		/* the map_dso's idx; -1: the kernel */
};

struct plocation {
	uint64_t mapping;	/* id, 0: none */
	uint64_t address;
	bool kernel;
	uint64_t function;	/* id, 0: none (filled in at the end) */
};

struct pfunction {
	int64_t name, system_name, file;
};

struct psample {
	uint32_t pid, tid, cpu;
	int64_t comm;
	uint32_t nr_locs;
	uint64_t *locs;		/* location ids */
	int64_t *values;	/* 2 per event: count, period */
};

/* A DSO's symbols, looked for once. */
struct pdso {
	bool tried;
	struct unwind_dso *ud;
	struct symtab *st;
	struct build_id bid;	/* the recording's, else the file's own */
};

struct pprof {
	const struct pprof_opts *o;
	struct pprof_stats *st;
	struct perf_reader r;
	struct maps *maps;
	struct maps_cursor cursor;
	bool use_seq;
	uint64_t idx;

	struct kv strings;
	char **str;
	size_t nr_str, cap_str;

	struct kv mapping_keys;
	struct pmapping *mappings;
	size_t nr_mappings, cap_mappings;

	struct kv location_keys;
	struct plocation *locations;
	size_t nr_locations, cap_locations;

	struct kv function_keys;
	struct pfunction *functions;
	size_t nr_functions, cap_functions;

	struct kv sample_keys;
	struct psample *samples;
	size_t nr_samples, cap_samples;

	struct comm_ev *comm_evs;	/* sorted by tid, time */
	size_t nr_comm_evs, cap_comm_evs;

	/* Per attr: -1 not looked at, 0 left out (--event), 1 wanted; its samples. */
	int *event_of;
	uint64_t *attr_samples;
	/* The profile's events: the attrs with samples, in the file's order. */
	int *attr_of_event;
	int nr_events;
	uint64_t *frames;	/* scratch: a sample's location ids */
	size_t cap_frames;

	struct pdso *dsos;
	size_t nr_dsos;
	char bdir[4096];
	bool have_bdir;
	uint64_t kernel_start, kernel_len, kernel_pgoff;
	bool kernel_seen;
	struct build_id kernel_bid;
	struct symtab *kallsyms;
	uint64_t first_time, last_time;
};

static int64_t str_idx(struct pprof *p, const char *s)
{
	bool added;
	uint32_t i = kv_get(&p->strings, s, (uint32_t)strlen(s), &added);

	if (added) {
		GROW(p->str, p->nr_str, p->cap_str);
		p->str[p->nr_str++] = xstrdup(s);
	}
	return i;
}

/* ---- the records ------------------------------------------------------------- */

/*
 * A thread's names over time, from its COMM records: a sample takes the
 * name its thread had at its time, as perf script shows it (in file order
 * an exec's COMM may come behind samples of the new program from another
 * CPU's ring).
 */
struct comm_ev {
	uint32_t tid;
	uint32_t ptid;	/* a FORK's parent: the name is the parent's then */
	uint64_t time;
	int64_t name;	/* string index; -1: a FORK */
	uint64_t seq;	/* file order, for equal times */
};

static int comm_walk_cb(struct perf_reader *r, const struct perf_reader_record *rec, void *priv)
{
	struct pprof *p = priv;
	const struct perf_event_header *h = rec->header;
	const char *b = (const char *)h;
	struct perf_reader_sample s;
	struct comm_ev *e;
	uint32_t tid;

	p->idx++;
	if (h->type == PERF_RECORD_FORK && h->size >= 32) {
		uint64_t t;

		GROW(p->comm_evs, p->nr_comm_evs, p->cap_comm_evs);
		e = &p->comm_evs[p->nr_comm_evs++];
		/* { pid, ppid, tid, ptid, time } */
		memcpy(&e->tid, b + 16, 4);
		memcpy(&e->ptid, b + 20, 4);
		memcpy(&t, b + 24, 8);
		e->time = p->use_seq ? p->idx : perf_reader__time_valid(t) ? t : 0;
		e->name = -1;
		e->seq = p->idx;
		return 0;
	}
	if (h->type != PERF_RECORD_COMM || h->size < 16 || !memchr(b + 16, 0, h->size - 16))
		return 0;
	memcpy(&tid, b + 12, 4);
	GROW(p->comm_evs, p->nr_comm_evs, p->cap_comm_evs);
	e = &p->comm_evs[p->nr_comm_evs++];
	e->tid = tid;
	e->ptid = 0;
	e->time = 0;
	if (p->use_seq)
		e->time = p->idx;
	else if (!perf_reader__parse_id_sample(r, h, &s) && perf_reader__time_valid(s.time))
		e->time = s.time;
	e->name = str_idx(p, b + 16);
	e->seq = p->idx;
	return 0;
}

static int comm_cmp(const void *pa, const void *pb)
{
	const struct comm_ev *a = pa, *b = pb;

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/*
 * The maps and, for --labels comm, the threads' names: one walk of the
 * records, since a walk of their own is a pass over the whole file
 * (bench/results/2026-12-05-pprof-one-walk/).
 */
static int read_maps_and_comms(struct pprof *p)
{
	bool comms = p->o->labels & PPROF_LABEL_COMM;
	int err;

	p->idx = 0;
	err = recording_maps__read_also(&p->r, &p->maps, comms ? comm_walk_cb : NULL, p);
	p->idx = 0;
	if (err)
		return err;
	if (p->nr_comm_evs)
		qsort(p->comm_evs, p->nr_comm_evs, sizeof(*p->comm_evs), comm_cmp);
	return 0;
}

/*
 * tid's name at time: its last COMM at or before it (its first, before
 * any); after a FORK with no COMM since, its parent's at the fork.
 */
static int64_t comm_of(struct pprof *p, uint32_t tid, uint64_t time)
{
	size_t lo, hi;
	char name[24];

	for (int depth = 0; depth < 64; depth++) {
		const struct comm_ev *e = NULL;

		lo = 0;
		hi = p->nr_comm_evs;
		/* The first event of a later tid, or of tid after time. */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			const struct comm_ev *m = &p->comm_evs[mid];

			if (m->tid < tid || (m->tid == tid && m->time <= time))
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && p->comm_evs[lo - 1].tid == tid)
			e = &p->comm_evs[lo - 1];
		else if (lo < p->nr_comm_evs && p->comm_evs[lo].tid == tid)
			e = &p->comm_evs[lo];
		if (!e)
			break;
		if (e->name >= 0)
			return e->name;
		if (e->ptid == tid)
			break;
		tid = e->ptid;
		time = e->time;
	}
	/* A thread never named: perf shows ":TID". */
	snprintf(name, sizeof(name), ":%u", tid);
	return str_idx(p, name);
}

/* The kernel's map: [kernel.kallsyms]_text, pid -1. */
static void on_mmap(struct pprof *p, const struct perf_event_header *h)
{
	const unsigned char *b = (const unsigned char *)h;
	size_t name_off = h->type == PERF_RECORD_MMAP ? 40 : 72;
	uint32_t pid;

	if (h->size <= name_off || !memchr(b + name_off, 0, h->size - name_off))
		return;
	memcpy(&pid, b + 8, 4);
	if (pid != UINT32_MAX || strncmp((const char *)b + name_off, "[kernel.kallsyms]", 17))
		return;
	memcpy(&p->kernel_start, b + 16, 8);
	memcpy(&p->kernel_len, b + 24, 8);
	memcpy(&p->kernel_pgoff, b + 32, 8);
	p->kernel_seen = true;
}

static uint64_t mapping_of(struct pprof *p, const struct map *m)
{
	uint64_t key[4];
	bool added;
	uint32_t i;

	if (m) {
		key[0] = m->dso->idx;
		key[1] = m->start;
		key[2] = m->end;
		key[3] = m->pgoff;
	} else {
		key[0] = UINT64_MAX;	/* the kernel */
		key[1] = key[2] = key[3] = 0;
	}
	i = kv_get(&p->mapping_keys, key, sizeof(key), &added);
	if (added) {
		struct pmapping *pm;
		char hex[2 * BUILD_ID_MAX + 1];

		GROW(p->mappings, p->nr_mappings, p->cap_mappings);
		pm = &p->mappings[p->nr_mappings++];
		memset(pm, 0, sizeof(*pm));
		if (m) {
			pm->start = m->start;
			pm->limit = m->end;
			pm->offset = m->pgoff;
			pm->file = str_idx(p, m->dso->name);
			pm->build_id = m->dso->bid.size ? str_idx(p, build_id__hex(&m->dso->bid, hex)) : 0;
			pm->dso = (int)m->dso->idx;
		} else {
			pm->start = p->kernel_seen ? p->kernel_start : 0;
			pm->limit = UINT64_MAX;
			pm->offset = p->kernel_seen ? p->kernel_pgoff : 0;
			pm->file = str_idx(p, "[kernel.kallsyms]");
			pm->build_id = p->kernel_bid.size ?
				str_idx(p, build_id__hex(&p->kernel_bid, hex)) : 0;
			pm->dso = -1;
		}
	}
	return i + 1;
}

static uint64_t location_of(struct pprof *p, uint32_t pid, uint64_t addr, uint64_t time,
			    bool kernel)
{
	uint64_t key[3];
	uint64_t mapping = 0;
	const struct map *m = NULL;
	bool added;
	uint32_t i;

	if (kernel) {
		mapping = mapping_of(p, NULL);
	} else {
		m = maps__find(p->maps, &p->cursor, pid, addr, time);
		if (m)
			mapping = mapping_of(p, m);
	}
	key[0] = mapping;
	key[1] = addr;
	/* An address in no map is only the same place within one process. */
	key[2] = mapping ? 0 : pid;
	i = kv_get(&p->location_keys, key, sizeof(key), &added);
	if (added) {
		GROW(p->locations, p->nr_locations, p->cap_locations);
		p->locations[p->nr_locations++] = (struct plocation) {
			.mapping = mapping, .address = addr, .kernel = kernel,
		};
	}
	return i + 1;
}

/* Whether attr a's samples go in the profile (--event). */
static bool attr_wanted(struct pprof *p, int a)
{
	if (a < 0)
		return false;
	if (p->event_of[a] == -1)
		p->event_of[a] = !p->o->event || !strcmp(perf_reader__attr_name(&p->r, a), p->o->event);
	return p->event_of[a] == 1;
}

/* The key of a sample: KEY_LABELS label words, then the location ids (p->frames). */
#define KEY_LABELS 4

/* Room in p->frames for index i. */
static void frames_reserve(struct pprof *p, size_t i)
{
	if (i < p->cap_frames)
		return;
	while (p->cap_frames <= i)
		p->cap_frames = p->cap_frames ? 2 * p->cap_frames : 256;
	p->frames = xrealloc(p->frames, p->cap_frames * sizeof(*p->frames));
}

static void add_frame(struct pprof *p, size_t *n, uint64_t loc)
{
	size_t at = KEY_LABELS + *n;

	frames_reserve(p, at);
	p->frames[at] = loc;
	(*n)++;
}

static int on_sample(struct pprof *p, const struct perf_event_header *h)
{
	struct perf_reader_sample s;
	uint64_t time;
	int64_t comm = 0;
	size_t n = 0, keylen;
	uint64_t *key;
	bool added;
	uint32_t i;
	int ev;

	if (perf_reader__parse_sample(&p->r, h, &s))
		return 0;	/* the reader said so; perf skips it too */
	if (!attr_wanted(p, s.attr)) {
		p->st->other_samples++;
		return 0;
	}
	/* Values are kept per attr; the profile takes the columns of attrs with samples. */
	ev = s.attr;
	p->attr_samples[ev]++;
	time = p->use_seq ? p->idx : s.time;
	if (perf_reader__time_valid(s.time) && !perf_reader__attr_is_off_cpu(&p->r, s.attr)) {
		if (!p->first_time || s.time < p->first_time)
			p->first_time = s.time;
		if (s.time > p->last_time)
			p->last_time = s.time;
	}
	if ((s.sample_type & PERF_SAMPLE_CALLCHAIN) && s.callchain_nr) {
		bool kernel = false;

		for (uint64_t k = 0; k < s.callchain_nr; k++) {
			uint64_t ip;

			memcpy(&ip, (const char *)s.callchain + 8 * k, 8);
			if (ip >= PERF_CONTEXT_MAX) {
				kernel = ip == PERF_CONTEXT_KERNEL;
				continue;
			}
			add_frame(p, &n, location_of(p, s.pid, ip, time, kernel));
		}
	} else if (s.sample_type & PERF_SAMPLE_IP) {
		bool kernel = (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;

		add_frame(p, &n, location_of(p, s.pid, s.ip, time, kernel));
	}

	/* The key: labels, then the location ids already there. */
	keylen = KEY_LABELS + n;
	frames_reserve(p, keylen);
	key = p->frames;
	key[0] = p->o->labels & PPROF_LABEL_PID ? s.pid : 0;
	key[1] = p->o->labels & PPROF_LABEL_TID ? s.tid : 0;
	key[2] = p->o->labels & PPROF_LABEL_CPU ? s.cpu : 0;
	if (p->o->labels & PPROF_LABEL_COMM)
		comm = comm_of(p, s.tid, time);
	key[3] = (uint64_t)comm;
	i = kv_get(&p->sample_keys, key, (uint32_t)(keylen * sizeof(*key)), &added);
	if (added) {
		struct psample *ps;

		GROW(p->samples, p->nr_samples, p->cap_samples);
		ps = &p->samples[p->nr_samples++];
		ps->pid = s.pid;
		ps->tid = s.tid;
		ps->cpu = s.cpu;
		ps->comm = comm;
		ps->nr_locs = (uint32_t)n;
		ps->locs = xzalloc((n ? n : 1) * sizeof(*ps->locs));
		memcpy(ps->locs, p->frames + KEY_LABELS, n * sizeof(*ps->locs));
		ps->values = xzalloc(2 * p->r.nr_attrs * sizeof(*ps->values));
	}
	p->samples[i].values[2 * ev] += 1;
	p->samples[i].values[2 * ev + 1] += (s.sample_type & PERF_SAMPLE_PERIOD) ? (int64_t)s.period : 1;
	p->st->samples++;
	return 0;
}

static int record_cb(struct perf_reader *r, const struct perf_reader_record *rec, void *priv)
{
	struct pprof *p = priv;
	const struct perf_event_header *h = rec->header;
	uint64_t n;

	p->idx++;
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		return on_sample(p, h);
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		on_mmap(p, h);
		break;
	case PERF_RECORD_LOST:
		if (h->size >= 24) {
			memcpy(&n, (const char *)h + 16, 8);
			p->st->lost = perf_reader__add_count(p->st->lost, n);
		}
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (h->size >= 16) {
			memcpy(&n, (const char *)h + 8, 8);
			p->st->lost_samples = perf_reader__add_count(p->st->lost_samples, n);
		}
		break;
	}
	(void)r;
	return 0;
}

/* ---- symbols ------------------------------------------------------------------ */

static void kernel_build_id(const char *name, const struct build_id *bid, void *priv)
{
	struct pprof *p = priv;

	if (!strcmp(name, "[kernel.kallsyms]"))
		p->kernel_bid = *bid;
}

/*
 * The recording's kernel symbols: this kernel's /proc/kallsyms when the
 * build ids agree (or the recording has none), else the copy perf's
 * build-id cache keeps.
 */
static void load_kallsyms(struct pprof *p)
{
	struct build_id running;
	char path[4200], hex[2 * BUILD_ID_MAX + 1];

	bool have_running = !build_id__kernel(&running);

	if (!p->kernel_bid.size ||
	    (have_running && running.size == p->kernel_bid.size &&
	     !memcmp(running.data, p->kernel_bid.data, running.size)))
		p->kallsyms = symtab__from_kallsyms("/proc/kallsyms");
	/* No id in the recording: this kernel's, whose symbols it gets (as perf report does). */
	if (!p->kernel_bid.size && have_running && p->kallsyms)
		p->kernel_bid = running;
	if (!p->kallsyms && p->kernel_bid.size && p->have_bdir) {
		snprintf(path, sizeof(path), "%s/[kernel.kallsyms]/%s/kallsyms", p->bdir,
			 build_id__hex(&p->kernel_bid, hex));
		p->kallsyms = symtab__from_kallsyms(path);
	}
	/* Addresses hidden (kptr_restrict): every one reads 0 and none was kept. */
	if (p->kallsyms && !symtab__nr(p->kallsyms)) {
		symtab__delete(p->kallsyms);
		p->kallsyms = NULL;
	}
	p->st->kernel_symbols = p->kallsyms != NULL;
}

static struct pdso *dso_of(struct pprof *p, int idx)
{
	struct pdso *d = &p->dsos[idx];

	if (!d->tried) {
		const struct map_dso *md = maps__dso(p->maps, (size_t)idx);

		Elf *elf;

		d->tried = true;
		d->ud = unwind_dso__new(md, p->have_bdir ? p->bdir : NULL, 0);
		elf = unwind_dso__elf(d->ud);
		d->bid = md->bid;
		if (elf && !d->bid.size) {
			/* No id in the recording (perf -z writes none): the file's, as perf report takes it. */
			const void *id;
			ssize_t n = dwelf_elf_gnu_build_id(elf, &id);

			if (n > 0 && n <= BUILD_ID_MAX) {
				memcpy(d->bid.data, id, (size_t)n);
				d->bid.size = (size_t)n;
			}
		}
		if (elf)
			d->st = symtab__from_elf(elf, &d->bid);
	}
	return d;
}

static uint64_t function_of(struct pprof *p, const struct symbol *sym, int64_t file)
{
	int64_t key[2];
	bool added;
	uint32_t i;

	key[0] = str_idx(p, sym->name);
	key[1] = file;
	i = kv_get(&p->function_keys, key, sizeof(key), &added);
	if (added) {
		GROW(p->functions, p->nr_functions, p->cap_functions);
		p->functions[p->nr_functions++] = (struct pfunction) {
			.name = key[0], .system_name = str_idx(p, sym->raw), .file = file,
		};
	}
	return i + 1;
}

static void symbolize(struct pprof *p)
{
	p->nr_dsos = maps__nr_dsos(p->maps);
	p->dsos = xzalloc((p->nr_dsos + 1) * sizeof(*p->dsos));
	for (size_t i = 0; i < p->nr_mappings; i++) {
		struct pmapping *m = &p->mappings[i];
		char hex[2 * BUILD_ID_MAX + 1];

		if (m->build_id)
			continue;
		if (m->dso < 0) {
			if (p->kernel_bid.size)
				m->build_id = str_idx(p, build_id__hex(&p->kernel_bid, hex));
			continue;
		}
		if (dso_of(p, m->dso)->bid.size)
			m->build_id = str_idx(p, build_id__hex(&dso_of(p, m->dso)->bid, hex));
	}
	for (size_t i = 0; i < p->nr_locations; i++) {
		struct plocation *l = &p->locations[i];
		const struct symbol *sym = NULL;
		int64_t file = 0;

		if (l->kernel) {
			if (p->kallsyms)
				sym = symtab__find(p->kallsyms, l->address);
			file = str_idx(p, "[kernel.kallsyms]");
		} else if (l->mapping) {
			const struct pmapping *m = &p->mappings[l->mapping - 1];
			struct pdso *d = dso_of(p, m->dso);
			uint64_t vaddr;

			file = m->file;
			if (d->st && !unwind_dso__vaddr(d->ud, l->address - m->start + m->offset, &vaddr))
				sym = symtab__find(d->st, vaddr);
		}
		if (sym)
			l->function = function_of(p, sym, file);
		else
			p->st->unsymbolized++;
	}
}

/* ---- the profile --------------------------------------------------------------- */

struct gz_buffer {
	ProtobufCBuffer base;
	gzFile gz;
	bool failed;
};

static void gz_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	struct gz_buffer *g = (struct gz_buffer *)b;

	while (len && !g->failed) {
		unsigned chunk = len > (1u << 30) ? 1u << 30 : (unsigned)len;

		if (gzwrite(g->gz, data, chunk) != (int)chunk)
			g->failed = true;
		data += chunk;
		len -= chunk;
	}
}

/* The sample type pair of attr a: ("samples", "count") and the period's own. */
static void event_units(struct pprof *p, int a, const char **type, const char **unit)
{
	const struct perf_event_attr *at = &p->r.attrs[a].attr;

	if (perf_reader__attr_is_off_cpu(&p->r, a)) {
		*type = "wall";
		*unit = "nanoseconds";
	} else if (at->type == PERF_TYPE_SOFTWARE && (at->config == PERF_COUNT_SW_CPU_CLOCK ||
						     at->config == PERF_COUNT_SW_TASK_CLOCK)) {
		/* Their periods are nanoseconds of CPU time, whatever the modifiers. */
		*type = "cpu";
		*unit = "nanoseconds";
	} else {
		*type = "events";
		*unit = "count";
	}
}

static Perftools__Profiles__ValueType *value_type(struct pprof *p, const char *type,
						  const char *unit)
{
	Perftools__Profiles__ValueType *v = xzalloc(sizeof(*v));

	perftools__profiles__value_type__init(v);
	v->type = str_idx(p, type);
	v->unit = str_idx(p, unit);
	return v;
}

static Perftools__Profiles__Label *label_num(struct pprof *p, const char *key, int64_t num)
{
	Perftools__Profiles__Label *l = xzalloc(sizeof(*l));

	perftools__profiles__label__init(l);
	l->key = str_idx(p, key);
	l->num = num;
	return l;
}

/* Free what build_profile() allocated (every pointer array and its items). */
static void free_profile(Perftools__Profiles__Profile *pr)
{
	for (size_t i = 0; i < pr->n_sample_type; i++)
		free(pr->sample_type[i]);
	free(pr->sample_type);
	for (size_t i = 0; i < pr->n_sample; i++) {
		for (size_t j = 0; j < pr->sample[i]->n_label; j++)
			free(pr->sample[i]->label[j]);
		free(pr->sample[i]->label);
		free(pr->sample[i]->value);
		free(pr->sample[i]);
	}
	free(pr->sample);
	for (size_t i = 0; i < pr->n_mapping; i++)
		free(pr->mapping[i]);
	free(pr->mapping);
	for (size_t i = 0; i < pr->n_location; i++) {
		for (size_t j = 0; j < pr->location[i]->n_line; j++)
			free(pr->location[i]->line[j]);
		free(pr->location[i]->line);
		free(pr->location[i]);
	}
	free(pr->location);
	for (size_t i = 0; i < pr->n_function; i++)
		free(pr->function[i]);
	free(pr->function);
	free(pr->comment);
	free(pr->period_type);
}

static void build_profile(struct pprof *p, Perftools__Profiles__Profile *pr)
{
	int ne = p->nr_events;
	char comment[256];
	size_t nc = 0;

	perftools__profiles__profile__init(pr);
	/* Sample types: per event, its sample count and its period. */
	pr->n_sample_type = 2 * (size_t)ne;
	pr->sample_type = xzalloc((pr->n_sample_type + 1) * sizeof(*pr->sample_type));
	for (int e = 0; e < ne; e++) {
		int a = p->attr_of_event[e];
		const char *name = perf_reader__attr_name(&p->r, a), *type, *unit;
		char t0[300], t1[300];

		event_units(p, a, &type, &unit);
		if (ne > 1) {
			/* Several events: each pair named after its event. */
			snprintf(t0, sizeof(t0), "samples:%s", name);
			snprintf(t1, sizeof(t1), "%s:%s", type, name);
		} else {
			snprintf(t0, sizeof(t0), "samples");
			snprintf(t1, sizeof(t1), "%s", type);
		}
		pr->sample_type[2 * e] = value_type(p, t0, "count");
		pr->sample_type[2 * e + 1] = value_type(p, t1, unit);
	}
	if (ne) {
		const struct perf_event_attr *at = &p->r.attrs[p->attr_of_event[0]].attr;
		const char *type, *unit;

		event_units(p, p->attr_of_event[0], &type, &unit);
		pr->period_type = value_type(p, type, unit);
		if (!at->freq)
			pr->period = (int64_t)at->sample_period;
		else if (at->sample_freq && !strcmp(unit, "nanoseconds"))
			pr->period = (int64_t)(1000000000ULL / at->sample_freq);
		pr->default_sample_type = pr->sample_type[1]->type;
	}

	pr->n_sample = p->nr_samples;
	pr->sample = xzalloc((p->nr_samples + 1) * sizeof(*pr->sample));
	for (size_t i = 0; i < p->nr_samples; i++) {
		struct psample *ps = &p->samples[i];
		Perftools__Profiles__Sample *s = xzalloc(sizeof(*s));
		size_t nl = 0;

		perftools__profiles__sample__init(s);
		s->n_location_id = ps->nr_locs;
		s->location_id = ps->locs;
		s->n_value = 2 * (size_t)ne;
		s->value = xzalloc((2 * (size_t)ne + 1) * sizeof(*s->value));
		for (int e = 0; e < ne; e++) {
			s->value[2 * e] = ps->values[2 * p->attr_of_event[e]];
			s->value[2 * e + 1] = ps->values[2 * p->attr_of_event[e] + 1];
		}
		s->label = xzalloc(5 * sizeof(*s->label));
		if (p->o->labels & PPROF_LABEL_PID)
			s->label[nl++] = label_num(p, "pid", ps->pid);
		if (p->o->labels & PPROF_LABEL_TID)
			s->label[nl++] = label_num(p, "tid", ps->tid);
		if (p->o->labels & PPROF_LABEL_CPU)
			s->label[nl++] = label_num(p, "cpu", ps->cpu);
		if (p->o->labels & PPROF_LABEL_COMM) {
			Perftools__Profiles__Label *l = xzalloc(sizeof(*l));

			perftools__profiles__label__init(l);
			l->key = str_idx(p, "comm");
			l->str = ps->comm;
			s->label[nl++] = l;
		}
		s->n_label = nl;
		pr->sample[i] = s;
	}

	pr->n_mapping = p->nr_mappings;
	pr->mapping = xzalloc((p->nr_mappings + 1) * sizeof(*pr->mapping));
	for (size_t i = 0; i < p->nr_mappings; i++) {
		Perftools__Profiles__Mapping *m = xzalloc(sizeof(*m));

		perftools__profiles__mapping__init(m);
		m->id = i + 1;
		m->memory_start = p->mappings[i].start;
		m->memory_limit = p->mappings[i].limit;
		m->file_offset = p->mappings[i].offset;
		m->filename = p->mappings[i].file;
		m->build_id = p->mappings[i].build_id;
		pr->mapping[i] = m;
	}

	pr->n_location = p->nr_locations;
	pr->location = xzalloc((p->nr_locations + 1) * sizeof(*pr->location));
	for (size_t i = 0; i < p->nr_locations; i++) {
		Perftools__Profiles__Location *l = xzalloc(sizeof(*l));
		const struct plocation *pl = &p->locations[i];

		perftools__profiles__location__init(l);
		l->id = i + 1;
		l->mapping_id = pl->mapping;
		l->address = pl->address;
		if (pl->function) {
			Perftools__Profiles__Line *ln = xzalloc(sizeof(*ln));

			perftools__profiles__line__init(ln);
			ln->function_id = pl->function;
			l->line = xzalloc(sizeof(*l->line));
			l->line[0] = ln;
			l->n_line = 1;
			if (pl->mapping)
				pr->mapping[pl->mapping - 1]->has_functions = true;
		}
		pr->location[i] = l;
	}

	pr->n_function = p->nr_functions;
	pr->function = xzalloc((p->nr_functions + 1) * sizeof(*pr->function));
	for (size_t i = 0; i < p->nr_functions; i++) {
		Perftools__Profiles__Function *f = xzalloc(sizeof(*f));

		perftools__profiles__function__init(f);
		f->id = i + 1;
		f->name = p->functions[i].name;
		f->system_name = p->functions[i].system_name;
		f->filename = p->functions[i].file;
		pr->function[i] = f;
	}

	pr->comment = xzalloc(4 * sizeof(*pr->comment));
	snprintf(comment, sizeof(comment), "perfcap pprof of %s", p->o->input);
	pr->comment[nc++] = str_idx(p, comment);
	if (p->st->lost || p->st->lost_samples) {
		snprintf(comment, sizeof(comment),
			 "lost: %" PRIu64 " events in LOST records, %" PRIu64
			 " samples in LOST_SAMPLES records", p->st->lost, p->st->lost_samples);
		pr->comment[nc++] = str_idx(p, comment);
	}
	if (p->st->unwound) {
		snprintf(comment, sizeof(comment), "user stacks unwound by perfcap (DWARF)");
		pr->comment[nc++] = str_idx(p, comment);
	}
	pr->n_comment = nc;

	/* A span int64 cannot hold is no recording's (hostile times): none said. */
	if (p->last_time > p->first_time && p->last_time - p->first_time <= INT64_MAX)
		pr->duration_nanos = (int64_t)(p->last_time - p->first_time);
	/* String table last: everything above added its strings. */
	pr->n_string_table = p->nr_str;
	pr->string_table = p->str;
}

/* When the recording started, in wall-clock time: the file's mtime less its span. */
static int64_t start_time(struct pprof *p, int64_t duration)
{
	struct stat sb;
	struct timespec now;
	int64_t end;

	if (!fstat(p->r.fd, &sb) && S_ISREG(sb.st_mode) && strcmp(p->o->input, "-")) {
		end = (int64_t)sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec;
	} else {
		clock_gettime(CLOCK_REALTIME, &now);
		end = (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
	}
	/* A span longer than the time since 1970 is a hostile file's: the end then. */
	return duration > 0 && duration <= end ? end - duration : end;
}

static int write_profile(struct pprof *p)
{
	Perftools__Profiles__Profile pr;
	struct gz_buffer g = { .base = { .append = gz_append } };
	int fd, err = 0;

	build_profile(p, &pr);
	pr.time_nanos = start_time(p, pr.duration_nanos);
	fd = strcmp(p->o->output, "-") ?
		open(p->o->output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : dup(1);
	if (fd < 0) {
		err = -errno;
		pr_err("pprof: cannot write %s: %s\n", p->o->output, strerror(errno));
		goto out;
	}
	g.gz = gzdopen(fd, "wb");
	if (!g.gz) {
		close(fd);
		err = -ENOMEM;
		goto out;
	}
	perftools__profiles__profile__pack_to_buffer(&pr, &g.base);
	if (gzclose(g.gz) != Z_OK || g.failed) {
		err = -EIO;
		pr_err("pprof: cannot write %s\n", p->o->output);
	}
out:
	/* Samples' location ids are the table's own: not the profile's to free. */
	for (size_t i = 0; i < pr.n_sample; i++)
		pr.sample[i]->location_id = NULL;
	pr.string_table = NULL;
	free_profile(&pr);
	p->st->stacks = p->nr_samples;
	p->st->locations = p->nr_locations;
	p->st->functions = p->nr_functions;
	p->st->mappings = p->nr_mappings;
	p->st->events = p->nr_events;
	return err;
}

/* ---- the command --------------------------------------------------------------- */

static bool has_dwarf_stacks(const struct perf_reader *r)
{
	for (size_t i = 0; i < r->nr_attrs; i++) {
		uint64_t t = r->attrs[i].attr.sample_type;

		if ((t & PERF_SAMPLE_REGS_USER) && (t & PERF_SAMPLE_STACK_USER))
			return true;
	}
	return false;
}

/*
 * A DWARF recording: its callchains into a temporary file first (inject's
 * conversion), whose name goes to *tmp. The input, if standard input, is
 * the reader's copy of it, reached through /proc/self/fd.
 */
static int unwind_first(struct pprof *p, char *tmp, size_t size)
{
	struct convert_opts co = {
		.threads = p->o->threads, .max_stack = 127, .verbose = p->o->verbose > 1,
	};
	struct convert_stats cs = { 0 };
	char in[64];
	const char *dir = getenv("TMPDIR");
	int fd, err;

	snprintf(tmp, size, "%s/perfcap-pprof-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = -errno;
		pr_err("pprof: cannot make a temporary file in %s: %s\n",
		       dir && *dir ? dir : "/tmp", strerror(errno));
		tmp[0] = 0;
		return err;
	}
	close(fd);
	if (!strcmp(p->o->input, "-")) {
		snprintf(in, sizeof(in), "/proc/self/fd/%d", p->r.fd);
		co.input = in;
	} else {
		co.input = p->o->input;
	}
	co.output = tmp;
	err = convert_callchain(&co, &cs);
	if (!err && p->o->verbose) {
		fputs("perfcap pprof: ", stderr);
		convert_stats__print(stderr, &cs, 0, p->o->verbose > 1);
	}
	convert_stats__exit(&cs);
	return err;
}

static void pprof_free(struct pprof *p)
{
	kv_free(&p->strings);
	for (size_t i = 0; i < p->nr_str; i++)
		free(p->str[i]);
	free(p->str);
	kv_free(&p->mapping_keys);
	free(p->mappings);
	kv_free(&p->location_keys);
	free(p->locations);
	kv_free(&p->function_keys);
	free(p->functions);
	kv_free(&p->sample_keys);
	for (size_t i = 0; i < p->nr_samples; i++) {
		free(p->samples[i].locs);
		free(p->samples[i].values);
	}
	free(p->samples);
	free(p->comm_evs);
	free(p->event_of);
	free(p->attr_samples);
	free(p->attr_of_event);
	free(p->frames);
	for (size_t i = 0; p->dsos && i < p->nr_dsos; i++) {
		symtab__delete(p->dsos[i].st);
		unwind_dso__delete(p->dsos[i].ud);
	}
	free(p->dsos);
	symtab__delete(p->kallsyms);
	if (p->maps)
		maps__delete(p->maps);
}

int pprof_write(const struct pprof_opts *o, struct pprof_stats *st)
{
	struct pprof p = { .o = o, .st = st };
	char tmp[4096] = "";
	int err;

	memset(st, 0, sizeof(*st));
	err = perf_reader__open(&p.r, o->input);
	if (err)
		return err;
	if (has_dwarf_stacks(&p.r)) {
		err = unwind_first(&p, tmp, sizeof(tmp));
		perf_reader__close(&p.r);
		if (err)
			goto out_tmp;
		err = perf_reader__open(&p.r, tmp);
		if (err)
			goto out_tmp;
		st->unwound = true;
	}
	p.have_bdir = !buildid_cache__dir(p.bdir, sizeof(p.bdir));
	p.use_seq = recording_maps__by_index(&p.r);
	str_idx(&p, "");	/* string 0 is "" */
	err = read_maps_and_comms(&p);
	if (err)
		goto out;
	recording_maps__build_ids(&p.r, kernel_build_id, &p);
	p.event_of = xzalloc((p.r.nr_attrs + 1) * sizeof(*p.event_of));
	p.attr_samples = xzalloc((p.r.nr_attrs + 1) * sizeof(*p.attr_samples));
	p.attr_of_event = xzalloc((p.r.nr_attrs + 1) * sizeof(*p.attr_of_event));
	for (size_t i = 0; i < p.r.nr_attrs; i++)
		p.event_of[i] = -1;
	err = perf_reader__for_each_record(&p.r, record_cb, &p);
	if (err)
		goto out;
	for (size_t i = 0; i < p.r.nr_attrs; i++)
		if (p.attr_samples[i])
			p.attr_of_event[p.nr_events++] = (int)i;
	if (o->event && !p.nr_events) {
		bool known = false;

		for (size_t i = 0; i < p.r.nr_attrs; i++)
			known |= !strcmp(perf_reader__attr_name(&p.r, (int)i), o->event);
		if (!known) {
			pr_err("pprof: %s has no event %s\n", o->input, o->event);
			err = -ENOENT;
			goto out;
		}
	}
	/* kallsyms only for kernel frames: 120,000 names to read otherwise for nothing. */
	for (size_t i = 0; i < p.nr_locations; i++)
		if (p.locations[i].kernel) {
			st->kernel_frames = true;
			load_kallsyms(&p);
			break;
		}
	symbolize(&p);
	err = write_profile(&p);
out:
	perf_reader__close(&p.r);
	pprof_free(&p);
out_tmp:
	if (tmp[0])
		unlink(tmp);
	return err;
}

int pprof_parse_labels(const char *s, unsigned *labels)
{
	char *copy = xstrdup(s), *save = NULL, *tok;
	int err = 0;

	*labels = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "pid"))
			*labels |= PPROF_LABEL_PID;
		else if (!strcmp(tok, "tid"))
			*labels |= PPROF_LABEL_TID;
		else if (!strcmp(tok, "comm"))
			*labels |= PPROF_LABEL_COMM;
		else if (!strcmp(tok, "cpu"))
			*labels |= PPROF_LABEL_CPU;
		else
			err = -EINVAL;
	}
	free(copy);
	return err;
}
