// SPDX-License-Identifier: GPL-2.0
/*
 * The end of a recording (record.h): the samples the kernel counted as
 * lost per event, written into the file as perf record writes them, and
 * the closing lines perfcap prints.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "perf-file.h"
#include "record/record.h"

/*
 * The kernel counts samples it dropped per event (read_format LOST);
 * perf record reports them as PERF_RECORD_LOST_SAMPLES at the end.
 */
static void emit_lost(struct record *rec, const struct evsel *e, int c, int fd)
{
	uint64_t st = e->attr.sample_type;
	struct { uint64_t value, id, lost; } r;
	char buf[128];
	struct perf_event_header *h = (void *)buf;
	uint64_t *p;

	if (fd < 0 || read(fd, &r, sizeof(r)) != sizeof(r) || !r.lost)
		return;
	memset(buf, 0, sizeof(buf));
	h->type = PERF_RECORD_LOST_SAMPLES;
	p = (uint64_t *)(h + 1);
	*p++ = r.lost;
	/* The sample_id trailer, so perf knows the event and CPU. */
	if (st & PERF_SAMPLE_TID)
		p++;
	if (st & PERF_SAMPLE_TIME)
		p++;
	if (st & PERF_SAMPLE_ID)
		*p++ = r.id;
	/* A slot past the event list's CPUs is a CPU that came online later: its ring's. */
	if (st & PERF_SAMPLE_CPU)
		*p++ = (uint32_t)(c < rec->evlist.cpus->nr ? rec->evlist.cpus->cpu[c] :
				  rec->rings.maps[c].cpu);
	if (st & PERF_SAMPLE_IDENTIFIER)
		*p++ = r.id;
	h->size = (char *)p - buf;
	rec->stats.lost_samples += r.lost;
	output__append(&rec->out, buf, h->size);
}

int record__emit_lost_samples(struct record *rec)
{
	struct evlist *el = &rec->evlist;
	struct evsel *e;

	evlist__for_each_evsel(el, e)
		for (int c = 0; c < e->nr_cpus; c++)
			for (int t = 0; t < e->nr_threads; t++)
				emit_lost(rec, e, c, FD(e, c, t));
	/* The events of CPUs that went offline: what they lost before. */
	for (int i = 0; i < rec->hotplug.nr_retired; i++) {
		const struct hotplug_retired *r = &rec->hotplug.retired[i];

		emit_lost(rec, el->evsels[r->evsel], r->c, r->fd);
	}
	return output__flush(&rec->out);
}

/*
 * Where the context switches are: the record loop (this thread) against
 * the rest of the process (the readers, the -z stages, the writers'
 * helper threads). The benchmark counts the process.
 */
static void print_switches(void)
{
	struct rusage self, loop;

	/* The thread first: a switch between the two calls then counts in both. */
	if (getrusage(RUSAGE_THREAD, &loop) || getrusage(RUSAGE_SELF, &self))
		return;
	fprintf(stderr, "[ perfcap record: context switches (voluntary/involuntary): "
		"%ld/%ld in the loop, %ld/%ld in other threads ]\n",
		loop.ru_nvcsw, loop.ru_nivcsw, self.ru_nvcsw - loop.ru_nvcsw,
		self.ru_nivcsw - loop.ru_nivcsw);
}

/* -zauto: did the output fall behind, and from when did the readers compress? */
static void summary_auto(const struct record *rec, const struct stage_stats *st)
{
	if (!st->compressing) {
		fprintf(stderr, "[ perfcap record: -zauto: the output kept up; nothing was "
			"compressed ]\n");
		return;
	}
	fprintf(stderr, "[ perfcap record: -zauto: the output fell behind; %llu of %d readers "
		"compressed from then on, the first %.1f s before the end ]\n",
		(unsigned long long)st->compressing, rec->readers.nr,
		(double)(mono_ns() - st->compress_from_ns) / 1e9);
}

void record__print_summary(struct record *rec, int err)
{
	struct record_stats *s = &rec->stats;
	struct record_threads *rt = &rec->readers;
	uint64_t lost = record_stats__lost(s);
	double pct = s->samples + lost ? 100.0 * lost / (s->samples + lost) : 0;
	uint64_t bytes = rec->ctl.bytes_before + output__head(&rec->out);
	struct stage_stats st = { 0 };
	unsigned long submits, shorts;

	if (verbose < 0)
		return;
	/* The readers' pipelines write the data (their output stages). */
	record_threads__stage_stats(rt, &st);
	submits = rec->writer.nr_submits + st.writes;
	shorts = rec->writer.nr_short + st.shorts;
	fprintf(stderr, "[ perfcap record: Woken up %llu times to write data ]\n",
		(unsigned long long)record_threads__total(rt, wakeups));
	fprintf(stderr, "[ perfcap record: %d reader threads (--threads=%s) ]\n", rt->nr,
		rec->opts.threads_spec);
	/* With --switch-output: the sums over every file, as "PATH.<timestamp>" (perf's words). */
	fprintf(stderr, "[ perfcap record: %s %.3f MB %s%s (%llu samples), lost %llu samples "
		"(%.2f%%, %llu LOST records), %s writer ]\n",
		err ? "Wrote (incomplete)" : "Captured and wrote",
		bytes / 1048576.0, rec->opts.output,
		rec->ctl.so.timestamp_filename ? ".<timestamp>" : "", (unsigned long long)s->samples,
		(unsigned long long)lost, pct, (unsigned long long)s->lost_records,
		rec->out.pipe ? "pipe" : rec->writer.ops ? rec->writer.ops->name : "no");
	if (rec->opts.comp_auto)
		summary_auto(rec, &st);
	if (rec->opts.comp_level && (!rec->opts.comp_auto || st.compressing)) {
		uint64_t in = st.bytes_in, out = st.bytes_out;

		fprintf(stderr, "[ perfcap record: compressed: %.3f MB of records in %.3f MB, "
			"ratio %.3f (zstd level %d) ]\n", in / 1048576.0, out / 1048576.0,
			out ? (double)in / out : 0.0, rec->opts.comp_level);
	}
	record__unwind_summary(rec, &st);
	if (st.dropped || st.cut)
		fprintf(stderr, "[ perfcap record: the output fell behind: %llu of %llu samples "
			"dropped (LOST_SAMPLES records), %llu kept samples weighted for them, "
			"%llu stacks cut to %d bytes ]\n", (unsigned long long)st.dropped,
			(unsigned long long)s->samples, (unsigned long long)st.carried,
			(unsigned long long)st.cut, TRIAGE_CUT_STACK);
	/* What bench/results/2026-12-05-unwind-behind/ says to do then. */
	if ((st.dropped || st.cut) && rec->opts.callgraph == CALLGRAPH_DWARF && !rec->opts.unwind)
		fprintf(stderr, "[ perfcap record: --unwind would have written callchains instead "
			"of stack copies, a tenth of the bytes or less: perfcap-record(1), "
			"\"Unwinding while recording\" ]\n");
	if (verbose > 0 && st.trim_in != st.trim_out)
		fprintf(stderr, "[ perfcap record: records of %.3f MB, %.3f MB with the user "
			"stacks trimmed ]\n", st.trim_in / 1048576.0, st.trim_out / 1048576.0);
	if (verbose > 0 && rt->budget)
		fprintf(stderr, "[ perfcap record: %llu chunks written by their reader, the rest "
			"copied for the triage threads; %llu slow writes sent chunks there ]\n",
			(unsigned long long)st.direct, (unsigned long long)st.direct_pauses);
	if (s->throttles)
		fprintf(stderr, "[ perfcap record: the kernel throttled sampling %llu times ]\n",
			(unsigned long long)s->throttles);
	hotplug__summary(&rec->hotplug, stderr);
	if (verbose > 0) {
		uint64_t copies = 0, waits = 0, defers = 0, holds = 0;
		uint64_t fill[ARRAY_SIZE(rec->rings.maps[0].nr_fill)] = { 0 };

		for (int i = 0; i < rec->rings.nr; i++) {
			copies += rec->rings.maps[i].nr_copies;
			waits += rec->rings.maps[i].nr_waits;
			defers += rec->rings.maps[i].nr_defers;
			holds += rec->rings.maps[i].nr_holds;
			for (size_t f = 0; f < ARRAY_SIZE(fill); f++)
				fill[f] += rec->rings.maps[i].nr_fill[f];
		}
		fprintf(stderr, "[ perfcap record: %llu rounds, %llu chunks copied, %llu kept for "
			"more, %llu waits for a free buffer, %llu rings put off, %lu writes "
			"(%lu short), %llu passes without sleep, %llu readers woken for a round ]\n",
			(unsigned long long)st.rounds,
			(unsigned long long)copies, (unsigned long long)holds,
			(unsigned long long)waits, (unsigned long long)defers, submits, shorts,
			(unsigned long long)record_threads__total(rt, spins),
			(unsigned long long)record_threads__total(rt, round_wakes));
		/*
		 * How full the rings were when a reader came to them: a ring
		 * found at 5/8 or more had little room left before it lost
		 * events (bench/results/2026-11-30-lost-records/,
		 * -overflow-causes/).
		 */
		fprintf(stderr, "[ perfcap record: rings found with data, by eighths full (0/8 .. 7/8+):");
		for (size_t f = 0; f < ARRAY_SIZE(fill); f++)
			fprintf(stderr, " %llu", (unsigned long long)fill[f]);
		fprintf(stderr, " ]\n");
		if (rec->opts.comp_level)
			fprintf(stderr, "[ perfcap record: -z: %llu chunks compressed into %llu zstd "
				"frames ]\n", (unsigned long long)st.chunks,
				(unsigned long long)st.frames);
		print_switches();
	}
}
