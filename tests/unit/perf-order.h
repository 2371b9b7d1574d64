/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What test_rounds.c and test_compress.c share: a fake kernel writing
 * time-stamped samples into fake rings from producer threads, an output
 * file to record into, and perf's ordered-events rule, reduced to what
 * decides "out of order", run over a buffer of records.
 *
 * Include after fake-ring.h, with PAGE and RING defined and the file's
 * own fake_sample(ring, time) (what a sample holds is the test's); the
 * producers need NR_READERS, RINGS_PER and EVENTS_PER_PRODUCER.
 */
#ifndef PERFCAP_TEST_PERF_ORDER_H
#define PERFCAP_TEST_PERF_ORDER_H

#define NR_RINGS (NR_READERS * RINGS_PER)

struct model {
	uint64_t samples, rounds, violations, compressed;
};

/*
 * perf's ordered events over len bytes of records: a round flushes what
 * is at or before the previous round's newest time; a sample older than
 * what was flushed is a violation. Returns where the walk stopped.
 */
static size_t model__walk(struct model *m, const unsigned char *buf, size_t len)
{
	uint64_t *queue = NULL, nq = 0, cap = 0;
	uint64_t next_flush = 0, max_ts = 0, last_flush = 0;
	size_t off = 0;

	while (off + sizeof(struct perf_event_header) <= len) {
		struct perf_event_header h;

		memcpy(&h, buf + off, sizeof(h));
		assert_true(h.size >= sizeof(h));
		if (h.type == PERF_RECORD_SAMPLE) {
			uint64_t ts;

			memcpy(&ts, buf + off + sizeof(h), 8);
			m->samples++;
			if (ts < last_flush)
				m->violations++;
			if (nq == cap) {
				cap = cap ? cap * 2 : 1024;
				queue = realloc(queue, cap * sizeof(*queue));
			}
			queue[nq++] = ts;
			if (ts > max_ts)
				max_ts = ts;
		} else if (h.type == PERF_RECORD_FINISHED_ROUND) {
			uint64_t keep = 0;

			m->rounds++;
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
	return off;
}

/* The whole file, malloc'ed; *len its size. */
static unsigned char *read_whole(const char *path, size_t *len)
{
	struct stat st;
	unsigned char *buf;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc(st.st_size + 1);
	assert_int_equal(read(fd, buf, st.st_size), st.st_size);
	close(fd);
	*len = st.st_size;
	return buf;
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
/* Longest pause between bursts of 1024 events (a test may want longer runs). */
#ifndef PRODUCER_PAUSE_US
#define PRODUCER_PAUSE_US 500
#endif

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
			usleep(rand_r(&seed) % PRODUCER_PAUSE_US);
	}
	return NULL;
}

#endif
