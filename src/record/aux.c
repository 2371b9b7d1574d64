// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "events/evlist.h"
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
	if (a->snapshot && a->data)
		a->snap_due = true;
}

ssize_t aux__copy(struct aux_ring *a, void *buf, size_t cap)
{
	struct perf_record_auxtrace ev = {
		.header = { .type = PERF_RECORD_AUXTRACE, .size = sizeof(ev) },
		.idx = a->idx, .tid = a->tid, .cpu = a->cpu,
	};
	unsigned char *out = buf;
	uint64_t head, size, start, first, pad;

	if (a->snapshot && !a->snap_due)
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
	a->snap_due = false;
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
