// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>

#include "record/backward.h"
#include "sys.h"
#include "util.h"

uint64_t backward__range(const unsigned char *data, uint64_t size, uint64_t head, uint64_t prev)
{
	uint64_t mask = size - 1, len = 0;

	/*
	 * Written since the last snapshot and no more than the ring holds:
	 * every byte of it is still there, and it ends on a record boundary
	 * (where the last snapshot began).
	 */
	if (prev - head <= size)
		return prev - head;
	/*
	 * Records are 8-byte aligned and the ring is a power of two, so a
	 * header never straddles the end of the data area; a record may.
	 */
	while (len + sizeof(struct perf_event_header) <= size) {
		struct perf_event_header h;

		memcpy(&h, data + ((head + len) & mask), sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || len + h.size > size)
			break;
		len += h.size;
	}
	return len;
}

bool backward__unpaused_ok(uint64_t size, uint64_t len, uint64_t written)
{
	return size >= BACKWARD_UNPAUSED_MIN && len + written <= size / 2;
}

static void set_paused(struct mmap *m, bool on)
{
	int err;

	if (m->paused == on)
		return;
	m->paused = on;
	if (m->fd < 0)
		return;	/* a fake ring (tests) */
	err = sys_perf_ioctl(m->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, on);
	if (err)
		pr_debug("ring of CPU %d: PERF_EVENT_IOC_PAUSE_OUTPUT %d: %s\n", m->cpu, on,
			 strerror(-err));
}

void backward__snapshot(struct mmap *m)
{
	if (m->backward && m->base)
		m->snap_due = true;
}

static uint64_t data_head(struct mmap *m)
{
	/* Pairs with the kernel's smp_wmb() before it publishes data_head. */
	return __atomic_load_n(&((struct perf_event_mmap_page *)m->base)->data_head,
			       __ATOMIC_ACQUIRE);
}

/* [head, head + len) of the ring behind what b holds, in one or two pieces. */
static void copy_out(struct mmap *m, struct mmap_buf *b, uint64_t head, uint64_t len)
{
	uint64_t start = head & m->mask, first = MIN(len, m->size - start);

	memcpy(b->data + b->len, m->data + start, first);
	if (first < len)
		memcpy(b->data + b->len + first, m->data, len - first);
}

ssize_t backward__copy(struct mmap *m, struct mmap_buf **bufp)
{
	uint64_t head, len;
	struct mmap_buf *b;

	if (!m->snap_due)
		return 0;
	head = data_head(m);
	/* A small ring, or more than half of it unread: the kernel could write over it meanwhile. */
	if (!backward__unpaused_ok(m->size, m->prev - head, 0)) {
		set_paused(m, true);
		head = data_head(m);
	}
	len = backward__range(m->data, m->size, head, m->prev);
	if (len) {
		if (m->filling && m->filling->len + len > m->size)
			return -ENOSPC;
		b = mmap__filling(m);
		if (!b)
			return -ENOBUFS;	/* still due: copied once a buffer comes back */
		copy_out(m, b, head, len);
		if (!m->paused) {
			/*
			 * Not paused: what the kernel wrote meanwhile went below
			 * head and over the ring's oldest bytes. Our loads of the
			 * data come before this load of data_head (the fence); if
			 * it and what we copied come near the ring's size, the
			 * copy may hold bytes written over: again, paused.
			 */
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			if (!backward__unpaused_ok(m->size, len, head - data_head(m))) {
				set_paused(m, true);
				head = data_head(m);
				len = backward__range(m->data, m->size, head, m->prev);
				if (b->len + len > m->size)
					return -ENOSPC;
				copy_out(m, b, head, len);
			}
		}
		m->nr_fill[MIN(len * 8 / m->size, 7)]++;
		b->fresh = b->len;
		b->len += len;
		m->bytes += len;
		m->nr_copies++;
		*bufp = b;
	}
	/* No data_tail to store (the ring is read-only): prev is where the next snapshot stops. */
	m->prev = head;
	m->snap_due = false;
	set_paused(m, false);
	return len;
}
