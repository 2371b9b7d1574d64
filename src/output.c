// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output.h"
#include "perf-file.h"
#include "sys.h"

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
	err = submit_copy(o, o->stage.data, o->stage.len, o->stage_off, o->stage_seq);
	strbuf__reset(&o->stage);
	return err;
}

int output__append(struct output *o, const void *data, size_t len)
{
	uint64_t off, seq;

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
	output__set_err(o, writer__drain(o->writer));
	return o->err;
}
