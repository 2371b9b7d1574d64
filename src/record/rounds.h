/* SPDX-License-Identifier: GPL-2.0 */
/*
 * FINISHED_ROUND across reader threads (DESIGN.md, "Reader threads into
 * one file"; PERFDATA.md B.6).
 *
 * perf report flushes, at each FINISHED_ROUND, the events it holds up to
 * the newest timestamp it had seen at the round before; an event that
 * comes after a round and is older than what was flushed is "out of
 * order". So a round marker R(k+1) may go into the file only where every
 * event after it was written to its ring after every event before R(k).
 *
 * The rule: a thread's pass is clean when, after it, everything the
 * thread ever copied out of its rings is reserved in the file (no chunk
 * kept for more, no ring put off). A clean pass that began after R(k) was
 * reserved copied each of its rings after R(k): what is left in them, or
 * comes later, was written after every event before R(k). R(k+1) is
 * placed when every thread has had such a pass since R(k); the thread
 * that completes the set puts the marker behind its own last chunk.
 * With one thread this is perf record's rule: a round after every clean
 * pass.
 *
 * That rule is perf's, not hotspot's: hotspot's parser flushes, at each
 * round, the older half of what it holds, so a round must also hold what
 * every ring had at about its close, or a ring drained long before comes
 * in behind that flush. So each other thread's clean pass must also have
 * begun within fresh_ns of the closer's: a pass from before (a reader
 * asleep until its watermark, 100 ms at a low rate) does not count
 * (bench/results/2026-12-04-fresh-rounds/).
 *
 * A thread asleep in poll() has no pass to show: the others wake it
 * (rounds__stale()) once the round has stayed open for a while.
 */
#ifndef PERFCAP_ROUNDS_H
#define PERFCAP_ROUNDS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct rounds_thread {
	/* gen at the start of this thread's latest clean pass (release/acquire) */
	_Atomic uint64_t clean;
	_Atomic uint64_t clean_ns;	/* and when that pass began */
	char pad[48];		/* one cache line each: written on every pass */
};

struct rounds {
	/*
	 * Taken (trylock) by the thread that closes a round, from the check
	 * of every thread's clean gen until its marker is reserved; the
	 * output's lock nests inside it.
	 */
	pthread_mutex_t lock;
	_Atomic uint64_t gen;		/* markers reserved so far */
	_Atomic uint64_t last_ns;	/* when the last one was */
	/*
	 * The last gen whose stale readers were looked for. The readers that
	 * hold a gen back only ever become fewer, so one look per gen wakes
	 * every one of them: the others skip the scan.
	 */
	_Atomic uint64_t scanned;
	_Atomic uint64_t scanned_ns;	/* and when: a round stuck past fresh_ns is looked at again */
	uint64_t fresh_ns;	/* how old another thread's clean pass may be */
	int nr;
	struct rounds_thread *t;
};

void rounds__init(struct rounds *r, int nr_threads, uint64_t now, uint64_t fresh_ns);
void rounds__exit(struct rounds *r);

/* At the start of a pass: the gen it began under (acquire). */
static inline uint64_t rounds__begin(struct rounds *r)
{
	return atomic_load_explicit(&r->gen, memory_order_acquire);
}

/*
 * Thread t's pass, begun at gen g0 and time now, is clean, and it is
 * about to submit its chunks: may it put the next marker behind its last
 * one? True when every other thread has had a clean pass since the last
 * marker, begun no more than fresh_ns before now, and no one else is
 * closing; the caller then holds r->lock, appends the marker, submits
 * (reserves) its chunks, calls rounds__clean() and then rounds__close().
 * Never blocks.
 */
bool rounds__try_close(struct rounds *r, int t, uint64_t g0, uint64_t now);
/* Thread t's clean pass, begun at g0 and now, has reserved all its chunks. */
void rounds__clean(struct rounds *r, int t, uint64_t g0, uint64_t now);
/* The marker is reserved: count it and let the next round begin. */
void rounds__close(struct rounds *r, uint64_t now);
/* rounds__try_close() said true but no marker was placed. */
void rounds__cancel(struct rounds *r);

/*
 * The threads that hold the next round back at time now (no clean pass
 * since the last marker, or none begun within fresh_ns): their indexes go
 * to out (room for nr). Only the first call for a round finds them, so
 * each is woken once per round, or once more each fresh_ns while the round
 * stays open; the calls between return 0 at once. Returns how many.
 */
int rounds__stale(struct rounds *r, int *out, uint64_t now);

#endif
