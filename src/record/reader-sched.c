// SPDX-License-Identifier: GPL-2.0
/*
 * Where the readers run and at what priority (record.h): which reader
 * thread drains which ring (--threads, or perfcap's layout), their
 * SCHED_FIFO policy and its RLIMIT_RTTIME bound, -r, and the nice boost
 * of the recorder's other threads.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "record/helper-threads.h"
#include "record/record.h"

/*
 * The reader threads run SCHED_FIFO at priority 1 (the lowest real-time
 * priority: above every normal task, below any real-time task of the
 * system), pinned to their rings' CPUs: a ring's watermark then gets its
 * reader on that CPU at once, not after the workload's time slice, which
 * can outlast a small ring of DWARF stacks
 * (bench/results/2026-12-01-readers-first/, 2026-12-01-ready-wait/).
 * A reader only runs when its ring reaches the watermark, copies, writes
 * and sleeps; under SCHED_FIFO it never spins (record-thread.c). What
 * bounds it beyond that: RLIMIT_RTTIME. A reader that runs READER_RTTIME_US
 * of CPU without sleeping (it could, draining many busy CPUs' rings)
 * brings SIGXCPU, and every reader goes back to its nice value for the
 * rest of the recording, with one message.
 */
#define READER_FIFO_PRIO 1
#define READER_RTTIME_US 200000


/*
 * Who drains which ring: a reader thread per group of the layout, over
 * the rings of its CPUs (--threads, or perfcap's choice,
 * thread_spec__auto), or, for per-thread rings (no CPU), one reader
 * thread for them all, wherever it runs. The record loop reads none.
 */
int record__setup_readers(struct record *rec, int wake_fd)
{
	struct evlist *el = &rec->evlist;
	struct record_opts *o = &rec->opts;
	int nr, **idx, *nr_idx, err;
	struct cpu_map **aff;
	char why[256] = "";

	if (o->threads) {
		struct cpu_map *online = cpu_map__online();

		err = thread_spec__build(&rec->tspec, o->threads_spec, el->cpus, online, "/sys",
					 why, sizeof(why));
		cpu_map__delete(online);
		if (err) {
			pr_err("%s\n", why);
			return err;
		}
		snprintf(why, sizeof(why), "as --threads=%s asks", o->threads_spec);
	} else if (o->affinity != AFFINITY_SYS && el->cpus->cpu[0] >= 0) {
		/*
		 * --affinity: perf's one reading thread moves to the CPU (or the
		 * NUMA node) of the ring it reads; here each ring is read there
		 * by a reader of its own CPU (or node): --threads=cpu's (numa's)
		 * layout.
		 */
		const char *spec = o->affinity == AFFINITY_CPU ? "cpu" : "numa";
		struct cpu_map *online = cpu_map__online();

		err = thread_spec__build(&rec->tspec, spec, el->cpus, online, "/sys",
					 why, sizeof(why));
		cpu_map__delete(online);
		if (err) {
			pr_err("%s\n", why);
			return err;
		}
		snprintf(why, sizeof(why), "as --affinity=%s asks", o->affinity == AFFINITY_CPU ?
			 "cpu" : "node");
		o->threads_spec = spec;
	} else {
		/* perfcap chooses (thread-spec.h). */
		err = thread_spec__auto(&rec->tspec, el->cpus, "/sys", THREAD_SPEC_CPUS_PER_READER,
					why, sizeof(why));
		if (err) {
			pr_err("%s\n", why);
			return err;
		}
		o->threads_spec = "auto";
	}
	/* Per-thread rings (no CPU): one reader for them all, wherever it runs. */
	nr = rec->tspec.nr ? rec->tspec.nr : 1;
	if (!rec->tspec.nr)
		snprintf(why, sizeof(why), "one reader thread for the %d per-thread rings",
			 rec->rings.nr);
	aff = xzalloc(nr * sizeof(*aff));
	if (verbose > 0)
		fprintf(stderr, "[ perfcap record: readers: %s ]\n", why);
	idx = xzalloc(nr * sizeof(*idx));
	nr_idx = xzalloc(nr * sizeof(*nr_idx));
	for (int i = 0; i < nr; i++) {
		idx[i] = xzalloc((rec->rings.nr + 1) * sizeof(int));
		for (int m = 0; m < rec->rings.nr; m++)
			if (!rec->tspec.nr || cpu_map__contains(rec->tspec.t[i].maps, rec->rings.maps[m].cpu))
				idx[i][nr_idx[i]++] = m;
		aff[i] = rec->tspec.nr ? rec->tspec.t[i].affinity : NULL;
	}
	err = record_threads__init(&rec->readers, &rec->out, rec->rings.maps, nr, idx, nr_idx, aff,
				   wake_fd, el->evsels[0]->attr.sample_type, record__now_ns());
	/*
	 * Rings that may come with a CPU (hotplug__reserve): room in each
	 * reader's pipeline for as many as it can be handed. Each goes to
	 * the reader with the fewest (record_threads__adopt), so none ends
	 * with more than the rings shared out evenly, rounded up: the one
	 * that starts with fewest can be handed that less its own.
	 */
	if (!err && rec->rings.cap > rec->rings.nr) {
		int fewest = nr_idx[0];

		for (int i = 1; i < nr; i++)
			fewest = MIN(fewest, nr_idx[i]);
		rec->readers.spare_rings = (rec->rings.cap + nr - 1) / nr - fewest;
	}
	if (!o->realtime && !o->readers_nice) {
		rec->readers.sched.fifo = READER_FIFO_PRIO;
		rec->readers.sched.fifo_notice = !o->quiet;
	}
	if (!err && verbose > 0 && o->realtime)
		fprintf(stderr, "[ perfcap record: readers' scheduling: SCHED_FIFO as -r asks, "
			"inherited from the loop ]\n");
	else if (!err && verbose > 0 && rec->readers.sched.fifo)
		fprintf(stderr, "[ perfcap record: readers' scheduling: SCHED_FIFO priority %d, "
			"RLIMIT_RTTIME %d ms ]\n", rec->readers.sched.fifo, READER_RTTIME_US / 1000);
	else if (!err && verbose > 0)
		fprintf(stderr, "[ perfcap record: readers' scheduling: their nice value "
			"(--reader-sched=nice) ]\n");
	if (!err && verbose > 0 && rec->tspec.nr) {
		fprintf(stderr, "[ perfcap record: %d reader threads (--threads=%s):", nr,
			o->threads_spec);
		for (int i = 0; i < nr; i++) {
			char m[128], a[128];

			cpu_map__snprintf(rec->tspec.t[i].maps, m, sizeof(m));
			cpu_map__snprintf(rec->tspec.t[i].affinity, a, sizeof(a));
			fprintf(stderr, "%s rings of CPUs %s on CPUs %s", i ? ";" : "", m, a);
		}
		fprintf(stderr, " ]\n");
	}
	for (int i = 0; i < nr; i++)
		free(idx[i]);
	free(idx);
	free(nr_idx);
	free(aff);
	return err;
}

static int setup_realtime(int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		int err = -errno;

		pr_err("cannot set SCHED_FIFO priority %d (-r): %s\n", prio, strerror(-err));
		return err;
	}
	return 0;
}

/*
 * The recorder's threads (the record loop and the threads started after
 * it: the readers, the -z stages, the writers' helper threads, the
 * control thread) run RECORDER_NICE_BOOST nice levels above the nice
 * value perfcap was started with: about 3x the scheduler weight of the
 * workload at equal nice. They run in short bursts (a pass, a write) and
 * little of the time, and the sooner they get a CPU when a ring's
 * watermark or a write needs them, the less the rings wait; it takes the
 * writers' helpers as well as the thread that waits for them
 * (bench/results/2026-11-30-nice5-priority/). SCHED_FIFO readers do not
 * use it; it is what they run at where SCHED_FIFO is refused or not asked
 * for (--reader-sched=nice).
 *
 * Set after the workload is forked (it keeps the nice value it was started
 * with) and before the writer starts its threads. Lowering the nice value
 * needs CAP_SYS_NICE or RLIMIT_NICE; refused, the recording goes on as it
 * was. Under -r the loop runs SCHED_FIFO, where the nice value is unused.
 */
#define RECORDER_NICE_BOOST 5

void record__raise_priority(void)
{
	int nice;

	errno = 0;
	nice = getpriority(PRIO_PROCESS, 0);
	if (nice == -1 && errno) {
		pr_debug("getpriority: %s\n", strerror(errno));
		return;
	}
	/* Linux: PRIO_PROCESS with 0 is the calling thread, inherited by the ones it starts. */
	if (setpriority(PRIO_PROCESS, 0, nice - RECORDER_NICE_BOOST))
		pr_debug("setpriority (nice %d): %s\n", nice - RECORDER_NICE_BOOST,
			 strerror(errno));
}

/* The soft RLIMIT_RTTIME for SCHED_FIFO readers (READER_RTTIME_US), within the hard one. */
static void bound_rttime(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_RTTIME, &rl))
		return;
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > READER_RTTIME_US) {
		rl.rlim_cur = READER_RTTIME_US;
		if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < rl.rlim_cur)
			rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_RTTIME, &rl))
			pr_debug("setrlimit RLIMIT_RTTIME: %s\n", strerror(errno));
	}
}

int record__sched_start(struct record *rec)
{
	struct record_opts *o = &rec->opts;

	if (o->realtime)
		return setup_realtime(o->realtime);
	if (rec->readers.sched.fifo)
		bound_rttime();
	return 0;
}

void record__demote_readers(struct record *rec)
{
	int n = record_threads__demote(&rec->readers);

	/* A helper glibc gave a reader's SCHED_FIFO goes down with them, now. */
	helper_threads__sweep();
	if (n && verbose >= 0)
		pr_warn("a reader ran %d ms without sleeping (RLIMIT_RTTIME): the readers run at "
			"normal priority from now on\n", READER_RTTIME_US / 1000);
}
