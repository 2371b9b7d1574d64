/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The compression stage of one reader (perfcap record -z): a thread of
 * its own that takes the reader's copied chunks in order, compresses
 * them into COMPRESSED records (compress.h), and only then reserves
 * their file offset and writes them through a writer of its own. The
 * reader never waits for zstd: it hands a chunk over and goes on
 * draining its rings; the chunk's data buffer comes back to it, through
 * compress_stage__reap(), as soon as the chunk is compressed.
 *
 * Rounds (rounds.h). The reader decides whether a pass is clean (no ring
 * put off, no chunk kept: everything it copied is handed over) and when
 * it began; the stage decides the rest, because only it knows when what
 * was handed over is reserved. So the reader queues, behind the pass's
 * chunks, a "clean pass" item with the gen the pass began under, and the
 * stage, on reaching it (every chunk before it now reserved, in order),
 * does what mmap__pass_submit() does without compression: try to close
 * the round, put the FINISHED_ROUND marker behind its own last chunk,
 * reserve, then publish the pass as clean and count the round. The
 * rounds lock is taken and released by the stage thread alone. The rule
 * and its proof in rounds.h hold as they stand with "reserved" read as
 * "reserved by the stage": a marker R(k+1) is reserved only when every
 * reader's stage has reserved everything that reader copied up to a pass
 * that began after R(k) was reserved.
 *
 * Memory is bounded (DESIGN.md, 7): the queue holds at most every data
 * buffer of the reader's rings, once each, and one clean-pass item after
 * each (a clean-pass item queued behind another replaces it: the later
 * clean pass stands for both); the stage compresses into a few output
 * buffers of its own, each with room for a ring's worth of chunk, and
 * waits for its writer when all are in flight.
 *
 * Locks: lock protects the queue, the done list and stop; it is never
 * held while compressing, reserving or writing. The stage holds the
 * rounds lock (and under it, briefly, the output's) from a successful
 * rounds__try_close() to rounds__close(), as the reader does without
 * compression.
 */
#ifndef PERFCAP_COMPRESS_STAGE_H
#define PERFCAP_COMPRESS_STAGE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/compress.h"
#include "io/writer.h"

struct output;
struct rounds;

struct compress_item {
	struct write_req *req;	/* a chunk; NULL: the end of a clean pass */
	uint64_t gen;		/* clean pass: the round gen it began under */
	uint64_t now;		/* clean pass: its time, for the round it may close */
	bool data;		/* clean pass: it (or one it stands for) handed chunks over */
};

struct compress_buf {
	struct write_req req;
	struct compress_stage *s;
	char *data;
	size_t len, cap;
	bool busy;		/* filled or in flight */
};

struct compress_stage {
	struct output *out;
	struct rounds *rounds;	/* NULL: no other readers; close on every clean pass with data */
	int thread;		/* the reader's index in rounds */
	struct compressor z;
	struct writer writer;	/* the stage thread's own */
	int writer_fd;
	bool has_writer;

	pthread_mutex_t lock;
	pthread_cond_t wake;	/* the stage: an item, or stop */
	pthread_cond_t done_cv;	/* the reader: a chunk is compressed */
	struct compress_item *q;
	size_t q_cap, q_head, q_len;
	struct write_req *done_head, **done_tail;
	bool stop;
	int pending;		/* chunks handed over, not yet reaped back (reader's count) */

	/* The stage thread's. */
	struct compress_buf *bufs;
	int nr_bufs;
	struct compress_buf *cur;
	pthread_t tid;
	bool started;
	uint64_t nr_rounds, nr_chunks;
};

/*
 * A stage for a reader whose rings hold at most max_chunks data buffers,
 * each with at most ring_size bytes; level is zstd's. Its writer uses ops
 * on a dup of out's fd. NULL with a message on failure.
 */
struct compress_stage *compress_stage__new(struct output *out, const struct writer_ops *ops,
					   int level, size_t ring_size, int max_chunks,
					   struct rounds *rounds, int thread);
/*
 * Stops it first if it runs and completes what it was handed (in the
 * calling thread, which must own the reader's side then). NULL is fine.
 */
void compress_stage__delete(struct compress_stage *s);
/* Start the thread (signals blocked in it). 0 or -errno. */
int compress_stage__start(struct compress_stage *s, int idx);
/* Let it finish every item and its writes, and join it. */
void compress_stage__stop(struct compress_stage *s);

/*
 * The reader's side; any one thread at a time (the reader, or the record
 * loop once the reader is joined).
 *
 * Hand a chunk over: req->buf/len set, req->on_complete called from
 * compress_stage__reap() once it is compressed (the bytes are then the
 * submitter's again). Never blocks. 0 or -errno.
 */
int compress_stage__submit(struct compress_stage *s, struct write_req *req);
/*
 * A pass's n chunks and, if the pass is clean, its end (it began under
 * gen; data: it handed chunks over), at once: one wakeup of the stage.
 * 0, or -errno with nothing handed over.
 */
int compress_stage__submit_pass(struct compress_stage *s, struct write_req **reqs, int n,
				bool clean, uint64_t gen, bool data, uint64_t now);
/*
 * Complete the chunks that are compressed; with wait, first wait for one
 * if none is and some are pending. Returns the output's sticky error or 0.
 */
int compress_stage__reap(struct compress_stage *s, bool wait);

/* zstd's totals so far (stage thread's numbers; read after stop, or loosely). */
uint64_t compress_stage__bytes_in(const struct compress_stage *s);
uint64_t compress_stage__bytes_out(const struct compress_stage *s);

#endif
