// SPDX-License-Identifier: GPL-2.0
/* The map timeline while recording (live-maps.h). */
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "record/live-maps.h"

void live_maps__init(struct live_maps *lm, int nr_readers, uint64_t st)
{
	memset(lm, 0, sizeof(*lm));
	pthread_rwlock_init(&lm->lock, NULL);
	lm->maps = maps__new();
	lm->nr = nr_readers + 1;
	lm->feed = xzalloc(lm->nr * sizeof(*lm->feed));
	for (int i = 0; i < lm->nr; i++) {
		mutex_init_pi(&lm->feed[i].lock);
		atomic_init(&lm->feed[i].fed_ns, 0);
	}
	atomic_init(&lm->applied, 0);
	pthread_mutex_init(&lm->wait_lock, NULL);
	pthread_cond_init(&lm->wait_cv, NULL);
	atomic_init(&lm->wait_t, UINT64_MAX);
	/* sample_id_all: {pid,tid} {time} {id} {stream_id} {cpu,res} {identifier} */
	if (st & PERF_SAMPLE_TIME)
		lm->time_from_end = 8 + 8 * !!(st & PERF_SAMPLE_ID) +
				    8 * !!(st & PERF_SAMPLE_STREAM_ID) +
				    8 * !!(st & PERF_SAMPLE_CPU) + 8 * !!(st & PERF_SAMPLE_IDENTIFIER);
}

void live_maps__exit(struct live_maps *lm)
{
	if (!lm->feed)
		return;
	for (int i = 0; i < lm->nr; i++) {
		pthread_mutex_destroy(&lm->feed[i].lock);
		strbuf__exit(&lm->feed[i].buf);
	}
	free(lm->feed);
	strbuf__exit(&lm->taken);
	maps__delete(lm->maps);
	pthread_rwlock_destroy(&lm->lock);
	pthread_cond_destroy(&lm->wait_cv);
	pthread_mutex_destroy(&lm->wait_lock);
	memset(lm, 0, sizeof(*lm));
}

static bool maps_record(const struct perf_event_header *h)
{
	switch (h->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_FORK:
		return true;
	case PERF_RECORD_COMM:
		return h->misc & PERF_RECORD_MISC_COMM_EXEC;
	default:
		return false;
	}
}

void live_maps__observe(struct live_maps *lm, int i, const void *buf, size_t len)
{
	struct live_feed *f = &lm->feed[i];
	const char *p = buf, *end = p + len;
	bool locked = false;

	while (p + sizeof(struct perf_event_header) <= end) {
		const struct perf_event_header *h = (const void *)p;

		if (h->size < sizeof(*h) || p + h->size > end)
			break;	/* record_stats counts it as bad */
		if (maps_record(h)) {
			if (!locked) {
				pthread_mutex_lock(&f->lock);
				locked = true;
			}
			strbuf__add(&f->buf, p, h->size);
		}
		p += h->size;
	}
	if (locked)
		pthread_mutex_unlock(&f->lock);
}

void live_maps__fed(struct live_maps *lm, int i, uint64_t now)
{
	uint64_t old = atomic_exchange(&lm->feed[i].fed_ns, now), w;

	/*
	 * A stage waits for w: the reader that crosses it last wakes it. The
	 * exchange above and the waiter's store of wait_t before its check
	 * are sequentially consistent: either it sees this pass, or this
	 * sees its wait.
	 */
	w = atomic_load(&lm->wait_t);
	if (w == UINT64_MAX || old >= w || now < w || !live_maps__ready(lm, w))
		return;
	pthread_mutex_lock(&lm->wait_lock);
	atomic_store(&lm->wait_t, UINT64_MAX);
	pthread_cond_broadcast(&lm->wait_cv);
	pthread_mutex_unlock(&lm->wait_lock);
}

void live_maps__observe_synth(struct live_maps *lm, const void *buf, size_t len)
{
	if (atomic_load_explicit(&lm->feed[lm->nr - 1].fed_ns, memory_order_relaxed) != UINT64_MAX)
		live_maps__observe(lm, lm->nr - 1, buf, len);
}

void live_maps__synth_done(struct live_maps *lm)
{
	live_maps__fed(lm, lm->nr - 1, UINT64_MAX);
}

bool live_maps__ready(struct live_maps *lm, uint64_t t)
{
	for (int i = 0; i < lm->nr; i++)
		if (atomic_load(&lm->feed[i].fed_ns) < t)
			return false;
	return true;
}

bool live_maps__wait(struct live_maps *lm, uint64_t t, uint64_t timeout_ns)
{
	struct timespec ts;
	uint64_t w;
	bool ready;

	pthread_mutex_lock(&lm->wait_lock);
	/*
	 * Said before the check (see live_maps__fed). Another stage's wait
	 * for an earlier time stands (it wakes this one too, which looks
	 * again); one already met does not.
	 */
	w = atomic_load(&lm->wait_t);
	if (t < w || live_maps__ready(lm, w))
		atomic_store(&lm->wait_t, t);
	ready = live_maps__ready(lm, t);
	if (!ready) {
		deadline_in(&ts, timeout_ns);
		pthread_cond_timedwait(&lm->wait_cv, &lm->wait_lock, &ts);
		ready = live_maps__ready(lm, t);
	}
	pthread_mutex_unlock(&lm->wait_lock);
	return ready;
}

static uint64_t record_time(const struct live_maps *lm, const struct perf_event_header *h)
{
	uint64_t t = 0;

	if (lm->time_from_end && h->size >= sizeof(*h) + lm->time_from_end)
		memcpy(&t, (const char *)h + h->size - lm->time_from_end, 8);
	return t == UINT64_MAX ? 0 : t;
}

void live_maps__advance(struct live_maps *lm, uint64_t until)
{
	pthread_rwlock_wrlock(&lm->lock);
	for (int i = 0; i < lm->nr; i++) {
		struct live_feed *f = &lm->feed[i];
		struct strbuf tmp;

		/* Swap the feed's buffer out: the reader waits no longer than that. */
		pthread_mutex_lock(&f->lock);
		tmp = f->buf;
		f->buf = lm->taken;
		lm->taken = tmp;
		pthread_mutex_unlock(&f->lock);
		for (size_t at = 0; at < lm->taken.len;) {
			const struct perf_event_header *h = (const void *)(lm->taken.data + at);

			maps__add_record(lm->maps, h, record_time(lm, h), false);
			at += h->size;
		}
		strbuf__reset(&lm->taken);
	}
	/*
	 * Never back: a record that came late, older than what was applied
	 * (a timestamp taken before, written after, another ring's copy),
	 * goes in now, a little out of order, rather than never.
	 */
	until = MAX(atomic_load(&lm->applied), until);
	maps__apply(lm->maps, until);
	atomic_store_explicit(&lm->applied, until, memory_order_release);
	pthread_rwlock_unlock(&lm->lock);
}
