// SPDX-License-Identifier: GPL-2.0
/*
 * The map timeline (maps.h). Events are kept as they come, sorted by time
 * at the seal and applied in that order to one process generation per
 * (pid, birth): a FORK that makes a process starts a generation with a
 * copy of the parent's live maps, an EXEC ends the live maps, an MMAP
 * ends what it covers of the live maps (the uncovered ends live on as new
 * maps) and adds its own. At any time the live maps of a generation do
 * not overlap, so a query has one answer.
 */
#include <stdlib.h>
#include <string.h>

#include "unwind/maps.h"
#include "perf-file.h"
#include "util.h"

enum maps_ev_type { EV_MMAP, EV_FORK, EV_EXEC };

struct maps_ev {
	uint64_t time;
	size_t seq;		/* arrival order: the tie breaker */
	enum maps_ev_type type;
	uint32_t pid, ppid;
	uint64_t start, len, pgoff;
	struct map_dso *dso;
};

struct maps_proc {
	uint32_t pid;
	uint64_t born;
	struct map *maps;	/* sorted by start after the seal */
	size_t nr, cap;
	uint64_t *maxend;	/* maxend[i]: the largest end of maps[0..i] */
	bool dirty;		/* changed since it was indexed */
};

/* A pid's generations, oldest first. */
struct maps_pid {
	uint32_t pid;
	struct maps_proc **gen;
	size_t nr;
};

struct maps {
	struct maps_ev *ev;	/* not yet applied */
	size_t nr_ev, cap_ev;
	size_t sorted_ev;	/* ev[0..sorted_ev) are in time order */
	uint64_t version;	/* applies so far: a cursor of another version is stale */
	size_t seq;		/* events added so far */
	struct maps_proc **dirty;	/* changed since they were indexed */
	size_t nr_dirty, cap_dirty;

	struct map_dso **dsos;
	size_t nr_dsos;
	struct map_dso **dso_hash;	/* open addressing, a power of two */
	size_t dso_hash_size;

	struct maps_pid *pids;	/* open addressing by pid; pid 0 slot unused marker: .gen NULL */
	size_t pid_hash_size, nr_pids;

	/* name -> build id, from the BUILD_ID feature */
	struct { char *name; struct build_id bid; } *bids;
	size_t nr_bids;

	size_t nr_procs, nr_maps;
	bool sealed;
};

static uint64_t hash_str(const char *s, uint64_t h)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdULL;
}

struct maps *maps__new(void)
{
	struct maps *m = xzalloc(sizeof(*m));

	m->dso_hash_size = 256;
	m->dso_hash = xzalloc(m->dso_hash_size * sizeof(*m->dso_hash));
	m->pid_hash_size = 256;
	m->pids = xzalloc(m->pid_hash_size * sizeof(*m->pids));
	return m;
}

void maps__delete(struct maps *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->pid_hash_size; i++) {
		struct maps_pid *p = &m->pids[i];

		for (size_t g = 0; g < p->nr; g++) {
			free(p->gen[g]->maps);
			free(p->gen[g]->maxend);
			free(p->gen[g]);
		}
		free(p->gen);
	}
	free(m->pids);
	for (size_t i = 0; i < m->nr_dsos; i++) {
		free(m->dsos[i]->name);
		free(m->dsos[i]);
	}
	free(m->dsos);
	free(m->dso_hash);
	for (size_t i = 0; i < m->nr_bids; i++)
		free(m->bids[i].name);
	free(m->bids);
	free(m->ev);
	free(m->dirty);
	free(m);
}

static bool bid_eq(const struct build_id *a, const struct build_id *b)
{
	return a->size == b->size && !memcmp(a->data, b->data, a->size);
}

static uint64_t dso_key(const char *name, const struct build_id *bid, uint64_t dev, uint64_t ino)
{
	uint64_t h = hash_str(name, 0xcbf29ce484222325ULL);

	h = mix(h, dev);
	h = mix(h, ino);
	for (size_t i = 0; i < bid->size; i++)
		h = mix(h, bid->data[i]);
	return h;
}

static void dso_hash_insert(struct maps *m, struct map_dso *d)
{
	size_t mask = m->dso_hash_size - 1;
	size_t i = dso_key(d->name, &d->bid, d->dev, d->ino) & mask;

	while (m->dso_hash[i])
		i = (i + 1) & mask;
	m->dso_hash[i] = d;
}

/* The DSO for this name and identity, made on first sight. */
static struct map_dso *dso_get(struct maps *m, const char *name, const struct build_id *bid,
			       uint64_t dev, uint64_t ino, uint32_t pid)
{
	static const struct build_id none;
	size_t mask = m->dso_hash_size - 1;
	size_t i;
	struct map_dso *d;

	if (!bid)
		bid = &none;
	for (i = dso_key(name, bid, dev, ino) & mask; m->dso_hash[i]; i = (i + 1) & mask) {
		d = m->dso_hash[i];
		if (d->dev == dev && d->ino == ino && bid_eq(&d->bid, bid) && !strcmp(d->name, name))
			return d;
	}
	d = xzalloc(sizeof(*d));
	d->name = xstrdup(name);
	d->bid = *bid;
	d->dev = dev;
	d->ino = ino;
	d->first_pid = pid;
	d->idx = m->nr_dsos;
	m->dsos = xrealloc(m->dsos, (m->nr_dsos + 1) * sizeof(*m->dsos));
	m->dsos[m->nr_dsos++] = d;
	if (m->nr_dsos * 2 > m->dso_hash_size) {
		free(m->dso_hash);
		m->dso_hash_size *= 2;
		m->dso_hash = xzalloc(m->dso_hash_size * sizeof(*m->dso_hash));
		for (size_t j = 0; j < m->nr_dsos; j++)
			dso_hash_insert(m, m->dsos[j]);
	} else {
		dso_hash_insert(m, d);
	}
	return d;
}

static struct maps_ev *ev_add(struct maps *m, enum maps_ev_type type, uint32_t pid, uint64_t time)
{
	struct maps_ev *e;

	if (m->nr_ev == m->cap_ev) {
		m->cap_ev = m->cap_ev ? m->cap_ev * 2 : 1024;
		m->ev = xrealloc(m->ev, m->cap_ev * sizeof(*m->ev));
	}
	e = &m->ev[m->nr_ev];
	memset(e, 0, sizeof(*e));
	m->nr_ev++;
	e->seq = m->seq++;
	e->type = type;
	e->pid = pid;
	e->time = time;
	return e;
}

void maps__add_mmap(struct maps *m, uint32_t pid, uint64_t time, uint64_t start, uint64_t len,
		    uint64_t pgoff, const char *name, const struct build_id *bid,
		    uint64_t dev, uint64_t ino)
{
	struct maps_ev *e;

	if (!len || start + len < start)
		return;
	e = ev_add(m, EV_MMAP, pid, time);
	e->start = start;
	e->len = len;
	e->pgoff = pgoff;
	e->dso = dso_get(m, name, bid && bid->size ? bid : NULL, dev, ino, pid);
}

void maps__add_fork(struct maps *m, uint32_t pid, uint32_t ppid, uint64_t time)
{
	if (pid == ppid)	/* a thread: the same address space */
		return;
	ev_add(m, EV_FORK, pid, time)->ppid = ppid;
}

void maps__add_exec(struct maps *m, uint32_t pid, uint64_t time)
{
	ev_add(m, EV_EXEC, pid, time);
}

void maps__add_build_id(struct maps *m, const char *name, const struct build_id *bid)
{
	if (!bid->size)
		return;
	m->bids = xrealloc(m->bids, (m->nr_bids + 1) * sizeof(*m->bids));
	m->bids[m->nr_bids].name = xstrdup(name);
	m->bids[m->nr_bids].bid = *bid;
	m->nr_bids++;
}

/* Where a record's fields are (uapi perf_event.h's record layouts). */
#define MMAP_FILENAME_OFF 40
#define MMAP2_FILENAME_OFF 72
#define MMAP2_BUILD_ID_OFF 40
#define FORK_TIME_OFF 24

static const char *rec_string(const struct perf_event_header *h, size_t off)
{
	const char *s = (const char *)h + off;

	if (h->size <= off || !memchr(s, 0, h->size - off))
		return NULL;
	return s;
}

static void add_mmap_record(struct maps *m, const struct perf_event_header *h, uint64_t time)
{
	const unsigned char *p = (const unsigned char *)h;
	size_t name_off = h->type == PERF_RECORD_MMAP ? MMAP_FILENAME_OFF : MMAP2_FILENAME_OFF;
	struct build_id bid = { .size = 0 };
	uint64_t start, len, pgoff, dev = 0, ino = 0;
	const char *name;
	uint32_t pid;

	if ((h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
		return;
	name = rec_string(h, name_off);
	if (!name)
		return;
	memcpy(&pid, p + 8, 4);
	memcpy(&start, p + 16, 8);
	memcpy(&len, p + 24, 8);
	memcpy(&pgoff, p + 32, 8);
	if (pid == UINT32_MAX)
		return;
	if (h->type == PERF_RECORD_MMAP2) {
		if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			bid.size = MIN(p[MMAP2_BUILD_ID_OFF], BUILD_ID_MAX);
			memcpy(bid.data, p + MMAP2_BUILD_ID_OFF + 4, bid.size);
		} else {
			uint32_t maj, min;

			memcpy(&maj, p + 40, 4);
			memcpy(&min, p + 44, 4);
			memcpy(&ino, p + 48, 8);
			dev = ((uint64_t)maj << 32) | min;
		}
	}
	maps__add_mmap(m, pid, time, start, len, pgoff, name, &bid, dev, ino);
}

void maps__add_record(struct maps *m, const struct perf_event_header *h, uint64_t time,
		      bool by_index)
{
	const unsigned char *p = (const unsigned char *)h;
	uint32_t pid, ppid;

	switch (h->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		add_mmap_record(m, h, time);
		break;
	case PERF_RECORD_FORK:
		if (h->size < 32)
			break;
		memcpy(&pid, p + 8, 4);
		memcpy(&ppid, p + 12, 4);
		if (!by_index) {
			memcpy(&time, p + FORK_TIME_OFF, 8);
			if (time == UINT64_MAX)
				time = 0;
		}
		maps__add_fork(m, pid, ppid, time);
		break;
	case PERF_RECORD_COMM:
		if (!(h->misc & PERF_RECORD_MISC_COMM_EXEC) || h->size < 16)
			break;
		memcpy(&pid, p + 8, 4);
		maps__add_exec(m, pid, time);
		break;
	}
}

/* ---- processes ---------------------------------------------------------- */

static struct maps_pid *pid_slot(const struct maps *m, uint32_t pid)
{
	size_t mask = m->pid_hash_size - 1;
	size_t i = mix(0, pid) & mask;

	while (m->pids[i].gen && m->pids[i].pid != pid)
		i = (i + 1) & mask;
	return &m->pids[i];
}

static struct maps_pid *pid_get(struct maps *m, uint32_t pid)
{
	struct maps_pid *p = pid_slot(m, pid);

	if (p->gen)
		return p;
	if ((m->nr_pids + 1) * 2 > m->pid_hash_size) {
		struct maps_pid *old = m->pids;
		size_t old_size = m->pid_hash_size;

		m->pid_hash_size *= 2;
		m->pids = xzalloc(m->pid_hash_size * sizeof(*m->pids));
		for (size_t i = 0; i < old_size; i++)
			if (old[i].gen)
				*pid_slot(m, old[i].pid) = old[i];
		free(old);
		p = pid_slot(m, pid);
	}
	p->pid = pid;
	p->gen = xzalloc(sizeof(*p->gen));
	p->nr = 0;
	m->nr_pids++;
	return p;
}

static void mark(struct maps *m, struct maps_proc *g)
{
	if (g->dirty)
		return;
	g->dirty = true;
	if (m->nr_dirty == m->cap_dirty) {
		m->cap_dirty = m->cap_dirty ? m->cap_dirty * 2 : 64;
		m->dirty = xrealloc(m->dirty, m->cap_dirty * sizeof(*m->dirty));
	}
	m->dirty[m->nr_dirty++] = g;
}

static struct maps_proc *gen_new(struct maps *m, struct maps_pid *p, uint64_t born)
{
	struct maps_proc *g = xzalloc(sizeof(*g));

	g->pid = p->pid;
	g->born = born;
	p->gen = xrealloc(p->gen, (p->nr + 1) * sizeof(*p->gen));
	p->gen[p->nr++] = g;
	m->nr_procs++;
	mark(m, g);
	return g;
}

/* The generation events of pid go to now (events come in time order). */
static struct maps_proc *gen_current(struct maps *m, uint32_t pid)
{
	struct maps_pid *p = pid_get(m, pid);

	return p->nr ? p->gen[p->nr - 1] : gen_new(m, p, 0);
}

static void proc_push(struct maps *m, struct maps_proc *g, const struct map *mp)
{
	if (g->nr == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 32;
		g->maps = xrealloc(g->maps, g->cap * sizeof(*g->maps));
	}
	g->maps[g->nr++] = *mp;
	mark(m, g);
	m->nr_maps++;
}

static void apply_mmap(struct maps *m, const struct maps_ev *e)
{
	struct maps_proc *g = gen_current(m, e->pid);
	uint64_t s = e->start, end = e->start + e->len;
	struct map nm = {
		.start = s, .end = end, .pgoff = e->pgoff,
		.from = e->time, .to = MAPS_TIME_END, .dso = e->dso,
	};
	size_t n = g->nr;

	for (size_t i = 0; i < n; i++) {
		struct map old = g->maps[i];

		if (old.to != MAPS_TIME_END || old.end <= s || old.start >= end)
			continue;
		g->maps[i].to = e->time;
		mark(m, g);
		/* What the new map leaves of the old one lives on, from now. */
		if (old.start < s) {
			struct map left = old;

			left.end = s;
			left.from = e->time;
			proc_push(m, g, &left);
		}
		if (old.end > end) {
			struct map right = old;

			right.start = end;
			right.pgoff = old.pgoff + (end - old.start);
			right.from = e->time;
			proc_push(m, g, &right);
		}
	}
	proc_push(m, g, &nm);
}

static void apply_fork(struct maps *m, const struct maps_ev *e)
{
	struct maps_pid *pp = pid_slot(m, e->ppid);
	struct maps_proc *parent = pp->gen && pp->nr ? pp->gen[pp->nr - 1] : NULL;
	struct maps_proc *child;

	/* pid_get may move the table: look the parent up first, keep the pointer to it. */
	child = gen_new(m, pid_get(m, e->pid), e->time);
	if (!parent)
		return;
	for (size_t i = 0; i < parent->nr; i++) {
		struct map mp = parent->maps[i];

		if (mp.to != MAPS_TIME_END || mp.from > e->time)
			continue;
		mp.from = e->time;
		proc_push(m, child, &mp);
	}
}

static void apply_exec(struct maps *m, const struct maps_ev *e)
{
	struct maps_proc *g = gen_current(m, e->pid);

	for (size_t i = 0; i < g->nr; i++)
		if (g->maps[i].to == MAPS_TIME_END) {
			g->maps[i].to = e->time;
			mark(m, g);
		}
}

static int ev_cmp(const void *a, const void *b)
{
	const struct maps_ev *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int map_cmp(const void *a, const void *b)
{
	const struct map *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

/* A DSO with no build id of its own takes the BUILD_ID feature's for its name. */
static void fill_build_ids(struct maps *m)
{
	for (size_t i = 0; i < m->nr_dsos; i++) {
		struct map_dso *d = m->dsos[i];

		if (d->bid.size)
			continue;
		for (size_t j = 0; j < m->nr_bids; j++)
			if (!strcmp(m->bids[j].name, d->name)) {
				d->bid = m->bids[j].bid;
				break;
			}
	}
}

/* Sort a process's maps by start and index their reach, for maps__find(). */
static void proc_index(struct maps_proc *g)
{
	uint64_t mx = 0;

	if (g->nr)
		qsort(g->maps, g->nr, sizeof(*g->maps), map_cmp);
	free(g->maxend);
	g->maxend = xzalloc((g->nr + 1) * sizeof(*g->maxend));
	for (size_t k = 0; k < g->nr; k++) {
		mx = MAX(mx, g->maps[k].end);
		g->maxend[k] = mx;
	}
	g->dirty = false;
}

static void apply(struct maps *m, const struct maps_ev *e)
{
	switch (e->type) {
	case EV_MMAP:
		apply_mmap(m, e);
		break;
	case EV_FORK:
		apply_fork(m, e);
		break;
	case EV_EXEC:
		apply_exec(m, e);
		break;
	}
}

void maps__apply(struct maps *m, uint64_t until)
{
	size_t n = 0;

	if (m->nr_ev > m->sorted_ev)
		qsort(m->ev, m->nr_ev, sizeof(*m->ev), ev_cmp);
	while (n < m->nr_ev && m->ev[n].time <= until)
		apply(m, &m->ev[n++]);
	/* What is left stays sorted: the next call sorts only when more came. */
	if (n)
		memmove(m->ev, m->ev + n, (m->nr_ev - n) * sizeof(*m->ev));
	m->nr_ev -= n;
	m->sorted_ev = m->nr_ev;
	if (!n && m->sealed)
		return;
	fill_build_ids(m);
	for (size_t i = 0; i < m->nr_dirty; i++)
		proc_index(m->dirty[i]);
	m->nr_dirty = 0;
	/* Every cursor's answers may point into arrays that moved. */
	m->version++;
	m->sealed = true;
}

void maps__seal(struct maps *m)
{
	if (m->sealed && !m->nr_ev)
		return;
	maps__apply(m, MAPS_TIME_END);
	free(m->ev);
	m->ev = NULL;
	m->nr_ev = m->cap_ev = m->sorted_ev = 0;
}

static const struct maps_proc *proc_at(const struct maps *m, uint32_t pid, uint64_t time)
{
	const struct maps_pid *p = pid_slot(m, pid);

	if (!p->gen)
		return NULL;
	for (size_t i = p->nr; i-- > 0;)
		if (p->gen[i]->born <= time)
			return p->gen[i];
	return p->nr ? p->gen[0] : NULL;
}

static bool map_has(const struct map *mp, uint64_t addr, uint64_t time)
{
	return mp->start <= addr && addr < mp->end && mp->from <= time && time < mp->to;
}

const struct map *maps__find(const struct maps *m, struct maps_cursor *c, uint32_t pid,
			     uint64_t addr, uint64_t time)
{
	const struct maps_proc *g;
	const struct map *hit;
	size_t slot = (addr >> 12) % MAPS_CURSOR_SLOTS;
	size_t lo, hi;

	/* The cached answers are of one process generation: another one clears them. */
	g = proc_at(m, pid, time);
	if (c->pid != pid || c->proc != g || c->version != m->version) {
		memset(c->slot, 0, sizeof(c->slot));
		c->pid = pid;
		c->proc = g;
		c->version = m->version;
	}
	if (!g)
		return NULL;
	hit = c->slot[slot];
	if (hit && map_has(hit, addr, time))
		return hit;
	/* The last map starting at or below addr, then back while one could reach it. */
	lo = 0;
	hi = g->nr;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (g->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && g->maxend[i] > addr;) {
		if (map_has(&g->maps[i], addr, time)) {
			c->slot[slot] = &g->maps[i];
			return &g->maps[i];
		}
	}
	return NULL;
}

size_t maps__nr_dsos(const struct maps *m)
{
	return m->nr_dsos;
}

struct map_dso *maps__dso(const struct maps *m, size_t i)
{
	return i < m->nr_dsos ? m->dsos[i] : NULL;
}

size_t maps__nr_procs(const struct maps *m)
{
	return m->nr_procs;
}

size_t maps__nr_maps(const struct maps *m)
{
	return m->nr_maps;
}
