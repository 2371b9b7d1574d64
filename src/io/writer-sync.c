// SPDX-License-Identifier: GPL-2.0
/*
 * The synchronous backend: pwrite() in the caller's thread. A request is
 * complete before submit() returns, so reap() never has work.
 */
#include "sys.h"
#include "io/writer.h"

static int sync_init(struct writer *w, int max_inflight)
{
	return 0;
}

static int sync_submit(struct writer *w, struct write_req *req)
{
	ssize_t n = sys_pwrite(w->fd, (char *)req->buf + req->done,
			       req->len - req->done, req->off + req->done);

	/* May resubmit (short write) through us again, then completes req. */
	writer__io_done(w, req, n);
	return 0;
}

static int sync_reap(struct writer *w, bool wait)
{
	return 0;
}

const struct writer_ops writer_sync_ops = {
	.name = "sync",
	.init = sync_init,
	.submit = sync_submit,
	.reap = sync_reap,
	.synchronous = true,
};
