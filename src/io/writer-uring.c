// SPDX-License-Identifier: GPL-2.0
/*
 * The io_uring backend (liburing): no user-space thread pool and no
 * signals; completions are read from the completion queue without a
 * system call, and io_uring_wait_cqe() blocks only under back-pressure.
 * Buffered writes to ext4 are punted to io-wq workers hashed by inode
 * (PERFDATA.md C.4), so this behaves like one background writer per file
 * with batched submission and completion.
 */
#include <errno.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys.h"
#include "util.h"
#include "io/writer.h"

struct uring_priv {
	struct io_uring ring;
};

static int uring_init(struct writer *w, int max_inflight)
{
	struct uring_priv *p = xzalloc(sizeof(*p));
	unsigned int entries = 8;
	int err;

	while (entries < (unsigned int)max_inflight * 2 && entries < 4096)
		entries *= 2;
	err = io_uring_queue_init(entries, &p->ring, 0);
	if (err < 0) {
		pr_err("uring writer: io_uring_queue_init: %s%s\n", strerror(-err),
		       err == -ENOSYS || err == -EPERM ?
		       " (io_uring disabled? see /proc/sys/kernel/io_uring_disabled)" : "");
		free(p);
		return err;
	}
	w->priv = p;
	return 0;
}

/* io_uring_submit(), or the error the fault seam injects in its place. */
static int submit_ring(struct uring_priv *p)
{
	int err = sys_fault__fail(SYS_FAULT_SUBMIT);

	return err ? err : io_uring_submit(&p->ring);
}

/*
 * An error from submit_ring() means the kernel took none of the queued
 * entries (io_uring_enter() fails only when it consumed nothing), but
 * they stay in the submission queue and the next io_uring_enter() of any
 * kind would start them. The caller takes its buffer back on an error
 * and may free it: turn each entry that names a request into a NOP that
 * names none, so that nothing later writes from freed memory or hands
 * the request back a second time.
 */
static void disarm_queued(struct uring_priv *p)
{
	struct io_uring_sq *sq = &p->ring.sq;

	/* khead: the kernel's consumer index, read as liburing does (acquire). */
	for (unsigned int i = io_uring_smp_load_acquire(sq->khead); i != sq->sqe_tail; i++) {
		struct io_uring_sqe *sqe = &sq->sqes[i & sq->ring_mask];

		io_uring_prep_nop(sqe);
		io_uring_sqe_set_data(sqe, NULL);
	}
}

static int uring_submit(struct writer *w, struct write_req *req)
{
	struct uring_priv *p = w->priv;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&p->ring);
	int err;

	if (!sqe) {
		err = submit_ring(p);
		if (err < 0)
			goto out_disarm;
		sqe = io_uring_get_sqe(&p->ring);
		if (!sqe)
			return -EBUSY;
	}
	io_uring_prep_write(sqe, w->fd, (char *)req->buf + req->done,
			    req->len - req->done, req->off + req->done);
	io_uring_sqe_set_data(sqe, req);
	err = submit_ring(p);
	if (err >= 0)
		return 0;
out_disarm:
	pr_debug("uring writer: io_uring_submit: %s\n", strerror(-err));
	disarm_queued(p);
	return err;
}

static int uring_reap(struct writer *w, bool wait)
{
	struct uring_priv *p = w->priv;
	struct io_uring_cqe *cqe;
	int done = 0, err;

	for (;;) {
		err = io_uring_peek_cqe(&p->ring, &cqe);
		if (err == -EAGAIN) {
			if (done || !wait)
				break;
			err = io_uring_wait_cqe(&p->ring, &cqe);
		}
		if (err == -EINTR)
			continue;
		if (err < 0)
			return err;
		{
			struct write_req *req = io_uring_cqe_get_data(cqe);
			ssize_t res = cqe->res;

			io_uring_cqe_seen(&p->ring, cqe);
			/* A disarmed entry (disarm_queued()): nobody waits for it. */
			if (!req)
				continue;
			writer__io_done(w, req, res);
		}
		done++;
	}
	return done;
}

static void uring_exit(struct writer *w)
{
	struct uring_priv *p = w->priv;

	if (!p)
		return;
	io_uring_queue_exit(&p->ring);
	free(p);
	w->priv = NULL;
}

const struct writer_ops writer_uring_ops = {
	.name = "uring",
	.init = uring_init,
	.submit = uring_submit,
	.reap = uring_reap,
	.exit = uring_exit,
};
