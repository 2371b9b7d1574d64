/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One kernel ring buffer and its user-space data buffers: rings, buffers
 * and copies, and nothing of where the bytes go next (the reader hands
 * them down its pipeline, pipeline.h).
 *
 * A copy snapshots data_head, copies [tail, head) into a data buffer --
 * two pieces when it wraps -- and stores data_tail, so that the kernel
 * may reuse the space at once (DESIGN.md, decision 2). A buffer may take
 * several copies of its ring, one behind the other, before it is handed
 * on (mmap__hand_over); the ring is held (refcnt) by each buffer handed
 * on and is unmapped only when the last hold is released.
 *
 * A data buffer is owned by exactly one party: free (the ring), filled
 * (the reader, between copy and hand-over) or in flight (the pipeline,
 * until its chunk completes).
 */
#ifndef PERFCAP_MMAP_H
#define PERFCAP_MMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/pipeline.h"

struct mmap;
struct aux_ring;

enum mmap_buf_state { MMAP_BUF_FREE, MMAP_BUF_FILLED, MMAP_BUF_INFLIGHT };

struct mmap_buf {
	struct chunk chunk;	/* what is handed on: data[0, len), cap */
	struct mmap *map;
	char *data;
	size_t cap;		/* ring size + room for a FINISHED_ROUND */
	size_t len;		/* bytes filled */
	size_t fresh;		/* where the bytes of the latest copy start */
	enum mmap_buf_state state;
};

struct mmap {
	int fd;
	int cpu;
	void *base;		/* control page, then the data pages */
	size_t map_len;		/* what was mmap()ed; 0 for a fake ring */
	unsigned char *data;
	uint64_t size;		/* data area, a power of two */
	uint64_t mask;
	uint64_t prev;		/* our tail: bytes consumed so far */
	int refcnt;		/* 1 while open + 1 per write in flight */
	bool closed;
	/*
	 * --overwrite: a backward ring, mapped read-only, that the kernel
	 * overwrites; it is read only when a snapshot is due (backward.h).
	 */
	bool backward;
	bool snap_due;
	bool paused;		/* PERF_EVENT_IOC_PAUSE_OUTPUT is on (a fake ring: would be) */
	struct aux_ring *aux;	/* its event's AUX area (record/aux.h); NULL: none */
	struct mmap_buf *bufs;
	int nr_bufs;
	int nr_free;
	struct mmap_buf *filling;	/* copied into, not yet submitted */
	uint64_t flush;		/* --mmap-flush: copy only once this much is ready; 0: any */
	/* Called when the last hold goes: the ring is gone (tests). */
	void (*on_release)(struct mmap *m);
	/* Numbers for the summary and the benchmark. */
	uint64_t bytes;
	uint64_t nr_copies;
	uint64_t nr_waits;	/* pushes that found every buffer in flight */
	uint64_t nr_defers;	/* ... and came back later instead of waiting */
	uint64_t nr_holds;	/* passes that kept a small chunk for more */
	/* Copies and put-offs by how full the ring was, in eighths (7: 7/8 or more). */
	uint64_t nr_fill[8];
};

/* Map the ring of a perf event fd: 1 + pages pages. 0 or -errno. */
int mmap__init(struct mmap *m, int fd, int cpu, unsigned int pages, int nr_bufs);
/* The same, read-only, for write_backward events: a backward ring (backward.h). */
int mmap__init_backward(struct mmap *m, int fd, int cpu, unsigned int pages, int nr_bufs);
/*
 * A ring in ordinary memory, for tests: base points to a control page
 * (struct perf_event_mmap_page) followed at page_size by size bytes.
 */
int mmap__init_fake(struct mmap *m, void *base, size_t page_size, uint64_t size,
		    int nr_bufs);

/*
 * Copy the ready bytes into the buffer being filled, or a free one, and
 * release them to the kernel. Returns the number of bytes copied (0:
 * nothing ready, *bufp untouched), or:
 *   -ENOSPC   the buffer being filled has no room for them: hand it on
 *             (m->filling) and copy again;
 *   -ENOBUFS  every buffer is in flight: wait for one to come back and
 *             copy again (back-pressure; m->nr_waits counts these);
 *   -EAGAIN   may_defer, every buffer in flight, and the ring less than
 *             1/MMAP_DEFER_DIV full: come back in a later pass instead;
 *   -EINVAL   the ring says more is ready than it holds.
 */
#define MMAP_DEFER_DIV 2
ssize_t mmap__copy(struct mmap *m, bool may_defer, struct mmap_buf **bufp);
/*
 * The filled buffer b leaves its ring as a chunk: in flight, holding the
 * ring, until the chunk completes (then it is free again).
 */
struct chunk *mmap__hand_over(struct mmap_buf *b);

/* The buffer being filled, or a free one made it; NULL: every buffer is in flight. */
struct mmap_buf *mmap__filling(struct mmap *m);
/* Every buffer extra bytes larger (an AUX area's copies go behind the ring's). 0 or -ENOMEM. */
int mmap__grow_bufs(struct mmap *m, size_t extra);

void mmap__get(struct mmap *m);
void mmap__put(struct mmap *m);
/* Drop the ring's own reference; it goes when its writes have finished. */
void mmap__close(struct mmap *m);

/* Bytes the kernel has written that we have not consumed. */
uint64_t mmap__ready(struct mmap *m);

#endif
