// SPDX-License-Identifier: GPL-2.0
/*
 * The POSIX AIO backend (glibc): aio_write() hands each request to
 * glibc's helper thread for our file descriptor.
 *
 * Waiting without polling, in the one writer that may (below): every
 * request asks for a real-time signal on completion (SIGEV_SIGNAL)
 * carrying the request's address. The signal is blocked in every thread
 * and read from a signalfd, so a completion is one queued signal, read
 * only when the writer must wait (back-pressure, drain) or reaps:
 * completions never wake the thread that submits, and glibc's helper
 * does not preempt it as it does a thread waiting in aio_suspend()
 * (bench/results/2026-11-30-aio-sigev-signal/). (Nothing else in the
 * process may sleep on a signalfd: the kernel wakes every signalfd reader
 * of the process for each signal. The record loop hears of SIGINT through
 * an eventfd for that reason; see cli/builtin-record.c.) perf record
 * --aio instead loops on aio_suspend() with a 1 ms timeout, and pays for
 * it in context switches.
 *
 * Real-time signals queue, they do not merge; but if the queue limit
 * (RLIMIT_SIGPENDING) were ever hit a notification could be dropped,
 * so a wait that sees nothing for AIO_RESCAN_MS scans every request.
 *
 * Every reader has a writer of its own, with a file descriptor of its
 * own (glibc runs one descriptor's requests one after another). A signal
 * is the process's: whichever signalfd reads it takes it, so only one
 * writer at a time may ask for signals: the first set up, in perfcap
 * record the record loop's own (the file's start, the synthesized
 * records). The others, the readers' (their output stages'), ask for no
 * notification (SIGEV_NONE), as perf record --aio does: reaping reads
 * each request's state (aio_error() is a load, no system call) and a
 * wait is aio_suspend() on their own requests, AIO_RESCAN_MS at a time.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "util.h"
#include "io/writer.h"

#define AIO_RESCAN_MS 100
/* Most helper threads glibc may start: one per descriptor with requests. */
#define AIO_MAX_THREADS 64

/* Is a writer using the completion signal? (Writers are set up by one thread.) */
static bool signal_taken;

struct aio_priv {
	bool use_signal;	/* SIGEV_SIGNAL + signalfd; else SIGEV_NONE */
	int sfd;
	int signo;
	sigset_t mask, oldmask;
	struct write_req *list; /* every request in flight (for the rescan) */
};

static int aio_writer_init(struct writer *w, int max_inflight)
{
	struct aio_priv *p = xzalloc(sizeof(*p));
	struct aioinit ai = {
		/* Only the first call counts; one thread per descriptor at most. */
		.aio_threads = AIO_MAX_THREADS,
		.aio_num = max_inflight,
		/* Keep the helper thread: re-creating it costs context switches. */
		.aio_idle_time = 3600,
	};
	int err;

	aio_init(&ai);
	p->sfd = -1;
	if (signal_taken) {
		w->priv = p;
		return 0;
	}
	signal_taken = p->use_signal = true;
	p->signo = SIGRTMIN + 3;
	sigemptyset(&p->mask);
	sigaddset(&p->mask, p->signo);
	err = pthread_sigmask(SIG_BLOCK, &p->mask, &p->oldmask);
	if (err) {
		free(p);
		return -err;
	}
	p->sfd = signalfd(-1, &p->mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (p->sfd < 0) {
		err = -errno;
		pr_err("aio writer: signalfd: %s\n", strerror(-err));
		pthread_sigmask(SIG_SETMASK, &p->oldmask, NULL);
		signal_taken = false;
		free(p);
		return err;
	}
	w->priv = p;
	return 0;
}

static void list_del(struct aio_priv *p, struct write_req *req)
{
	struct write_req **pp;

	for (pp = &p->list; *pp; pp = &(*pp)->next)
		if (*pp == req) {
			*pp = req->next;
			return;
		}
}

/*
 * How far below the submitting thread glibc is to run the write. glibc's
 * helper thread takes, for each request, the policy of the thread that
 * submitted it and its priority less aio_reqprio (POSIX prioritized I/O).
 * A real-time reader asks for as far down as POSIX lets it, its whole
 * priority where that is at most AIO_PRIO_DELTA_MAX: priority 0 does not
 * exist under SCHED_FIFO, glibc's switch is refused, and the helper stays
 * at SCHED_OTHER (record/helper-threads.c, which also catches the rest:
 * -r above AIO_PRIO_DELTA_MAX, or a glibc that does otherwise).
 * pthread_getschedparam is glibc's record of the thread: no system call.
 */
static int reqprio(void)
{
	struct sched_param sp;
	int pol, max = AIO_PRIO_DELTA_MAX;

	if (pthread_getschedparam(pthread_self(), &pol, &sp))
		return 0;
	pol &= ~SCHED_RESET_ON_FORK;
	if (pol != SCHED_FIFO && pol != SCHED_RR)
		return 0;
	return sp.sched_priority < max ? sp.sched_priority : max;
}

static int aio_writer_submit(struct writer *w, struct write_req *req)
{
	struct aio_priv *p = w->priv;
	struct aiocb *cb = &req->u.aio;
	int err;

	memset(cb, 0, sizeof(*cb));
	cb->aio_reqprio = reqprio();
	cb->aio_fildes = w->fd;
	cb->aio_buf = (char *)req->buf + req->done;
	cb->aio_nbytes = req->len - req->done;
	cb->aio_offset = req->off + req->done;
	if (p->use_signal) {
		cb->aio_sigevent.sigev_notify = SIGEV_SIGNAL;
		cb->aio_sigevent.sigev_signo = p->signo;
		cb->aio_sigevent.sigev_value.sival_ptr = req;
	} else {
		cb->aio_sigevent.sigev_notify = SIGEV_NONE;
	}
	for (;;) {
		if (!aio_write(cb))
			break;
		err = -errno;
		if (err != -EAGAIN)
			return err;
		/* glibc is out of request slots: wait for one of ours. */
		if (!w->inflight || w->ops->reap(w, true) < 0)
			return err;
	}
	req->next = p->list;
	p->list = req;
	return 0;
}

/* One request has finished (or is checked): report it if done. */
static int finish(struct writer *w, struct write_req *req)
{
	struct aio_priv *p = w->priv;
	struct aiocb *cb = &req->u.aio;
	int e = aio_error(cb);
	ssize_t res;

	if (e == EINPROGRESS)
		return 0;
	res = aio_return(cb);
	if (e)
		res = -e;
	list_del(p, req);
	writer__io_done(w, req, res);
	return 1;
}

static int drain_signals(struct writer *w)
{
	struct aio_priv *p = w->priv;
	struct signalfd_siginfo si[64];
	int done = 0;

	for (;;) {
		ssize_t n = read(p->sfd, si, sizeof(si));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return done;
			return -errno;
		}
		for (size_t i = 0; i < n / sizeof(si[0]); i++) {
			struct write_req *req = (struct write_req *)(uintptr_t)si[i].ssi_ptr;

			/* Only act on requests still ours (a rescan may have taken it). */
			for (struct write_req *r = p->list; r; r = r->next)
				if (r == req) {
					done += finish(w, req);
					break;
				}
		}
	}
}

static int rescan(struct writer *w)
{
	struct aio_priv *p = w->priv;
	struct write_req *req, *next;
	int done = 0;

	for (req = p->list; req; req = next) {
		next = req->next;
		done += finish(w, req);
	}
	return done;
}

/* Without signals: check every request; wait in aio_suspend() for one. */
static int reap_unsignalled(struct writer *w, bool wait)
{
	struct aio_priv *p = w->priv;
	int done = rescan(w);

	while (done == 0 && wait && p->list) {
		const struct aiocb *cbs[64];
		struct timespec ts = { 0, AIO_RESCAN_MS * 1000000L };
		int n = 0;

		for (struct write_req *r = p->list; r && n < (int)ARRAY_SIZE(cbs); r = r->next)
			cbs[n++] = &r->u.aio;
		if (aio_suspend(cbs, n, &ts) && errno != EAGAIN && errno != EINTR)
			return -errno;
		done = rescan(w);
	}
	return done;
}

static int aio_writer_reap(struct writer *w, bool wait)
{
	struct aio_priv *p = w->priv;
	int done;

	if (!p->use_signal)
		return reap_unsignalled(w, wait);
	done = drain_signals(w);

	while (done == 0 && wait && p->list) {
		struct pollfd pfd = { .fd = p->sfd, .events = POLLIN };
		int n = poll(&pfd, 1, AIO_RESCAN_MS);

		if (n < 0 && errno != EINTR)
			return -errno;
		done = n > 0 ? drain_signals(w) : rescan(w);
		if (done < 0)
			return done;
	}
	return done;
}

static void aio_writer_exit(struct writer *w)
{
	struct aio_priv *p = w->priv;

	if (!p)
		return;
	if (!p->use_signal) {
		free(p);
		w->priv = NULL;
		return;
	}
	signal_taken = false;
	close(p->sfd);
	/* Drop completions still queued, then restore the mask. */
	{
		struct timespec zero = { 0, 0 };

		while (sigtimedwait(&p->mask, NULL, &zero) > 0)
			;
	}
	pthread_sigmask(SIG_SETMASK, &p->oldmask, NULL);
	free(p);
	w->priv = NULL;
}

const struct writer_ops writer_aio_ops = {
	.name = "aio",
	.init = aio_writer_init,
	.submit = aio_writer_submit,
	.reap = aio_writer_reap,
	.exit = aio_writer_exit,
};
