/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A kernel ring in ordinary memory for unit tests: a control page
 * (struct perf_event_mmap_page) and RING bytes of data behind it, at
 * PAGE. The test defines PAGE and RING before it includes this.
 */
#ifndef PERFCAP_TEST_FAKE_RING_H
#define PERFCAP_TEST_FAKE_RING_H

#include <linux/perf_event.h>
#include <stdlib.h>

struct fake {
	void *mem;
	struct perf_event_mmap_page *pc;
	unsigned char *data;
};

static inline void fake_init(struct fake *f)
{
	f->mem = calloc(1, PAGE + RING);
	f->pc = f->mem;
	f->data = (unsigned char *)f->mem + PAGE;
}

#endif
