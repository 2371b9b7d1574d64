/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recording's rings: one per CPU of the event list (or one for the
 * per-thread events), each the mmap of that CPU's first event fd, every
 * other fd of the CPU redirected into it (evlist__set_output).
 */
#ifndef PERFCAP_RECORD_RINGS_H
#define PERFCAP_RECORD_RINGS_H

#include "record/mmap.h"

struct evlist;

struct rings {
	struct mmap *maps;
	int nr;
};

/* Map one ring per CPU of el with nr_bufs data buffers each. 0 or -errno, said. */
int rings__map(struct rings *r, struct evlist *el, unsigned int pages, int nr_bufs);
/*
 * --overwrite: each backward ring is paused for a snapshot, which the
 * readers' next pass takes (backward.h); forward rings are left alone.
 */
void rings__snapshot(struct rings *r);
/*
 * --mmap-flush: every ring copies only once bytes are ready, at most a
 * quarter of the ring as perf caps it; 0 for the last pass, which takes all.
 * Only while no reader runs.
 */
void rings__set_flush(struct rings *r, uint64_t bytes);
/* Each ring's own reference dropped: it goes once its writes are done. */
void rings__close(struct rings *r);
void rings__exit(struct rings *r);

#endif
