// SPDX-License-Identifier: GPL-2.0
/*
 * perfcap record -z: where compression happens, and why there.
 *
 * The constraint: compress where it does not delay draining the
 * rings. zstd level 1 takes about as long per byte as a disk write on the
 * page cache, levels above much longer; done in the reader (or the record
 * loop) it would be the time the rings wait. So each reader gets a stage:
 * a thread that compresses what the reader copied, in the order copied.
 *
 * What compression changes: a chunk's size in the file is known only
 * after it is compressed, so its offset can only be reserved then, and by
 * the stage, not by the reader at copy time (mmap.c without -z). Two
 * things depend on that reservation:
 *
 * 1. The durable prefix and the data size (output.c): unchanged, the
 *    stage reserves and writes through output__submit_via() like any
 *    writer of the output; a killed recorder leaves every complete write.
 *
 * 2. FINISHED_ROUND (rounds.h). perf report sorts the events of a round
 *    only up to the newest time of the round before; the rule that keeps
 *    it right is about what each reader has RESERVED. With a stage the
 *    reader knows what it copied and handed over, the stage what is
 *    reserved; the round decision is split along that line (see
 *    compress-stage.h): the reader queues "clean pass, begun under gen g"
 *    behind the pass's chunks; the stage, FIFO, reaches that item only
 *    after reserving every chunk before it, and then does what the reader
 *    would have done at that point without compression: rounds__try_close
 *    (the other readers' stages have published clean passes since the
 *    last marker), the marker appended behind its last chunk (uncompressed,
 *    as perf 6.1 writes it), reserve, rounds__clean, rounds__close. Every
 *    argument of rounds.h goes through with "reserved" done later: the
 *    gen a pass began under was read before it copied anything; what was
 *    reserved before a marker was copied before it. The tests run perf's
 *    ordering model over decompressed files (test_compress.c) and
 *    hotspot-perfparser over real recordings (compress.bats).
 *
 * Chunks go back to the reader as soon as they are compressed (before
 * their compressed bytes are written): the ring's data buffer is free
 * again one compression later, not one write later. The output buffers
 * are the stage's own and wait for the writer instead.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "record/compress-stage.h"
#include "io/output.h"
#include "perf-file.h"
#include "record/rounds.h"
#include "util.h"

/* Output buffers of a stage: one filled, the others written. */
#define STAGE_BUFS 3
/* How long an idle stage waits before it looks at its writes in flight. */
#define STAGE_REAP_NS (5 * 1000000L)

static const struct perf_event_header round_marker = {
	.type = PERF_RECORD_FINISHED_ROUND,
	.size = sizeof(struct perf_event_header),
};

struct compress_stage *compress_stage__new(struct output *out, const struct writer_ops *ops,
					   int level, size_t ring_size, int max_chunks,
					   struct rounds *rounds, int thread)
{
	struct compress_stage *s = xzalloc(sizeof(*s));
	size_t cap;
	int err;

	s->out = out;
	s->rounds = rounds;
	s->thread = thread;
	s->writer_fd = -1;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->wake, NULL);
	pthread_cond_init(&s->done_cv, NULL);
	s->done_tail = &s->done_head;
	/* Every chunk once, a clean-pass item after each, one more. */
	s->q_cap = 2 * (size_t)max_chunks + 2;
	s->q = xzalloc(s->q_cap * sizeof(*s->q));
	/* A slice inflates to at most the ring's size: perf's buffer is the ring's mmap_len. */
	err = compressor__init(&s->z, level, ring_size);
	if (err)
		goto fail;
	/* A file descriptor of its own: glibc's AIO serializes the requests of one. */
	s->writer_fd = fcntl(out->fd, F_DUPFD_CLOEXEC, 0);
	if (s->writer_fd < 0) {
		err = -errno;
		pr_err("compression stage %d: dup: %s\n", thread, strerror(-err));
		goto fail;
	}
	err = writer__init(&s->writer, ops, s->writer_fd, STAGE_BUFS + 1);
	if (err)
		goto fail;
	s->has_writer = true;
	cap = compressor__bound(&s->z, ring_size) + sizeof(round_marker);
	s->nr_bufs = STAGE_BUFS;
	s->bufs = xzalloc(s->nr_bufs * sizeof(*s->bufs));
	for (int i = 0; i < s->nr_bufs; i++) {
		s->bufs[i].s = s;
		s->bufs[i].cap = cap;
		s->bufs[i].data = malloc(cap);
		if (!s->bufs[i].data) {
			pr_err("compression stage %d: out of memory\n", thread);
			goto fail;
		}
	}
	return s;
fail:
	compress_stage__delete(s);
	return NULL;
}

void compress_stage__delete(struct compress_stage *s)
{
	if (!s)
		return;
	compress_stage__stop(s);
	compress_stage__reap(s, false);
	if (s->has_writer) {
		output__set_err(s->out, writer__drain(&s->writer));
		writer__exit(&s->writer);
	}
	if (s->writer_fd >= 0)
		close(s->writer_fd);
	for (int i = 0; s->bufs && i < s->nr_bufs; i++)
		free(s->bufs[i].data);
	free(s->bufs);
	compressor__exit(&s->z);
	free(s->q);
	pthread_cond_destroy(&s->done_cv);
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

uint64_t compress_stage__bytes_in(const struct compress_stage *s)
{
	return s->z.bytes_in;
}

uint64_t compress_stage__bytes_out(const struct compress_stage *s)
{
	return s->z.bytes_out;
}

/* ---- the reader's side ---------------------------------------------------- */

int compress_stage__submit(struct compress_stage *s, struct write_req *req)
{
	int err = 0;

	pthread_mutex_lock(&s->lock);
	if (s->q_len == s->q_cap) {
		err = -EOVERFLOW; /* more chunks than the rings have buffers: a bug */
	} else {
		s->q[(s->q_head + s->q_len++) % s->q_cap] = (struct compress_item){ .req = req };
		s->pending++;
		pthread_cond_signal(&s->wake);
	}
	pthread_mutex_unlock(&s->lock);
	return err;
}

/* Queue the end of a clean pass; s->lock held. */
static void push_pass_end(struct compress_stage *s, uint64_t gen, bool data, uint64_t now)
{
	struct compress_item *tail = s->q_len ? &s->q[(s->q_head + s->q_len - 1) % s->q_cap] : NULL;

	if (tail && !tail->req) {
		/* Nothing handed over since: the later clean pass stands for both. */
		tail->gen = gen;
		tail->now = now;
		tail->data |= data;
	} else if (s->q_len < s->q_cap) {
		s->q[(s->q_head + s->q_len++) % s->q_cap] =
			(struct compress_item){ .gen = gen, .now = now, .data = data };
	}
	/* else: cannot be (see q_cap); a clean pass not said only delays a round */
}

int compress_stage__submit_pass(struct compress_stage *s, struct write_req **reqs, int n,
				bool clean, uint64_t gen, bool data, uint64_t now)
{
	int err = 0;

	pthread_mutex_lock(&s->lock);
	if (s->q_len + n > s->q_cap) {
		err = -EOVERFLOW; /* more chunks than the rings have buffers: a bug */
		goto out;
	}
	for (int i = 0; i < n; i++)
		s->q[(s->q_head + s->q_len++) % s->q_cap] = (struct compress_item){ .req = reqs[i] };
	s->pending += n;
	if (clean)
		push_pass_end(s, gen, data, now);
	if (n || clean)
		pthread_cond_signal(&s->wake);
out:
	pthread_mutex_unlock(&s->lock);
	return err;
}

int compress_stage__reap(struct compress_stage *s, bool wait)
{
	struct write_req *list;

	pthread_mutex_lock(&s->lock);
	while (wait && !s->done_head && s->pending > 0)
		pthread_cond_wait(&s->done_cv, &s->lock);
	list = s->done_head;
	s->done_head = NULL;
	s->done_tail = &s->done_head;
	pthread_mutex_unlock(&s->lock);
	while (list) {
		struct write_req *req = list;

		list = req->next;
		s->pending--;
		req->on_complete(req, (int)(int64_t)req->u.pad[0]);
	}
	return s->out->err;
}

/* ---- the stage thread ------------------------------------------------------ */

static void chunk_done(struct compress_stage *s, struct write_req *req, int err)
{
	req->u.pad[0] = (uint64_t)(int64_t)err;
	req->next = NULL;
	pthread_mutex_lock(&s->lock);
	*s->done_tail = req;
	s->done_tail = &req->next;
	pthread_cond_signal(&s->done_cv);
	pthread_mutex_unlock(&s->lock);
}

static void buf_written(struct write_req *req, int err)
{
	struct compress_buf *b = req->owner;

	b->busy = false;
	b->len = 0;
}

static struct compress_buf *get_buf(struct compress_stage *s)
{
	for (;;) {
		for (int i = 0; i < s->nr_bufs; i++) {
			if (!s->bufs[i].busy) {
				s->bufs[i].busy = true;
				s->bufs[i].len = 0;
				return &s->bufs[i];
			}
		}
		if (!s->writer.inflight)
			return NULL; /* cannot be: busy buffers are in flight */
		/* All in flight: wait for a write (a failed one frees its buffer too). */
		output__reap_via(s->out, &s->writer, true);
	}
}

/* Reserve and write what the current buffer holds. 0 or -errno. */
static int flush_cur(struct compress_stage *s)
{
	struct compress_buf *b = s->cur;
	int err;

	s->cur = NULL;
	if (!b)
		return 0;
	if (!b->len) {
		b->busy = false;
		return 0;
	}
	b->req.buf = b->data;
	b->req.len = b->len;
	b->req.owner = b;
	b->req.on_complete = buf_written;
	err = output__submit_via(s->out, &s->writer, &b->req);
	if (err) {
		/* Not submitted: ours again; the bytes are lost with the error. */
		b->busy = false;
		b->len = 0;
		output__set_err(s->out, err);
	}
	return err;
}

/* Room for need more bytes (and a marker) in the current buffer. */
static struct compress_buf *room(struct compress_stage *s, size_t need)
{
	if (s->cur && s->cur->cap - s->cur->len < need + sizeof(round_marker))
		flush_cur(s);
	if (!s->cur)
		s->cur = get_buf(s);
	return s->cur;
}

static void do_chunk(struct compress_stage *s, struct write_req *req)
{
	struct compress_buf *b;
	ssize_t n;
	int err = s->out->err;

	/* After a failure nothing more is written: the chunk just goes back. */
	if (!err) {
		b = room(s, compressor__bound(&s->z, req->len));
		if (!b) {
			err = -EIO;
		} else {
			n = compressor__records(&s->z, req->buf, req->len, b->data + b->len,
						b->cap - b->len - sizeof(round_marker));
			if (n < 0)
				err = (int)n;
			else
				b->len += n;
		}
		output__set_err(s->out, err);
	}
	s->nr_chunks++;
	chunk_done(s, req, err);
}

static void do_pass_end(struct compress_stage *s, const struct compress_item *it)
{
	bool closing = false;
	int err;

	/* As mmap__pass_submit() without a stage: a marker only behind chunks of the pass. */
	if (it->data && !s->out->err)
		closing = !s->rounds || rounds__try_close(s->rounds, s->thread, it->gen);
	if (closing) {
		struct compress_buf *b = room(s, 0);

		if (b) {
			memcpy(b->data + b->len, &round_marker, sizeof(round_marker));
			b->len += sizeof(round_marker);
		} else if (s->rounds) {
			rounds__cancel(s->rounds);
			closing = false;
		}
	}
	/* Everything the reader copied up to this pass is reserved once this returns. */
	err = flush_cur(s);
	if (s->rounds) {
		if (!err)
			rounds__clean(s->rounds, s->thread, it->gen);
		if (closing)
			rounds__close(s->rounds, it->now);
	}
	if (closing)
		s->nr_rounds++;
}

static void *stage_main(void *arg)
{
	struct compress_stage *s = arg;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		struct compress_item it;

		if (!s->q_len) {
			if (s->stop)
				break;
			pthread_mutex_unlock(&s->lock);
			/* Idle: what is compressed goes out now rather than wait for more. */
			if (s->cur)
				flush_cur(s);
			output__reap_via(s->out, &s->writer, false);
			pthread_mutex_lock(&s->lock);
			if (s->q_len || s->stop)
				continue;
			if (s->writer.inflight) {
				/* Writes to reap (the durable prefix moves when they are). */
				struct timespec ts;

				clock_gettime(CLOCK_REALTIME, &ts);
				ts.tv_nsec += STAGE_REAP_NS;
				if (ts.tv_nsec >= 1000000000L) {
					ts.tv_sec++;
					ts.tv_nsec -= 1000000000L;
				}
				pthread_cond_timedwait(&s->wake, &s->lock, &ts);
			} else {
				pthread_cond_wait(&s->wake, &s->lock);
			}
			continue;
		}
		it = s->q[s->q_head];
		s->q_head = (s->q_head + 1) % s->q_cap;
		s->q_len--;
		pthread_mutex_unlock(&s->lock);
		if (it.req)
			do_chunk(s, it.req);
		else
			do_pass_end(s, &it);
		output__reap_via(s->out, &s->writer, false);
		pthread_mutex_lock(&s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	flush_cur(s);
	output__set_err(s->out, writer__drain(&s->writer));
	return NULL;
}

int compress_stage__start(struct compress_stage *s, int idx)
{
	sigset_t all, old;
	char name[16];
	int err;

	/* Signals are the record loop's: the stage starts with them blocked. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = -pthread_create(&s->tid, NULL, stage_main, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pr_err("cannot start compression thread %d: %s\n", idx, strerror(-err));
		return err;
	}
	/* "perfcap-zN" in ps and /proc/PID/task/TID/comm. */
	snprintf(name, sizeof(name), "perfcap-z%d", idx);
	pthread_setname_np(s->tid, name);
	s->started = true;
	return 0;
}

void compress_stage__stop(struct compress_stage *s)
{
	if (!s->started) {
		/* Never ran: the chunks handed over go back as they are. */
		pthread_mutex_lock(&s->lock);
		while (s->q_len) {
			struct compress_item it = s->q[s->q_head];

			s->q_head = (s->q_head + 1) % s->q_cap;
			s->q_len--;
			if (it.req) {
				pthread_mutex_unlock(&s->lock);
				chunk_done(s, it.req, -ECANCELED);
				pthread_mutex_lock(&s->lock);
			}
		}
		pthread_mutex_unlock(&s->lock);
		return;
	}
	pthread_mutex_lock(&s->lock);
	s->stop = true;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->tid, NULL);
	s->started = false;
}
