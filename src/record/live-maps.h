/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recording's map timeline while it is recorded (perfcap record
 * --unwind): what the unwind stages (stage-unwind.c) unwind against.
 *
 * Fed as the bytes are copied: each reader, in its pass, hands the
 * records the maps need (MMAP/MMAP2, FORK, COMM exec) of what it copied
 * to its own feed (live_maps__observe), and then says that its pass
 * began at now (live_maps__fed): every record its rings held before now
 * is in its feed. The synthesized records (what existed before the
 * recording) come through one more feed, done once they are all in.
 *
 * When is a sample's map known? A chunk reached an unwind stage at time
 * t (mono); its samples were copied before t, so every record they need
 * was written into some ring before t too. Once every feed has said a
 * time >= t (live_maps__ready), those records are in the feeds: the
 * stage takes them into the timeline and applies it up to the chunk's
 * last sample time (live_maps__advance), then unwinds the chunk under the
 * read lock. Records of later times wait in the timeline for a later
 * chunk, so the maps are always applied in time order. A reader asleep
 * makes no passes: the readers wake the one that holds a round back
 * (rounds.h), so feeds move at least once a round.
 *
 * Locks: lock (a rwlock) guards the timeline: write to take and apply,
 * read to unwind. Each feed has a mutex of its own (priority
 * inheriting: a real-time reader appends under it) held only to append
 * or to swap its buffer out.
 */
#ifndef PERFCAP_RECORD_LIVE_MAPS_H
#define PERFCAP_RECORD_LIVE_MAPS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind/maps.h"
#include "util.h"

struct live_feed {
	pthread_mutex_t lock;
	struct strbuf buf;		/* records not yet taken */
	_Atomic uint64_t fed_ns;	/* everything its rings held before this is in buf */
	char pad[64];
};

struct live_maps {
	pthread_rwlock_t lock;
	struct maps *maps;
	_Atomic uint64_t applied;	/* applied up to this record time (written under lock) */
	size_t time_from_end;		/* a record's sample_id time: this far from its end; 0: none */
	struct live_feed *feed;		/* one per reader, then the synthesized records' */
	int nr;
	struct strbuf taken;		/* the taker's: a feed's buffer swapped out (under lock) */
	/* A stage waiting for the feeds (live_maps__wait) and the reader that wakes it. */
	pthread_mutex_t wait_lock;
	pthread_cond_t wait_cv;
	_Atomic uint64_t wait_t;	/* the time a stage waits for; UINT64_MAX: none */
};

/* For nr readers, whose events have sample_type st (sample_id_all). */
void live_maps__init(struct live_maps *lm, int nr_readers, uint64_t st);
void live_maps__exit(struct live_maps *lm);
/* Reader i copied buf: the records the maps need go to its feed. */
void live_maps__observe(struct live_maps *lm, int i, const void *buf, size_t len);
/* Reader i's pass began at now (mono): its rings' records before now are observed. */
void live_maps__fed(struct live_maps *lm, int i, uint64_t now);
/* Synthesized records: to the last feed, until live_maps__synth_done (a new file's again are not). */
void live_maps__observe_synth(struct live_maps *lm, const void *buf, size_t len);
/* The synthesized records are all in. */
void live_maps__synth_done(struct live_maps *lm);
/* Has every feed said a time >= t? */
bool live_maps__ready(struct live_maps *lm, uint64_t t);
/*
 * Wait until live_maps__ready(t), at most timeout_ns: the reader whose
 * pass makes it so wakes the waiter, no one polls. True when ready.
 */
bool live_maps__wait(struct live_maps *lm, uint64_t t, uint64_t timeout_ns);
/*
 * Take what the feeds hold into the timeline and apply it up to record
 * time until (every record of a time <= until must be in the feeds).
 */
void live_maps__advance(struct live_maps *lm, uint64_t until);

#endif
