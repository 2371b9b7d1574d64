// SPDX-License-Identifier: GPL-2.0
/*
 * The unwind stage (perfcap record --unwind; DESIGN.md, "Unwinding in
 * the recorder"): every DWARF sample's user registers and stack copy
 * turned into user frames in its callchain, while recording, the way
 * perfcap inject --convert-callchain does it after (unwind/callchain.h):
 * the file is the same.
 *
 * Where: behind the triage stage, in front of compression and output.
 * The triage stage has taken the reader's chunks into its blocks, cut
 * their stacks to what the kernel filled, and thinned them if the output
 * is behind; this stage takes its blocks, in order, with the ends of
 * clean passes between them, and unwinds in a thread of its own that
 * never runs real-time (helper-threads.h): the readers stay free. The
 * block goes back to the triage stage once unwound (copied into a buffer
 * of this stage's), so when unwinding cannot keep up the triage stage's
 * blocks stay out, its budget fills, and its rules decide what is lost:
 * samples thinned evenly and said in LOST_SAMPLES, the other records
 * kept. The kernel never drops for it.
 *
 * When: a sample is unwound against the maps of its time, and those come
 * from every reader (a process's MMAP may be in another CPU's ring): a
 * block waits until every feed of the live timeline has passed the time
 * it came (live-maps.h), then the timeline is applied up to the block's
 * last sample time and the block unwound under its read lock. One
 * unwinder per stage (libdw's objects are not shared): each opens the
 * DSOs it meets once and keeps their CFI rows.
 *
 * Memory is bounded: the queue holds at most the triage stage's blocks
 * in flight (TRIAGE_STAGE_INFLIGHT) and a pass end after each; the
 * stage writes into UNWIND_STAGE_BUFS buffers and waits for the next
 * stage when all are in flight.
 *
 * Locks: lock protects the queue, the done list and stop; it is never
 * held while unwinding or handing on.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/output.h"
#include "perf-file.h"
#include "record/live-maps.h"
#include "record/pipeline.h"
#include "unwind/callchain.h"
#include "util.h"

#define UNWIND_STAGE_BUFS 4
/* A buffer goes on once this full, or when the stage has nothing ready (one write, many blocks). */
#define UNWIND_FLUSH_BYTES (256 * 1024)
/* How often a stage with writes in flight looks at them. */
#define UNWIND_REAP_NS (5 * 1000000ULL)
/* How long a block waits for more to gather behind it (the readers' passes pass it meanwhile). */
#define UNWIND_HOLD_NS (10 * 1000000ULL)
/* The longest a stage waits for the feeds before it looks again (a reader wakes it). */
#define UNWIND_WAIT_NS (50 * 1000000ULL)
/* At the end, how long a block waits for feeds that no longer move. */
#define UNWIND_DRAIN_WAIT_NS (2 * 1000000000ULL)

struct unwind_item {
	struct chunk *c;	/* NULL: only a pass end */
	uint64_t t;		/* when it came (mono) */
	struct pass_end end;	/* with end.clean: a pass end behind the chunk */
};

struct unwind_buf {
	struct chunk chunk;
	struct strbuf sb;
	bool busy;		/* filled or in flight */
};

struct unwind_stage {
	struct stage stage;
	struct output *out;
	struct unwind_stage_config cfg;
	const struct sample_layouts *layouts;

	pthread_mutex_t lock;
	pthread_cond_t wake;	/* the stage: an item, or stop */
	struct unwind_item *q;
	size_t q_cap, q_head, q_len;
	struct chunk_returns done;	/* the chunks given back to the submitting thread */
	bool stop;
	uint64_t stop_ns;

	/* The stage thread's. */
	struct unwind_buf *cur;		/* the open buffer, if any */
	struct pass_end held;		/* the latest clean pass end not handed on */
	bool held_at_tail;		/* ...and nothing unwound behind it */
	struct unwinder *u;
	uint64_t *ips;
	struct unwind_buf bufs[UNWIND_STAGE_BUFS];
	pthread_t tid;
	bool started;
	int idx;
};

static struct unwind_stage *to_us(struct stage *s)
{
	return container_of(s, struct unwind_stage, stage);
}

/* ---- the triage thread's side ---------------------------------------------- */

static int us_submit(struct stage *st, struct chunk **c, int n, struct pass_end *end)
{
	struct unwind_stage *s = to_us(st);
	bool clean = end && end->clean;
	uint64_t now = mono_ns();
	size_t q0;
	int err = 0;

	pthread_mutex_lock(&s->lock);
	q0 = s->q_len;
	if (s->q_len + n + 1 > s->q_cap) {
		err = -EOVERFLOW; /* more blocks than the triage stage has in flight: a bug */
		goto out;
	}
	for (int i = 0; i < n; i++)
		s->q[(s->q_head + s->q_len++) % s->q_cap] = (struct unwind_item){ .c = c[i], .t = now };
	s->done.pending += n;
	if (clean) {
		struct unwind_item *tail = s->q_len ? &s->q[(s->q_head + s->q_len - 1) % s->q_cap]
						    : NULL;

		if (tail) {
			/* Behind the last item: a pass end there already is one this stands for. */
			bool data = tail->end.clean && tail->end.data;

			tail->end = *end;
			tail->end.data |= data;
		} else {
			s->q[(s->q_head + s->q_len++) % s->q_cap] =
				(struct unwind_item){ .t = now, .end = *end };
		}
	}
	/* The thread sleeps on an empty queue, or holds a block until UNWIND_HOLD_NS or half full. */
	if ((n || clean) && (q0 == 0 || s->q_len * 2 >= s->q_cap))
		pthread_cond_signal(&s->wake);
out:
	pthread_mutex_unlock(&s->lock);
	for (int i = 0; err && i < n; i++)
		c[i]->req.on_complete(&c[i]->req, err);
	return err;
}

static int us_reap(struct stage *st, bool wait)
{
	struct unwind_stage *s = to_us(st);

	chunk_returns__reap(&s->done, wait);
	return s->out->err;
}

static int us_queued(const struct stage *st)
{
	return container_of(st, struct unwind_stage, stage)->done.pending;
}

/* ---- the stage thread ------------------------------------------------------ */

static void buf_written(struct write_req *req, int err)
{
	struct unwind_buf *b = req->owner;

	b->busy = false;
}

static struct unwind_buf *get_buf(struct unwind_stage *s)
{
	struct stage *next = s->stage.next;

	for (;;) {
		for (int i = 0; i < UNWIND_STAGE_BUFS; i++) {
			if (!s->bufs[i].busy) {
				s->bufs[i].busy = true;
				strbuf__reset(&s->bufs[i].sb);
				return &s->bufs[i];
			}
		}
		if (!next->ops->queued(next))
			return NULL; /* cannot be: busy buffers are in flight */
		stage__reap(next, true);
	}
}

/* The DWARF sample at h: its layout and fields, or NULL when it is not one. */
/*
 * The DWARF sample at h: its layout and fields. NULL, with *unknown
 * false, for a record to write as it is (not a sample, or one without a
 * stack copy); with *unknown true, for a sample that cannot be: its event
 * is not known (a new id of several events' after a CPU came back:
 * hotplug.c), or it does not parse. Its attr says converted in the file,
 * so as it is it would not read: it is dropped and counted.
 */
static const struct sample_layout *dwarf_sample(const struct unwind_stage *s,
						const struct perf_event_header *h,
						struct sample_fields *f, bool *unknown)
{
	const struct sample_layout *l;

	*unknown = false;
	if (h->type != PERF_RECORD_SAMPLE)
		return NULL;
	l = sample_layouts__find(s->layouts, h, h->size);
	if (l && !(l->sample_type & PERF_SAMPLE_STACK_USER))
		return NULL;
	if (!l || sample_layout__parse(l, h, h->size, f) || !f->after_stack) {
		*unknown = true;
		return NULL;
	}
	return l;
}

/* The newest sample time in the chunk: the maps must be applied up to it. */
static uint64_t last_time(const struct unwind_stage *s, const char *p, size_t len)
{
	const char *end = p + len;
	uint64_t t, tmax = 0;

	while (p + sizeof(struct perf_event_header) <= end) {
		const struct perf_event_header *h = (const void *)p;
		struct sample_fields f;
		bool unknown;

		if (h->size < sizeof(*h) || p + h->size > end)
			break;
		if (dwarf_sample(s, h, &f, &unknown) && f.time) {
			memcpy(&t, p + f.time, 8);
			tmax = MAX(tmax, t);
		}
		p += h->size;
	}
	return tmax;
}

/* Unwind the chunk's samples into b; the other records as they are. */
static void unwind_records(struct unwind_stage *s, const char *p, size_t len,
			   struct unwind_buf *b, struct stage_stats *st)
{
	const char *end = p + len;
	int max = s->cfg.max_stack;

	while (p + sizeof(struct perf_event_header) <= end) {
		const struct perf_event_header *h = (const void *)p;
		const struct sample_layout *l;
		struct sample_fields f;
		enum unwind_stop why;
		uint32_t pid = 0;
		uint64_t time = 0;
		bool unknown;
		int dso_idx;

		if (h->size < sizeof(*h) || p + h->size > end)
			break;
		l = dwarf_sample(s, h, &f, &unknown);
		if (!l) {
			if (unknown)
				st->unwind_unknown++;
			else
				strbuf__add(&b->sb, p, h->size);
			p += h->size;
			continue;
		}
		if (f.tid)
			memcpy(&pid, p + f.tid, 4);
		if (f.time)
			memcpy(&time, p + f.time, 8);
		strbuf__grow(&b->sb, callchain__max_size(h->size, max));
		b->sb.len += callchain__unwind(s->u, h, h->size, l, &f, pid, time, max, s->ips,
					       b->sb.data + b->sb.len, &why, &dso_idx);
		st->unwind_stops[why]++;
		p += h->size;
	}
}

/*
 * Hand the open buffer to the next stage, with the held pass end if the
 * buffer ends at it (a pass end with records behind it waits for the
 * buffer that ends at a later one, which stands for both).
 */
static void flush_cur(struct unwind_stage *s)
{
	struct unwind_buf *b = s->cur;
	struct pass_end held = s->held, *end = held.clean && s->held_at_tail ? &held : NULL;
	struct chunk *out = NULL;
	int err;

	s->cur = NULL;
	if (b && (!b->sb.len || s->out->err)) {
		b->busy = false;
		b = NULL;
	}
	if (b) {
		/* Room for the FINISHED_ROUND the output stage may put behind it. */
		strbuf__grow(&b->sb, sizeof(struct perf_event_header));
		out = &b->chunk;
		out->req.buf = b->sb.data;
		out->req.len = b->sb.len;
		out->req.owner = b;
		out->req.on_complete = buf_written;
		out->cap = b->sb.cap;
	}
	if (!out && !end)
		return;
	if (end) {
		end->data = end->data && !s->out->err;
		s->held.clean = false;
	}
	err = stage__submit(s->stage.next, &out, out ? 1 : 0, end);
	/* A chunk not taken came back through buf_written: its bytes are lost with the error. */
	output__set_err(s->out, err);
}

/* The item's records unwound into the open buffer, its pass end held behind them. */
static void do_item(struct unwind_stage *s, struct unwind_item *it)
{
	struct live_maps *lm = s->cfg.live;
	int err = s->out->err;

	if (it->c && !err) {
		struct write_req *req = &it->c->req;
		uint64_t t = last_time(s, req->buf, req->len);

		if (s->cfg.delay_ns) {
			struct timespec d = { .tv_sec = s->cfg.delay_ns / 1000000000ULL,
					      .tv_nsec = s->cfg.delay_ns % 1000000000ULL };

			nanosleep(&d, NULL);
		}
		if (!s->cur)
			s->cur = get_buf(s);
		if (!s->cur) {
			err = -EIO;
		} else {
			size_t len0 = s->cur->sb.len;

			if (t > atomic_load_explicit(&lm->applied, memory_order_acquire))
				live_maps__advance(lm, t);
			pthread_rwlock_rdlock(&lm->lock);
			unwind_records(s, req->buf, req->len, s->cur, &s->stage.stats);
			pthread_rwlock_unlock(&lm->lock);
			s->stage.stats.unwind_in += req->len;
			s->stage.stats.unwind_out += s->cur->sb.len - len0;
			if (s->cur->sb.len > len0)
				s->held_at_tail = false;
		}
		output__set_err(s->out, err);
	}
	/* The triage stage's block is free again: what it held is unwound (or lost with err). */
	if (it->c)
		chunk_returns__put(&s->done, it->c, err);
	if (it->end.clean) {
		bool data = it->end.data || (s->held.clean && s->held.data);

		s->held = it->end;
		s->held.data = data;
		s->held_at_tail = true;
	}
	if (s->cur && s->cur->sb.len >= UNWIND_FLUSH_BYTES)
		flush_cur(s);
}

/* May the head item go? Its samples' maps are all in, or the end gave up waiting. */
static bool item_ready(struct unwind_stage *s, const struct unwind_item *it)
{
	if (!it->c || live_maps__ready(s->cfg.live, it->t))
		return true;
	return s->stop && mono_ns() - s->stop_ns > UNWIND_DRAIN_WAIT_NS;
}

static void *stage_main(void *arg)
{
	struct unwind_stage *s = arg;
	struct stage *next = s->stage.next;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		struct unwind_item it;
		struct timespec ts;

		if (!s->q_len) {
			if (s->stop)
				break;
			pthread_mutex_unlock(&s->lock);
			/* What was unwound goes out before the stage sleeps. */
			flush_cur(s);
			stage__reap(next, false);
			pthread_mutex_lock(&s->lock);
			if (s->q_len || s->stop)
				continue;
			if (next->ops->queued(next)) {
				deadline_in(&ts, UNWIND_REAP_NS);
				pthread_cond_timedwait(&s->wake, &s->lock, &ts);
			} else {
				pthread_cond_wait(&s->wake, &s->lock);
			}
			continue;
		}
		it = s->q[s->q_head];
		/*
		 * A block waits UNWIND_HOLD_NS for more behind it, while the
		 * queue has room: one wakeup then unwinds many blocks, where
		 * each one woke the stage (and waited for the readers' passes).
		 */
		if (!s->stop && it.c && s->q_len * 2 < s->q_cap && mono_ns() < it.t + UNWIND_HOLD_NS) {
			if (s->cur || (s->held.clean && s->held_at_tail)) {
				pthread_mutex_unlock(&s->lock);
				flush_cur(s);
				pthread_mutex_lock(&s->lock);
				continue;
			}
			deadline_in(&ts, it.t + UNWIND_HOLD_NS - mono_ns());
			pthread_cond_timedwait(&s->wake, &s->lock, &ts);
			continue;
		}
		if (!item_ready(s, &it)) {
			/* Until the last reader's pass wakes it (live-maps.h); its writes meanwhile. */
			pthread_mutex_unlock(&s->lock);
			flush_cur(s);
			stage__reap(next, false);
			live_maps__wait(s->cfg.live, it.t,
					next->ops->queued(next) ? UNWIND_REAP_NS : UNWIND_WAIT_NS);
			pthread_mutex_lock(&s->lock);
			continue;
		}
		s->q_head = (s->q_head + 1) % s->q_cap;
		s->q_len--;
		pthread_mutex_unlock(&s->lock);
		do_item(s, &it);
		stage__reap(next, false);
		pthread_mutex_lock(&s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	flush_cur(s);
	return NULL;
}

static int us_start(struct stage *st, int idx)
{
	struct unwind_stage *s = to_us(st);
	int err;

	s->stop = false;
	s->idx = idx;
	err = stage_thread__start(&s->tid, stage_main, s, "u", idx, "unwind");
	if (err)
		return err;
	s->started = true;
	return 0;
}

/* Let it finish every item (they go to the next stage) and join it. */
static void stop_thread(struct unwind_stage *s)
{
	if (!s->started) {
		/* Never ran: the chunks handed over go back as they are. */
		pthread_mutex_lock(&s->lock);
		while (s->q_len) {
			struct unwind_item it = s->q[s->q_head];

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
	s->stop_ns = mono_ns();
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->tid, NULL);
	s->started = false;
}

static int us_drain(struct stage *st)
{
	struct unwind_stage *s = to_us(st);
	const struct unwind_stats *us;

	stop_thread(s);
	us_reap(st, false);
	us = unwinder__stats(s->u);
	st->stats.unwind_samples = us->samples;
	st->stats.unwind_frames = us->frames;
	return s->out->err;
}

static void us_destroy(struct stage *st)
{
	struct unwind_stage *s = to_us(st);

	stop_thread(s);
	us_reap(st, false);
	for (int i = 0; i < UNWIND_STAGE_BUFS; i++)
		strbuf__exit(&s->bufs[i].sb);
	unwinder__delete(s->u);
	free(s->ips);
	free(s->q);
	chunk_returns__exit(&s->done);
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

static const struct stage_ops unwind_stage_ops = {
	.name = "unwind",
	.submit = us_submit,
	.reap = us_reap,
	.queued = us_queued,
	.start = us_start,
	.drain = us_drain,
	.destroy = us_destroy,
};

struct stage *unwind_stage__new(struct stage *next, struct output *out,
				const struct sample_layouts *layouts,
				const struct unwind_stage_config *cfg, int max_chunks, int thread)
{
	struct unwind_stage *s = xzalloc(sizeof(*s));

	s->stage.ops = &unwind_stage_ops;
	s->stage.next = next;
	s->out = out;
	s->cfg = *cfg;
	s->layouts = layouts;
	s->idx = thread;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->wake, NULL);
	chunk_returns__init(&s->done, &s->lock);
	/* Every chunk once, a pass end after each, one more. */
	s->q_cap = 2 * (size_t)max_chunks + 2;
	s->q = xzalloc(s->q_cap * sizeof(*s->q));
	s->ips = xzalloc(((size_t)cfg->max_stack + 1) * sizeof(*s->ips));
	for (int i = 0; i < UNWIND_STAGE_BUFS; i++) {
		s->bufs[i].chunk.req.owner = &s->bufs[i];
		strbuf__init(&s->bufs[i].sb);
	}
	s->u = unwinder__new(cfg->live->maps, cfg->arch, cfg->buildid_dir);
	if (!s->u) {
		pr_err("unwind stage %d: no unwinder for this architecture\n", thread);
		us_destroy(&s->stage);
		return NULL;
	}
	return &s->stage;
}
