/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One kernel ring buffer and its user-space data buffers.
 *
 * Push (DESIGN.md "Data flow"): snapshot data_head, take a free data
 * buffer (waiting for a write to finish if all are in flight), copy
 * [tail, head) out -- two pieces when it wraps --, store data_tail so the
 * kernel may reuse the space at once, then reserve the file offset, hold
 * the ring and submit the write. The ring is held (refcnt) by each write
 * in flight and is unmapped only when the last hold is released.
 *
 * A data buffer is owned by exactly one party: free (the ring), filled
 * (the record loop, between copy and submit) or in flight (the writer).
 * A filled buffer may take several copies of its ring, one behind the
 * other, before it is submitted (the pass below keeps small chunks).
 */
#ifndef PERFCAP_MMAP_H
#define PERFCAP_MMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "io/writer.h"

struct compress_stage;
struct output;
struct mmap;
struct rounds;

enum mmap_buf_state { MMAP_BUF_FREE, MMAP_BUF_FILLED, MMAP_BUF_INFLIGHT };

struct mmap_buf {
	struct write_req req;
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
	struct output *out;
	struct writer *writer;	/* its reader thread's; NULL: the output's */
	/*
	 * -z: its reader's compression stage (compress-stage.h). Chunks go
	 * there instead of to a writer, their offsets are reserved there, and
	 * they come back through compress_stage__reap().
	 */
	struct compress_stage *stage;
	struct mmap_buf *bufs;
	int nr_bufs;
	int nr_free;
	struct mmap_buf *filling;	/* copied into, not yet submitted */
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
int mmap__init(struct mmap *m, int fd, int cpu, unsigned int pages, int nr_bufs,
	       struct output *out);
/*
 * A ring in ordinary memory, for tests: base points to a control page
 * (struct perf_event_mmap_page) followed at page_size by size bytes.
 */
int mmap__init_fake(struct mmap *m, void *base, size_t page_size, uint64_t size,
		    int nr_bufs, struct output *out);

/*
 * Copy the ready bytes into a free buffer and release them to the kernel.
 * Returns the number of bytes copied (0: nothing ready, *bufp untouched)
 * or -errno (a write failed while waiting for a free buffer).
 */
ssize_t mmap__copy(struct mmap *m, struct mmap_buf **bufp);
/*
 * The same, except that when every buffer is in flight and the ring is
 * less than 1/MMAP_DEFER_DIV full it copies nothing and returns -EAGAIN:
 * the caller comes back later instead of waiting for a write now.
 */
#define MMAP_DEFER_DIV 2
ssize_t mmap__copy_or_defer(struct mmap *m, struct mmap_buf **bufp);
/* Reserve, hold and submit a filled buffer. 0 or -errno. */
int mmap__submit(struct mmap *m, struct mmap_buf *buf);
/* Copy + submit. Bytes pushed or -errno. */
ssize_t mmap__push(struct mmap *m);

/*
 * One pass over the rings: copy every ring that has data (mmap__copy, or
 * mmap__copy_or_defer if may_defer), then submit the chunks at offsets
 * reserved in ring order. If may_defer, a chunk is kept in its buffer for
 * the ring's next copies instead (fewer, larger writes: each write wakes a
 * writer thread or costs a system call): with one buffer per ring while
 * under 1/MMAP_HOLD_DIV of the ring, with more until the buffer is full.
 * The last chunk carries a FINISHED_ROUND only when no ring was put off
 * and no chunk kept (the pass is clean): perf report sorts each round's
 * events only up to the previous round's last timestamp, and a ring put
 * off or a chunk kept now puts events older than that in the file later.
 * With reader threads (rounds set), a clean pass also has to find every
 * other thread clean since the last round (rounds.h).
 * With a compression stage (stage set: every ring of the pass has it),
 * the chunks are handed to it and a clean pass is said to it behind them;
 * the stage places the FINISHED_ROUND (compress-stage.h).
 */
#define MMAP_HOLD_DIV 2
struct mmap_pass {
	struct mmap_buf **bufs;	/* room for one chunk per ring */
	int nr;			/* chunks copied or held */
	int deferred;		/* rings put off: all their buffers in flight */
	int held;		/* chunks kept in their buffers for more */
	bool may_defer;
	bool round;		/* this pass closed a round */
	/* Reader threads: the rounds shared with the others, and which one this is. */
	struct rounds *rounds;
	int thread;
	uint64_t gen;		/* the round gen this pass began under */
	struct compress_stage *stage;	/* -z: the reader's */
};

/* Bytes copied or -errno; p->bufs[0..nr) hold what was copied even then. */
ssize_t mmap__pass_copy(struct mmap **maps, int nr_maps, struct mmap_pass *p, bool may_defer);
/* Close the round if the pass may, and submit every chunk. 0 or -errno. */
int mmap__pass_submit(struct mmap_pass *p, uint64_t now);

void mmap__get(struct mmap *m);
void mmap__put(struct mmap *m);
/* Drop the ring's own reference; it goes when its writes have finished. */
void mmap__close(struct mmap *m);

/* Bytes the kernel has written that we have not consumed. */
uint64_t mmap__ready(struct mmap *m);

#endif
