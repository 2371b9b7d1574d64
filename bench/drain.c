// SPDX-License-Identifier: GPL-2.0
/*
 * Drain capacity without the kernel: how many MB/s reader threads move
 * from rings into one file, with the recorder's own code (mmap.c,
 * record-thread.c, output.c, the writers). Producer threads fill fake
 * rings in ordinary memory as fast as they can (or at -r MB/s each), the
 * way the kernel fills perf rings: records of -b bytes, data_head published
 * with a release store, a record dropped when the ring has no room. Each
 * producer pokes its ring's reader every half ring, as the kernel wakes
 * perfcap's readers (watermark 0: half the ring).
 *
 *   build/bench/drain [-t READERS] [-p RINGS] [-m RING_KIB] [-b RECORD_BYTES]
 *                     [-r MB_PER_S_PER_RING] [-d SECONDS] [-w sync|aio|uring]
 *                     [-a BUFFERS] [-s] -o FILE
 *
 * -s: the readers never sleep (one record_thread__step after another, no
 * pokes): what the copy-out code moves when waking up costs nothing, to
 * set against memcpy. Without it a reader sleeps in poll() between passes
 * as the recorder does, and the wakeups are part of the cost.
 *
 * Prints one CSV row: readers,rings,ring_kib,record,rate_mb_s,writer (-spin with -s),
 * bufs,seconds,produced_mb,dropped_fraction,drained_mb_s,memcpy_mb_s,
 * reader_cpu_s,drained_mb_per_cpu_s (memcpy_mb_s: one thread copying
 * 64 MiB blocks, measured in the same run, before the drain; reader_cpu_s:
 * the reader threads' CPU time, user and system, while the producers ran;
 * the last column is what the readers moved per second of their CPU). Not a test: numbers go to bench/results/.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "record/mmap.h"
#include "io/output.h"
#include "record/record-thread.h"
#include "io/writer.h"

#define PAGE 4096

struct ring {
	void *mem;
	struct perf_event_mmap_page *pc;
	unsigned char *data;
	uint64_t size;
	int reader;
	uint64_t produced, dropped;	/* bytes */
	pthread_t tid;
};

static struct ring *rings;
static struct record_threads rt;
static int rec_bytes = 256;
static double rate_mb_s;		/* per ring; 0: as fast as it can */
static _Atomic bool stop;
static bool spin;			/* -s: readers step without sleeping */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *produce(void *arg)
{
	struct ring *r = arg;
	unsigned char rec[65536];
	struct perf_event_header *h = (void *)rec;
	uint64_t next_poke = r->size / 2, t = 0;
	double start = now_s();

	memset(rec, 0xab, sizeof(rec));
	h->type = PERF_RECORD_SAMPLE;
	h->misc = 0;
	h->size = (uint16_t)rec_bytes;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		uint64_t head = r->pc->data_head;
		/* Acquire: pairs with the reader's release of data_tail. */
		uint64_t tail = __atomic_load_n(&r->pc->data_tail, __ATOMIC_ACQUIRE);
		uint64_t off = head & (r->size - 1), first;

		/* Paced: ahead of the rate, sleep a millisecond (a 512 KiB ring holds ~12 ms at 43 MB/s). */
		if (rate_mb_s > 0 && r->produced + r->dropped > (now_s() - start) * rate_mb_s * 1e6) {
			usleep(1000);
			continue;
		}
		memcpy(rec + sizeof(*h), &t, sizeof(t));
		t++;
		if (head + rec_bytes - tail > r->size) {
			r->dropped += rec_bytes;
			continue;
		}
		first = r->size - off < (uint64_t)rec_bytes ? r->size - off : (uint64_t)rec_bytes;
		memcpy(r->data + off, rec, first);
		if (first < (uint64_t)rec_bytes)
			memcpy(r->data, rec + first, rec_bytes - first);
		/* Release: the record is in place before the reader sees the head. */
		__atomic_store_n(&r->pc->data_head, head + rec_bytes, __ATOMIC_RELEASE);
		r->produced += rec_bytes;
		if (!spin && head + rec_bytes >= next_poke) {
			uint64_t one = 1;

			(void)!write(rt.t[r->reader].wake_fd, &one, sizeof(one));
			next_poke = head + rec_bytes + r->size / 2;
		}
	}
	return NULL;
}

/* -s: a reader that goes from pass to pass without sleeping. */
static void *spin_reader(void *arg)
{
	struct record_thread *t = arg;

	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		if (record_thread__step(t, 0, false) < 0)
			break;
	return NULL;
}

static double memcpy_mb_s(void)
{
	size_t n = 64 << 20;
	char *a = malloc(n), *b = malloc(n);
	double t0, t;
	int reps = 0;

	memset(a, 1, n);
	memset(b, 2, n);
	t0 = now_s();
	do {
		memcpy(b, a, n);
		reps++;
		t = now_s() - t0;
	} while (t < 0.5);
	free(a);
	free(b);
	return reps * (n / 1e6) / t;
}

int main(int argc, char **argv)
{
	int readers = 1, nr = 1, kib = 512, bufs = 1, opt;
	double secs = 2;
	const char *wname = "sync", *path = NULL;
	const struct writer_ops *ops;
	struct writer main_w;
	struct output out;
	struct mmap *maps;
	int **idx, *nr_idx, fd;
	uint64_t produced = 0, dropped = 0, drained;
	struct stat st;
	double mc, t0, t1, reader_cpu = 0;

	pthread_t *spinners;

	while ((opt = getopt(argc, argv, "t:p:m:b:r:d:w:a:o:s")) != -1) {
		switch (opt) {
		case 't': readers = atoi(optarg); break;
		case 'p': nr = atoi(optarg); break;
		case 'm': kib = atoi(optarg); break;
		case 'b': rec_bytes = atoi(optarg); break;
		case 'r': rate_mb_s = atof(optarg); break;
		case 'd': secs = atof(optarg); break;
		case 'w': wname = optarg; break;
		case 'a': bufs = atoi(optarg); break;
		case 'o': path = optarg; break;
		case 's': spin = true; break;
		default:
			fprintf(stderr, "usage: drain [-t readers] [-p rings] [-m ring_kib] [-b record] "
				"[-r MB/s per ring] [-d s] [-w sync|aio|uring] [-a bufs] [-s] -o FILE\n");
			return 2;
		}
	}
	ops = writer__find(wname);
	if (!path || !ops || readers < 1 || nr < readers || rec_bytes < 16 ||
	    rec_bytes > 65528 || rec_bytes % 8 || kib < 4 || (kib & (kib - 1))) {
		fprintf(stderr, "drain: bad arguments (see the usage in bench/drain.c)\n");
		return 2;
	}
	mc = memcpy_mb_s();
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	if (writer__init(&main_w, ops, fd, 16))
		return 1;
	output__init_fd(&out, fd, &main_w);
	rings = calloc(nr, sizeof(*rings));
	maps = calloc(nr, sizeof(*maps));
	idx = calloc(readers, sizeof(*idx));
	nr_idx = calloc(readers, sizeof(*nr_idx));
	for (int i = 0; i < readers; i++)
		idx[i] = calloc(nr, sizeof(int));
	for (int i = 0; i < nr; i++) {
		struct ring *r = &rings[i];

		r->size = (uint64_t)kib << 10;
		r->mem = aligned_alloc(PAGE, PAGE + r->size);
		memset(r->mem, 0, PAGE + r->size);
		r->pc = r->mem;
		r->data = (unsigned char *)r->mem + PAGE;
		/* Rings dealt round-robin to the readers. */
		r->reader = i % readers;
		idx[r->reader][nr_idx[r->reader]++] = i;
		if (mmap__init_fake(&maps[i], r->mem, PAGE, r->size, bufs))
			return 1;
	}
	if (record_threads__init(&rt, &out, maps, readers, idx, nr_idx, NULL, -1,
				 PERF_SAMPLE_TIME, 0) ||
	    record_threads__pipelines(&rt, ops, bufs, (size_t)kib << 10, 0, false) ||
	    (!spin && record_threads__start(&rt)))
		return 1;
	spinners = calloc(readers, sizeof(*spinners));
	for (int i = 0; spin && i < readers; i++)
		pthread_create(&spinners[i], NULL, spin_reader, &rt.t[i]);
	t0 = now_s();
	for (int i = 0; i < nr; i++)
		pthread_create(&rings[i].tid, NULL, produce, &rings[i]);
	usleep((useconds_t)(secs * 1e6));
	/* The readers' CPU time while the producers ran, read before they stop. */
	for (int i = 0; i < readers; i++) {
		clockid_t cid;
		struct timespec ts;

		if (!pthread_getcpuclockid(spin ? spinners[i] : rt.t[i].tid, &cid) &&
		    !clock_gettime(cid, &ts))
			reader_cpu += ts.tv_sec + ts.tv_nsec / 1e9;
	}
	atomic_store(&stop, true);
	for (int i = 0; i < nr; i++) {
		pthread_join(rings[i].tid, NULL);
		produced += rings[i].produced;
		dropped += rings[i].dropped;
	}
	for (int i = 0; spin && i < readers; i++)
		pthread_join(spinners[i], NULL);
	free(spinners);
	record_threads__stop(&rt);
	record_threads__last_pass(&rt, 0);
	record_threads__drain(&rt);
	t1 = now_s();
	writer__drain(&main_w);
	if (out.err) {
		fprintf(stderr, "drain: write failed: %s\n", strerror(-out.err));
		return 1;
	}
	/* Reserved bytes: with -o /dev/null the file stays empty. */
	drained = output__head(&out);
	printf("%d,%d,%d,%d,%g,%s%s,%d,%.2f,%.1f,%.4f,%.0f,%.0f,%.3f,%.0f\n", readers, nr, kib, rec_bytes,
	       rate_mb_s, wname, spin ? "-spin" : "", bufs, t1 - t0, produced / 1e6,
	       produced + dropped ? (double)dropped / (produced + dropped) : 0,
	       drained / 1e6 / (t1 - t0), mc, reader_cpu,
	       reader_cpu > 0 ? drained / 1e6 / reader_cpu : 0);
	record_threads__exit(&rt);
	for (int i = 0; i < nr; i++)
		mmap__close(&maps[i]);
	writer__exit(&main_w);
	close(fd);
	/* Only what it created: -o /dev/null must stay a device. */
	if (!stat(path, &st) && S_ISREG(st.st_mode))
		unlink(path);
	return 0;
}
