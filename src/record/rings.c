// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "events/evlist.h"
#include "record/backward.h"
#include "record/rings.h"
#include "util.h"

int rings__map(struct rings *r, struct evlist *el, unsigned int pages, int nr_bufs)
{
	int nr_cpus = el->cpus->nr;
	/* --overwrite: every event writes backward (the kernel refuses a mixed ring). */
	bool backward = el->nr && el->evsels[0]->attr.write_backward;

	r->maps = xzalloc(nr_cpus * sizeof(*r->maps));
	r->nr = nr_cpus;
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

void rings__snapshot(struct rings *r)
{
	for (int i = 0; i < r->nr; i++)
		backward__snapshot(&r->maps[i]);
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
	r->nr = 0;
}
