// SPDX-License-Identifier: GPL-2.0
/* Common code of every writer backend: short writes, errors, draining. */
#include <errno.h>
#include <string.h>

#include "sys.h"
#include "util.h"
#include "io/writer.h"

const struct writer_ops *writer__find(const char *name)
{
	static const struct writer_ops *const all[] = {
		&writer_sync_ops, &writer_aio_ops, &writer_uring_ops,
	};

	for (size_t i = 0; i < ARRAY_SIZE(all); i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}

int writer__init(struct writer *w, const struct writer_ops *ops, int fd, int max_inflight)
{
	memset(w, 0, sizeof(*w));
	w->ops = ops;
	w->fd = fd;
	w->max_inflight = max_inflight;
	return ops->init(w, max_inflight);
}

void writer__exit(struct writer *w)
{
	if (w->ops && w->ops->exit)
		w->ops->exit(w);
	w->ops = NULL;
}

int writer__submit(struct writer *w, struct write_req *req)
{
	int err;

	w->inflight++;
	w->nr_submits++;
	err = w->ops->submit(w, req);
	if (err)
		w->inflight--;
	return err;
}

int writer__reap(struct writer *w, bool wait)
{
	if (!w->inflight)
		return 0;
	return w->ops->reap(w, wait);
}

int writer__drain(struct writer *w)
{
	int err = 0;

	while (w->inflight) {
		int n = writer__reap(w, true);

		if (n < 0) {
			err = n;
			break;
		}
	}
	return err;
}

void writer__io_done(struct writer *w, struct write_req *req, ssize_t res)
{
	size_t left = req->len - req->done;
	int err;

	res = sys_fault__write_result(res, left);
	if (res == 0)
		res = -ENOSPC; /* a regular file returns 0 only when it cannot grow */
	if (res > 0 && (size_t)res < left) {
		req->done += res;
		w->nr_short++;
		w->nr_submits++;
		err = w->ops->submit(w, req);
		if (!err)
			return; /* still ours, still in flight */
		res = err;
	}
	w->inflight--;
	if (res > 0)
		req->done = req->len;
	req->complete(req, res < 0 ? (int)res : 0);
}
