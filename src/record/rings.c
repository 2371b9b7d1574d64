// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "events/evlist.h"
#include "record/backward.h"
#include "record/rings.h"
#include "util.h"

/*
 * --per-thread (events on CPU -1): a ring for each thread, since the
 * kernel redirects a task's events only into a ring of the same task.
 */
static int map_per_thread(struct rings *r, struct evlist *el, unsigned int pages, int nr_bufs)
{
	r->maps = xzalloc(el->nr_threads * sizeof(*r->maps));
	r->nr = el->nr_threads;
	for (int t = 0; t < el->nr_threads; t++) {
		int first = FD(el->evsels[0], 0, t);
		int err = mmap__init(&r->maps[t], first, -1, pages, nr_bufs);

		if (err) {
			pr_err("cannot mmap the ring of thread %d (%u pages): %s\n",
			       el->threads[t], pages, strerror(-err));
			return err;
		}
		err = evlist__set_output_thread(el, t, first);
		if (err)
			return err;
	}
	return 0;
}

int rings__map(struct rings *r, struct evlist *el, unsigned int pages, int nr_bufs)
{
	int nr_cpus = el->cpus->nr;
	/* --overwrite: every event writes backward (the kernel refuses a mixed ring). */
	bool backward = el->nr && el->evsels[0]->attr.write_backward;

	if (nr_cpus == 1 && el->cpus->cpu[0] < 0)
		return map_per_thread(r, el, pages, nr_bufs);

	r->cap = nr_cpus + r->reserved;
	r->maps = xzalloc(r->cap * sizeof(*r->maps));
	r->nr = nr_cpus;
	r->pages = pages;
	r->nr_bufs = nr_bufs;
	r->backward = backward;
	for (int c = 0; c < nr_cpus; c++) {
		int first = FD(el->evsels[0], c, 0);
		int err = (backward ? mmap__init_backward : mmap__init)(&r->maps[c], first,
								       el->cpus->cpu[c], pages, nr_bufs);

		if (err) {
			if (err == -EPERM || err == -ENOMEM)
				pr_err("cannot mmap the ring of CPU %d (%u pages): %s.\n"
				       "  Try a smaller -m, or raise /proc/sys/kernel/perf_event_mlock_kb "
				       "(locked memory for rings).\n", el->cpus->cpu[c], pages,
				       strerror(-err));
			else
				pr_err("cannot mmap the ring of CPU %d: %s\n", el->cpus->cpu[c],
				       strerror(-err));
			return err;
		}
		err = evlist__set_output(el, c, first);
		if (err)
			return err;
	}
	return 0;
}

void rings__reserve(struct rings *r, int extra)
{
	r->reserved = MAX(extra, 0);
}

int rings__add(struct rings *r, int fd, int cpu)
{
	struct mmap *m = &r->maps[r->nr];
	int err;

	if (r->nr == r->cap)
		return -ENOSPC;
	err = (r->backward ? mmap__init_backward : mmap__init)(m, fd, cpu, r->pages, r->nr_bufs);
	if (err) {
		memset(m, 0, sizeof(*m));
		return err;
	}
	m->flush = MIN(r->flush, m->size / 4);
	return r->nr++;
}

void rings__drop_last(struct rings *r)
{
	struct mmap *m = &r->maps[--r->nr];

	mmap__close(m);
	memset(m, 0, sizeof(*m));
}

void rings__snapshot(struct rings *r)
{
	for (int i = 0; i < r->nr; i++)
		backward__snapshot(&r->maps[i]);
}

void rings__set_flush(struct rings *r, uint64_t bytes)
{
	r->flush = bytes;
	for (int i = 0; i < r->nr; i++)
		r->maps[i].flush = MIN(bytes, r->maps[i].size / 4);
}

void rings__close(struct rings *r)
{
	for (int i = 0; i < r->nr; i++)
		if (r->maps[i].base)
			mmap__close(&r->maps[i]);
}

void rings__exit(struct rings *r)
{
	rings__close(r);
	free(r->maps);
	r->maps = NULL;
	r->nr = r->cap = r->reserved = 0;
}
