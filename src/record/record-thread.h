/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reader: a set of rings drained by one thread (DESIGN.md, "Reader
 * threads into one file"). Without --threads the record loop itself is
 * the one reader and drains every ring; with --threads each reader is a
 * thread of its own that runs on its rings' CPUs, sleeps on its own poll
 * set, copies its rings out and submits the writes through its own
 * writer, at offsets reserved from the one output.
 *
 * A step is one pass over the reader's rings (mmap__pass_copy/submit)
 * and a non-blocking reap of its writer. The rounds shared by all
 * readers decide where FINISHED_ROUND goes (rounds.h).
 */
#ifndef PERFCAP_RECORD_THREAD_H
#define PERFCAP_RECORD_THREAD_H

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "events/cpumap.h"
#include "record/mmap.h"
#include "record/record-stats.h"
#include "record/rounds.h"
#include "io/writer.h"

struct output;
struct record_threads;

/*
 * How reader threads are scheduled (record_thread__settle). perfcap's
 * choice (builtin-record.c, READER_FIFO_PRIO): SCHED_FIFO at priority 1,
 * pinned to their rings' CPUs, with a notice and their inherited nice
 * value where that is refused; --reader-sched=nice leaves them at the
 * nice value of the record loop. Under -r they inherit the loop's
 * priority and nothing is set here. The other fields are experiments of
 * the loss benchmark, read from PERFCAP_READER_SCHED (reader_sched__parse).
 */
struct reader_sched {
	bool other;			/* set SCHED_OTHER with nice and slice_ns */
	int nice;			/* nice value relative to the loop's */
	uint64_t slice_ns;		/* EEVDF slice request; 0: default */
	uint64_t dl_runtime_ns, dl_period_ns;	/* SCHED_DEADLINE, unpinned; 0: no */
	int fifo;			/* SCHED_FIFO priority from the start; 0: no */
	bool fifo_notice;		/* say it once when fifo is refused */
};

/*
 * "deadline:R/P" (microseconds), "nice:N", "slice:US", "fifo:PRIO",
 * comma-separated. 0, or -EINVAL with why filled in.
 */
int reader_sched__parse(struct reader_sched *s, const char *spec, char *why, size_t len);

struct record_thread {
	int idx;
	struct record_threads *set;
	struct mmap **maps;		/* its rings */
	int nr_maps;
	struct cpu_map *affinity;	/* where it runs; NULL: anywhere */
	struct mmap_pass pass;
	struct writer *writer;		/* its writer (own_writer) or the output's */
	struct writer own_writer;
	int writer_fd;			/* a dup of the output's fd, or -1 */
	struct compress_stage *stage;	/* -z: compresses and writes its chunks */
	struct record_stats stats;
	/* poll set: its rings, then wake_fd (another thread wants a pass, or stop) */
	struct pollfd *pfd;
	int nfds, live;
	int wake_fd;
	bool own_wake_fd;
	pthread_t tid;
	bool started;
	int err;
	/* Numbers for the summary. */
	uint64_t nr_rounds, wakeups, spins, round_wakes;
	/*
	 * For the status line, read by the record loop while the reader runs:
	 * published after each step (relaxed: a line may be a step behind).
	 */
	_Atomic uint64_t pub_samples, pub_lost;
	_Atomic int pub_queue;
	int fast_rings;			/* rings of the last pass that were filling fast */
	bool fifo;			/* it runs SCHED_FIFO (sched.fifo): it never spins */
	bool ready;			/* counted in set->ready */
};

struct record_threads {
	struct output *out;
	struct rounds rounds;
	struct record_thread *t;
	int nr;
	bool threaded;			/* readers are threads (--threads) */
	_Atomic bool stop;		/* readers: leave the loop */
	_Atomic int failed;		/* a reader's first error */
	_Atomic int hung;		/* readers whose rings have all hung up */
	int main_wake_fd;		/* the record loop's eventfd */
	struct reader_sched sched;
	_Atomic bool fifo_refused;	/* a reader's SCHED_FIFO was refused */
	_Atomic bool demoted;		/* record_threads__demote has run */
	_Atomic int ready;		/* readers settled and past their first step */
};

/*
 * How long a round may stay open: after that no ring is put off and no
 * chunk kept until one closes, and a reader that keeps a chunk sleeps no
 * longer than that. perf record --aio=4's rounds came at most 23-37 ms
 * apart in the tracepoint flood; hotspot's parser reorders tracepoint
 * events in a bounded buffer, so rounds far apart (up to 200 ms with 100
 * here) let a chunk kept back arrive behind what it already flushed.
 */
#define ROUND_MAX_NS (25 * 1000000ULL)
/*
 * After this long, the readers that hold a round back (asleep, their
 * rings below the watermark) are woken for a pass, once per round: a
 * reader whose reorder buffer is bounded, not perf (hotspot's parser),
 * needs rounds close together.
 */
#define ROUND_WAKE_NS (10 * 1000000ULL)

/*
 * Readers for the rings: nr groups, group i holding the rings whose index
 * in maps is listed in idx[i][0..nr_idx[i]), to run on affinity[i]. With
 * threaded false there must be one group, run by the caller.
 */
int record_threads__init(struct record_threads *rt, struct output *out, struct mmap *maps,
			 int nr, int *const *idx, const int *nr_idx,
			 struct cpu_map *const *affinity, bool threaded, int main_wake_fd,
			 uint64_t sample_type, uint64_t now);
/* Give each reader thread its own writer (ops, a dup of the output's fd). */
int record_threads__writers(struct record_threads *rt, const struct writer_ops *ops,
			    int nr_bufs);
/*
 * -z: give each reader a compression stage (compress-stage.h) at zstd
 * level, writing through ops; ring_size: the rings' data size, nr_bufs
 * their data buffers each. Call after record_threads__writers().
 */
int record_threads__compress(struct record_threads *rt, const struct writer_ops *ops,
			     int level, size_t ring_size, int nr_bufs);
/* zstd's totals over the stages: bytes in, COMPRESSED bytes out. */
void record_threads__compressed(struct record_threads *rt, uint64_t *in, uint64_t *out);
/*
 * Start the stages and the reader threads, and wait (at most 1 s) until
 * each reader is settled on its CPUs, at its priority, and past its first
 * step, so that the events can go on with every reader ready.
 */
int record_threads__start(struct record_threads *rt);
/* Tell the threads to stop, wait for them. Returns the first reader error. */
int record_threads__stop(struct record_threads *rt);
/* After the events are disabled: a last pass over every ring, in this thread. */
ssize_t record_threads__last_pass(struct record_threads *rt, uint64_t now);
/*
 * Wait for every reader writer's writes and every compression stage
 * (which stop then). 0 or the first error.
 */
int record_threads__drain(struct record_threads *rt);
void record_threads__exit(struct record_threads *rt);

/* One step of reader t (see above); last: the events are off, take everything. Bytes moved or -errno. */
ssize_t record_thread__step(struct record_thread *t, uint64_t now, bool last);
/*
 * Sleep until a ring reaches its watermark, wake_fd is written, or
 * timeout_ms. Returns > 0 if woken by something, 0 on timeout, -errno.
 */
int record_thread__sleep(struct record_thread *t, int timeout_ms);
/*
 * How long reader t may sleep at now: at most max_ms, and no later than
 * its kept chunks are due to go out (ROUND_MAX_NS after the last round).
 */
int record_thread__timeout(struct record_thread *t, uint64_t now, int max_ms);

/* The calling thread is reader t: its scheduling (struct reader_sched) and affinity. */
void record_thread__settle(struct record_thread *t);

/*
 * Every started reader back to SCHED_OTHER (its nice value), once and only
 * where perfcap made them SCHED_FIFO (sched.fifo): how many; 0 after the
 * first. Without reader threads the loop is the reader, and the caller.
 */
int record_threads__demote(struct record_threads *rt);

/* Sums over the readers for the summary. */
void record_threads__stats(struct record_threads *rt, struct record_stats *s);
uint64_t record_threads__sum(struct record_threads *rt, size_t field_offset);
#define record_threads__total(rt, field) \
	record_threads__sum(rt, offsetof(struct record_thread, field))

#endif
