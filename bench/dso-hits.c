// SPDX-License-Identifier: GPL-2.0
/*
 * The readers' cost of noting hit DSOs (record/dso-hits.c), next to what
 * they do with every chunk anyway: copy it out of the ring (memcpy) and
 * count it (record_stats__observe). Chunks of 512 KiB of samples as
 * perfcap's default events write them (ip, tid, time, cpu, period: 48
 * bytes), their ips spread over -p code pages, -k samples in a row on one
 * page (the last-page shortcut), the rest drawn at random from the pages.
 *
 *   build/bench/dso-hits [-p PAGES] [-k RUN] [-r REPS] [-b RECORD_BYTES]
 *
 * Prints one CSV row: record_bytes,pages,run,samples,memcpy_ns,stats_ns,
 * hits_ns (each per sample, the best of REPS passes over the chunks),
 * hits_vs_memcpy (hits_ns / memcpy_ns). Not a test: numbers go to
 * bench/results/.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "record/dso-hits.h"
#include "record/record-stats.h"

#define CHUNK (512 * 1024)
#define NCHUNKS 16

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
		      PERF_SAMPLE_PERIOD;
	int pages = 200, run = 8, reps = 20, rec = 48, opt;
	static char chunks[NCHUNKS][CHUNK], dst[CHUNK];
	size_t per_chunk, samples;
	double best_cp = 1e9, best_st = 1e9, best_h = 1e9;
	uint64_t t = 1000, ip = 0x400000;
	volatile char sink;

	while ((opt = getopt(argc, argv, "p:k:r:b:")) != -1) {
		switch (opt) {
		case 'p': pages = atoi(optarg); break;
		case 'k': run = atoi(optarg); break;
		case 'r': reps = atoi(optarg); break;
		case 'b': rec = atoi(optarg) & ~7; break;
		default:
			fprintf(stderr, "usage: %s [-p PAGES] [-k RUN] [-r REPS] [-b BYTES]\n", argv[0]);
			return 2;
		}
	}
	if (pages < 1 || run < 1 || reps < 1 || rec < 48)
		return 2;
	per_chunk = CHUNK / rec;
	srandom(1);
	for (int c = 0; c < NCHUNKS; c++) {
		for (size_t i = 0; i < per_chunk; i++) {
			char *p = chunks[c] + i * rec;
			struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, rec };
			uint32_t pid[2] = { 4242, 4242 + (i & 3) };

			if (i % run == 0)
				ip = 0x400000 + (uint64_t)(random() % pages) * 4096;
			memset(p, 0, rec);
			memcpy(p, &h, sizeof(h));
			memcpy(p + 8, &ip, 8);
			memcpy(p + 16, pid, 8);
			t += 250000;
			memcpy(p + 24, &t, 8);
		}
	}
	samples = per_chunk * NCHUNKS;
	for (int r = 0; r < reps; r++) {
		struct record_stats s;
		struct dso_hits h;
		double t0, t1, t2, t3;

		record_stats__init(&s, st);
		dso_hits__init(&h, st, true);
		t0 = now();
		for (int c = 0; c < NCHUNKS; c++)
			memcpy(dst, chunks[c], per_chunk * rec);
		sink = dst[rec - 1];
		t1 = now();
		for (int c = 0; c < NCHUNKS; c++)
			record_stats__observe(&s, chunks[c], per_chunk * rec);
		t2 = now();
		for (int c = 0; c < NCHUNKS; c++)
			dso_hits__observe(&h, chunks[c], per_chunk * rec);
		t3 = now();
		if (s.samples != samples || h.nr_pages == 0 || h.nr_pages > (size_t)pages) {
			fprintf(stderr, "counted %llu samples, %zu pages\n",
				(unsigned long long)s.samples, h.nr_pages);
			return 1;
		}
		dso_hits__exit(&h);
		if (t1 - t0 < best_cp)
			best_cp = t1 - t0;
		if (t2 - t1 < best_st)
			best_st = t2 - t1;
		if (t3 - t2 < best_h)
			best_h = t3 - t2;
	}
	(void)sink;
	printf("%d,%d,%d,%zu,%.2f,%.2f,%.2f,%.2f\n", rec, pages, run, samples,
	       best_cp * 1e9 / samples, best_st * 1e9 / samples, best_h * 1e9 / samples,
	       best_h / best_cp);
	return 0;
}
