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
	/* maps[] holds cap rings: those past nr are for CPUs that come online later (rings__add). */
	int cap;
	int reserved;		/* rings__reserve's extra, for rings__map */
	/* How the rings were mapped, for one added later. */
	unsigned int pages;
	int nr_bufs;
	bool backward;
	uint64_t flush;
};

/* Map one ring per CPU of el with nr_bufs data buffers each. 0 or -errno, said. */
int rings__map(struct rings *r, struct evlist *el, unsigned int pages, int nr_bufs);
/*
 * Before rings__map: room for extra rings more (one per CPU that may come
 * online while recording). maps[] never moves once mapped: a ring's
 * buffers, its readers and the pipeline point into it.
 */
void rings__reserve(struct rings *r, int extra);
/*
 * A ring for a CPU that came online while recording: fd's mmap, mapped
 * as the others were, at maps[nr]. Its index, or -ENOSPC (no room
 * reserved) or mmap's -errno.
 */
int rings__add(struct rings *r, int fd, int cpu);
/* Take back the ring just added (nothing was written from it). */
void rings__drop_last(struct rings *r);
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
