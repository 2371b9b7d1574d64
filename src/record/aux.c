// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "events/evlist.h"
#include "record/mmap.h"
#include "record/record-thread.h"
#include "record/rings.h"
#include "events/pmu.h"
#include "record-opts.h"
#include "perf-file.h"
#include "record/aux.h"
#include "util.h"

#define AUXTRACE_ALIGN 8

enum aux_kind aux__kind(const char *name)
{
	static const struct {
		const char *prefix;
		enum aux_kind kind;
		bool exact;
	} tracers[] = {
		{ "intel_pt", AUX_INTEL_PT, true },
		{ "intel_bts", AUX_INTEL_BTS, true },
		{ "cs_etm", AUX_CS_ETM, true },
		{ "arm_spe", AUX_ARM_SPE, false },	/* arm_spe_0, ... */
	};

	for (size_t i = 0; name && i < ARRAY_SIZE(tracers); i++) {
		size_t n = strlen(tracers[i].prefix);

		if (tracers[i].exact ? !strcmp(name, tracers[i].prefix) :
		    !strncmp(name, tracers[i].prefix, n))
			return tracers[i].kind;
	}
	return AUX_UNKNOWN;
}

enum aux_kind aux__kind_of_type(uint32_t type)
{
	enum aux_kind kind = AUX_UNKNOWN;
	char *dir_path;
	struct dirent *d;
	DIR *dir;

	/* The fixed types (hardware, software, tracepoint, ...) are no tracer's. */
	if (type < PERF_TYPE_MAX)
		return AUX_UNKNOWN;
	if (asprintf(&dir_path, "%s/bus/event_source/devices", pmu__sysfs_root()) < 0)
		return AUX_UNKNOWN;
	dir = opendir(dir_path);
	while (dir && kind == AUX_UNKNOWN && (d = readdir(dir))) {
		char *path, buf[32];
		FILE *f;

		if (d->d_name[0] == '.' || aux__kind(d->d_name) == AUX_UNKNOWN)
			continue;
		if (asprintf(&path, "%s/%s/type", dir_path, d->d_name) < 0)
			break;
		f = fopen(path, "r");
		free(path);
		if (f && fgets(buf, sizeof(buf), f) && strtoul(buf, NULL, 10) == type)
			kind = aux__kind(d->d_name);
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
	free(dir_path);
	return kind;
}

static bool is_aux(const struct evsel *e)
{
	return aux__kind_of_type(e->attr.type) != AUX_UNKNOWN;
}

struct evsel *aux__evsel(const struct evlist *el)
{
	for (int i = 0; i < el->nr; i++)
		if (is_aux(el->evsels[i]))
			return el->evsels[i];
	return NULL;
}

int aux__setup_events(struct evlist *el, const struct record_opts *o)
{
	struct evsel *aux = aux__evsel(el);
	int at = 0;

	if (!aux) {
		if (o->aux_snapshot) {
			pr_err("No AUX area tracing to snapshot\n");
			return -EINVAL;
		}
		if (o->aux_sample) {
			pr_err("No AUX area event to sample\n");
			return -EINVAL;
		}
		return 0;
	}
	switch (aux__kind_of_type(aux->attr.type)) {
	case AUX_INTEL_PT:
	case AUX_CS_ETM:
		/* Their AUXTRACE_INFO carries the tracer's own setup, which perfcap does not write. */
		pr_err("%s: perfcap cannot yet describe this tracer's setup to perf (its "
		       "AUXTRACE_INFO record): record it with perf record\n", aux->name);
		return -EINVAL;
	default:
		break;
	}
	if (o->comp_level || o->overwrite) {
		pr_err("%s: AUX area tracing with %s: perf 6.1 reads the trace only uncompressed "
		       "and from a data ring perfcap can write its AUX area's place into\n",
		       aux->name, o->comp_level ? "-z" : "--overwrite");
		return -EINVAL;
	}
	while (el->evsels[at] != aux)
		at++;
	memmove(el->evsels + 1, el->evsels, at * sizeof(*el->evsels));
	el->evsels[0] = aux;
	for (int i = 0; i < el->nr; i++)
		el->evsels[i]->idx = i;
	return 0;
}

void aux__config(struct evlist *el, const struct record_opts *o)
{
	struct evsel *aux = aux__evsel(el), *e;

	if (!aux || !o->aux_sample)
		return;
	evlist__for_each_evsel(el, e) {
		if (e == aux || e->leader != aux)
			continue;
		e->attr.sample_type |= PERF_SAMPLE_AUX;
		e->attr.aux_sample_size = o->aux_sample_size;
	}
}

int aux__map(struct aux_ring *a, int fd, void *ring_base, size_t ring_map_len,
	     unsigned int aux_pages, bool snapshot)
{
	struct perf_event_mmap_page *pc = ring_base;
	size_t len = (size_t)aux_pages * sysconf(_SC_PAGESIZE);
	void *p;

	memset(a, 0, sizeof(*a));
	if (!aux_pages || aux_pages & (aux_pages - 1))
		return -EINVAL;	/* the kernel wants a power of two */
	/* The kernel reads where the area goes from the control page, at mmap time. */
	pc->aux_offset = ring_map_len;
	pc->aux_size = len;
	/* Read-only: the PMU overwrites the oldest trace (snapshot mode), ignoring aux_tail. */
	p = mmap(NULL, len, snapshot ? PROT_READ : PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)ring_map_len);
	if (p == MAP_FAILED)
		return -errno;
	aux__init_fake(a, pc, p, len, snapshot);
	a->map_len = len;
	return 0;
}

void aux__init_fake(struct aux_ring *a, struct perf_event_mmap_page *pc, void *data,
		    uint64_t len, bool snapshot)
{
	memset(a, 0, sizeof(*a));
	a->pc = pc;
	a->data = data;
	a->len = len;
	a->mask = len - 1;
	a->snapshot = snapshot;
	a->tid = (uint32_t)-1;
	a->cpu = (uint32_t)-1;
}

void aux__unmap(struct aux_ring *a)
{
	if (a->map_len && a->data)
		munmap(a->data, a->map_len);
	a->data = NULL;
	a->map_len = 0;
}

size_t aux__max_copy(const struct aux_ring *a)
{
	return sizeof(struct perf_record_auxtrace) + a->len + AUXTRACE_ALIGN;
}

void aux__snapshot(struct aux_ring *a)
{
	/* Release: set by the record loop, taken by the ring's reader (aux__copy). */
	if (a->snapshot && a->data)
		__atomic_store_n(&a->snap_due, true, __ATOMIC_RELEASE);
}

static bool aux_ready(struct aux_ring *a)
{
	if (a->snapshot)
		return __atomic_load_n(&a->snap_due, __ATOMIC_ACQUIRE);
	return __atomic_load_n(&a->pc->aux_head, __ATOMIC_ACQUIRE) != a->prev;
}

ssize_t aux__copy(struct aux_ring *a, void *buf, size_t cap)
{
	struct perf_record_auxtrace ev = {
		.header = { .type = PERF_RECORD_AUXTRACE, .size = sizeof(ev) },
		.idx = a->idx, .tid = a->tid, .cpu = a->cpu,
	};
	unsigned char *out = buf;
	uint64_t head, size, start, first, pad;

	if (a->snapshot && !__atomic_load_n(&a->snap_due, __ATOMIC_ACQUIRE))
		return 0;
	/* Pairs with the PMU driver's barrier before it publishes aux_head. */
	head = __atomic_load_n(&a->pc->aux_head, __ATOMIC_ACQUIRE);
	size = head - a->prev;
	/*
	 * Only a snapshot area can hold less than what came: the PMU wrote
	 * round it. Its newest bytes are what is left (and -S SIZE caps them).
	 */
	if (a->snapshot && a->snapshot_size && size > a->snapshot_size)
		size = a->snapshot_size;
	if (size > a->len)
		size = a->len;
	pad = (AUXTRACE_ALIGN - size % AUXTRACE_ALIGN) % AUXTRACE_ALIGN;
	if (size && sizeof(ev) + size + pad > cap)
		return -ENOSPC;
	__atomic_store_n(&a->snap_due, false, __ATOMIC_RELAXED);
	if (!size)
		return 0;
	ev.size = size + pad;
	ev.offset = head - size;
	memcpy(out, &ev, sizeof(ev));
	start = ev.offset & a->mask;
	first = MIN(size, a->len - start);
	memcpy(out + sizeof(ev), a->data + start, first);
	if (first < size)	/* wrapped: the rest is at the start of the area */
		memcpy(out + sizeof(ev) + first, a->data, size - first);
	memset(out + sizeof(ev) + size, 0, pad);
	/*
	 * Release: our reads of the trace happen before the PMU sees the new
	 * tail (it may write there again once it does). A snapshot area is
	 * read-only: the PMU never waits for it.
	 */
	if (!a->snapshot)
		__atomic_store_n(&a->pc->aux_tail, head, __ATOMIC_RELEASE);
	a->prev = head;
	a->bytes += size;
	a->nr_records++;
	return sizeof(ev) + size + pad;
}

size_t aux__info(void *buf, size_t cap, enum aux_kind kind, const uint64_t *priv, int nr)
{
	struct perf_record_auxtrace_info *info = buf;
	size_t size = sizeof(*info) + (size_t)nr * sizeof(uint64_t);

	if (kind == AUX_UNKNOWN || size > cap || size > UINT16_MAX)
		return 0;
	memset(info, 0, sizeof(*info));
	info->header.type = PERF_RECORD_AUXTRACE_INFO;
	info->header.size = size;
	info->type = kind;
	if (nr)
		memcpy(info->priv, priv, (size_t)nr * sizeof(uint64_t));
	return size;
}

/* ---- in the recording ------------------------------------------------------ */

int aux__map_rings(struct rings *r, const struct evlist *el, const struct record_opts *o)
{
	long page_size = sysconf(_SC_PAGESIZE);
	unsigned int pages = o->aux_pages;

	if (!el->nr || !aux__evsel(el) || el->evsels[0] != aux__evsel(el))
		return 0;
	if (!pages)
		pages = (geteuid() ? AUX_DEFAULT_BYTES_USER : AUX_DEFAULT_BYTES_ROOT) / page_size;
	for (int c = 0; c < r->nr; c++) {
		struct mmap *m = &r->maps[c];
		struct aux_ring *a = xzalloc(sizeof(*a));
		int err = aux__map(a, m->fd, m->base, m->map_len, pages, o->aux_snapshot);

		if (err) {
			pr_err("cannot mmap the AUX area of CPU %d (%u pages): %s.\n"
			       "  Try a smaller -m ,M, or raise /proc/sys/kernel/perf_event_mlock_kb.\n",
			       m->cpu, pages, strerror(-err));
			free(a);
			return err;
		}
		a->idx = c;
		a->cpu = m->cpu;
		/* perf's: the first thread of the target, or -1 for every thread of the CPU. */
		a->tid = el->nr_threads && el->threads[0] > 0 ? (uint32_t)el->threads[0] : (uint32_t)-1;
		a->snapshot_size = o->aux_snapshot_size;
		m->aux = a;
		err = mmap__grow_bufs(m, aux__max_copy(a));
		if (err)
			return err;
	}
	return 0;
}

ssize_t aux__copy_ring(struct mmap *m, ssize_t copied, struct mmap_buf **bufp)
{
	struct mmap_buf *b;
	ssize_t n;

	if (!aux_ready(m->aux))
		return copied;
	b = mmap__filling(m);
	if (!b)
		return -ENOBUFS;
	if (!copied)
		b->fresh = b->len;
	n = aux__copy(m->aux, b->data + b->len, b->cap - b->len);
	if (n < 0)
		return n;	/* -ENOSPC: the buffer goes on first, then again */
	b->len += n;
	m->bytes += n;
	if (n)
		*bufp = b;
	return copied + n;
}

void aux__snapshot_rings(struct rings *r, struct record_threads *rt)
{
	uint64_t one = 1;

	for (int i = 0; i < r->nr; i++)
		if (r->maps[i].aux)
			aux__snapshot(r->maps[i].aux);
	for (int i = 0; rt && i < rt->nr; i++)
		if (rt->t[i].wake_fd >= 0)
			(void)!write(rt->t[i].wake_fd, &one, sizeof(one));
}

int aux__info_record(const struct evlist *el, const struct rings *r, struct strbuf *sb)
{
	const struct evsel *e = aux__evsel(el);
	const struct perf_event_mmap_page *pc;
	unsigned char buf[sizeof(struct perf_record_auxtrace_info) + 8 * sizeof(uint64_t)];
	uint64_t priv[8];
	enum aux_kind kind;
	size_t len;
	int nr = 0;

	if (!e || !r->nr || !r->maps[0].aux)
		return 0;
	kind = aux__kind_of_type(e->attr.type);
	pc = r->maps[0].aux->pc;
	priv[nr++] = e->attr.type;
	switch (kind) {
	case AUX_ARM_SPE:
		/* perf 6.1: the PMU type, then whether the AUX areas are per CPU. */
		priv[nr++] = r->maps[0].cpu >= 0;
		break;
	case AUX_INTEL_BTS:
		/* The PMU type, the TSC conversion of the control page, snapshot mode. */
		priv[nr++] = pc->time_shift;
		priv[nr++] = pc->time_mult;
		priv[nr++] = pc->time_zero;
		priv[nr++] = pc->cap_user_time_zero;
		priv[nr++] = r->maps[0].aux->snapshot;
		break;
	default:
		return -EINVAL;	/* aux__setup_events refused it */
	}
	len = aux__info(buf, sizeof(buf), kind, priv, nr);
	if (!len)
		return -EINVAL;
	strbuf__add(sb, buf, len);
	return 0;
}
