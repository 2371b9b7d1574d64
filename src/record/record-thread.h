/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reader: a thread that drains a set of rings (DESIGN.md, "Reader
 * threads into one file"). Every ring has one; the record loop reads
 * none. A reader runs on its rings' CPUs, sleeps on its own poll set,
 * copies its rings out and hands the chunks down its own pipeline
 * (pipeline.h), whose output stage reserves their offsets from the one
 * output and writes them through the reader's own writer.
 *
 * A step is one pass over the reader's rings (struct pass) and a
 * non-blocking reap of its pipeline. The rounds shared by all readers
 * decide where FINISHED_ROUND goes (rounds.h, stage-output.c).
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
#include "format/sample-layout.h"
#include "io/writer.h"
#include "record/mmap.h"
#include "record/pipeline.h"
#include "record/dso-hits.h"
#include "record/live-maps.h"
#include "record/record-stats.h"
#include "record/rounds.h"

struct output;
struct record_threads;

/*
 * How reader threads are scheduled (record_thread__settle): SCHED_FIFO at
 * priority fifo, pinned to their rings' CPUs, with a notice and their
 * inherited nice value where that is refused (reader-sched.c says why);
 * fifo 0 (--reader-sched=nice, or -r, whose priority they inherit) sets
 * no policy.
 */
struct reader_sched {
	int fifo;			/* SCHED_FIFO priority from the start; 0: no */
	bool fifo_notice;		/* say it once when fifo is refused */
};

/*
 * One pass over a reader's rings: copy every ring that has data (a ring
 * whose buffers are all in flight and that is less than 1/MMAP_DEFER_DIV
 * full may be put off to a later pass, if may_defer), then hand the
 * chunks down the pipeline in ring order. If may_defer, a chunk may be
 * kept in its buffer for the ring's next copies instead (fewer, larger
 * writes: each write wakes a writer thread or costs a system call): with
 * one buffer per ring while under 1/PASS_HOLD_DIV of the ring, with more
 * until the buffer is full. The pass is clean when no ring was put off
 * and no chunk kept: perf report sorts each round's events only up to
 * the previous round's last timestamp, and a ring put off or a chunk
 * kept puts events older than that in the file later. The output stage
 * decides from that where FINISHED_ROUND goes.
 */
#define PASS_HOLD_DIV 2
struct pass {
	struct mmap_buf **bufs;	/* room for one chunk per ring */
	int nr;			/* chunks copied or held */
	int deferred;		/* rings put off: all their buffers in flight */
	int held;		/* chunks kept in their buffers for more */
	bool may_defer;
	bool round;		/* this pass closed a round (the output stage said so) */
	struct rounds *rounds;	/* the readers' (NULL: none), for the gen below */
	uint64_t gen;		/* the round gen this pass began under */
	struct stage *stage;	/* where the chunks go: the head of the reader's pipeline */
};

/* Bytes copied or -errno; p->bufs[0..nr) hold what was copied even then. */
ssize_t pass__copy(struct mmap **maps, int nr_maps, struct pass *p, bool may_defer);
/* Hand every chunk not kept, and the end of the pass, down the pipeline. 0 or -errno. */
int pass__submit(struct pass *p, uint64_t now);
/*
 * One ring copied into *bufp, as the pass copies it: the buffer it fills
 * goes to s first when it has no room, and when every buffer is in flight
 * it waits for s to give one back (unless may_defer puts the ring off:
 * -EAGAIN). Bytes copied, 0, or -errno.
 */
ssize_t pass__copy_ring(struct mmap *m, struct stage *s, bool may_defer, struct mmap_buf **bufp);
/* One ring copied and handed to s at once (tests, benchmarks). Bytes or -errno. */
ssize_t pass__push(struct mmap *m, struct stage *s);

struct record_thread {
	int idx;
	struct record_threads *set;
	struct mmap **maps;		/* its rings */
	int nr_maps;
	struct cpu_map *affinity;	/* where it runs; NULL: anywhere */
	struct pass pass;
	struct pipeline pipe;		/* its stages, down to its own writer */
	struct record_stats stats;
	struct dso_hits hits;		/* the DSOs its samples hit (build ids at the end) */
	/* poll set: its rings, then wake_fd (another thread wants a pass, or stop) */
	struct pollfd *pfd;
	int nfds, live;
	int wake_fd;
	pthread_t tid;
	bool started;
	int err;
	/* Numbers for the summary. */
	uint64_t wakeups, spins, round_wakes;
	/*
	 * For the status line, read by the record loop while the reader runs:
	 * published after each step (relaxed: a line may be a step behind).
	 */
	_Atomic uint64_t pub_samples, pub_lost;
	_Atomic int pub_queue;
	int fast_rings;			/* rings of the last pass that were filling fast */
	bool fifo;			/* it runs SCHED_FIFO (sched.fifo): it never spins */
	bool ready;			/* counted in set->ready */
	/*
	 * Rings handed over while recording (record_threads__adopt): the
	 * loop adds them under adopt_lock, the reader takes them at its next
	 * step (adopt_pending tells it, for one load a step).
	 */
	pthread_mutex_t adopt_lock;
	struct mmap **adopt;
	int nr_adopt, cap_adopt;
	_Atomic bool adopt_pending;
	int assigned;			/* its rings and those handed to it (the loop's count) */
};

struct record_threads {
	struct output *out;
	struct sample_layouts layouts;	/* the events', for the triage stages */
	uint64_t budget;		/* --user-buffer-size: the triage stages' memory; 0: none */
	struct live_maps *live;		/* --unwind: the timeline the readers feed; NULL: none */
	const struct unwind_stage_config *unwind;	/* ... and the unwind stages' configuration */
	struct rounds rounds;
	struct record_thread *t;
	int nr;
	_Atomic bool stop;		/* readers: leave the loop */
	_Atomic int failed;		/* a reader's first error */
	_Atomic int hung;		/* readers whose rings have all hung up */
	int main_wake_fd;		/* the record loop's eventfd */
	struct reader_sched sched;
	_Atomic bool fifo_refused;	/* a reader's SCHED_FIFO was refused */
	_Atomic bool demoted;		/* record_threads__demote has run */
	_Atomic int ready;		/* readers settled and past their first step */
	int spare_rings;		/* rings that may be added while recording (pipelines sized for them) */
};

/*
 * How long a round may stay open: after that no ring is put off and no
 * chunk kept until one closes, and a reader that keeps a chunk sleeps no
 * longer than that. hotspot's parser reorders tracepoint events in a
 * bounded buffer, so rounds must come about as close together as perf
 * record's own, or a chunk kept back arrives behind what the parser
 * already flushed (bench/results/2026-12-01-rounds25-status/).
 */
#define ROUND_MAX_NS (25 * 1000000ULL)
/*
 * After this long, the readers that hold a round back (asleep, their
 * rings below the watermark) are woken for a pass, once per round: a
 * reader whose reorder buffer is bounded, not perf (hotspot's parser),
 * needs rounds close together. And a reader's clean pass counts toward a
 * round only this long: a round closes over rings all drained within it
 * (rounds.h, bench/results/2026-12-04-fresh-rounds/).
 */
#define ROUND_WAKE_NS (10 * 1000000ULL)

/*
 * Readers for the rings: nr groups, group i holding the rings whose index
 * in maps is listed in idx[i][0..nr_idx[i]), to run on affinity[i]
 * (affinity NULL, or an entry NULL: anywhere). main_wake_fd is the
 * record loop's eventfd, written when a reader fails or its rings hang up.
 */
int record_threads__init(struct record_threads *rt, struct output *out, struct mmap *maps,
			 int nr, int *const *idx, const int *nr_idx,
			 struct cpu_map *const *affinity, int main_wake_fd,
			 uint64_t sample_type, uint64_t now);
/*
 * Each reader's pipeline (pipeline.h): writer ops on a dup of the
 * output's fd, nr_bufs data buffers a ring of ring_size bytes, with
 * comp_level (-z) a compression stage (with comp_auto one the triage
 * stage uses once the output falls behind), and with rt->budget a triage
 * stage in front (each reader an equal share of it, at least
 * TRIAGE_MIN_CHUNKS of its rings' chunks; rt->layouts must hold every
 * event by then). 0 or -errno.
 */
int record_threads__pipelines(struct record_threads *rt, const struct writer_ops *ops,
			      int nr_bufs, size_t ring_size, int comp_level, bool comp_auto);
/* The numbers of every reader's stages (once drained). */
void record_threads__stage_stats(struct record_threads *rt, struct stage_stats *s);
/* Every reader's writers write into fd from now on (--switch-output). 0 or -errno. */
int record_threads__retarget(struct record_threads *rt, int fd);
/*
 * Start the pipelines and the reader threads, and wait (at most 1 s)
 * until each reader is settled on its CPUs, at its priority, and past its
 * first step, so that the events can go on with every reader ready.
 */
int record_threads__start(struct record_threads *rt);
/* Tell the threads to stop, wait for them. Returns the first reader error. */
int record_threads__stop(struct record_threads *rt);
/* After the events are disabled: a last pass over every ring, in this thread. */
ssize_t record_threads__last_pass(struct record_threads *rt, uint64_t now);
/*
 * Every reader's pipeline finishes, down to the writes (a compression
 * stage's thread stops; record_threads__start runs it again). 0 or the
 * first error.
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

/*
 * The readers pinned to cpu pinned there again: the kernel lets go of a
 * thread's affinity when its CPU goes offline, and does not restore it
 * when the CPU comes back (hotplug.c).
 */
void record_threads__repin(struct record_threads *rt, int cpu);
/*
 * A ring mapped while recording (a CPU that came online: hotplug.c) goes
 * to the reader with the fewest rings, which polls and copies it from its
 * next step on. Returns that reader's index.
 */
int record_threads__adopt(struct record_threads *rt, struct mmap *m);
/* The calling thread is reader t: its scheduling (struct reader_sched) and affinity. */
void record_thread__settle(struct record_thread *t);

/*
 * Every started reader back to SCHED_OTHER (its nice value), once and only
 * where perfcap made them SCHED_FIFO (sched.fifo): how many; 0 after the
 * first.
 */
int record_threads__demote(struct record_threads *rt);

/* Sums over the readers for the summary. */
void record_threads__stats(struct record_threads *rt, struct record_stats *s);
uint64_t record_threads__sum(struct record_threads *rt, size_t field_offset);
#define record_threads__total(rt, field) \
	record_threads__sum(rt, offsetof(struct record_thread, field))

#endif
