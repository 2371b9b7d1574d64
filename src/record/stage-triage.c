// SPDX-License-Identifier: GPL-2.0
/*
 * The triage stage (DESIGN.md, "When the output is slower than the
 * data"): the head of every reader's pipeline, so that a slow output
 * never holds a kernel ring, and what is lost when the output cannot
 * keep up is chosen here, evenly, and said in the file.
 *
 * The reader hands it a chunk; the stage copies the chunk's records
 * into a block of its own memory and gives the chunk back at once, so
 * the reader always has a free buffer and the kernel never drops because
 * the output is slow (a kernel LOST then means a reader that had no
 * CPU). While copying it cuts every DWARF sample's user stack to what
 * the kernel filled (format/stack-trim.h): the copy that skips the empty
 * part costs less than the one that would copy it. A thread of its own
 * hands the blocks, in order, with the ends of the clean passes between
 * them, to the next stage (compression or output), which may block on a
 * slow file or pipe: only this thread waits.
 *
 * The blocks it holds are its memory, bounded by its budget (the
 * reader's share of --user-buffer-size). How full that is decides what
 * a chunk keeps:
 *
 *   below TRIAGE_CUT_FILL       every record, stacks trimmed to dyn_size
 *   from TRIAGE_CUT_FILL on     stacks cut to TRIAGE_CUT_STACK bytes too
 *   from TRIAGE_THIN_FILL on    samples thinned: one kept in k, per event
 *                               and CPU (each sample id), k from the rates
 *                               in and out (thin_keep); the kept sample's
 *                               period is k times its own (it stands for
 *                               k samples), so event counts stay right
 *   past the budget             one in 256 kept (TRIAGE_KEEP_MIN), weighted 256
 *
 * Records other than samples (COMM, MMAP, MMAP2, FORK, EXIT, KSYMBOL,
 * CGROUP, NAMESPACES, TEXT_POKE, LOST, ...) are always kept: the samples
 * that are kept resolve through them. Only when they alone would pass
 * TRIAGE_HARD_DIV over the budget does the reader wait for room (and the
 * kernel may then drop, as without the stage). Every sample dropped is
 * counted in a PERF_RECORD_LOST_SAMPLES record for its sample id, behind
 * the chunk it was dropped from, with the trailer (tid, time, id, cpu) of
 * the last one dropped, and misc PERF_RECORD_MISC_USER to say that the
 * recorder dropped it, not the kernel (perfcap loss counts them apart).
 *
 * While the output keeps up, a chunk is not copied at all: when nothing
 * is queued or being written by the thread, and the next stage writes a
 * chunk before its submit returns (a synchronous writer on a file,
 * stage_ops.direct), the reader trims the chunk's stacks in place and
 * hands it straight on, as if the stage were not there; its buffer is
 * free again when that returns. A copy costs the reader little, but the
 * handoff to the thread, which must be woken and then writes, costs CPU
 * and switches on every pass while the output keeps up
 * (bench/results/2026-12-01-triage-vs-before/, 2026-12-02-direct-writes/). A write
 * straight from the reader that takes longer than TRIAGE_SLOW_WRITE_NS
 * (a disk whose writeback now throttles the writer) says the output has
 * fallen behind: for TRIAGE_DIRECT_PAUSE_NS every chunk is copied, and
 * only the thread waits for the disk. The reader never tries first: its
 * chunks are copied until the thread has written a quarter of a chunk or
 * more, in one block or several, at a speed that would write the
 * reader's largest chunk in TRIAGE_SLOW_WRITE_NS (vouched). Any slower
 * window of writes, or one write over TRIAGE_SLOW_WRITE_NS, by any
 * reader's stage stops every reader's own writes for
 * TRIAGE_DIRECT_PAUSE_NS (output.slow_until): the file is one queue, so
 * even a reader's smallest write waits behind another stage's block. The
 * reader never writes first because on a file that is slow from the start
 * (a network filesystem, a throttled disk: bench/fixtures/slowfs.c) that
 * first write blocks it while its rings fill
 * (bench/results/2026-12-02-direct-writes/). A pipe, a writer
 * that holds its requests (aio, io_uring) and -z are always copied.
 *
 * With a writer that holds its requests (on a file), the copies gather:
 * the reader copies into the queue's last block while it has room (a
 * block is as large as the ring's buffer), and the thread, woken by the
 * first block, waits up to TRIAGE_HOLD_MS (or until TRIAGE_HOLD_BYTES are
 * queued) before it hands them all on, up to TRIAGE_STAGE_INFLIGHT at a
 * time, so that the writer's helper writes them back to back. A pass end
 * behind a block that gathers more stands for the passes after it until
 * the next clean one: its FINISHED_ROUND comes later in the stream, never
 * earlier. One wakeup of the thread and of the helper then serves many
 * passes, where it served one (bench/results/2026-12-02-aio-gather/).
 *
 * -zauto (compress_when_behind): the next stage is the compression
 * stage, and the blocks go past it, to the output stage, while the output
 * keeps up, so that a recording whose output keeps up is the one made
 * without -z (the reader's own writes included). Once the blocks not yet
 * written pass a TRIAGE_AUTO_DIV-th of the budget (and what gathers for
 * TRIAGE_HOLD_MS), before the stack cuts at a quarter, the thread waits
 * for its writes past it, then sends every block through it for the rest
 * of the recording (compress_from_now): the output stage has one user at
 * a time, and the stream its order. What is in flight at the switch goes
 * out uncompressed at the slow output's pace, so until then at most
 * hold_bytes are (16 blocks of --aio held a 3 MiB/s file's switch back
 * over a second); the uncapped cost is nil, -z's 2.6x the recorder CPU
 * (bench/results/2026-12-03-zauto-uncapped/).
 *
 * Locks: lock protects the queue, held, busy, stop, the pool and the
 * done counters; it is never held while copying or handing on (the block
 * the reader appends to is marked appending, and the thread waits for
 * it). It inherits priority (mutex_init_pi): a real-time reader that
 * waited for it while the thread, preempted by the workload, held it lost
 * samples. The reader waits on room, the thread on wake.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "format/sample-layout.h"
#include "format/stack-trim.h"
#include "io/output.h"
#include "perf-file.h"
#include "record/pipeline.h"
#include "util.h"

/* TRIAGE_SLOW_MS and TRIAGE_DIRECT_PAUSE_S (pipeline.h), in ns. */
#define TRIAGE_SLOW_WRITE_NS (TRIAGE_SLOW_MS * 1000000ULL)
#define TRIAGE_DIRECT_PAUSE_NS (TRIAGE_DIRECT_PAUSE_S * 1000000000ULL)
#define TRIAGE_HOLD_NS (TRIAGE_HOLD_MS * 1000000ULL)
/* The rates in and out are measured over windows of this long. */
#define TRIAGE_WINDOW_NS (100 * 1000000ULL)
/*
 * The least share kept, even with the budget full: a sample dropped with
 * no kept sample to stand for it is lost from the event count, so one in
 * 256 is still kept, weighted 256 (its bytes are a 256th of the rest).
 */
#define TRIAGE_KEEP_MIN (1.0 / 256)
#define LOST_REC_MAX (sizeof(struct perf_event_header) + 8 + SAMPLE_ID_MAX)
/*
 * Where blocks gather (hold: each a ring's buffer large), written blocks
 * are kept for the next chunks, up to TRIAGE_POOL of them and a
 * TRIAGE_POOL_DIV-th of the budget: glibc maps a block of that size
 * afresh more often than not (page faults and zeroing in the reader,
 * munmap in the thread). Elsewhere a block is the chunk's size, from
 * malloc() and back to free().
 */
#define TRIAGE_POOL 8
#define TRIAGE_POOL_DIV 4

struct triage_block {
	struct chunk chunk;
	struct triage_stage *s;
	struct triage_block *next;	/* in the queue */
	struct pass_end end;		/* with end.clean: a pass end behind the block */
	bool has_end;
	size_t cap, len;
	char data[];
};

/* What the stage knows of one sample id (an event on a CPU). */
struct triage_id {
	uint64_t id;
	double credit;		/* toward the next sample kept (1: keep it) */
	uint64_t dropped;	/* not yet said in a LOST_SAMPLES record */
	unsigned char trailer[SAMPLE_ID_MAX];	/* of the last one dropped */
	size_t trailer_len;
};

struct triage_stage {
	struct stage stage;
	struct output *out;
	const struct sample_layouts *layouts;
	size_t budget;
	int thread;

	pthread_mutex_t lock;
	pthread_cond_t wake;	/* the thread: a block, or stop */
	pthread_cond_t room;	/* the reader: a block was written */
	struct triage_block *q_head, **q_tail;
	struct triage_block *pool;	/* written blocks, for reuse */
	int pool_len;
	size_t pool_bytes;
	struct triage_block *appending;	/* the queue's tail, which the reader fills */
	bool append_wait;		/* the thread waits for it */
	int q_len;
	size_t q_bytes;		/* ... of records, queued */
	uint64_t q_since;	/* when the queue last went from empty to not */
	size_t held;		/* bytes of blocks taken and not yet written */
	uint64_t written;	/* bytes of blocks written, ever */
	bool busy;		/* the thread has a block, or writes in flight */
	bool stacks;		/* an event samples user stacks: a chunk straight on is trimmed */
	bool hold;		/* blocks gather before they go on (TRIAGE_HOLD_MS) */
	bool vouched;		/* the thread wrote quickly: the reader may write */
	size_t chunk_cap;	/* the largest chunk the reader hands in (a ring's buffer) */
	size_t hold_bytes;	/* ... until this many are queued */
	bool stop;

	/* The reader's. */
	struct triage_id *ids;
	int nr_ids, cap_ids, last_id;
	double base;			/* the share of the bytes the output took, last window */
	uint64_t win_start, win_in, win_written;
	uint64_t in_total;		/* bytes of records copied, after the stack cuts */

	/*
	 * Where the blocks go: next, or with -zauto (compress_when_behind)
	 * next->next until the output falls behind (compress_at). Changed
	 * once, by the thread, under lock, with nothing in flight.
	 */
	struct stage *to;
	bool compress_when_behind;
	size_t compress_at;		/* ... held bytes past which it goes through next */
	int max_inflight_z;		/* max_inflight from then on */

	/* The thread's. */
	uint64_t probe_bytes, probe_ns;	/* its writes since it last judged the file's speed */
	int inflight;			/* blocks with s->to */
	int max_inflight;		/* ... at most */
	size_t inflight_bytes;		/* ... their bytes */
	size_t max_inflight_bytes;	/* -zauto, past next: at most this many (else 0: any) */
	pthread_t tid;
	bool started;
};

static struct triage_stage *to_ts(struct stage *s)
{
	return container_of(s, struct triage_stage, stage);
}

/* Under lock: a written block with room for need bytes, or NULL. */
static struct triage_block *pool_take(struct triage_stage *s, size_t need)
{
	struct triage_block **pp, *b;

	for (pp = &s->pool; (b = *pp); pp = &b->next)
		if (b->cap >= need) {
			*pp = b->next;
			s->pool_len--;
			s->pool_bytes -= b->cap;
			break;
		}
	return b;
}

/* Under lock: b is written; into the pool, or freed. */
static void block_put(struct triage_stage *s, struct triage_block *b)
{
	if (s->hold && b->cap && s->pool_len < TRIAGE_POOL &&
	    s->pool_bytes + b->cap <= s->budget / TRIAGE_POOL_DIV) {
		b->next = s->pool;
		s->pool = b;
		s->pool_len++;
		s->pool_bytes += b->cap;
		return;
	}
	free(b);
}

/* ---- the reader's side ---------------------------------------------------- */

static struct triage_id *id_of(struct triage_stage *s, uint64_t id)
{
	struct triage_id *e;

	if (s->nr_ids && s->ids[s->last_id].id == id)
		return &s->ids[s->last_id];
	for (int i = 0; i < s->nr_ids; i++) {
		if (s->ids[i].id == id) {
			s->last_id = i;
			return &s->ids[i];
		}
	}
	if (s->nr_ids == s->cap_ids) {
		s->cap_ids = s->cap_ids ? 2 * s->cap_ids : 16;
		s->ids = xrealloc(s->ids, s->cap_ids * sizeof(*s->ids));
	}
	e = &s->ids[s->nr_ids];
	memset(e, 0, sizeof(*e));
	e->id = id;
	s->last_id = s->nr_ids++;
	return e;
}

/*
 * The share of the samples the next chunk keeps (1/k). Every
 * TRIAGE_WINDOW_NS the window's rates give the share of the bytes
 * offered that the output took (base); each chunk
 * then keeps base times what the budget's fill allows, from all of it
 * at TRIAGE_THIN_FILL to TRIAGE_KEEP_MIN when full: keeping out/in holds the budget
 * where it is, and the fill, read at every chunk, answers a change of
 * rate (a phase that makes more data) before the window does.
 */
static double thin_keep(struct triage_stage *s, size_t held, uint64_t written, uint64_t now)
{
	double fill = (double)held / s->budget, thin = TRIAGE_THIN_FILL, keep;

	if (now - s->win_start >= TRIAGE_WINDOW_NS) {
		uint64_t in = s->in_total - s->win_in, outb = written - s->win_written;

		/*
		 * Only while behind does the output show what it can take; a
		 * window in which no block finished (a slow pipe takes a block
		 * longer than a window) says nothing. Halfway to the new value
		 * each window: one window's rates are noisy.
		 */
		if (fill < thin / 2)
			s->base = 1.0;
		else if (in && outb)
			s->base = (s->base + MIN(1.0, (double)outb / in)) / 2;
		s->win_start = now;
		s->win_in = s->in_total;
		s->win_written = written;
	}
	if (fill < thin)
		return 1.0;
	keep = fill >= 1.0 ? 0.0 : s->base * (1.0 - (fill - thin) / (1.0 - thin));
	return keep < TRIAGE_KEEP_MIN ? TRIAGE_KEEP_MIN : keep;
}

/*
 * A LOST_SAMPLES record for each id with drops not yet said, into b, as
 * long as b stays within limit bytes (the chunk's own length: a block is
 * never larger than a ring's chunk, which the -z stage's slices rely on).
 */
static void put_lost(struct triage_stage *s, struct triage_block *b, size_t limit)
{
	for (int i = 0; i < s->nr_ids; i++) {
		struct triage_id *e = &s->ids[i];
		struct perf_event_header h = {
			.type = PERF_RECORD_LOST_SAMPLES,
			.misc = PERF_RECORD_MISC_USER,
		};

		if (!e->dropped)
			continue;
		if (b->len + LOST_REC_MAX > limit)
			return; /* said behind a later chunk */
		h.size = (uint16_t)(sizeof(h) + 8 + e->trailer_len);
		memcpy(b->data + b->len, &h, sizeof(h));
		memcpy(b->data + b->len + sizeof(h), &e->dropped, 8);
		memcpy(b->data + b->len + sizeof(h) + 8, e->trailer, e->trailer_len);
		b->len += h.size;
		s->stage.stats.dropped += e->dropped;
		e->dropped = 0;
	}
}

/*
 * Copy the records of c into b: stacks trimmed (cut to cut bytes with
 * cut != STACK_TRIM_ALL), samples thinned to the share keep (one in k = 1/keep).
 */
static void copy_records(struct triage_stage *s, const struct chunk *c, struct triage_block *b,
			 size_t cut, double keep)
{
	const unsigned char *in = c->req.buf;
	size_t at = 0, len = c->req.len;
	struct stage_stats *st = &s->stage.stats;

	/*
	 * No stack to trim and every sample kept: the records go as they
	 * are, with no walk, which costs the recorder CPU in a tracepoint
	 * flood (bench/results/2026-12-02-aio-gather/).
	 */
	if (!s->stacks && keep >= 1.0) {
		memcpy(b->data + b->len, in, len);
		b->len += len;
		s->in_total += len;
		st->trim_in += len;
		st->trim_out += len;
		return;
	}
	while (len - at >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		const struct sample_layout *l;
		struct sample_fields f;
		unsigned char *o = (unsigned char *)b->data + b->len;
		struct triage_id *e;
		uint64_t id = 0, period;

		memcpy(&h, in + at, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - at)
			break;
		memcpy(o, in + at, h.size);
		at += h.size;
		st->trim_in += h.size;
		if (h.type != PERF_RECORD_SAMPLE || !(l = sample_layouts__find(s->layouts, o, h.size)) ||
		    sample_layout__parse(l, o, h.size, &f)) {
			b->len += h.size;
			s->in_total += h.size;
			st->trim_out += h.size;
			continue;
		}
		if (f.stack) {
			uint64_t size, dyn = 0;

			memcpy(&size, o + f.stack, 8);
			if (size)
				memcpy(&dyn, o + f.after_stack - 8, 8);
			if (cut != STACK_TRIM_ALL && dyn > cut)
				st->cut++;
			h.size = (uint16_t)stack_trim__sample(o, &f, cut);
		}
		st->trim_out += h.size;
		s->in_total += h.size;
		if (f.id)
			memcpy(&id, o + f.id, 8);
		e = id_of(s, id);
		/*
		 * One in k kept (k = 1/keep), evenly: each sample of an id earns
		 * keep, and is kept once its id has earned a whole one. The one
		 * kept stands for k samples, so its period is k times its own:
		 * every sample counts with weight 1 in expectation whatever k
		 * was when it came (k follows the phases of the data, the
		 * weights follow k), and no kept sample carries the periods of
		 * another phase's.
		 */
		e->credit += keep;
		if (e->credit < 1.0 - 1e-9) {
			e->dropped++;
			e->trailer_len = sample_layout__id_trailer(l, o, &f, e->trailer);
			continue;
		}
		e->credit -= 1.0;
		if (keep < 1.0 && f.period) {
			memcpy(&period, o + f.period, 8);
			period = (uint64_t)((double)period / keep + 0.5);
			memcpy(o + f.period, &period, 8);
			st->carried++;
		}
		b->len += h.size;
	}
	/* A torn tail cannot come from a ring; kept as it is. */
	memcpy(b->data + b->len, in + at, len - at);
	b->len += len - at;
}

/* Under lock: len more bytes queued. True when they end the thread's wait (TRIAGE_HOLD_MS). */
static bool queued(struct triage_stage *s, size_t len)
{
	s->q_bytes += len;
	return !s->hold || (s->q_bytes >= s->hold_bytes && s->q_bytes - len < s->hold_bytes);
}

/* Under lock. True when the thread should be woken for b (see TRIAGE_HOLD_MS). */
static bool queue_block(struct triage_stage *s, struct triage_block *b, uint64_t now)
{
	bool first = !s->q_len;

	b->next = NULL;
	*s->q_tail = b;
	s->q_tail = &b->next;
	s->q_len++;
	if (first)
		s->q_since = now;
	/* The first block starts the thread's clock. */
	return queued(s, b->len) || first;
}

/* Under lock: the queue's first block, taken off it. */
static struct triage_block *pop_block(struct triage_stage *s)
{
	struct triage_block *b = s->q_head;

	s->q_head = b->next;
	if (!s->q_head)
		s->q_tail = &s->q_head;
	s->q_len--;
	s->q_bytes -= b->len;
	return b;
}

/*
 * May the reader hand its chunk straight on (see the top)? Only while the
 * thread has nothing, so that the chunks keep their order and the next
 * stage has one user at a time.
 */
static bool may_go_direct(struct triage_stage *s, uint64_t now)
{
	struct stage *to;
	bool idle;

	if (now < atomic_load_explicit(&s->out->slow_until, memory_order_relaxed))
		return false;
	pthread_mutex_lock(&s->lock);
	/* Under the lock: -zauto's switch (see compress_from_now) changes it. */
	to = s->to;
	idle = !s->q_head && !s->busy && !s->held && s->vouched;
	pthread_mutex_unlock(&s->lock);
	return idle && to->ops->direct && to->ops->direct(to);
}

/* Does an event sample user stacks (else a chunk needs no walk to be trimmed)? */
static bool has_stacks(const struct sample_layouts *ls)
{
	for (int i = 0; i < ls->nr; i++)
		if (ls->l[i].sample_type & PERF_SAMPLE_STACK_USER)
			return true;
	return false;
}

/* c, its stacks trimmed in place, straight to the next stage (see the top). */
static int hand_straight_on(struct triage_stage *s, struct chunk *c, struct pass_end *end)
{
	struct stage_stats *st = &s->stage.stats;
	uint64_t t0, took;
	int err;

	if (s->stacks) {
		struct stack_trim_stats ts = { 0 };

		c->req.len = stack_trim__records(c->req.buf, c->req.len, c->req.buf, s->layouts,
						 STACK_TRIM_ALL, &ts);
		st->trim_in += ts.bytes_in;
		st->trim_out += ts.bytes_out;
	}
	st->bytes_kept += c->req.len;
	st->direct++;
	t0 = mono_ns();
	/* s->to as may_go_direct() read it: only the thread changes it, and it is idle. */
	err = stage__submit(s->to, &c, 1, end);
	took = mono_ns() - t0;
	if (took > TRIAGE_SLOW_WRITE_NS) {
		atomic_store_explicit(&s->out->slow_until, t0 + took + TRIAGE_DIRECT_PAUSE_NS,
				      memory_order_relaxed);
		/* Only the thread's writes vouch again. */
		pthread_mutex_lock(&s->lock);
		s->vouched = false;
		pthread_mutex_unlock(&s->lock);
		st->direct_pauses++;
	}
	return err;
}

static int ts_submit(struct stage *st, struct chunk **c, int n, struct pass_end *end)
{
	struct triage_stage *s = to_ts(st);
	bool clean = end && end->clean;
	uint64_t now = mono_ns();
	int err = s->out->err;
	bool wake = false;

	/* While the output keeps up: the pass's chunks, and its end, straight on. */
	while (!err && n && may_go_direct(s, now)) {
		err = hand_straight_on(s, c[0], n == 1 ? end : NULL);
		c++;
		n--;
		if (!n)
			return err;
		now = mono_ns();
	}
	if (!err && !n && clean && may_go_direct(s, now))
		return stage__submit(s->to, NULL, 0, end);

	for (int i = 0; i < n; i++) {
		struct triage_block *b = NULL;
		/* Never more than the chunk, and room for a FINISHED_ROUND (pipeline.h). */
		size_t held, len0 = 0, need = c[i]->req.len + sizeof(struct perf_event_header);
		uint64_t written;
		bool appended = false;
		double keep;

		/*
		 * Where chunks gather a block is a ring's buffer large (the
		 * chunk's cap), to take more than one, and no larger: a write
		 * of many rings' worth holds its CPU in the kernel for longer
		 * than a small ring takes to fill (1 MiB blocks lost data with
		 * 32 KiB rings: bench/results/2026-12-02-aio-gather/).
		 */
		pthread_mutex_lock(&s->lock);
		if (s->hold)
			need = MAX(need, c[i]->cap);
		held = s->held;
		written = s->written;
		s->chunk_cap = MAX(s->chunk_cap, c[i]->cap);
		/* Gathering: into the queue's last block while it has room (see the top). */
		if (s->hold && s->q_len && !err) {
			struct triage_block *tail = container_of(s->q_tail, struct triage_block, next);

			if (tail->cap - tail->len >= c[i]->req.len + sizeof(struct perf_event_header)) {
				b = s->appending = tail;
				appended = true;
			}
		}
		if (!b && !err && s->hold)
			b = pool_take(s, need);
		pthread_mutex_unlock(&s->lock);
		keep = thin_keep(s, held, written, now);
		if (!b && !err) {
			b = malloc(sizeof(*b) + need);
			if (b)
				b->cap = need;
			else
				err = -ENOMEM;
		}
		if (b && !appended) {
			b->s = s;
			b->len = 0;
			b->has_end = false;
		}
		if (b) {
			len0 = b->len;
			copy_records(s, c[i], b, held * TRIAGE_CUT_DIV >= s->budget ? TRIAGE_CUT_STACK
									      : STACK_TRIM_ALL, keep);
			put_lost(s, b, len0 + c[i]->req.len);
			st->stats.bytes_kept += b->len - len0;
		}
		/* The reader's buffer is free again: what it held is copied. */
		c[i]->req.on_complete(&c[i]->req, err);
		if (!b)
			continue;
		pthread_mutex_lock(&s->lock);
		if (appended) {
			s->appending = NULL;
			s->held += b->len - len0;
			wake |= queued(s, b->len - len0);
			if (s->append_wait)
				pthread_cond_signal(&s->wake);
		}
		/* Past the hard limit only the records other than samples came: wait for room. */
		while (!s->out->err && s->held > s->budget + s->budget / TRIAGE_HARD_DIV && s->q_len)
			pthread_cond_wait(&s->room, &s->lock);
		if (!appended) {
			s->held += b->len;
			wake |= queue_block(s, b, now);
		}
		pthread_mutex_unlock(&s->lock);
	}
	if (clean) {
		struct triage_block *tail;

		pthread_mutex_lock(&s->lock);
		/* Behind the last block still queued; a pass with none queued gets an empty one. */
		tail = s->q_len ? container_of(s->q_tail, struct triage_block, next) : NULL;
		if (!tail && (tail = malloc(sizeof(*tail)))) {
			tail->s = s;
			tail->cap = tail->len = 0;	/* freed, never pooled */
			tail->has_end = false;
			wake |= queue_block(s, tail, now);
		}
		if (tail) {
			/* A clean pass behind another with nothing between stands for both. */
			bool data = tail->has_end && tail->end.data;

			tail->end = *end;
			tail->end.data |= data;
			tail->has_end = true;
		}
		pthread_mutex_unlock(&s->lock);
	}
	/*
	 * At most one wakeup for the pass's chunks and its end, not one a
	 * chunk; outside the lock: the queue changed under it, and the thread
	 * checks it under the lock before it waits.
	 */
	if (wake)
		pthread_cond_signal(&s->wake);
	return err;
}

static int ts_reap(struct stage *st, bool wait)
{
	/* Chunks come back in submit: nothing is ever pending here. */
	return to_ts(st)->out->err;
}

static int ts_queued(const struct stage *st)
{
	/* The status line's: read from the reader while the thread pops. */
	struct triage_stage *s = (struct triage_stage *)container_of(st, struct triage_stage, stage);
	int n;

	pthread_mutex_lock(&s->lock);
	n = s->q_len;
	pthread_mutex_unlock(&s->lock);
	return n;
}

/* ---- the stage thread ------------------------------------------------------ */

static void block_written(struct write_req *req, int err)
{
	struct triage_block *b = req->owner;
	struct triage_stage *s = b->s;
	size_t len = b->len;	/* b is the pool's, or freed, once put */

	pthread_mutex_lock(&s->lock);
	s->held -= len;
	s->written += len;
	block_put(s, b);
	pthread_cond_broadcast(&s->room);
	pthread_mutex_unlock(&s->lock);
	s->inflight--;
	s->inflight_bytes -= len;
}

/*
 * The thread wrote len bytes in took ns to a writer the reader may call:
 * do its writes vouch for the file, or stop the readers' own writes (see
 * the top)? Judged over a window of a quarter of a chunk or more: slow if
 * the reader's largest chunk would not go in TRIAGE_SLOW_WRITE_NS at the
 * window's speed: a small block goes quickly to a slow file too, and a
 * tiny one's time is the write's fixed cost, so one block says nothing
 * of the next; blocks trimmed to a few KiB add up to a window
 * (bench/results/2026-12-02-capped-file-vouch/).
 */
static void judge_write(struct triage_stage *s, size_t len, uint64_t t0, uint64_t took)
{
	bool judge, slow;

	s->probe_bytes += len;
	s->probe_ns += took;
	pthread_mutex_lock(&s->lock);
	judge = s->probe_bytes >= s->chunk_cap / 4;
	slow = took > TRIAGE_SLOW_WRITE_NS ||
	       (judge && (double)s->probe_ns * s->chunk_cap >
			 (double)TRIAGE_SLOW_WRITE_NS * s->probe_bytes);
	if (slow || judge)
		s->vouched = !slow;
	pthread_mutex_unlock(&s->lock);
	if (slow || judge)
		s->probe_bytes = s->probe_ns = 0;
	if (slow)
		atomic_store_explicit(&s->out->slow_until, t0 + took + TRIAGE_DIRECT_PAUSE_NS,
				      memory_order_relaxed);
}

/*
 * -zauto: the output is behind; from now on every block goes through
 * the compression stage (s->stage.next). Everything handed past it is
 * written first: the stage behind it then has one user again, its
 * thread, and the order of the stream holds.
 */
static void compress_from_now(struct triage_stage *s)
{
	while (s->inflight)
		stage__reap(s->to, true);
	pthread_mutex_lock(&s->lock);
	s->to = s->stage.next;
	s->max_inflight = s->max_inflight_z;
	s->max_inflight_bytes = 0;
	/* The compression stage gathers its own frames (see ts_start). */
	s->hold = false;
	s->vouched = false;
	pthread_mutex_unlock(&s->lock);
	s->stage.stats.compressing = 1;
	s->stage.stats.compress_from_ns = mono_ns();
	if (verbose > 0)
		pr_info("reader %d: the output fell behind (%zu KiB not yet written): compressing "
			"from now on (-zauto)\n", s->thread, s->compress_at >> 10);
}

/* Under lock: has the output fallen behind far enough for -zauto to compress? */
static bool falls_behind(const struct triage_stage *s)
{
	return s->compress_when_behind && s->to != s->stage.next && s->held > s->compress_at;
}

/* Hand b (and the pass end behind it) to the stage after this one. */
static void hand_on(struct triage_stage *s, struct triage_block *b)
{
	struct stage *next;
	struct chunk *c = &b->chunk;
	struct pass_end end = b->end;
	bool has_end = b->has_end;
	size_t len = b->len;		/* b may be reused once submit returns */
	uint64_t t0;
	bool behind;
	int err;

	pthread_mutex_lock(&s->lock);
	behind = b->len && falls_behind(s);
	pthread_mutex_unlock(&s->lock);
	if (behind)
		compress_from_now(s);
	next = s->to;
	/*
	 * -zauto, not yet compressing: what is in flight when the output
	 * falls behind goes out uncompressed, at the slow output's pace,
	 * before the first compressed block (compress_from_now); so, little.
	 */
	while (s->inflight >= s->max_inflight ||
	       (s->max_inflight_bytes && s->inflight &&
		s->inflight_bytes + b->len > s->max_inflight_bytes))
		stage__reap(next, true);
	if (!b->len) {
		/* Only a pass end: nothing to write. */
		pthread_mutex_lock(&s->lock);
		block_put(s, b);
		pthread_mutex_unlock(&s->lock);
		err = has_end ? stage__submit(next, NULL, 0, &end) : 0;
		output__set_err(s->out, err);
		return;
	}
	c->req.buf = b->data;
	c->req.len = b->len;
	c->req.owner = b;
	c->req.on_complete = block_written;
	c->cap = b->cap;
	s->inflight++;
	s->inflight_bytes += len;
	t0 = mono_ns();
	err = stage__submit(next, &c, 1, has_end ? &end : NULL);
	if (next->ops->direct && next->ops->direct(next))
		judge_write(s, len, t0, mono_ns() - t0);
	/* A block not taken came back through block_written: its bytes are lost with the error. */
	output__set_err(s->out, err);
}

static void *stage_main(void *arg)
{
	struct triage_stage *s = arg;
	struct sched_param normal = { .sched_priority = 0 };
	int policy;

	/*
	 * This thread writes (it blocks in the writer, a pipe or a slow
	 * disk): like glibc's AIO helpers (helper-threads.h) it never runs
	 * real-time, even when the readers do (-r): a real-time writer can
	 * starve the kernel's writeback and the workload. The readers stay
	 * real-time; the budget takes what they copy meanwhile.
	 */
	if (!pthread_getschedparam(pthread_self(), &policy, &normal) &&
	    ((policy & ~SCHED_RESET_ON_FORK) == SCHED_FIFO ||
	     (policy & ~SCHED_RESET_ON_FORK) == SCHED_RR)) {
		normal.sched_priority = 0;
		pthread_setschedparam(pthread_self(), SCHED_OTHER, &normal);
	}

	pthread_mutex_lock(&s->lock);
	for (;;) {
		struct triage_block *b = s->q_head;

		if (!b) {
			if (s->stop)
				break;
			if (s->inflight) {
				/* Writes to reap (the durable prefix moves when they are). */
				struct timespec ts;

				pthread_mutex_unlock(&s->lock);
				stage__reap(s->to, false);
				pthread_mutex_lock(&s->lock);
				if (s->q_head || s->stop || !s->inflight)
					continue;
				deadline_in(&ts, 5 * 1000000ULL);
				pthread_cond_timedwait(&s->wake, &s->lock, &ts);
			} else {
				/* Idle: the reader may write itself (may_go_direct). */
				s->busy = false;
				pthread_cond_wait(&s->wake, &s->lock);
			}
			continue;
		}
		if (b == s->appending) {
			/* The reader is filling it: a copy's time. */
			s->append_wait = true;
			pthread_cond_wait(&s->wake, &s->lock);
			s->append_wait = false;
			continue;
		}
		if (s->hold && !s->stop && s->q_bytes < s->hold_bytes) {
			/* Let more gather (TRIAGE_HOLD_MS); then all of it goes on. */
			uint64_t now = mono_ns(), due = s->q_since + TRIAGE_HOLD_NS;

			if (now < due) {
				struct timespec ts;

				s->busy = true;
				deadline_in(&ts, due - now);
				pthread_cond_timedwait(&s->wake, &s->lock, &ts);
				continue;
			}
		}
		s->busy = true;
		pop_block(s);
		pthread_mutex_unlock(&s->lock);
		hand_on(s, b);
		stage__reap(s->to, false);
		pthread_mutex_lock(&s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	while (s->inflight)
		stage__reap(s->to, true);
	return NULL;
}

static int ts_start(struct stage *st, int idx)
{
	struct triage_stage *s = to_ts(st);
	int err;

	s->stop = false;
	/*
	 * Blocks gather only for a writer that holds its requests (aio,
	 * io_uring) on a file: not for one the reader may call itself, not
	 * for -z, which gathers its own frames (held here as well, -z lost
	 * data: bench/results/2026-12-02-aio-gather/), not for a pipe, whose
	 * reader may be perf script.
	 */
	s->hold = !s->out->pipe && s->to->ops->direct && !s->to->ops->direct(s->to);
	s->hold_bytes = MIN((size_t)TRIAGE_HOLD_BYTES, s->budget / TRIAGE_HOLD_DIV);
	/*
	 * -zauto: behind once more is queued than the writes in flight and
	 * the blocks gathering hold while the output keeps up.
	 */
	s->compress_at = s->budget / TRIAGE_AUTO_DIV + (s->hold ? s->hold_bytes : 0);
	if (s->compress_when_behind && s->to != s->stage.next)
		s->max_inflight_bytes = s->hold_bytes;
	err = stage_thread__start(&s->tid, stage_main, s, "t", idx, "triage");
	if (err)
		return err;
	s->started = true;
	return 0;
}

/* Let it hand every block on and join it; never started: hand them on here. */
static void stop_thread(struct triage_stage *s)
{
	if (!s->started) {
		struct triage_block *b;

		while (s->q_head) {
			b = pop_block(s);
			hand_on(s, b);
		}
		while (s->inflight)
			stage__reap(s->to, true);
		return;
	}
	pthread_mutex_lock(&s->lock);
	s->stop = true;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->tid, NULL);
	s->started = false;
}

static int ts_drain(struct stage *st)
{
	struct triage_stage *s = to_ts(st);

	stop_thread(s);
	return s->out->err;
}

static void ts_destroy(struct stage *st)
{
	struct triage_stage *s = to_ts(st);

	stop_thread(s);
	while (s->pool) {
		struct triage_block *b = s->pool;

		s->pool = b->next;
		free(b);
	}
	free(s->ids);
	pthread_cond_destroy(&s->room);
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

static const struct stage_ops triage_stage_ops = {
	.name = "triage",
	.submit = ts_submit,
	.reap = ts_reap,
	.queued = ts_queued,
	.start = ts_start,
	.drain = ts_drain,
	.destroy = ts_destroy,
};

struct stage *triage_stage__new(struct stage *next, struct output *out,
				const struct sample_layouts *layouts, size_t budget, int max_inflight,
				int thread, bool compress_when_behind)
{
	struct triage_stage *s = xzalloc(sizeof(*s));

	s->max_inflight = max_inflight > 0 ? max_inflight : 1;
	s->to = next;
	s->compress_when_behind = compress_when_behind && next->next;
	if (s->compress_when_behind) {
		s->to = next->next;
		s->max_inflight_z = s->max_inflight;
		s->max_inflight = TRIAGE_STAGE_INFLIGHT;
	}
	s->stage.ops = &triage_stage_ops;
	s->stage.next = next;
	s->out = out;
	s->layouts = layouts;
	s->budget = budget ? budget : 1;
	s->thread = thread;
	s->stacks = has_stacks(layouts);
	s->base = 1.0;
	mutex_init_pi(&s->lock);
	pthread_cond_init(&s->wake, NULL);
	pthread_cond_init(&s->room, NULL);
	s->q_tail = &s->q_head;
	return &s->stage;
}
