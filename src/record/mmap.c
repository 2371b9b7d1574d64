// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "record/aux.h"
#include "record/mmap.h"
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

static int map_ring(struct mmap *m, int fd, int cpu, unsigned int pages, int nr_bufs, int prot)
{
	long page_size = sysconf(_SC_PAGESIZE);
	int err;

	memset(m, 0, sizeof(*m));
	m->fd = fd;
	m->cpu = cpu;
	m->size = (uint64_t)pages * page_size;
	m->mask = m->size - 1;
	m->map_len = (pages + 1) * page_size;
	/* Populated: the first pass over a ring takes no page faults. */
	m->base = mmap(NULL, m->map_len, prot, MAP_SHARED | MAP_POPULATE, fd, 0);
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

int mmap__init(struct mmap *m, int fd, int cpu, unsigned int pages, int nr_bufs)
{
	return map_ring(m, fd, cpu, pages, nr_bufs, PROT_READ | PROT_WRITE);
}

/*
 * Without PROT_WRITE the kernel ignores data_tail and overwrites the
 * oldest records (its ring is in overwrite mode): the flight recorder.
 */
int mmap__init_backward(struct mmap *m, int fd, int cpu, unsigned int pages, int nr_bufs)
{
	int err = map_ring(m, fd, cpu, pages, nr_bufs, PROT_READ);

	m->backward = !err;
	return err;
}

int mmap__init_fake(struct mmap *m, void *base, size_t page_size, uint64_t size,
		    int nr_bufs)
{
	memset(m, 0, sizeof(*m));
	m->fd = -1;
	m->cpu = -1;
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

static struct mmap_buf *free_buf(struct mmap *m)
{
	for (int i = 0; i < m->nr_bufs; i++)
		if (m->bufs[i].state == MMAP_BUF_FREE)
			return &m->bufs[i];
	return NULL;
}

ssize_t mmap__copy(struct mmap *m, bool may_defer, struct mmap_buf **bufp)
{
	uint64_t head, start, len, first;
	struct mmap_buf *b;

	/* Pairs with the kernel's smp_wmb() before it publishes data_head. */
	head = __atomic_load_n(&ctl(m)->data_head, __ATOMIC_ACQUIRE);
	len = head - m->prev;
	/* --mmap-flush: less than that waits for more (the last pass sets flush 0). */
	if (!len || len < m->flush)
		return 0;
	if (len > m->size)
		return -EINVAL; /* the kernel never overruns an unread ring */
	b = m->filling;
	/* No room left behind what it holds: that goes on first. */
	if (b && b->len + len > m->size)
		return -ENOSPC;
	if (!b && !m->nr_free && !(may_defer && len * MMAP_DEFER_DIV < m->size))
		return -ENOBUFS;
	m->nr_fill[MIN(len * 8 / m->size, 7)]++;
	if (!b) {
		if (!m->nr_free) {
			m->nr_defers++;
			return -EAGAIN;
		}
		b = free_buf(m);
		if (!b)
			return -EINVAL; /* nr_free disagrees with the states: a bug */
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

static void buf_complete(struct write_req *req, int err)
{
	struct mmap_buf *b = req->owner;
	struct mmap *m = b->map;

	b->state = MMAP_BUF_FREE;
	m->nr_free++;
	mmap__put(m);
}

struct chunk *mmap__hand_over(struct mmap_buf *b)
{
	struct mmap *m = b->map;

	if (m->filling == b)
		m->filling = NULL;
	b->chunk.req.buf = b->data;
	b->chunk.req.len = b->len;
	b->chunk.req.owner = b;
	b->chunk.req.on_complete = buf_complete;
	b->chunk.cap = b->cap;
	b->state = MMAP_BUF_INFLIGHT;
	mmap__get(m);
	return &b->chunk;
}

struct mmap_buf *mmap__filling(struct mmap *m)
{
	struct mmap_buf *b = m->filling;

	if (b || !m->nr_free)
		return b;
	b = free_buf(m);
	if (!b)
		return NULL;
	b->len = 0;
	b->fresh = 0;
	b->state = MMAP_BUF_FILLED;
	m->nr_free--;
	m->filling = b;
	return b;
}

int mmap__grow_bufs(struct mmap *m, size_t extra)
{
	for (int i = 0; i < m->nr_bufs; i++) {
		char *p = realloc(m->bufs[i].data, m->bufs[i].cap + extra);

		if (!p)
			return -ENOMEM;
		m->bufs[i].data = p;
		m->bufs[i].cap += extra;
	}
	return 0;
}

void mmap__get(struct mmap *m)
{
	m->refcnt++;
}

void mmap__put(struct mmap *m)
{
	if (--m->refcnt > 0)
		return;
	/* The AUX area goes before the data ring it was mapped behind. */
	if (m->aux) {
		aux__unmap(m->aux);
		free(m->aux);
		m->aux = NULL;
	}
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
