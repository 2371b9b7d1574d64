// SPDX-License-Identifier: GPL-2.0
/*
 * FINISHED_ROUND across reader threads (rounds.c, record-thread.c): the
 * file is read back and fed to a model of perf report's ordered-events
 * flush (PERFDATA.md B.6): at each round perf flushes the events it holds
 * up to the newest timestamp it had seen at the round before, and an
 * event that arrives older than the last one flushed is out of order.
 *
 * Two readers driven step by step in a fixed order show the rule at work
 * (and a rule without the cross-thread check failing the same model);
 * then real reader threads over fake rings filled by producer threads.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mmap.h"
#include "output.h"
#include "perf-file.h"
#include "record-thread.h"
#include "rounds.h"
#include "tmpdir.h"
#include "writer.h"

#define PAGE 4096
#define RING 4096
#define SEC 1000000000ULL

#include "fake-ring.h"

/* Kernel side: a SAMPLE with only a time, if there is room. */
static bool fake_sample(struct fake *f, uint64_t time)
{
	struct { struct perf_event_header h; uint64_t time; } rec = {
		{ PERF_RECORD_SAMPLE, 0, sizeof(rec) }, time,
	};
	uint64_t head = f->pc->data_head;
	/* Pairs with the reader's release store of data_tail. */
	uint64_t tail = __atomic_load_n(&f->pc->data_tail, __ATOMIC_ACQUIRE);
	const unsigned char *p = (const void *)&rec;

	if (head + sizeof(rec) - tail > RING)
		return false;
	for (size_t i = 0; i < sizeof(rec); i++)
		f->data[(head + i) & (RING - 1)] = p[i];
	__atomic_store_n(&f->pc->data_head, head + sizeof(rec), __ATOMIC_RELEASE);
	return true;
}

struct model {
	uint64_t samples, rounds, violations;
};

/* perf's ordered events, reduced to what decides "out of order". */
static struct model check_file(const char *path)
{
	struct model m = { 0 };
	uint64_t *queue = NULL, nq = 0, cap = 0;
	uint64_t next_flush = 0, max_ts = 0, last_flush = 0;
	struct stat st;
	unsigned char *buf;
	int fd = open(path, O_RDONLY);
	size_t off = 0;

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc(st.st_size + 1);
	assert_int_equal(read(fd, buf, st.st_size), st.st_size);
	close(fd);
	while (off + sizeof(struct perf_event_header) <= (size_t)st.st_size) {
		struct perf_event_header h;

		memcpy(&h, buf + off, sizeof(h));
		assert_true(h.size >= sizeof(h));
		if (h.type == PERF_RECORD_SAMPLE) {
			uint64_t ts;

			memcpy(&ts, buf + off + sizeof(h), 8);
			m.samples++;
			if (ts < last_flush)
				m.violations++;
			if (nq == cap) {
				cap = cap ? cap * 2 : 1024;
				queue = realloc(queue, cap * sizeof(*queue));
			}
			queue[nq++] = ts;
			if (ts > max_ts)
				max_ts = ts;
		} else if (h.type == PERF_RECORD_FINISHED_ROUND) {
			uint64_t keep = 0;

			m.rounds++;
			for (uint64_t i = 0; i < nq; i++) {
				if (queue[i] <= next_flush) {
					if (queue[i] > last_flush)
						last_flush = queue[i];
				} else {
					queue[keep++] = queue[i];
				}
			}
			nq = keep;
			next_flush = max_ts;
		}
		off += h.size;
	}
	free(queue);
	free(buf);
	return m;
}

static struct writer w;
static struct output out;
static const char *file;

static void open_out(const char *name)
{
	int fd;

	file = tpath(name);
	fd = open(file, O_CREAT | O_TRUNC | O_RDWR, 0600);
	assert_true(fd >= 0);
	assert_int_equal(writer__init(&w, &writer_sync_ops, fd, 64), 0);
	output__init_fd(&out, fd, &w);
}

static void close_out(void)
{
	writer__drain(&w);
	close(out.fd);
	out.fd = -1;
	output__close(&out);
	writer__exit(&w);
}

/*
 * Ring B holds an old event while reader A goes on alone: A may not
 * close a second round until B has had a pass, or B's event would land
 * behind a flush that passed it.
 */
static void run_fixed_order(bool per_thread_rounds, struct model *res)
{
	struct fake f[2];
	struct mmap m[2];
	struct record_threads rt;
	struct rounds own[2];
	int i0[] = { 0 }, i1[] = { 1 };
	int *idx[] = { i0, i1 }, nr_idx[] = { 1, 1 };
	uint64_t now = 0;
	int stale[2];

	open_out(per_thread_rounds ? "naive" : "fixed");
	for (int i = 0; i < 2; i++) {
		fake_init(&f[i]);
		assert_int_equal(mmap__init_fake(&m[i], f[i].mem, PAGE, RING, 1, &out), 0);
	}
	assert_int_equal(record_threads__init(&rt, &out, m, 2, idx, nr_idx, NULL, false, -1,
					      PERF_SAMPLE_TIME, 0), 0);
	if (per_thread_rounds) {
		/* The rule without the cross-thread check: each reader on its own. */
		for (int i = 0; i < 2; i++) {
			rounds__init(&own[i], 1, 0);
			rt.t[i].pass.rounds = &own[i];
			rt.t[i].pass.thread = 0;
		}
	}
	assert_true(fake_sample(&f[0], 1));
	assert_true(fake_sample(&f[1], 2));
	/* Steps a second apart: no chunk is kept, every pass is clean. */
	assert_true(record_thread__step(&rt.t[0], now += SEC, false) > 0);
	assert_true(fake_sample(&f[0], 3));
	assert_true(record_thread__step(&rt.t[0], now += SEC, false) > 0);
	if (!per_thread_rounds) {
		/* B holds the round back: A's step woke it, once for this round. */
		assert_int_equal(rt.t[0].round_wakes, 1);
		assert_int_equal(rounds__stale(&rt.rounds, stale), 0);
	}
	assert_true(fake_sample(&f[0], 4));
	assert_true(record_thread__step(&rt.t[0], now += SEC, false) > 0);
	assert_true(record_thread__step(&rt.t[1], now += SEC, false) > 0);
	assert_true(fake_sample(&f[0], 5));
	assert_true(record_thread__step(&rt.t[0], now += SEC, false) > 0);
	assert_true(record_thread__step(&rt.t[1], now += SEC, false) == 0);
	assert_true(record_thread__step(&rt.t[0], now += SEC, false) == 0);

	record_threads__exit(&rt);
	for (int i = 0; i < 2; i++) {
		mmap__close(&m[i]);
		free(f[i].mem);
		if (per_thread_rounds)
			rounds__exit(&own[i]);
	}
	close_out();
	*res = check_file(file);
}

static void test_round_waits_for_every_reader(void **state)
{
	struct model m;

	run_fixed_order(false, &m);
	assert_int_equal(m.samples, 5);
	assert_true(m.rounds >= 2);
	assert_int_equal(m.violations, 0);
}

static void test_model_catches_rounds_per_reader(void **state)
{
	struct model m;

	/* The same steps with each reader closing rounds alone: perf would complain. */
	run_fixed_order(true, &m);
	assert_int_equal(m.samples, 5);
	assert_true(m.violations > 0);
}

/* ---- real threads ------------------------------------------------------- */

#define NR_READERS 3
#define RINGS_PER 2
#define NR_RINGS (NR_READERS * RINGS_PER)
#define EVENTS_PER_PRODUCER 60000

static struct fake rings[NR_RINGS];
static struct record_threads live;
/*
 * The clock and the ring writes under one lock: an event is in its ring
 * before any event with a later time is, as the kernel's events are
 * (give or take the skew perf itself accepts).
 */
static pthread_mutex_t clock_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t clock_now;
static uint64_t produced, dropped;

/* Producer p writes rings p and p + NR_READERS: they belong to different readers. */
static void *producer(void *arg)
{
	int p = (int)(intptr_t)arg;
	unsigned int seed = p + 1;

	for (int i = 0; i < EVENTS_PER_PRODUCER; i++) {
		int r = p + NR_READERS * (rand_r(&seed) % RINGS_PER);
		bool ok;

		pthread_mutex_lock(&clock_lock);
		ok = fake_sample(&rings[r], ++clock_now);
		produced += ok;
		dropped += !ok;
		pthread_mutex_unlock(&clock_lock);
		/* Now and then the kernel's watermark: wake the ring's reader. */
		if (i % 64 == 0) {
			uint64_t one = 1;
			struct record_thread *t = &live.t[r / RINGS_PER];

			(void)!write(t->wake_fd, &one, sizeof(one));
		}
		if (i % 1024 == 0)
			usleep(rand_r(&seed) % 500);
	}
	return NULL;
}

static void test_reader_threads_keep_perf_order(void **state)
{
	struct mmap m[NR_RINGS];
	int idx_mem[NR_READERS][RINGS_PER], *idx[NR_READERS], nr_idx[NR_READERS];
	pthread_t prod[NR_READERS];
	struct model res;

	open_out("threads");
	/* Reader i drains rings i*RINGS_PER .. i*RINGS_PER + RINGS_PER - 1. */
	for (int i = 0; i < NR_RINGS; i++) {
		fake_init(&rings[i]);
		assert_int_equal(mmap__init_fake(&m[i], rings[i].mem, PAGE, RING, 2, &out), 0);
	}
	for (int i = 0; i < NR_READERS; i++) {
		idx[i] = idx_mem[i];
		nr_idx[i] = RINGS_PER;
		for (int k = 0; k < RINGS_PER; k++)
			idx_mem[i][k] = i * RINGS_PER + k;
	}
	assert_int_equal(record_threads__init(&live, &out, m, NR_READERS, idx, nr_idx, NULL,
					      true, -1, PERF_SAMPLE_TIME, 0), 0);
	assert_int_equal(record_threads__writers(&live, &writer_sync_ops, 2), 0);
	assert_int_equal(record_threads__start(&live), 0);
	for (int p = 0; p < NR_READERS; p++)
		pthread_create(&prod[p], NULL, producer, (void *)(intptr_t)p);
	for (int p = 0; p < NR_READERS; p++)
		pthread_join(prod[p], NULL);
	assert_int_equal(record_threads__stop(&live), 0);
	assert_true(record_threads__last_pass(&live, clock_now) >= 0);
	assert_int_equal(record_threads__drain(&live), 0);
	record_threads__exit(&live);
	for (int i = 0; i < NR_RINGS; i++) {
		mmap__close(&m[i]);
		free(rings[i].mem);
	}
	close_out();

	res = check_file(file);
	print_message("%llu samples (%llu dropped by the fake kernel), %llu rounds\n",
		      (unsigned long long)res.samples, (unsigned long long)dropped,
		      (unsigned long long)res.rounds);
	/* Every event the fake kernel took is in the file, and in perf's order. */
	assert_int_equal(res.samples, produced);
	assert_true(res.rounds >= 5);
	assert_int_equal(res.violations, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_waits_for_every_reader),
		cmocka_unit_test(test_model_catches_rounds_per_reader),
		cmocka_unit_test(test_reader_threads_keep_perf_order),
	};

	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
