// SPDX-License-Identifier: GPL-2.0
/*
 * The compression stage (perfcap record -z): where compression happens,
 * and why there.
 *
 * Compress where it does not delay draining the rings. zstd level 1
 * takes about as long per byte as a disk write on the page cache, levels
 * above much longer; done in the reader it would be the time the rings
 * wait. So each reader's pipeline gets this stage: a thread that takes
 * the reader's chunks in the order copied, compresses them into
 * COMPRESSED records (io/compress.h) in output buffers of its own, and
 * hands those to the next stage (the output stage, which reserves their
 * offsets and writes them from this thread). The reader never waits for
 * zstd: it queues a chunk and goes on draining; the chunk comes back to
 * it, through its reap, as soon as it is compressed (one compression
 * later, not one write later).
 *
 * With -zauto the triage stage in front hands this stage nothing while
 * the output keeps up (its blocks go past, to the output stage) and
 * everything from when the output falls behind (stage-triage.c,
 * compress_from_now). Until then the output stage is the triage
 * thread's alone, so this stage's thread, whose idle loop reaps the
 * output stage, starts only with its first chunk (on_demand).
 *
 * Rounds (rounds.h). A chunk's size in the file is known only once it
 * is compressed, so only then can its offset be reserved. The end of a
 * clean pass is queued behind the pass's chunks (a clean-pass item
 * queued behind another replaces it: the later clean pass stands for
 * both); on reaching it, every chunk before it compressed, the stage
 * hands its current buffer and that end to the output stage, which
 * decides the round as it does without compression: what was reserved
 * before a marker was copied before it, and the gen a pass began under
 * was read before it copied anything. The tests run perf's ordering
 * model over decompressed files (test_compress.c) and hotspot-perfparser
 * over real recordings (compress.bats).
 *
 * Frames over a batch of chunks. zstd finds repeats only within a frame,
 * and a reader's chunks are small (a few KiB a pass with 32 KiB rings):
 * a frame per chunk made 3.2x perf -z's bytes with DWARF stacks, where
 * perf keeps one stream for the whole file. So the stage keeps a frame
 * open across chunks and passes, in one output buffer (a frame must not
 * span buffers: another reader's buffer may land between them in the
 * file, and perf reads every record with one stream), and closes it
 * when FRAME_INPUT bytes went in, when the next chunk does not fit, or
 * when the frame has been open FRAME_HOLD_NS: at a clean pass, or when
 * idle (bench/results/2026-12-01-zstd-frames/). A clean pass end is
 * held with the frame (a later one stands for it) and goes on with the
 * buffer that ends at it, so rounds come at most FRAME_HOLD_NS later.
 *
 * Memory is bounded (DESIGN.md, 7): the queue holds at most every data
 * buffer of the reader's rings, once each, and one clean-pass item after
 * each; the stage compresses into STAGE_BUFS buffers, each with room for
 * a frame, a ring's worth of chunk and a marker, and waits for the next
 * stage when all are in flight.
 *
 * Locks: lock protects the queue, the done list and stop; it is never
 * held while compressing or handing on.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/compress.h"
#include "io/output.h"
#include "perf-file.h"
#include "record/pipeline.h"
#include "record/record-thread.h"
#include "util.h"

/* Output buffers of a stage: one filled, the others written. */
#define STAGE_BUFS COMPRESS_STAGE_BUFS
/* How long an idle stage waits before it looks at its writes in flight. */
#define STAGE_REAP_NS (5 * 1000000L)
/*
 * A frame closes once this much went in (zstd level 1 over perfcap's
 * files: 8 KiB frames 8.3x, 128 KiB 32x, 1 MiB 39x on DWARF stacks)...
 */
#define FRAME_INPUT (1024 * 1024)
/*
 * ...or once it has been open this long: the clean pass it holds back is
 * a round that others wait for, and readers wake the ones that hold a
 * round back after ROUND_WAKE_NS (record-thread.h).
 */
#define FRAME_HOLD_NS ROUND_WAKE_NS

struct compress_item {
	struct chunk *c;	/* a chunk; NULL: the end of a clean pass */
	uint64_t gen;		/* clean pass: the round gen it began under */
	uint64_t now;		/* clean pass: its time, for the round it may close */
	bool data;		/* clean pass: it (or one it stands for) handed chunks over */
};

struct compress_buf {
	struct chunk chunk;
	struct compress_stage *s;
	char *data;
	size_t len, cap;
	bool busy;		/* filled or in flight */
};

struct compress_stage {
	struct stage stage;
	struct output *out;	/* its sticky error: after a failure nothing is compressed */
	int thread;
	struct compressor z;

	pthread_mutex_t lock;
	pthread_cond_t wake;	/* the stage: an item, or stop */
	struct compress_item *q;
	size_t q_cap, q_head, q_len;
	struct chunk_returns done;	/* the chunks given back to the submitting thread */
	bool stop;

	/* The stage thread's. */
	struct compress_buf *bufs;
	int nr_bufs;
	struct compress_buf *cur;	/* the open frame's buffer, if any */
	uint64_t frame_t0;		/* when its frame opened */
	struct pass_end held;		/* the latest clean pass end not handed on */
	bool held_at_tail;		/* ...and nothing compressed behind it */
	uint64_t handed_gen;		/* the gen of the last pass end handed on */
	pthread_t tid;
	bool started;
	/*
	 * -zauto: the thread starts with the first chunk, not with the
	 * pipeline; until then the stage behind is the triage thread's alone
	 * (its idle loop here would reap it too).
	 */
	bool on_demand, used;
	int idx;
};

/* Room a buffer keeps for the FINISHED_ROUND the output stage may put behind it. */
#define MARKER_ROOM sizeof(struct perf_event_header)

static struct compress_stage *to_cs(struct stage *s)
{
	return container_of(s, struct compress_stage, stage);
}

/* ---- the reader's side ---------------------------------------------------- */

/* Queue the end of a clean pass; s->lock held. */
static void push_pass_end(struct compress_stage *s, uint64_t gen, bool data, uint64_t now)
{
	struct compress_item *tail = s->q_len ? &s->q[(s->q_head + s->q_len - 1) % s->q_cap] : NULL;

	if (tail && !tail->c) {
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

static int cs_start(struct stage *st, int idx);

/* The chunks and the end of a clean pass go over at once: one wakeup. */
static int cs_submit(struct stage *st, struct chunk **c, int n, struct pass_end *end)
{
	struct compress_stage *s = to_cs(st);
	bool clean = end && end->clean;
	int err = 0;

	if (!s->started && s->on_demand && !s->used) {
		s->used = true;
		err = cs_start(st, s->idx);
		if (err) {
			output__set_err(s->out, err);
			for (int i = 0; i < n; i++)
				c[i]->req.on_complete(&c[i]->req, err);
			return err;
		}
	}
	pthread_mutex_lock(&s->lock);
	if (s->q_len + n > s->q_cap) {
		err = -EOVERFLOW; /* more chunks than the rings have buffers: a bug */
		goto out;
	}
	for (int i = 0; i < n; i++)
		s->q[(s->q_head + s->q_len++) % s->q_cap] = (struct compress_item){ .c = c[i] };
	s->done.pending += n;
	if (clean)
		push_pass_end(s, end->gen, end->data, end->now);
	if (n || clean)
		pthread_cond_signal(&s->wake);
out:
	pthread_mutex_unlock(&s->lock);
	for (int i = 0; err && i < n; i++)
		c[i]->req.on_complete(&c[i]->req, err);
	return err;
}

static int cs_reap(struct stage *st, bool wait)
{
	struct compress_stage *s = to_cs(st);

	chunk_returns__reap(&s->done, wait);
	return s->out->err;
}

static int cs_queued(const struct stage *st)
{
	return container_of(st, struct compress_stage, stage)->done.pending;
}

/* ---- the stage thread ------------------------------------------------------ */

static void buf_written(struct write_req *req, int err)
{
	struct compress_buf *b = req->owner;

	b->busy = false;
	b->len = 0;
}

static struct compress_buf *get_buf(struct compress_stage *s)
{
	struct stage *next = s->stage.next;

	for (;;) {
		for (int i = 0; i < s->nr_bufs; i++) {
			if (!s->bufs[i].busy) {
				s->bufs[i].busy = true;
				s->bufs[i].len = 0;
				return &s->bufs[i];
			}
		}
		if (!next->ops->queued(next))
			return NULL; /* cannot be: busy buffers are in flight */
		/* All in flight: wait for a write (a failed one frees its buffer too). */
		stage__reap(next, true);
	}
}

/*
 * Close the open frame and hand its buffer to the next stage, with the
 * held pass end if the buffer ends at it. 0 or -errno.
 */
static int flush_cur(struct compress_stage *s)
{
	struct compress_buf *b = s->cur;
	struct pass_end held = s->held, *end = held.clean && s->held_at_tail ? &held : NULL;
	struct chunk *c = NULL;
	ssize_t e;
	int err;

	s->cur = NULL;
	if (b) {
		e = compressor__end(&s->z, b->data + b->len, b->cap - b->len - MARKER_ROOM);
		if (e < 0) {
			/* The frame is cut: nothing of it may reach the file. */
			output__set_err(s->out, (int)e);
			b->len = 0;
		} else {
			b->len += (size_t)e;
		}
	}
	if (b && !b->len) {
		b->busy = false;
		b = NULL;
	}
	if (b) {
		c = &b->chunk;
		c->req.buf = b->data;
		c->req.len = b->len;
		c->req.owner = b;
		c->req.on_complete = buf_written;
		c->cap = b->cap;
	}
	if (!c && !end)
		return 0;
	if (end) {
		end->data = end->data && !s->out->err;
		s->held.clean = false;	/* handed on: the next pass end starts afresh */
		s->handed_gen = end->gen;
	}
	err = stage__submit(s->stage.next, &c, c ? 1 : 0, end);
	/* A chunk not taken came back through buf_written: its bytes are lost with the error. */
	output__set_err(s->out, err);
	return err;
}

/* Room for need more bytes (and a marker) in the open frame's buffer, or a new frame. */
static struct compress_buf *room(struct compress_stage *s, size_t need)
{
	if (s->cur && s->cur->cap - s->cur->len < need + MARKER_ROOM)
		flush_cur(s);
	if (!s->cur) {
		s->cur = get_buf(s);
		s->frame_t0 = mono_ns();
	}
	return s->cur;
}

/* The open frame has had its input or its time. */
static bool frame_due(const struct compress_stage *s, uint64_t now)
{
	return s->z.frame_in >= FRAME_INPUT || now - s->frame_t0 >= FRAME_HOLD_NS;
}

static void do_chunk(struct compress_stage *s, struct chunk *c)
{
	struct write_req *req = &c->req;
	struct compress_buf *b;
	ssize_t n;
	int err = s->out->err;

	/* After a failure nothing more is written: the chunk just goes back. */
	if (!err) {
		b = room(s, compressor__bound(&s->z, req->len));
		if (!b) {
			err = -EIO;
		} else {
			n = compressor__append(&s->z, req->buf, req->len, b->data + b->len,
					       b->cap - b->len - MARKER_ROOM);
			if (n < 0) {
				/* The frame is abandoned: what it holds must not be written. */
				err = (int)n;
				b->len = 0;
			} else {
				b->len += n;
				s->held_at_tail = false;
				s->stage.stats.chunks++;
			}
		}
		output__set_err(s->out, err);
	}
	chunk_returns__put(&s->done, c, err);
}

/*
 * A clean pass: it stands for the one held before it; once the frame is
 * due (or none is open) the frame closes and goes to the next stage with
 * it, which places the round (stage-output.c); a round closes only
 * behind a pass that handed chunks over, and after a failure none does.
 * A pass begun under a gen newer than the last one handed on goes at
 * once: a round closed since, and the next one waits for every reader's
 * clean pass under the new gen (rounds.h), so holding it would hold
 * back every reader's round.
 */
static void do_pass_end(struct compress_stage *s, const struct compress_item *it)
{
	bool data = it->data || (s->held.clean && s->held.data);

	s->held = (struct pass_end){ .clean = true, .data = data, .gen = it->gen, .now = it->now };
	s->held_at_tail = true;
	if (!s->cur || it->gen != s->handed_gen || frame_due(s, mono_ns()))
		flush_cur(s);
}

/* How long an idle stage sleeps: until its frame is due, or its writes want a look. */
static bool idle_deadline(struct compress_stage *s, struct timespec *ts)
{
	struct stage *next = s->stage.next;
	uint64_t wait = UINT64_MAX;

	if (s->cur) {
		uint64_t age = mono_ns() - s->frame_t0;

		wait = age < FRAME_HOLD_NS ? FRAME_HOLD_NS - age : 0;
	}
	if (next->ops->queued(next))
		wait = MIN(wait, (uint64_t)STAGE_REAP_NS);
	if (wait == UINT64_MAX)
		return false;
	deadline_in(ts, wait);
	return true;
}

static void *stage_main(void *arg)
{
	struct compress_stage *s = arg;
	struct stage *next = s->stage.next;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		struct compress_item it;

		if (!s->q_len) {
			struct timespec ts;

			if (s->stop)
				break;
			pthread_mutex_unlock(&s->lock);
			/* Idle: a frame that is due goes out rather than wait for more. */
			if (s->cur && frame_due(s, mono_ns()))
				flush_cur(s);
			stage__reap(next, false);
			pthread_mutex_lock(&s->lock);
			if (s->q_len || s->stop)
				continue;
			if (idle_deadline(s, &ts))
				pthread_cond_timedwait(&s->wake, &s->lock, &ts);
			else
				pthread_cond_wait(&s->wake, &s->lock);
			continue;
		}
		it = s->q[s->q_head];
		s->q_head = (s->q_head + 1) % s->q_cap;
		s->q_len--;
		pthread_mutex_unlock(&s->lock);
		if (it.c)
			do_chunk(s, it.c);
		else
			do_pass_end(s, &it);
		stage__reap(next, false);
		pthread_mutex_lock(&s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	flush_cur(s);
	return NULL;
}

static int cs_start(struct stage *st, int idx)
{
	struct compress_stage *s = to_cs(st);
	int err;

	s->stop = false;
	s->idx = idx;
	if (s->on_demand && !s->used)
		return 0;	/* with the first chunk (cs_submit) */
	err = stage_thread__start(&s->tid, stage_main, s, "z", idx, "compression");
	if (err)
		return err;
	s->started = true;
	return 0;
}

/* Let it finish every item (they go to the next stage) and join it. */
static void stop_thread(struct compress_stage *s)
{
	if (!s->started) {
		/* Never ran: the chunks handed over go back as they are. */
		pthread_mutex_lock(&s->lock);
		while (s->q_len) {
			struct compress_item it = s->q[s->q_head];

			s->q_head = (s->q_head + 1) % s->q_cap;
			s->q_len--;
			if (it.c) {
				pthread_mutex_unlock(&s->lock);
				chunk_returns__put(&s->done, it.c, -ECANCELED);
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

static int cs_drain(struct stage *st)
{
	struct compress_stage *s = to_cs(st);

	stop_thread(s);
	/* Its chunks back to the reader's rings. */
	cs_reap(st, false);
	st->stats.bytes_in = s->z.bytes_in;
	st->stats.bytes_out = s->z.bytes_out;
	st->stats.frames = s->z.frames;
	return s->out->err;
}

static void cs_destroy(struct stage *st)
{
	struct compress_stage *s = to_cs(st);

	stop_thread(s);
	cs_reap(st, false);
	for (int i = 0; s->bufs && i < s->nr_bufs; i++)
		free(s->bufs[i].data);
	free(s->bufs);
	compressor__exit(&s->z);
	free(s->q);
	chunk_returns__exit(&s->done);
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

static const struct stage_ops compress_stage_ops = {
	.name = "compress",
	.submit = cs_submit,
	.reap = cs_reap,
	.queued = cs_queued,
	.start = cs_start,
	.drain = cs_drain,
	.destroy = cs_destroy,
};

struct stage *compress_stage__new(struct stage *next, struct output *out, int level,
				  size_t ring_size, int max_chunks, int thread, bool on_demand)
{
	struct compress_stage *s = xzalloc(sizeof(*s));
	size_t cap;
	int err;

	s->on_demand = on_demand;
	s->idx = thread;
	s->stage.ops = &compress_stage_ops;
	s->stage.next = next;
	s->out = out;
	s->thread = thread;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->wake, NULL);
	chunk_returns__init(&s->done, &s->lock);
	/* Every chunk once, a clean-pass item after each, one more. */
	s->q_cap = 2 * (size_t)max_chunks + 2;
	s->q = xzalloc(s->q_cap * sizeof(*s->q));
	/* A slice inflates to at most the ring's size: perf's buffer is the ring's mmap_len. */
	err = compressor__init(&s->z, level, ring_size);
	if (err)
		goto fail;
	cap = compressor__bound(&s->z, FRAME_INPUT + ring_size) + MARKER_ROOM;
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
	return &s->stage;
fail:
	cs_destroy(&s->stage);
	return NULL;
}
