/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reader's chunk pipeline (DESIGN.md, "The chunk pipeline").
 *
 *   ring ──copy──> chunk ──> [stage ...] ──> output stage ──> writer
 *
 * A reader's path from a ring to its writer, per chunk, each file entered
 * once and none returned to (calls go down; what comes back up is a
 * chunk's completion, req.on_complete, to the producer that owns it):
 *
 *   record/record-thread.c  the step: a pass copies every ring and hands
 *                           the chunks not kept on, then a reap
 *   record/mmap.c           the copy: ready bytes into a data buffer, the
 *                           tail released to the kernel
 *   record/stage-output.c   FINISHED_ROUND behind a clean pass (asking
 *                           record/rounds.c once a pass), then per chunk
 *   io/output.c             the offset reserved, the span tracked
 *   io/writer.c             the backend's submit (writer-sync/aio/uring.c)
 *
 * Every reader's path starts in record/stage-triage.c (unless
 * --user-buffer-size=0), which copies the chunk into its own memory and
 * gives it back at once; its thread goes on to the next stage. While the
 * output keeps up (a synchronous writer on a file, nothing queued) the
 * reader goes on itself instead, with the chunk trimmed in place.
 *
 * With --unwind the triage thread hands its blocks to record/stage-unwind.c,
 * which queues them for its thread; that thread's path is stage-unwind.c
 * -> record/live-maps.c (the maps up to the block's time) ->
 * unwind/callchain.c (each DWARF sample) -> the next stage.
 *
 * With -z the reader's path ends in record/stage-compress.c, which queues
 * the chunk for its thread; that thread's path is stage-compress.c ->
 * io/compress.c (zstd) -> stage-output.c -> io/output.c -> io/writer.c.
 *
 * A chunk is a piece of the record stream in a buffer that its producer
 * owns (a ring's data buffer, a compressed buffer of the -z stage). It is
 * handed down the pipeline and comes back to its producer through
 * req.on_complete once the stage that took it is done with it: written,
 * or compressed into a buffer of the next stage's.
 *
 * Every stage has the same small interface (struct stage_ops, in the
 * spirit of the writer's): submit chunks and the end of a pass, reap
 * what is done. The pass ends "clean" when everything the reader ever
 * copied is handed over (no chunk kept, no ring put off: struct pass,
 * record-thread.h); only the output stage, where offsets are reserved,
 * decides from that where FINISHED_ROUND goes (rounds.h). A new concern
 * is a new stage, built in pipeline__init(), the one place that knows
 * which stages a recording has; the rings and the reader do not change.
 */
#ifndef PERFCAP_RECORD_PIPELINE_H
#define PERFCAP_RECORD_PIPELINE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/writer.h"
#include "unwind/unwind.h"

struct live_maps;
struct output;
struct rounds;
struct stage;

struct chunk {
	/* buf, len; on_complete (set by the producer) gives the chunk back. */
	struct write_req req;
	/* Room in buf: len + a perf_event_header always fits (FINISHED_ROUND). */
	size_t cap;
};

/* The end of a reader's pass, as it travels down the pipeline. */
struct pass_end {
	bool clean;	/* everything the reader copied is handed over */
	bool data;	/* the pass handed chunks over: a round closes only behind such a pass */
	uint64_t gen;	/* the round gen the pass began under (rounds__begin) */
	uint64_t now;	/* its time, for the round it may close */
	bool round;	/* out: the pass closed a round (said by a stage that knows at once) */
};

struct stage_ops {
	const char *name;
	/*
	 * Required. Take n chunks, in order, and, if end is not NULL, the end
	 * of the pass behind them. The stage owns every chunk from the call
	 * on, whatever it returns: one it cannot take, it completes at once
	 * with the error. Never blocks for I/O it did not start. 0 or -errno.
	 */
	int (*submit)(struct stage *s, struct chunk **c, int n, struct pass_end *end);
	/*
	 * Required. Give back (req.on_complete) the chunks it is done with;
	 * with wait, first block until one is, if any is pending. Returns the
	 * output's sticky error or 0. Called by the submitting thread.
	 */
	int (*reap)(struct stage *s, bool wait);
	/* Chunks taken and not yet given back (the status line's queue). */
	int (*queued)(const struct stage *s);
	/* Optional. Start its thread (signals blocked in it). 0 or -errno. */
	int (*start)(struct stage *s, int idx);
	/*
	 * Optional. Finish everything it was handed, down to the writes, and
	 * stop its thread; start() runs it again. 0 or the first error.
	 */
	int (*drain)(struct stage *s);
	/* Optional. Write into fd from now on (a --switch-output's new file). 0 or -errno. */
	int (*retarget)(struct stage *s, int fd);
	/*
	 * Optional. True when submit writes a chunk and gives it back before
	 * it returns, and holds nothing (a synchronous writer on a file, not
	 * a pipe): the stage in front may then hand a reader's chunk straight
	 * on while the output keeps up, instead of copying it (stage-triage.c).
	 */
	bool (*direct)(const struct stage *s);
	/* Required. Complete what it still holds, release what it took. */
	void (*destroy)(struct stage *s);
};

/* What a stage did, for the summary and -v (read once it is drained). */
struct stage_stats {
	unsigned long writes, shorts;	/* writer I/Os started, short ones resubmitted */
	uint64_t rounds;		/* FINISHED_ROUNDs placed */
	uint64_t bytes_in, bytes_out;	/* -z: records in, COMPRESSED records out */
	uint64_t chunks, frames;	/* -z: chunks compressed, zstd frames they went into */
	/* The triage stage's. */
	uint64_t dropped;		/* samples dropped (said in LOST_SAMPLES records) */
	uint64_t carried;		/* ... whose period a kept sample carries */
	uint64_t cut;			/* stacks cut below dyn_size, to TRIAGE_CUT_STACK */
	uint64_t trim_in, trim_out;	/* bytes of the records, before and after trimming */
	uint64_t bytes_kept;		/* bytes it handed on */
	uint64_t direct;		/* chunks the reader handed straight on, not copied */
	uint64_t direct_pauses;		/* ... stopped for a slow write (TRIAGE_SLOW_WRITE_NS) */
	uint64_t compressing;		/* -zauto: readers whose output fell behind (1 or 0 a stage) */
	uint64_t compress_from_ns;	/* ... the first one's time (CLOCK_MONOTONIC) */
	/* The unwind stage's (--unwind). */
	uint64_t unwind_samples;	/* DWARF samples unwound */
	uint64_t unwind_frames;		/* user frames they got */
	uint64_t unwind_stops[UNWIND__NR];	/* ... by where the unwinding stopped */
	uint64_t unwind_in, unwind_out;	/* bytes of the records before and after */
	uint64_t unwind_unknown;	/* samples of no known event, or that did not parse: dropped */
};

struct stage {
	const struct stage_ops *ops;
	struct stage *next;		/* where its chunks go; NULL: the last */
	struct stage_stats stats;
};

/*
 * Start a stage's thread fn(arg), named "perfcap-<tag><idx>" (ps,
 * /proc/PID/task/TID/comm), with every signal blocked (signals are the
 * record loop's), as one of perfcap's own threads (helper-threads.h: the
 * sweep leaves it alone). 0, or -errno with a message naming what.
 */
int stage_thread__start(pthread_t *tid, void *(*fn)(void *), void *arg, const char *tag,
			int idx, const char *what);

/*
 * The chunks a stage's own thread is done with, on their way back to the
 * thread that submitted them (stage-compress.c, stage-unwind.c): the
 * stage's thread puts each one with its error, the submitting thread's
 * reap completes them (req.on_complete), in the order put. lock is the
 * stage's; pending, the chunks taken and not yet given back, is counted
 * under it by the stage's submit.
 */
struct chunk_returns {
	pthread_mutex_t *lock;
	pthread_cond_t cv;		/* the submitting thread: a chunk came back */
	struct write_req *head, **tail;
	int pending;
};

void chunk_returns__init(struct chunk_returns *r, pthread_mutex_t *lock);
void chunk_returns__exit(struct chunk_returns *r);
/* The stage's thread: done with c (err). Takes the lock. */
void chunk_returns__put(struct chunk_returns *r, struct chunk *c, int err);
/* The submitting thread: complete what came back; with wait, first block until one did, if any is pending. */
void chunk_returns__reap(struct chunk_returns *r, bool wait);

static inline int stage__submit(struct stage *s, struct chunk **c, int n, struct pass_end *end)
{
	return s->ops->submit(s, c, n, end);
}

static inline int stage__reap(struct stage *s, bool wait)
{
	return s->ops->reap(s, wait);
}

/*
 * The output stage (stage-output.c): the last of every pipeline. It
 * reserves each chunk's offset and submits it to its writer; behind a
 * clean pass with data it places FINISHED_ROUND when the rounds allow it
 * (rounds == NULL: one reader, a round behind every such pass). Its
 * writer is its own: ops on a dup of out's fd, max_inflight requests.
 * NULL with a message on failure.
 */
struct stage *output_stage__new(struct output *out, const struct writer_ops *ops,
				int max_inflight, struct rounds *rounds, int thread);
/* The same over writer w, which stays the caller's (tests, benchmarks). */
struct stage *output_stage__new_on(struct output *out, struct writer *w,
				   struct rounds *rounds, int thread);

/*
 * The compression stage (stage-compress.c, perfcap record -z): a thread
 * that compresses its chunks, in order, into COMPRESSED records and hands
 * them to next, at most COMPRESS_STAGE_BUFS buffers at a time. For a
 * reader whose rings hold at most max_chunks data buffers of at most
 * ring_size bytes; level is zstd's; after out's first error it only gives
 * chunks back. With on_demand (-zauto, behind a triage stage that
 * hands it nothing until the output falls behind) its thread starts with
 * its first chunk, not with start(). NULL with a message.
 */
#define COMPRESS_STAGE_BUFS 3
struct stage *compress_stage__new(struct stage *next, struct output *out, int level,
				  size_t ring_size, int max_chunks, int thread, bool on_demand);

/*
 * The triage stage (stage-triage.c): the head of a reader's pipeline. It
 * copies each chunk into blocks of its own, at most budget bytes of them
 * (the reader's share of --user-buffer-size), gives the chunk back at
 * once and hands the blocks to next from a thread of its own. Every
 * DWARF sample's stack is trimmed to dyn_size; with the blocks a quarter
 * of the budget full (TRIAGE_CUT_DIV) stacks are cut to TRIAGE_CUT_STACK
 * bytes, from half full on (TRIAGE_THIN_FILL) samples are thinned to one
 * in k per sample id, past the budget one in 256; other records always
 * are. At most max_inflight blocks are with next at a time (the -z stage
 * queues no more than its reader's buffers; a writer takes
 * TRIAGE_STAGE_INFLIGHT whatever --aio=n says, since n counts a ring's
 * buffers, not the stage's). layouts stays the caller's and holds every
 * event already (whether any samples user stacks is read once).
 *
 * With compress_when_behind (-zauto) next is a compression stage
 * (on_demand) and the blocks go past it, to next->next, TRIAGE_STAGE_INFLIGHT
 * at a time, until the blocks not yet written pass a TRIAGE_AUTO_DIV-th
 * of the budget (and what gathers for TRIAGE_HOLD_MS): from then on, for
 * the rest of the recording, through next, max_inflight at a time. NULL
 * with a message.
 */
#define TRIAGE_AUTO_DIV 16
#define TRIAGE_CUT_DIV 4
#define TRIAGE_CUT_STACK 1024
#define TRIAGE_THIN_FILL 0.5
#define TRIAGE_HARD_DIV 8
#define TRIAGE_STAGE_INFLIGHT 16
/*
 * A write straight from the reader longer than this says the output is
 * behind; for TRIAGE_DIRECT_PAUSE_S seconds every chunk is then copied.
 */
#define TRIAGE_SLOW_MS 2
#define TRIAGE_DIRECT_PAUSE_S 1
/*
 * For a writer that holds its requests (aio, io_uring) on a file, not
 * -z, the thread lets blocks gather for up to TRIAGE_HOLD_MS, or until
 * TRIAGE_HOLD_BYTES (at most a TRIAGE_HOLD_DIV-th of the budget) are
 * queued, then hands them all on: one wakeup of the thread and of the
 * writer's helper for many passes, not one for each.
 */
#define TRIAGE_HOLD_MS 10
#define TRIAGE_HOLD_BYTES (1U << 20)
#define TRIAGE_HOLD_DIV 8
/* --user-buffer-size's default, over all readers: see perfcap-record(1). */
#define TRIAGE_DEFAULT_BUDGET (256ULL << 20)
/* A reader's share is never below this many chunks of its rings. */
#define TRIAGE_MIN_CHUNKS 4
struct sample_layouts;
struct stage *triage_stage__new(struct stage *next, struct output *out,
				const struct sample_layouts *layouts, size_t budget, int max_inflight,
				int thread, bool compress_when_behind);

/*
 * The unwind stage (stage-unwind.c, perfcap record --unwind): behind the
 * triage stage, a thread that unwinds each DWARF sample of its blocks
 * against the live map timeline once every feed has passed the block
 * (live-maps.h), and hands the rewritten records to next. It holds at most
 * max_chunks blocks of the triage stage's. NULL with a message.
 */
struct unwind_stage_config {
	struct live_maps *live;		/* shared by the readers */
	const struct unwind_arch *arch;
	const char *buildid_dir;	/* perf's build-id cache, or NULL */
	int max_stack;			/* user frames at most */
	uint64_t delay_ns;		/* tests: a sleep before each block (PERFCAP_UNWIND_DELAY_MS) */
};
struct stage *unwind_stage__new(struct stage *next, struct output *out,
				const struct sample_layouts *layouts,
				const struct unwind_stage_config *cfg, int max_chunks, int thread);

/* What a reader's pipeline is made of. */
struct pipeline_config {
	struct output *out;
	const struct writer_ops *ops;	/* the writer backend */
	int max_chunks;			/* data buffers over the reader's rings */
	size_t ring_size;		/* a ring's data size */
	int comp_level;			/* -z: zstd level; 0: no compression */
	bool comp_auto;			/* -zauto: ... only once the output falls behind (triage) */
	size_t budget;			/* the triage stage's memory; 0: no triage stage */
	const struct sample_layouts *layouts;	/* the events' sample layouts, for triage */
	const struct unwind_stage_config *unwind;	/* --unwind (behind triage); NULL: none */
	struct rounds *rounds;		/* shared by the readers */
	int thread;			/* the reader's index */
};

struct pipeline {
	struct stage *head;		/* where the reader hands its chunks */
	int idx;
};

/* Build the stages the configuration asks for. 0 or -errno (message printed). */
int pipeline__init(struct pipeline *p, const struct pipeline_config *cfg);
/* Every stage destroyed, head first (their chunks come back first). */
void pipeline__exit(struct pipeline *p);
/* Start the stages that have threads. 0 or -errno. */
int pipeline__start(struct pipeline *p);
/* Every stage finishes, head first, down to the writes. 0 or the first error. */
int pipeline__drain(struct pipeline *p);
/* Every stage writes into fd from now on. 0 or -errno. */
int pipeline__retarget(struct pipeline *p, int fd);
/* Chunks the reader handed to the pipeline and has not had back. */
int pipeline__queued(const struct pipeline *p);
/* Its stages' numbers added into s. */
void pipeline__stats(const struct pipeline *p, struct stage_stats *s);

#define pipeline__for_each_stage(p, s) for ((s) = (p)->head; (s); (s) = (s)->next)

#endif
