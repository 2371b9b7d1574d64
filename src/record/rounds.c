// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

#include "record/rounds.h"
#include "util.h"

void rounds__init(struct rounds *r, int nr_threads, uint64_t now, uint64_t fresh_ns)
{
	pthread_mutex_init(&r->lock, NULL);
	atomic_init(&r->gen, 0);
	atomic_init(&r->last_ns, now);
	atomic_init(&r->scanned, 0);	/* at gen 0 every reader is clean */
	atomic_init(&r->scanned_ns, now);
	r->fresh_ns = fresh_ns;
	r->nr = nr_threads;
	r->t = xzalloc(nr_threads * sizeof(*r->t));
	for (int i = 0; i < nr_threads; i++) {
		atomic_init(&r->t[i].clean, 0);
		atomic_init(&r->t[i].clean_ns, now);
	}
}

void rounds__exit(struct rounds *r)
{
	free(r->t);
	r->t = NULL;
	pthread_mutex_destroy(&r->lock);
}

/* Did thread i's latest clean pass begin no more than fresh_ns before now? */
static bool fresh(const struct rounds *r, int i, uint64_t now)
{
	uint64_t at = atomic_load_explicit(&r->t[i].clean_ns, memory_order_relaxed);

	/* Signed: i's clock read may be later than the caller's. */
	return (int64_t)(now - at) <= (int64_t)r->fresh_ns;
}

void rounds__clean(struct rounds *r, int t, uint64_t g0, uint64_t now)
{
	atomic_store_explicit(&r->t[t].clean_ns, now, memory_order_relaxed);
	/* Release: this thread's reservations happen before a closer sees g0. */
	atomic_store_explicit(&r->t[t].clean, g0, memory_order_release);
}

bool rounds__try_close(struct rounds *r, int t, uint64_t g0, uint64_t now)
{
	uint64_t gen;

	if (pthread_mutex_trylock(&r->lock))
		return false;	/* someone is closing one now */
	gen = atomic_load_explicit(&r->gen, memory_order_relaxed);
	if (g0 != gen)
		goto not_now;	/* a round closed during this pass */
	for (int i = 0; i < r->nr; i++) {
		if (i == t)
			continue;
		/* Acquire: pairs with the release in rounds__clean(), in thread i. */
		if (atomic_load_explicit(&r->t[i].clean, memory_order_acquire) < gen ||
		    !fresh(r, i, now))
			goto not_now;
	}
	return true;
not_now:
	pthread_mutex_unlock(&r->lock);
	return false;
}

void rounds__close(struct rounds *r, uint64_t now)
{
	atomic_store_explicit(&r->last_ns, now, memory_order_relaxed);
	/* Release: the marker's reservation happens before a pass sees gen + 1. */
	atomic_fetch_add_explicit(&r->gen, 1, memory_order_release);
	pthread_mutex_unlock(&r->lock);
}

void rounds__cancel(struct rounds *r)
{
	pthread_mutex_unlock(&r->lock);
}

int rounds__stale(struct rounds *r, int *out, uint64_t now)
{
	uint64_t gen = atomic_load_explicit(&r->gen, memory_order_acquire);
	uint64_t at = atomic_load_explicit(&r->scanned_ns, memory_order_relaxed);
	int n = 0;

	/* Looked at for this gen, and not long ago: those found are awake. */
	if (atomic_exchange_explicit(&r->scanned, gen, memory_order_relaxed) == gen &&
	    (int64_t)(now - at) < (int64_t)r->fresh_ns)
		return 0;
	atomic_store_explicit(&r->scanned_ns, now, memory_order_relaxed);
	for (int i = 0; i < r->nr; i++)
		if (atomic_load_explicit(&r->t[i].clean, memory_order_relaxed) < gen ||
		    !fresh(r, i, now))
			out[n++] = i;
	return n;
}
