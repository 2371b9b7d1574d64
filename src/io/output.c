// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/output.h"
#include "perf-file.h"
#include "sys.h"

/*
 * Pipe mode. A file takes each write at its own offset, so writes may
 * complete in any order; a pipe takes bytes only in the order they are
 * read, so here the bytes must go out in offset order. The choice, and
 * why:
 *
 * - A submitter holds p->order from its reservation until its last byte
 *   is in the FIFO. So the FIFO holds the stream in offset order, which
 *   no reordering of completed pieces is needed for, and memory stays at
 *   the FIFO's size: a submitter that finds the FIFO full waits for room
 *   (with the order lock held, which is what keeps the order), and the
 *   rings' data buffers behind it wait for it; nothing grows.
 * - The request completes as soon as it is copied: its ring buffer is
 *   free again at once, as with the sync writer, and the writer backend
 *   (sync, aio, uring, --threads' own) is not used at all, because none
 *   of them can write a pipe at an offset. The FIFO is the asynchronous
 *   part: one thread writes it to the pipe, so a slow reader of the pipe
 *   stalls the readers of the rings only once the FIFO is full.
 * - That thread blocks every signal. A write to a pipe without a reader
 *   then fails with EPIPE instead of killing perfcap with SIGPIPE (a
 *   thread-directed signal, left pending on a thread that blocks it), and
 *   SIGPIPE stays as it was for the command perfcap starts.
 * - While the FIFO is empty the thread looks for POLLERR on the pipe every
 *   PIPE_IDLE_MS: a reader that went away ends the recording even when
 *   nothing is being written.
 *
 * Lock order: order, then lock. The output's own lock, taken to publish
 * durable and bytes_written, is never held with either.
 */
#define PIPE_IDLE_MS 100

struct output_pipe {
	pthread_mutex_t order;	/* a submitter's, from reservation to last byte copied */
	pthread_mutex_t lock;	/* in, out, closing, finished */
	pthread_cond_t data;	/* in moved, or closing */
	pthread_cond_t room;	/* out moved, or the thread finished */
	char *buf;
	size_t cap;
	uint64_t in, out;	/* bytes ever put in and written out; index % cap */
	bool closing;		/* no more data: write what is left and stop */
	bool finished;		/* the thread has stopped (closed or failed) */
	pthread_t thread;
};

static void pipe_publish(struct output *o, uint64_t n)
{
	pthread_mutex_lock(&o->lock);
	o->bytes_written += n;
	o->durable += n;
	pthread_mutex_unlock(&o->lock);
}

/* Has the pipe's reader gone away? Only asked while nothing is written. */
static bool pipe_reader_gone(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };

	return poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLERR);
}

static void *pipe_thread(void *arg)
{
	struct output *o = arg;
	struct output_pipe *p = o->pipe;
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_mutex_lock(&p->lock);
	for (;;) {
		uint64_t used = p->in - p->out;
		size_t at, n;
		ssize_t r;

		if (atomic_load(&o->err))
			break;
		if (!used) {
			struct timespec ts;

			if (p->closing)
				break;
			deadline_in(&ts, PIPE_IDLE_MS * 1000000ULL);
			if (pthread_cond_timedwait(&p->data, &p->lock, &ts) == ETIMEDOUT &&
			    p->in == p->out && !p->closing && pipe_reader_gone(o->fd))
				output__set_err(o, -EPIPE);
			continue;
		}
		at = p->out % p->cap;
		n = MIN(used, (uint64_t)(p->cap - at));
		pthread_mutex_unlock(&p->lock);
		/*
		 * The fault seam decides before the write, not after it: bytes
		 * in a pipe cannot be taken back, so an injected short write
		 * must really be short.
		 */
		r = sys_fault__write_result((ssize_t)n, n);
		if (r > 0) {
			do {
				r = write(o->fd, p->buf + at, (size_t)r);
			} while (r < 0 && errno == EINTR);
			if (r < 0)
				r = -errno;
		}
		if (r == 0)
			r = -EIO;
		if (r > 0)
			pipe_publish(o, r);
		else
			output__set_err(o, (int)r);
		pthread_mutex_lock(&p->lock);
		if (r > 0)
			p->out += r;
		pthread_cond_broadcast(&p->room);
	}
	p->finished = true;
	pthread_cond_broadcast(&p->room);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int output__open_pipe(struct output *o, int fd, struct writer *w, size_t fifo_size)
{
	struct output_pipe *p;
	int err;

	output__init_fd(o, fd, w);
	p = xzalloc(sizeof(*p));
	p->cap = fifo_size ? fifo_size : OUTPUT_PIPE_FIFO;
	p->buf = xzalloc(p->cap);
	pthread_mutex_init(&p->order, NULL);
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->data, NULL);
	pthread_cond_init(&p->room, NULL);
	o->pipe = p;
	err = pthread_create(&p->thread, NULL, pipe_thread, o);
	if (err) {
		pr_err("cannot start the pipe writer thread: %s\n", strerror(err));
		o->pipe = NULL;
		free(p->buf);
		free(p);
		return -err;
	}
	return 0;
}

/*
 * Reserve len bytes and put them into the FIFO, in offset order (see
 * above). Returns 0 with *offp set, or the sticky error: the bytes then
 * went nowhere.
 */
static int pipe_put(struct output *o, const void *buf, size_t len, uint64_t *offp)
{
	struct output_pipe *p = o->pipe;
	size_t done = 0;
	int err;

	pthread_mutex_lock(&p->order);
	*offp = output__reserve(o, len);
	pthread_mutex_lock(&p->lock);
	while (done < len) {
		size_t at, n;

		while (!(err = atomic_load(&o->err)) && !p->finished && p->in - p->out == p->cap)
			pthread_cond_wait(&p->room, &p->lock);
		if (!err && p->finished)
			err = -EPIPE;
		if (err)
			break;
		at = p->in % p->cap;
		n = MIN(len - done, (size_t)(p->cap - (p->in - p->out)));
		n = MIN(n, p->cap - at);
		/* Only this submitter writes past in, and the thread reads below it. */
		pthread_mutex_unlock(&p->lock);
		memcpy(p->buf + at, (const char *)buf + done, n);
		pthread_mutex_lock(&p->lock);
		p->in += n;
		done += n;
		pthread_cond_signal(&p->data);
	}
	pthread_mutex_unlock(&p->lock);
	pthread_mutex_unlock(&p->order);
	return err;
}

/* Write everything in the FIFO; 0 or the sticky error. */
static int pipe_drain(struct output *o)
{
	struct output_pipe *p = o->pipe;

	pthread_mutex_lock(&p->lock);
	while (!atomic_load(&o->err) && !p->finished && p->in != p->out)
		pthread_cond_wait(&p->room, &p->lock);
	pthread_mutex_unlock(&p->lock);
	return atomic_load(&o->err);
}

static void pipe_close(struct output *o)
{
	struct output_pipe *p = o->pipe;

	pthread_mutex_lock(&p->lock);
	p->closing = true;
	pthread_cond_signal(&p->data);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	pthread_cond_destroy(&p->data);
	pthread_cond_destroy(&p->room);
	pthread_mutex_destroy(&p->lock);
	pthread_mutex_destroy(&p->order);
	free(p->buf);
	free(p);
	o->pipe = NULL;
}

int output__open(struct output *o, const char *path, struct writer *w)
{
	char old[4096];
	struct stat st;
	int fd, err;

	if (!path)
		return -EINVAL;
	/*
	 * An earlier recording becomes PATH.old, as perf does: only a regular
	 * file with something in it. Anything else (/dev/null, a FIFO) is
	 * written to where it is; renaming a device node away breaks the
	 * system for everyone.
	 */
	if (!stat(path, &st) && S_ISREG(st.st_mode) && st.st_size > 0) {
		if ((size_t)snprintf(old, sizeof(old), "%s.old", path) >= sizeof(old)) {
			pr_err("cannot keep the earlier %s as %s.old: the name is too long\n",
			       path, path);
			return -ENAMETOOLONG;
		}
		if (rename(path, old)) {
			err = -errno;
			pr_err("cannot rename %s to %s: %s\n", path, old, strerror(-err));
			return err;
		}
	}
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		pr_err("cannot create output file %s: %s\n", path, strerror(-err));
		return err;
	}
	output__init_fd(o, fd, w);
	o->path = xstrdup(path);
	return 0;
}

void output__init_fd(struct output *o, int fd, struct writer *w)
{
	memset(o, 0, sizeof(*o));
	o->fd = fd;
	o->writer = w;
	atomic_init(&o->head, 0);
	atomic_init(&o->err, 0);
	pthread_mutex_init(&o->lock, NULL);
	strbuf__init(&o->stage);
}

void output__close(struct output *o)
{
	if (o->pipe)
		pipe_close(o);
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	free(o->spans);
	o->spans = NULL;
	pthread_mutex_destroy(&o->lock);
	strbuf__exit(&o->stage);
	free(o->path);
	o->path = NULL;
}

void output__unlink(struct output *o)
{
	if (o->path)
		unlink(o->path);
}

uint64_t output__reserve(struct output *o, size_t len)
{
	return atomic_fetch_add(&o->head, len);
}

void output__set_err(struct output *o, int err)
{
	int none = 0;

	if (err)
		atomic_compare_exchange_strong(&o->err, &none, err);
}

/* A counter the lock protects, read by any thread. */
static uint64_t read_locked(struct output *o, const uint64_t *v)
{
	uint64_t n;

	pthread_mutex_lock(&o->lock);
	n = *v;
	pthread_mutex_unlock(&o->lock);
	return n;
}

uint64_t output__written(struct output *o)
{
	return read_locked(o, &o->bytes_written);
}

uint64_t output__durable(struct output *o)
{
	return read_locked(o, &o->durable);
}

/* Track [.., end) as not yet written; returns its sequence number. */
static uint64_t span_push(struct output *o, uint64_t end)
{
	o->spans[o->next_seq % o->spans_cap] = (struct output_span){ .end = end };
	return o->next_seq++;
}

static void span_done(struct output *o, uint64_t seq)
{
	o->spans[seq % o->spans_cap].done = true;
	while (o->first_seq < o->next_seq && o->spans[o->first_seq % o->spans_cap].done) {
		o->durable = o->spans[o->first_seq % o->spans_cap].end;
		o->first_seq++;
	}
}

static void req_complete(struct write_req *req, int err)
{
	struct output *o = req->out;

	output__set_err(o, err);
	/* A failed write is never durable: the prefix stops before it. */
	if (!err) {
		pthread_mutex_lock(&o->lock);
		o->bytes_written += req->len;
		span_done(o, req->seq);
		pthread_mutex_unlock(&o->lock);
	}
	req->on_complete(req, err);
}

static int submit_at(struct output *o, struct writer *w, struct write_req *req,
		     uint64_t off, uint64_t seq)
{
	int err = o->err;

	req->off = off;
	req->done = 0;
	req->seq = seq;
	req->out = o;
	req->complete = req_complete;
	if (err)
		return err; /* after a failure nothing more is written */
	err = writer__submit(w, req);
	output__set_err(o, err);
	return err;
}

/*
 * Spans live in a ring indexed by seq % cap. Growing the array changes
 * the modulus, so grow by re-seating the live entries.
 */
static void spans_reserve_one(struct output *o)
{
	size_t used = o->next_seq - o->first_seq, cap, i;
	struct output_span *n;

	if (used < o->spans_cap)
		return;
	cap = o->spans_cap ? o->spans_cap * 2 : 64;
	n = xzalloc(cap * sizeof(*n));
	for (i = 0; i < used; i++) {
		uint64_t seq = o->first_seq + i;

		n[seq % cap] = o->spans[seq % o->spans_cap];
	}
	free(o->spans);
	o->spans = n;
	o->spans_cap = cap;
}

/*
 * Reserve len bytes and track them as not yet written, in one step under
 * the lock, so that span order is offset order whichever thread reserves.
 */
static uint64_t reserve_tracked(struct output *o, size_t len, uint64_t *seq)
{
	uint64_t off;

	pthread_mutex_lock(&o->lock);
	off = output__reserve(o, len);
	spans_reserve_one(o);
	*seq = span_push(o, off + len);
	pthread_mutex_unlock(&o->lock);
	return off;
}

int output__submit_via(struct output *o, struct writer *w, struct write_req *req)
{
	uint64_t off, seq;

	if (o->pipe) {
		/* Copied into the FIFO: complete now, as the sync writer would. */
		int err = pipe_put(o, req->buf, req->len, &off);

		if (err)
			return err; /* not taken: still the caller's */
		req->off = off;
		req->done = req->len;
		req->out = o;
		req->on_complete(req, 0);
		return 0;
	}
	off = reserve_tracked(o, req->len, &seq);
	return submit_at(o, w, req, off, seq);
}

int output__submit(struct output *o, struct write_req *req)
{
	int err;

	/* Gathered small records come first: they were appended earlier. */
	err = output__flush(o);
	if (err)
		return err;
	return output__submit_via(o, o->writer, req);
}

struct copy_req {
	struct write_req req;
	char data[];
};

static void copy_req_done(struct write_req *req, int err)
{
	free(req->owner);
}

static int submit_copy(struct output *o, const void *buf, size_t len, uint64_t off, uint64_t seq)
{
	struct copy_req *c = xzalloc(sizeof(*c) + len);
	int err;

	memcpy(c->data, buf, len);
	c->req.buf = c->data;
	c->req.len = len;
	c->req.owner = c;
	c->req.on_complete = copy_req_done;
	err = submit_at(o, o->writer, &c->req, off, seq);
	if (err)
		free(c);
	return err;
}

int output__flush(struct output *o)
{
	int err;

	if (!o->stage.len)
		return 0;
	if (o->pipe) {
		uint64_t off;

		err = pipe_put(o, o->stage.data, o->stage.len, &off);
		strbuf__reset(&o->stage);
		return err;
	}
	err = submit_copy(o, o->stage.data, o->stage.len, o->stage_off, o->stage_seq);
	strbuf__reset(&o->stage);
	return err;
}

int output__append(struct output *o, const void *data, size_t len)
{
	uint64_t off, seq;

	if (o->pipe) {
		/*
		 * Gathered unreserved: the flush reserves. A pipe takes bytes in
		 * reservation order, so nothing may be reserved before it is
		 * ready to go out.
		 */
		strbuf__add(&o->stage, data, len);
		return o->stage.len >= OUTPUT_STAGE_FLUSH ? output__flush(o) : 0;
	}
	pthread_mutex_lock(&o->lock);
	off = output__reserve(o, len);
	if (o->stage.len && o->stage_off + o->stage.len == off) {
		/* Right behind what is gathered: the same span grows. */
		o->spans[o->stage_seq % o->spans_cap].end = off + len;
		pthread_mutex_unlock(&o->lock);
	} else {
		spans_reserve_one(o);
		seq = span_push(o, off + len);
		pthread_mutex_unlock(&o->lock);
		/* Someone reserved in between: our gathered bytes end here. */
		if (o->stage.len) {
			int err = output__flush(o);

			if (err)
				return err;
		}
		o->stage_off = off;
		o->stage_seq = seq;
	}
	strbuf__add(&o->stage, data, len);
	if (o->stage.len >= OUTPUT_STAGE_FLUSH)
		return output__flush(o);
	return 0;
}

int64_t output__write_copy(struct output *o, const void *buf, size_t len)
{
	uint64_t off, seq;
	int err = output__flush(o);

	if (err)
		return err;
	if (o->pipe) {
		err = pipe_put(o, buf, len, &off);
		return err ? err : (int64_t)off;
	}
	off = reserve_tracked(o, len, &seq);
	err = submit_copy(o, buf, len, off, seq);
	return err ? err : (int64_t)off;
}

int output__sync_header_size(struct output *o)
{
	uint64_t size, durable = output__durable(o);
	ssize_t n;

	if (!o->data_offset || durable <= o->data_offset)
		return 0;
	size = durable - o->data_offset;
	if (size == o->header_data_size)
		return 0;
	n = sys_pwrite(o->fd, &size, sizeof(size),
		       offsetof(struct perf_file_header, data.size));
	if (n != sizeof(size))
		return n < 0 ? (int)n : -EIO;
	o->header_data_size = size;
	return 0;
}

int output__reap_via(struct output *o, struct writer *w, bool wait)
{
	int n = writer__reap(w, wait);

	if (n < 0)
		output__set_err(o, n);
	return o->err;
}

int output__reap(struct output *o, bool wait)
{
	return output__reap_via(o, o->writer, wait);
}

int output__drain(struct output *o)
{
	output__set_err(o, output__flush(o));
	if (o->writer)
		output__set_err(o, writer__drain(o->writer));
	if (o->pipe)
		return pipe_drain(o);
	return o->err;
}
