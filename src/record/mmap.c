// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "record/compress-stage.h"
#include "record/mmap.h"
#include "io/output.h"
#include "perf-file.h"
#include "record/rounds.h"
#include "util.h"

static int bufs_init(struct mmap *m, int nr_bufs)
{
	m->bufs = xzalloc(nr_bufs * sizeof(*m->bufs));
	for (int i = 0; i < nr_bufs; i++) {
		struct mmap_buf *b = &m->bufs[i];

		b->map = m;
		b->cap = m->size + sizeof(struct perf_event_header);
		b->data = malloc(b->cap);
		if (!b->data)
			return -ENOMEM;
		/*
		 * The first buffer, which the first copies take, is faulted in
		 * now rather than while a ring fills; the others (up to --aio=64
		 * of them) stay untouched until they are needed.
		 */
		if (i == 0)
			memset(b->data, 0, b->cap);
		b->state = MMAP_BUF_FREE;
	}
	m->nr_bufs = m->nr_free = nr_bufs;
	return 0;
}

static void bufs_exit(struct mmap *m)
{
	for (int i = 0; m->bufs && i < m->nr_bufs; i++)
		free(m->bufs[i].data);
	free(m->bufs);
	m->bufs = NULL;
}

int mmap__init(struct mmap *m, int fd, int cpu, unsigned int pages, int nr_bufs,
	       struct output *out)
{
	long page_size = sysconf(_SC_PAGESIZE);
	int err;

	memset(m, 0, sizeof(*m));
	m->fd = fd;
	m->cpu = cpu;
	m->out = out;
	m->size = (uint64_t)pages * page_size;
	m->mask = m->size - 1;
	m->map_len = (pages + 1) * page_size;
	/* Populated: the first pass over a ring takes no page faults. */
	m->base = mmap(NULL, m->map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
	if (m->base == MAP_FAILED) {
		err = -errno;
		m->base = NULL;
		return err;
	}
	m->data = (unsigned char *)m->base + page_size;
	m->refcnt = 1;
	err = bufs_init(m, nr_bufs);
	if (err) {
		bufs_exit(m);
		munmap(m->base, m->map_len);
		m->base = NULL;
	}
	return err;
}

int mmap__init_fake(struct mmap *m, void *base, size_t page_size, uint64_t size,
		    int nr_bufs, struct output *out)
{
	memset(m, 0, sizeof(*m));
	m->fd = -1;
	m->cpu = -1;
	m->out = out;
	m->base = base;
	m->data = (unsigned char *)base + page_size;
	m->size = size;
	m->mask = size - 1;
	m->refcnt = 1;
	return bufs_init(m, nr_bufs);
}

static struct perf_event_mmap_page *ctl(struct mmap *m)
{
	return m->base;
}

uint64_t mmap__ready(struct mmap *m)
{
	/* Pairs with the kernel's smp_wmb() before it publishes data_head. */
	return __atomic_load_n(&ctl(m)->data_head, __ATOMIC_ACQUIRE) - m->prev;
}

static struct writer *ring_writer(struct mmap *m)
{
	return m->writer ? m->writer : m->out->writer;
}

static struct mmap_buf *get_free_buf(struct mmap *m, int *errp)
{
	while (!m->nr_free) {
		/* Back-pressure: every buffer is in flight; wait, never spin. */
		int err;

		m->nr_waits++;
		/* With -z the buffers come back once compressed, not written. */
		err = m->stage ? compress_stage__reap(m->stage, true)
			       : output__reap_via(m->out, ring_writer(m), true);
		if (err) {
			*errp = err;
			return NULL;
		}
	}
	for (int i = 0; i < m->nr_bufs; i++)
		if (m->bufs[i].state == MMAP_BUF_FREE)
			return &m->bufs[i];
	*errp = -EINVAL; /* nr_free disagrees with the states: a bug */
	return NULL;
}

static ssize_t copy(struct mmap *m, struct mmap_buf **bufp, bool may_defer)
{
	uint64_t head, start, len, first;
	struct mmap_buf *b;
	int err = 0;

	/* Pairs with the kernel's smp_wmb() before it publishes data_head. */
	head = __atomic_load_n(&ctl(m)->data_head, __ATOMIC_ACQUIRE);
	len = head - m->prev;
	if (!len)
		return 0;
	if (len > m->size)
		return -EINVAL; /* the kernel never overruns an unread ring */
	m->nr_fill[MIN(len * 8 / m->size, 7)]++;
	b = m->filling;
	if (b && b->len + len > m->size) {
		/* No room left behind what it holds: write that first. */
		err = mmap__submit(m, b);
		if (err)
			return err;
		b = NULL;
	}
	if (!b) {
		if (may_defer && !m->nr_free && len * MMAP_DEFER_DIV < m->size) {
			m->nr_defers++;
			return -EAGAIN;
		}
		b = get_free_buf(m, &err);
		if (!b)
			return err;
		b->len = 0;
		b->state = MMAP_BUF_FILLED;
		m->nr_free--;
		m->filling = b;
	}
	b->fresh = b->len;
	start = m->prev & m->mask;
	first = MIN(len, m->size - start);
	memcpy(b->data + b->len, m->data + start, first);
	if (first < len) /* wrapped: the rest is at the start of the ring */
		memcpy(b->data + b->len + first, m->data, len - first);
	/*
	 * Release: our reads of [prev, head) happen before the kernel sees
	 * the new tail; pairs with the smp_mb() in perf_output_begin() that
	 * orders its data_tail read before it writes the space again.
	 */
	__atomic_store_n(&ctl(m)->data_tail, head, __ATOMIC_RELEASE);
	m->prev = head;
	m->bytes += len;
	m->nr_copies++;
	b->len += len;
	*bufp = b;
	return len;
}

ssize_t mmap__copy(struct mmap *m, struct mmap_buf **bufp)
{
	return copy(m, bufp, false);
}

ssize_t mmap__copy_or_defer(struct mmap *m, struct mmap_buf **bufp)
{
	return copy(m, bufp, true);
}

static void buf_complete(struct write_req *req, int err)
{
	struct mmap_buf *b = req->owner;
	struct mmap *m = b->map;

	b->state = MMAP_BUF_FREE;
	m->nr_free++;
	mmap__put(m);
}

/* The buffer leaves the ring for a writer or the stage: in flight, holding the ring. */
static void hand_over(struct mmap *m, struct mmap_buf *b)
{
	if (m->filling == b)
		m->filling = NULL;
	b->req.buf = b->data;
	b->req.len = b->len;
	b->req.owner = b;
	b->req.on_complete = buf_complete;
	b->state = MMAP_BUF_INFLIGHT;
	mmap__get(m);
}

/* Not handed over after all: the buffer is the ring's again, its bytes lost. */
static void take_back(struct mmap *m, struct mmap_buf *b)
{
	b->state = MMAP_BUF_FREE;
	m->nr_free++;
	mmap__put(m);
}

int mmap__submit(struct mmap *m, struct mmap_buf *b)
{
	int err;

	hand_over(m, b);
	/*
	 * -z: to the compression stage, which reserves the offset once the
	 * size is known. Else a reader thread's ring goes straight out; the
	 * main thread's flushes staged records first.
	 */
	if (m->stage)
		err = compress_stage__submit(m->stage, &b->req);
	else
		err = m->writer ? output__submit_via(m->out, m->writer, &b->req)
				: output__submit(m->out, &b->req);
	if (err)
		take_back(m, b); /* not submitted: still ours */
	return err;
}

ssize_t mmap__push(struct mmap *m)
{
	struct mmap_buf *b = NULL;
	ssize_t n = mmap__copy(m, &b);
	int err;

	if (n <= 0)
		return n;
	err = mmap__submit(m, b);
	return err ? err : n;
}

ssize_t mmap__pass_copy(struct mmap **maps, int nr_maps, struct mmap_pass *p, bool may_defer)
{
	ssize_t total = 0;

	p->nr = 0;
	p->deferred = 0;
	p->held = 0;
	p->round = false;
	p->may_defer = may_defer;
	if (p->rounds)
		p->gen = rounds__begin(p->rounds);
	for (int i = 0; i < nr_maps; i++) {
		struct mmap_buf *b = NULL;
		ssize_t n = copy(maps[i], &b, may_defer);

		if (n == -EAGAIN) {
			p->deferred++;
			continue;
		}
		if (n < 0)
			return n;
		/* Nothing new, but it holds what earlier passes copied. */
		if (!b && maps[i]->filling) {
			b = maps[i]->filling;
			b->fresh = b->len;
		}
		if (b)
			p->bufs[p->nr++] = b;
		total += n;
	}
	return total;
}

/*
 * Is this chunk kept in its buffer for the ring's next copies (fewer,
 * larger writes)? With one buffer per ring (--aio, the default writer),
 * only under 1/MMAP_HOLD_DIV of the ring: while that buffer is written
 * the ring cannot be copied, so it must go out while the ring still has
 * room. With more, until the buffer is full: the next copies take another
 * buffer while it is written.
 *
 * Measured. Keeping with one buffer too, 9 reps: --aio switches in
 * dwarf-small 33.6k -> 22.5k, loss 8.3% -> 6.6% (a write handed to glibc's
 * idle helper preempted the loop twice, at the wakeup and at the lock it
 * was woken under; bench/results/2026-11-30-kept-chunks/). Until full
 * with more buffers, against half, two runs of 9 and 7 reps: the flood's
 * switches with --aio=4 14.7k/13.9k vs 15.9k/15.4k (perf 17.1k/14.6k),
 * loss unchanged within the noise (bench/results/2026-11-30-kept-until-full/).
 */
static bool keep_chunk(const struct mmap_buf *b)
{
	const struct mmap *m = b->map;

	if (m->nr_bufs > 1)
		return b->len < m->size;
	return b->len * MMAP_HOLD_DIV < m->size;
}

int mmap__pass_submit(struct mmap_pass *p, uint64_t now)
{
	struct mmap_buf *last = NULL;
	bool clean, closing = false;
	int err = 0;

	/* Chunks wait in their buffer for more, unless this pass may not. */
	for (int i = 0; i < p->nr; i++) {
		struct mmap_buf *b = p->bufs[i];

		if (p->may_defer && keep_chunk(b)) {
			b->map->nr_holds++;
			p->held++;
			p->bufs[i] = NULL;
		} else {
			last = b;
		}
	}
	clean = !p->deferred && !p->held;
	if (p->stage) {
		/*
		 * The stage reserves, so it places the marker (compress-stage.h).
		 * The chunks and the end of a clean pass go over at once: one
		 * wakeup, and the marker goes out in the same write as they do.
		 */
		struct write_req *reqs[p->nr + 1];
		int n = 0;

		for (int i = 0; i < p->nr; i++) {
			if (!p->bufs[i])
				continue;
			hand_over(p->bufs[i]->map, p->bufs[i]);
			reqs[n++] = &p->bufs[i]->req;
		}
		err = compress_stage__submit_pass(p->stage, reqs, n, clean, p->gen, last != NULL,
						  now);
		for (int i = 0; err && i < p->nr; i++)
			if (p->bufs[i])
				take_back(p->bufs[i]->map, p->bufs[i]);
		return err;
	}
	if (last && clean)
		closing = !p->rounds || rounds__try_close(p->rounds, p->thread, p->gen);
	if (closing) {
		struct perf_event_header round = {
			.type = PERF_RECORD_FINISHED_ROUND,
			.size = sizeof(round),
		};

		/* Every buffer has room for it past the ring's size. */
		memcpy(last->data + last->len, &round, sizeof(round));
		last->len += sizeof(round);
		p->round = true;
	}
	for (int i = 0; i < p->nr; i++) {
		int serr = p->bufs[i] ? mmap__submit(p->bufs[i]->map, p->bufs[i]) : 0;

		if (serr && !err)
			err = serr;
	}
	if (p->rounds) {
		/* Only now is all it copied reserved (rounds.h). */
		if (clean && !err)
			rounds__clean(p->rounds, p->thread, p->gen);
		if (closing)
			rounds__close(p->rounds, now);
	}
	return err;
}

void mmap__get(struct mmap *m)
{
	m->refcnt++;
}

void mmap__put(struct mmap *m)
{
	if (--m->refcnt > 0)
		return;
	if (m->map_len)
		munmap(m->base, m->map_len);
	m->base = NULL;
	m->data = NULL;
	bufs_exit(m);
	if (m->on_release)
		m->on_release(m);
}

void mmap__close(struct mmap *m)
{
	if (m->closed)
		return;
	m->closed = true;
	mmap__put(m);
}
