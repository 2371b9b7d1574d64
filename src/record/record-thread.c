// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "io/output.h"
#include "record/aux.h"
#include "record/backward.h"
#include "record/helper-threads.h"
#include "record/record-thread.h"
#include "util.h"

/*
 * A ring that gained a quarter of its size between two passes fills
 * faster than a sleeping reader can be woken reliably: on a busy machine
 * the wakeup alone can take longer than the rest of the ring lasts. Then
 * a reader that perfcap did not make SCHED_FIFO itself (t->fifo: at its
 * nice value, or under -r, whose policy it inherits) goes straight into
 * the next pass instead of sleeping (perf record's default loop always
 * does); waking earlier through a lower watermark lost more
 * (bench/results/2026-11-30-wakeup-watermark/).
 */
#define FAST_RING_DIV 4
#define THREAD_POLL_MS 100
/* How long record_threads__start waits for the readers to be ready. */
#define READY_WAIT_US (1000 * 1000)

static void poke(int fd)
{
	uint64_t one = 1;

	if (fd >= 0)
		(void)!write(fd, &one, sizeof(one));
}

int record_threads__init(struct record_threads *rt, struct output *out, struct mmap *maps,
			 int nr, int *const *idx, const int *nr_idx,
			 struct cpu_map *const *affinity, int main_wake_fd,
			 uint64_t sample_type, uint64_t now)
{
	memset(rt, 0, sizeof(*rt));
	rt->out = out;
	sample_layouts__init(&rt->layouts);
	rt->nr = nr;
	rt->main_wake_fd = main_wake_fd;
	atomic_init(&rt->stop, false);
	atomic_init(&rt->failed, 0);
	atomic_init(&rt->hung, 0);
	atomic_init(&rt->fifo_refused, false);
	atomic_init(&rt->demoted, false);
	atomic_init(&rt->ready, 0);
	rounds__init(&rt->rounds, nr, now, ROUND_WAKE_NS);
	rt->t = xzalloc(nr * sizeof(*rt->t));
	for (int i = 0; i < nr; i++) {
		struct record_thread *t = &rt->t[i];

		t->idx = i;
		t->set = rt;
		atomic_init(&t->pub_samples, 0);
		atomic_init(&t->pub_lost, 0);
		atomic_init(&t->pub_queue, 0);
		t->nr_maps = nr_idx[i];
		t->maps = xzalloc((nr_idx[i] + 1) * sizeof(*t->maps));
		for (int k = 0; k < nr_idx[i]; k++)
			t->maps[k] = &maps[idx[i][k]];
		t->affinity = affinity ? affinity[i] : NULL;
		t->pass.bufs = xzalloc((nr_idx[i] + 1) * sizeof(*t->pass.bufs));
		t->pass.rounds = &rt->rounds;
		record_stats__init(&t->stats, sample_type);
		dso_hits__init(&t->hits, sample_type, true);
		t->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (t->wake_fd < 0) {
			int err = -errno;

			pr_err("eventfd: %s\n", strerror(-err));
			return err;
		}
		t->nfds = t->nr_maps + 1;
		t->live = t->nr_maps;
		t->assigned = t->nr_maps;
		pthread_mutex_init(&t->adopt_lock, NULL);
		atomic_init(&t->adopt_pending, false);
		t->pfd = xzalloc(t->nfds * sizeof(*t->pfd));
		for (int k = 0; k < t->nr_maps; k++) {
			t->pfd[k].fd = t->maps[k]->fd;
			/* A backward ring is read at a snapshot, never for its watermark: hang-ups only. */
			t->pfd[k].events = t->maps[k]->backward ? 0 : POLLIN;
		}
		t->pfd[t->nfds - 1].fd = t->wake_fd;
		t->pfd[t->nfds - 1].events = POLLIN;
	}
	return 0;
}

int record_threads__pipelines(struct record_threads *rt, const struct writer_ops *ops,
			      int nr_bufs, size_t ring_size, int comp_level, bool comp_auto)
{
	for (int i = 0; i < rt->nr; i++) {
		struct record_thread *t = &rt->t[i];
		uint64_t budget = rt->budget, share = budget / rt->nr;
		struct pipeline_config cfg = {
			.out = rt->out,
			.ops = ops,
			.max_chunks = (t->nr_maps + rt->spare_rings) * nr_bufs,
			.ring_size = ring_size,
			.comp_level = comp_level,
			.comp_auto = comp_auto,
			.budget = !budget ? 0 : MAX(share, (uint64_t)TRIAGE_MIN_CHUNKS * ring_size),
			.layouts = &rt->layouts,
			.unwind = rt->unwind,
			.rounds = &rt->rounds,
			.thread = i,
		};
		int err = pipeline__init(&t->pipe, &cfg);

		if (err)
			return err;
		t->pass.stage = t->pipe.head;
	}
	return 0;
}

void record_threads__stage_stats(struct record_threads *rt, struct stage_stats *s)
{
	for (int i = 0; i < rt->nr; i++)
		if (rt->t[i].pipe.head)
			pipeline__stats(&rt->t[i].pipe, s);
}

int record_threads__retarget(struct record_threads *rt, int fd)
{
	for (int i = 0; i < rt->nr; i++) {
		int err = rt->t[i].pipe.head ? pipeline__retarget(&rt->t[i].pipe, fd) : 0;

		if (err) {
			pr_err("reader thread %d: cannot point its writer at the new file: %s\n", i,
			       strerror(-err));
			return err;
		}
	}
	return 0;
}

/* ---- a pass over the rings ------------------------------------------------- */

/*
 * Copy ring m (mmap__copy), handing on what must go first: the buffer it fills, when
 * that has no room for what is ready, and waiting for one of its buffers
 * to come back when all are in flight (back-pressure: wait, never spin).
 */
ssize_t pass__copy_ring(struct mmap *m, struct stage *s, bool may_defer, struct mmap_buf **bufp)
{
	for (;;) {
		ssize_t n = m->backward ? backward__copy(m, bufp) : mmap__copy(m, may_defer, bufp);
		int err;

		/* An AUX area's trace goes behind its ring's records (record/aux.h). */
		if (n >= 0 && m->aux)
			n = aux__copy_ring(m, n, bufp);

		if (n == -ENOSPC) {
			struct chunk *c = mmap__hand_over(m->filling);

			err = stage__submit(s, &c, 1, NULL);
		} else if (n == -ENOBUFS) {
			m->nr_waits++;
			err = stage__reap(s, true);
		} else {
			return n;
		}
		if (err)
			return err;
	}
}

ssize_t pass__push(struct mmap *m, struct stage *s)
{
	struct mmap_buf *b = NULL;
	ssize_t n = pass__copy_ring(m, s, false, &b);
	struct chunk *c;
	int err;

	if (n <= 0)
		return n;
	c = mmap__hand_over(b);
	err = stage__submit(s, &c, 1, NULL);
	return err ? err : n;
}

ssize_t pass__copy(struct mmap **maps, int nr_maps, struct pass *p, bool may_defer)
{
	ssize_t total = 0;

	p->nr = 0;
	p->deferred = 0;
	p->held = 0;
	p->round = false;
	p->may_defer = may_defer;
	if (p->rounds)
		p->gen = rounds__begin(p->rounds);
	for (int i = 0; i < nr_maps; i++) {
		struct mmap_buf *b = NULL;
		ssize_t n = pass__copy_ring(maps[i], p->stage, may_defer, &b);

		if (n == -EAGAIN) {
			p->deferred++;
			continue;
		}
		if (n < 0)
			return n;
		/* Nothing new, but it holds what earlier passes copied. */
		if (!b && maps[i]->filling) {
			b = maps[i]->filling;
			b->fresh = b->len;
		}
		if (b)
			p->bufs[p->nr++] = b;
		total += n;
	}
	return total;
}

/*
 * Is this chunk kept in its buffer for the ring's next copies (fewer,
 * larger writes)? With one buffer per ring (--aio, the default writer),
 * only under 1/PASS_HOLD_DIV of the ring: while that buffer is written
 * the ring cannot be copied, so it must go out while the ring still has
 * room. With more, until the buffer is full: the next copies take another
 * buffer while it is written (bench/results/2026-11-30-kept-chunks/,
 * 2026-11-30-kept-until-full/).
 */
static bool keep_chunk(const struct mmap_buf *b)
{
	const struct mmap *m = b->map;

	if (m->nr_bufs > 1)
		return b->len < m->size;
	return b->len * PASS_HOLD_DIV < m->size;
}

int pass__submit(struct pass *p, uint64_t now)
{
	struct chunk *c[p->nr + 1];
	struct pass_end end = { .gen = p->gen, .now = now };
	int n = 0, err;

	/* Chunks wait in their buffer for more, unless this pass may not. */
	for (int i = 0; i < p->nr; i++) {
		struct mmap_buf *b = p->bufs[i];

		if (p->may_defer && keep_chunk(b)) {
			b->map->nr_holds++;
			p->held++;
		} else {
			c[n++] = mmap__hand_over(b);
		}
	}
	end.clean = !p->deferred && !p->held;
	end.data = n > 0;
	err = stage__submit(p->stage, c, n, &end);
	p->round = end.round;
	return err;
}

/* ---- the reader ------------------------------------------------------------ */

/* The round has stayed open too long: wake the readers that hold it back. */
static void wake_stale(struct record_thread *t, uint64_t now)
{
	struct record_threads *rt = t->set;
	int stale[rt->nr];
	int n = rounds__stale(&rt->rounds, stale, now);

	for (int i = 0; i < n; i++) {
		if (stale[i] == t->idx)
			continue;
		poke(rt->t[stale[i]].wake_fd);
		t->round_wakes++;
	}
}

int record_threads__adopt(struct record_threads *rt, struct mmap *m)
{
	struct record_thread *t = &rt->t[0];

	for (int i = 1; i < rt->nr; i++)
		if (rt->t[i].assigned < t->assigned)
			t = &rt->t[i];
	pthread_mutex_lock(&t->adopt_lock);
	if (t->nr_adopt == t->cap_adopt) {
		t->cap_adopt = t->cap_adopt ? 2 * t->cap_adopt : 4;
		t->adopt = xrealloc(t->adopt, t->cap_adopt * sizeof(*t->adopt));
	}
	t->adopt[t->nr_adopt++] = m;
	pthread_mutex_unlock(&t->adopt_lock);
	t->assigned++;
	atomic_store_explicit(&t->adopt_pending, true, memory_order_release);
	poke(t->wake_fd);
	return t->idx;
}

/* The rings handed to t since its last step join its own: polled after the others, before wake_fd. */
static void take_adopted(struct record_thread *t)
{
	pthread_mutex_lock(&t->adopt_lock);
	atomic_store_explicit(&t->adopt_pending, false, memory_order_relaxed);
	for (int i = 0; i < t->nr_adopt; i++) {
		struct mmap *m = t->adopt[i];

		t->maps = xrealloc(t->maps, (t->nr_maps + 2) * sizeof(*t->maps));
		t->pass.bufs = xrealloc(t->pass.bufs, (t->nr_maps + 2) * sizeof(*t->pass.bufs));
		t->pfd = xrealloc(t->pfd, (t->nfds + 1) * sizeof(*t->pfd));
		t->pfd[t->nfds] = t->pfd[t->nfds - 1];
		t->pfd[t->nr_maps] = (struct pollfd){ .fd = m->fd, .events = m->backward ? 0 : POLLIN };
		t->maps[t->nr_maps++] = m;
		t->nfds++;
		t->live++;
	}
	t->nr_adopt = 0;
	pthread_mutex_unlock(&t->adopt_lock);
}

ssize_t record_thread__step(struct record_thread *t, uint64_t now, bool last)
{
	struct record_threads *rt = t->set;
	struct pass *p = &t->pass;
	/* Signed: another reader may have closed a round after now was read. */
	int64_t age = (int64_t)(now - atomic_load_explicit(&rt->rounds.last_ns,
							   memory_order_relaxed));
	/*
	 * A ring may be put off, a chunk kept, only while the last round
	 * closed less than ROUND_MAX_NS ago: with many rings some ring could
	 * be busy in every pass, and a round that never closes makes perf
	 * report hold every event in memory before it sorts.
	 */
	bool may_defer = !last && age < (int64_t)ROUND_MAX_NS;
	ssize_t n;
	int err;

	if (atomic_load_explicit(&t->adopt_pending, memory_order_acquire))
		take_adopted(t);
	n = pass__copy(t->maps, t->nr_maps, p, may_defer);

	t->fast_rings = 0;
	for (int i = 0; i < p->nr; i++) {
		struct mmap_buf *b = p->bufs[i];
		size_t fresh = b->len - b->fresh;

		record_stats__observe(&t->stats, b->data + b->fresh, fresh);
		if (t->hits.on)
			dso_hits__observe(&t->hits, b->data + b->fresh, fresh);
		if (rt->live)
			live_maps__observe(rt->live, t->idx, b->data + b->fresh, fresh);
		/* A ring that filled this much since the last pass is fast. */
		if ((uint64_t)fresh * FAST_RING_DIV >= b->map->size)
			t->fast_rings++;
	}
	/* --unwind: what the rings held when the pass began is in the feed (live-maps.h). */
	if (rt->live)
		live_maps__fed(rt->live, t->idx, last ? UINT64_MAX : now);
	err = pass__submit(p, now);
	if (!p->round && rt->nr > 1 && !last && age >= (int64_t)ROUND_WAKE_NS)
		wake_stale(t, now);
	if (n < 0)
		return n;
	if (err)
		return err;
	/* What the pipeline is done with comes back: written, or -z: compressed. */
	err = stage__reap(t->pipe.head, false);
	atomic_store_explicit(&t->pub_samples, t->stats.samples, memory_order_relaxed);
	atomic_store_explicit(&t->pub_lost, record_stats__lost(&t->stats), memory_order_relaxed);
	atomic_store_explicit(&t->pub_queue, pipeline__queued(&t->pipe), memory_order_relaxed);
	return err ? err : n;
}

int record_thread__sleep(struct record_thread *t, int timeout_ms)
{
	int r = poll(t->pfd, t->nfds, timeout_ms);

	if (r < 0)
		return errno == EINTR ? 0 : -errno;
	if (r == 0)
		return 0;
	t->wakeups++;
	if (t->pfd[t->nfds - 1].revents) {
		uint64_t v;

		(void)!read(t->wake_fd, &v, sizeof(v));
	}
	for (int i = 0; i < t->nr_maps; i++) {
		/* The events' tasks are gone: drain, but stop polling it. */
		if (t->pfd[i].fd >= 0 && (t->pfd[i].revents & (POLLHUP | POLLERR))) {
			t->pfd[i].fd = -1;
			t->live--;
		}
	}
	return r;
}

int record_thread__timeout(struct record_thread *t, uint64_t now, int max_ms)
{
	uint64_t last = atomic_load_explicit(&t->set->rounds.last_ns, memory_order_relaxed);
	uint64_t due = last + ROUND_MAX_NS;
	bool kept = false;

	for (int i = 0; i < t->nr_maps && !kept; i++)
		kept = t->maps[i]->filling != NULL;
	if (!kept)
		return max_ms;
	if (due <= now)
		return 0;
	return (int)MIN((uint64_t)max_ms, (due - now + 999999) / 1000000);
}

static void fail(struct record_thread *t, int err)
{
	struct record_threads *rt = t->set;
	int none = 0;

	t->err = err;
	atomic_compare_exchange_strong(&rt->failed, &none, err);
	atomic_store(&rt->stop, true);
	poke(rt->main_wake_fd);
}

static void pin(struct record_thread *t, pthread_t who)
{
	cpu_set_t set;
	int err;

	if (!t->affinity || !t->affinity->nr)
		return;
	CPU_ZERO(&set);
	for (int i = 0; i < t->affinity->nr; i++)
		if (t->affinity->cpu[i] >= 0 && t->affinity->cpu[i] < CPU_SETSIZE)
			CPU_SET(t->affinity->cpu[i], &set);
	err = pthread_setaffinity_np(who, sizeof(set), &set);
	if (err)
		pr_debug("reader thread %d: sched_setaffinity: %s\n", t->idx, strerror(err));
}

static void set_affinity(struct record_thread *t)
{
	pin(t, pthread_self());
}

void record_threads__repin(struct record_threads *rt, int cpu)
{
	for (int i = 0; i < rt->nr; i++) {
		struct record_thread *t = &rt->t[i];

		if (t->started && cpu_map__contains(t->affinity, cpu))
			pin(t, t->tid);
	}
}

static int set_fifo(int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	/*
	 * SCHED_RESET_ON_FORK: what the reader clones, glibc's AIO helpers
	 * inside aio_write(), starts at SCHED_OTHER (record/helper-threads.c).
	 */
	return pthread_setschedparam(pthread_self(), (prio ? SCHED_FIFO : SCHED_OTHER) |
				     SCHED_RESET_ON_FORK, &sp);
}

void record_thread__settle(struct record_thread *t)
{
	const struct reader_sched *s = &t->set->sched;
	int err;

	set_affinity(t);
	if (!s->fifo)
		return;
	err = set_fifo(s->fifo);
	t->fifo = !err;
	/* One notice for all the readers; they run on at their nice value. */
	if (err && !atomic_exchange(&t->set->fifo_refused, true) && s->fifo_notice)
		pr_warn("readers at normal priority: SCHED_FIFO %d was refused (%s; it "
			"needs CAP_SYS_NICE or RLIMIT_RTPRIO >= %d); rings may overflow "
			"sooner\n", s->fifo, strerror(err), s->fifo);
}

int record_threads__demote(struct record_threads *rt)
{
	struct sched_param sp = { .sched_priority = 0 };
	int n = 0;

	if (!rt->sched.fifo || atomic_exchange(&rt->demoted, true))
		return 0;
	for (int i = 0; i < rt->nr; i++)
		if (rt->t[i].started &&
		    /* Keeping SCHED_RESET_ON_FORK: clearing it needs CAP_SYS_NICE. */
		    !pthread_setschedparam(rt->t[i].tid, SCHED_OTHER | SCHED_RESET_ON_FORK, &sp))
			n++;
	return n;
}

static void *thread_main(void *arg)
{
	struct record_thread *t = arg;
	struct record_threads *rt = t->set;
	bool hung = false;
	char name[16];

	/* "perfcap-rdN" in ps and /proc/PID/task/TID/comm. */
	snprintf(name, sizeof(name), "perfcap-rd%d", t->idx);
	pthread_setname_np(pthread_self(), name);
	record_thread__settle(t);
	while (!atomic_load_explicit(&rt->stop, memory_order_acquire)) {
		ssize_t n = record_thread__step(t, mono_ns(), false);
		int r;

		/* Settled and one step done (its first costs paid): see record_threads__start. */
		if (!t->ready) {
			t->ready = true;
			atomic_fetch_add_explicit(&rt->ready, 1, memory_order_release);
		}
		if (n < 0) {
			fail(t, (int)n);
			break;
		}
		/* Under SCHED_FIFO a spinning reader would hold its CPU: it sleeps. */
		if (t->fast_rings && !t->fifo) {
			t->spins++;
			continue;
		}
		r = record_thread__sleep(t, record_thread__timeout(t, mono_ns(), THREAD_POLL_MS));
		if (r < 0) {
			fail(t, r);
			break;
		}
		if (!t->live && !hung) {
			/* Every ring hung up: the record loop decides whether that ends it. */
			hung = true;
			atomic_fetch_add(&rt->hung, 1);
			poke(rt->main_wake_fd);
		}
	}
	return NULL;
}

int record_threads__start(struct record_threads *rt)
{
	sigset_t all, old;
	int err = 0;

	for (int i = 0; i < rt->nr && !err; i++)
		if (rt->t[i].pipe.head)
			err = pipeline__start(&rt->t[i].pipe);
	if (err)
		return err;
	/* Signals are the record loop's: the readers start with them blocked. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (int i = 0; i < rt->nr && !err; i++) {
		err = own_thread__create(&rt->t[i].tid, thread_main, &rt->t[i]);
		if (err)
			pr_err("cannot start reader thread %d: %s\n", i, strerror(-err));
		else
			rt->t[i].started = true;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/*
	 * The events go on only when every reader is on its CPU, at its
	 * priority, and past its first step: a reader still migrating or
	 * faulting in its buffers when the first samples come finds its
	 * first ring already full (bench/results/2026-12-01-ready-wait/).
	 */
	for (int waited_us = 0; !err && waited_us < READY_WAIT_US; waited_us += 50) {
		if (atomic_load_explicit(&rt->ready, memory_order_acquire) == rt->nr ||
		    atomic_load(&rt->stop))
			break;
		usleep(50);
	}
	return err;
}

int record_threads__stop(struct record_threads *rt)
{
	atomic_store_explicit(&rt->stop, true, memory_order_release);
	for (int i = 0; i < rt->nr; i++) {
		if (!rt->t[i].started)
			continue;
		poke(rt->t[i].wake_fd);
		pthread_join(rt->t[i].tid, NULL);
		rt->t[i].started = false;
	}
	return atomic_load(&rt->failed);
}

ssize_t record_threads__last_pass(struct record_threads *rt, uint64_t now)
{
	ssize_t total = 0;

	for (int i = 0; i < rt->nr; i++) {
		ssize_t n = record_thread__step(&rt->t[i], now, true);

		if (n < 0)
			return n;
		total += n;
	}
	return total;
}

int record_threads__drain(struct record_threads *rt)
{
	for (int i = 0; i < rt->nr; i++)
		if (rt->t[i].pipe.head)
			output__set_err(rt->out, pipeline__drain(&rt->t[i].pipe));
	return rt->out->err;
}

void record_threads__exit(struct record_threads *rt)
{
	if (!rt->t)
		return;
	record_threads__stop(rt);
	for (int i = 0; i < rt->nr; i++) {
		struct record_thread *t = &rt->t[i];

		/* Its chunks come back (and release their rings) before the rings go. */
		if (t->pipe.head)
			pipeline__exit(&t->pipe);
		t->pass.stage = NULL;
		if (t->wake_fd >= 0)
			close(t->wake_fd);
		free(t->maps);
		free(t->pfd);
		free(t->pass.bufs);
		free(t->adopt);
		pthread_mutex_destroy(&t->adopt_lock);
		dso_hits__exit(&t->hits);
	}
	free(rt->t);
	rt->t = NULL;
	rounds__exit(&rt->rounds);
	sample_layouts__exit(&rt->layouts);
}

void record_threads__stats(struct record_threads *rt, struct record_stats *s)
{
	for (int i = 0; i < rt->nr; i++)
		record_stats__merge(s, &rt->t[i].stats);
}

uint64_t record_threads__sum(struct record_threads *rt, size_t field_offset)
{
	uint64_t sum = 0;

	for (int i = 0; i < rt->nr; i++) {
		uint64_t v;

		memcpy(&v, (char *)&rt->t[i] + field_offset, sizeof(v));
		sum += v;
	}
	return sum;
}
