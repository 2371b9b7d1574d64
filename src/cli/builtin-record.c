// SPDX-License-Identifier: GPL-2.0
/*
 * perfcap record: the one place that knows the order of steps.
 *
 *   parse options -> resolve the target -> parse and open events -> map
 *   rings -> create the file (only now: a failure above leaves nothing)
 *   -> header + attrs -> synthesize -> enable -> loop -> disable ->
 *   last drain -> lost counts -> wait for every write -> features ->
 *   final header.
 *
 * The loop: one pass copies every ring that has data into a data
 * buffer and hands the ring back at once; then the chunks are submitted
 * to the writer at offsets reserved in order, the last one carrying a
 * FINISHED_ROUND. A chunk stays in its buffer and the next copies of that
 * ring go behind it, so writes are few and large (with one buffer per
 * ring until half the ring's size, with more until the buffer is full:
 * keep_chunk() in mmap.c); a ring whose buffers are all in flight and
 * that is less than half full is put off to a later pass instead of
 * waited for. A pass that kept or put off anything closes no round, and
 * at least every ROUND_MAX_NS a pass writes everything. Between passes
 * the loop sleeps in poll() on the rings (the kernel wakes it at a
 * watermark) and on an eventfd written by the handler of the signals
 * that end the recording.
 * Write completions never wake it: they are reaped without blocking after
 * each pass.
 *
 * With --threads the passes are the reader threads' (record-thread.c),
 * each over its own rings, and the loop here only sleeps on the eventfd
 * and does the slow checks: the workload, the targets, the header's
 * data size, a reader's failure.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/builtin.h"
#include "record/control.h"
#include "events/cpumap.h"
#include "events/evlist-config.h"
#include "events/evlist.h"
#include "record/rings.h"
#include "format/features.h"
#include "cli/options.h"
#include "events/perf-regs.h"
#include "io/output.h"
#include "events/parse-events.h"
#include "format/perf-data.h"
#include "format/pipe-data.h"
#include "perf-file.h"
#include "record/record-stats.h"
#include "record/record-thread.h"
#include "format/synthesize.h"
#include "record/status.h"
#include "record/switch-output.h"
#include "sys.h"
#include "record/thread-spec.h"
#include "util.h"
#include "record/workload.h"
#include "io/writer.h"

#define DEFAULT_MMAP_PAGES 128		/* 512 KiB with 4 KiB pages, as perf */
#define POLL_TIMEOUT_MS 100
/* How often the header's data size is updated and slow checks are made. */
#define HEADER_SYNC_NS (100 * 1000000ULL)
struct record {
	struct record_opts opts;
	int argc;
	char **argv;
	struct event_list events;
	struct evlist evlist;
	struct rings rings;		/* one per CPU (record/rings.h) */
	struct writer writer;
	struct output out;
	struct perf_data pd;
	struct perf_data_attr *attrs;
	struct workload wl;
	bool has_workload;
	pid_t *targets;		/* -p/-t: stop when all are gone */
	int nr_targets;
	struct record_stats stats;
	struct thread_spec tspec;	/* --threads: each reader's rings and CPUs */
	struct record_threads readers;	/* one, the loop itself, without --threads */
	struct status status;		/* the live status line */
	bool file_created;
	uint32_t comp_mmap_len;		/* -z: HEADER_COMPRESSED's, a ring's mmap length */
	/* Control of the recording (-D, --control, --max-size, --switch-output). */
	struct control control;
	struct switch_output so;
	struct record_stats file_stats;	/* the current file's (SAMPLE_TIME); stats: all files' */
	uint64_t bytes_before;		/* what the files switched away from hold */
	uint64_t delay_base_ns;		/* -D: the events' time 0 (the command's start) */
	uint64_t delay_due_ns;		/* -D: when the events go on (or off); 0: nothing due */
	uint64_t synth_end;		/* where the current file's synthesized records end */
	int delay_step;			/* -D ranges: even: next is an enable */
	bool stop;			/* a control 'stop' or --max-size ended it */
	/* The kernel's and modules' synthesized maps, again in each new file. */
	struct strbuf kcache;
	bool kcaching, kcached;
	int pipe_fd;			/* -o -: the stdout we were given (-1: a file) */
};

static volatile sig_atomic_t done_signal;
static volatile sig_atomic_t switch_signal;	/* SIGUSR2: --switch-output=signal */
static volatile sig_atomic_t rttime_signal;	/* SIGXCPU: a reader overran RLIMIT_RTTIME */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* ---- target ---------------------------------------------------------- */

/* The events follow the command perfcap starts (not -a/-C/-p/-t with a timer command). */
static bool workload_is_target(const struct record *rec)
{
	return rec->has_workload && !rec->evlist.system_wide && !rec->opts.pid_list &&
	       !rec->opts.tid_list;
}

static int add_thread(struct record *rec, pid_t tid)
{
	struct evlist *el = &rec->evlist;

	el->threads = xrealloc(el->threads, (el->nr_threads + 1) * sizeof(pid_t));
	el->threads[el->nr_threads++] = tid;
	return 0;
}

static int add_target(struct record *rec, pid_t pid)
{
	rec->targets = xrealloc(rec->targets, (rec->nr_targets + 1) * sizeof(pid_t));
	rec->targets[rec->nr_targets++] = pid;
	return 0;
}

static int parse_pid_list(const char *list, const char *what, pid_t **out, int *nr)
{
	char *copy = xstrdup(list), *tok, *save = NULL;
	int err = 0;

	*out = NULL;
	*nr = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end, path[64];
		long v;

		errno = 0;
		v = strtol(tok, &end, 10);
		if (errno || *end || v <= 0 || v > 0x7fffffff) {
			pr_err("invalid %s '%s': expected a comma separated list of numbers\n",
			       what, tok);
			err = -EINVAL;
			break;
		}
		snprintf(path, sizeof(path), "/proc/%ld/status", v);
		if (access(path, F_OK)) {
			pr_err("%s %ld does not exist\n", what, v);
			err = -ESRCH;
			break;
		}
		*out = xrealloc(*out, (*nr + 1) * sizeof(pid_t));
		(*out)[(*nr)++] = v;
	}
	free(copy);
	return err;
}

static int add_process_threads(struct record *rec, pid_t pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir) {
		pr_err("pid %d does not exist\n", pid);
		return -ESRCH;
	}
	while ((d = readdir(dir)))
		if (d->d_name[0] >= '0' && d->d_name[0] <= '9')
			add_thread(rec, atoi(d->d_name));
	closedir(dir);
	return 0;
}

static int resolve_target(struct record *rec)
{
	struct record_opts *o = &rec->opts;
	struct evlist *el = &rec->evlist;
	struct cpu_map *online = cpu_map__online();
	int err = 0;

	if (!online) {
		pr_err("cannot read /sys/devices/system/cpu/online\n");
		return -EIO;
	}
	el->system_wide = o->system_wide || o->cpu_list;
	if (o->cpu_list) {
		char buf[256];

		el->cpus = cpu_map__parse(o->cpu_list);
		if (!el->cpus) {
			pr_err("invalid CPU list '%s'\n", o->cpu_list);
			err = -EINVAL;
			goto out;
		}
		for (int i = 0; i < el->cpus->nr; i++)
			if (!cpu_map__contains(online, el->cpus->cpu[i])) {
				cpu_map__snprintf(online, buf, sizeof(buf));
				pr_err("CPU %d is not online (online CPUs: %s)\n",
				       el->cpus->cpu[i], buf);
				err = -EINVAL;
				goto out;
			}
	} else {
		el->cpus = online;
		online = NULL;
	}

	if (el->system_wide) {
		add_thread(rec, -1);
	} else if (o->pid_list) {
		pid_t *pids;
		int nr;

		err = parse_pid_list(o->pid_list, "pid", &pids, &nr);
		for (int i = 0; !err && i < nr; i++) {
			err = add_process_threads(rec, pids[i]);
			add_target(rec, pids[i]);
		}
		free(pids);
	} else if (o->tid_list) {
		pid_t *tids;
		int nr;

		err = parse_pid_list(o->tid_list, "tid", &tids, &nr);
		for (int i = 0; !err && i < nr; i++) {
			add_thread(rec, tids[i]);
			add_target(rec, tids[i]);
		}
		free(tids);
	}
	/* A workload's thread is added once it is forked. */
out:
	cpu_map__delete(online);
	return err;
}

/* ---- events ---------------------------------------------------------- */

static int setup_events(struct record *rec)
{
	const struct record_opts *o = &rec->opts;
	char err_msg[512] = "";
	const char *spec = o->events;
	int err = 0;

	if (!o->nr_event_args && !spec) {
		/* perf's default: cycles, or cpu-clock where the PMU has no cycles. */
		struct perf_event_attr probe = {
			.type = PERF_TYPE_HARDWARE,
			.config = PERF_COUNT_HW_CPU_CYCLES,
			.size = sizeof(probe),
			.disabled = 1,
			.exclude_kernel = 1,
		};
		int fd = sys_perf_event_open(&probe, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

		if (fd >= 0)
			close(fd);
		spec = (fd >= 0 || fd == -EACCES || fd == -EPERM) ? "cycles" : "cpu-clock";
		pr_debug("default event: %s\n", spec);
	}
	if (o->nr_event_args) {
		/* Each -e with its own --filter, in order. */
		for (int i = 0; i < o->nr_event_args && !err; i++)
			err = parse_events__add(&rec->events, o->event_args[i].events,
						o->event_args[i].filter, err_msg, sizeof(err_msg));
	} else {
		err = parse_events(&rec->events, spec, err_msg, sizeof(err_msg));
	}
	if (err) {
		pr_err("%s\n", err_msg[0] ? err_msg : "cannot parse the event list");
		return err;
	}
	/* --group: perf 6.1 makes one group of every event given. */
	if (o->group)
		parse_events__group_all(&rec->events);
	evlist__add_events(&rec->evlist, &rec->events);
	return 0;
}

/* ---- synthesized records --------------------------------------------- */

static int synth_emit(struct synth *s, const void *data, size_t len)
{
	struct record *rec = s->priv;

	if (rec->kcaching)
		strbuf__add(&rec->kcache, data, len);
	return output__append(&rec->out, data, len);
}

/*
 * The kernel's map and the modules'. Read once (/proc/kallsyms alone
 * took 180 ms on a loaded machine, while a --switch-output switch holds
 * the readers back): a new file gets the same records again.
 */
static int synthesize_kernel(struct record *rec, struct synth *sy, bool again)
{
	struct evsel *e;
	bool kernel = false;
	int err;

	if (again && rec->kcached)
		return output__append(&rec->out, rec->kcache.data, rec->kcache.len);
	rec->kcaching = true;
	evlist__for_each_evsel(&rec->evlist, e)
		kernel |= !e->attr.exclude_kernel;
	err = synthesize__kernel_mmap(sy);
	if (err == -EPERM && kernel) {
		long long kptr = -1, paranoid = -1;

		read_int("/proc/sys/kernel/kptr_restrict", &kptr);
		read_int("/proc/sys/kernel/perf_event_paranoid", &paranoid);
		pr_warn("kernel addresses in /proc/kallsyms are hidden from this user "
			"(kptr_restrict=%lld, perf_event_paranoid=%lld): kernel samples will not "
			"resolve; run as root, or set kptr_restrict=0 and perf_event_paranoid<=1\n",
			kptr, paranoid);
	} else if (err && err != -EPERM) {
		pr_warn("no kernel map synthesized (%s): kernel symbols will not resolve\n",
			strerror(-err));
	}
	synthesize__modules(sy);
	rec->kcaching = false;
	rec->kcached = true;
	/* What follows is worth recording without kernel symbols. */
	return 0;
}

/*
 * The tasks and maps that exist now. again: at a --switch-output switch,
 * for the new file: the command perfcap started has run since, so its
 * processes (it and what it forked) are read from /proc as they are,
 * where at the start it was only about to exec.
 */
static int synthesize(struct record *rec, bool again)
{
	struct synth s = {
		.id_hdr_size = evlist__id_hdr_size(&rec->evlist),
		.mmap_build_id = !rec->opts.no_buildid,
		/* Data maps too where samples carry data addresses (-d; DWARF implies it, as in perf). */
		.mmap_data = rec->opts.callgraph == CALLGRAPH_DWARF || rec->opts.sample_addr,
		.emit = synth_emit,
		.priv = rec,
	};
	int err;

	err = synthesize_kernel(rec, &s, again);
	if (err)
		return err;
	if (rec->evlist.system_wide) {
		err = synthesize__all(&s);
	} else if (rec->opts.pid_list) {
		for (int i = 0; i < rec->nr_targets; i++)
			synthesize__process(&s, rec->targets[i], 0);
		err = 0;
	} else if (rec->opts.tid_list) {
		for (int i = 0; i < rec->nr_targets; i++) {
			char path[64];
			long long tgid = 0;
			char *status = NULL, *p;

			snprintf(path, sizeof(path), "/proc/%d/status", rec->targets[i]);
			if (read_file(path, &status) > 0 && (p = strstr(status, "Tgid:")))
				tgid = atoll(p + 5);
			free(status);
			synthesize__process(&s, tgid ? tgid : rec->targets[i], rec->targets[i]);
		}
		err = 0;
	}
	if (workload_is_target(rec) && again) {
		pid_t *tree;
		int nr = switch_output__descendants(rec->wl.pid, &tree);

		for (int i = 0; i < nr; i++)
			synthesize__process(&s, tree[i], 0);
		free(tree);
	} else if (workload_is_target(rec)) {
		synthesize__comm(&s, rec->wl.pid, rec->wl.pid, "perf-exec");
	}
	pr_debug("synthesized %lu COMM, %lu FORK, %lu MMAP records\n",
		 s.nr_comm, s.nr_fork, s.nr_mmap);
	if (err < 0)
		return err;
	return output__flush(&rec->out);
}

static bool targets_gone(struct record *rec)
{
	for (int i = 0; i < rec->nr_targets; i++)
		if (kill(rec->targets[i], 0) == 0 || errno != ESRCH)
			return false;
	return rec->nr_targets > 0;
}

/*
 * The signals that end the recording (SIGINT, SIGTERM) and SIGCHLD run a
 * handler that notes them and writes to an eventfd in the poll set: one
 * that comes between the checks and the sleep makes poll() return at
 * once, and one that comes while the loop never sleeps (rings always
 * ready) is seen at the next pass.
 *
 * Not a signalfd: the kernel wakes every signalfd reader of the process
 * on any signal, blocked or not, and the aio writer takes one real-time
 * signal per finished write. A loop asleep on a signalfd for SIGINT woke
 * (and went back to sleep) at each of them: in a 2.6 s tracepoint flood
 * with --aio, 15.2k voluntary context switches in the loop against 7.9k
 * without.
 */
static volatile sig_atomic_t child_signal;
static int wake_fd = -1;

static void on_signal(int sig)
{
	int saved = errno;
	uint64_t one = 1;

	if (sig == SIGCHLD)
		child_signal = 1;
	else if (sig == SIGUSR2)
		switch_signal = 1;	/* ignored unless --switch-output=signal, as perf */
	else if (sig == SIGXCPU)
		rttime_signal = 1;
	else
		done_signal = sig;
	if (wake_fd >= 0)
		(void)!write(wake_fd, &one, sizeof(one));
	errno = saved;
}

static const int loop_signals[] = { SIGINT, SIGTERM, SIGCHLD, SIGUSR2, SIGXCPU };
static struct sigaction old_actions[ARRAY_SIZE(loop_signals)];

static int signals__catch(void)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART | SA_NOCLDSTOP };

	wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (wake_fd < 0) {
		int err = -errno;

		pr_err("eventfd: %s\n", strerror(-err));
		return err;
	}
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(loop_signals); i++)
		sigaction(loop_signals[i], &sa, &old_actions[i]);
	return 0;
}

static void signals__restore(void)
{
	if (wake_fd < 0)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(loop_signals); i++)
		sigaction(loop_signals[i], &old_actions[i], NULL);
	close(wake_fd);
	wake_fd = -1;
}

/* Did a SIGCHLD come since the last call? */
static bool take_child_signal(void)
{
	if (!child_signal)
		return false;
	child_signal = 0;
	return true;
}

/* ---- the readers ------------------------------------------------------ */

/*
 * The readers (the reader threads, or the loop where it is the only
 * reader) run SCHED_FIFO at priority 1 (the lowest real-time
 * priority: above every normal task, below any real-time task of the
 * system), pinned to their rings' CPUs. A ring's watermark then gets its
 * reader on that CPU at once, where at nice -5 it waited for the
 * workload's slice: with DWARF stacks on 32 KiB rings (a ring lasts
 * 0.8 ms) the readers at nice -5 lost 0.84% and perf -r 1 0.07%; at
 * SCHED_FIFO 1 they lost 0.04%, less than perf -r 1 in 6 of 7 reps, at
 * 0.32x its CPU (bench/results/2026-12-01-readers-first); and once the
 * events waited for the readers to be ready (record_threads__start),
 * 0.01% against 0.02%, 7 of 9 (2026-12-01-ready-wait). A reader only
 * runs when its ring reaches the watermark, copies, writes and sleeps;
 * under SCHED_FIFO it never spins (record-thread.c). What bounds it
 * beyond that: RLIMIT_RTTIME. A reader that runs READER_RTTIME_US of CPU
 * without sleeping (it could, draining many busy CPUs' rings) brings
 * SIGXCPU, and every reader goes back to its nice value for the rest of
 * the recording, with one message.
 */
#define READER_FIFO_PRIO 1
#define READER_RTTIME_US 200000

/*
 * Who drains which ring: a reader thread per group of the layout, over
 * the rings of its CPUs (--threads, or perfcap's choice,
 * thread_spec__auto), or the record loop alone.
 */
static int setup_readers(struct record *rec)
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
				   wake_fd, el->evsels[0]->attr.sample_type, now_ns());
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

/* The record loop's sleep while reader threads do the passes. */
static int sleep_main(int timeout_ms)
{
	struct pollfd pfd = { .fd = wake_fd, .events = POLLIN };
	int r = poll(&pfd, 1, timeout_ms);

	if (r < 0)
		return errno == EINTR ? 0 : -errno;
	if (r > 0) {
		uint64_t v;

		(void)!read(wake_fd, &v, sizeof(v));
	}
	return r;
}

/* ---- the status line ------------------------------------------------------ */

static void status_start(struct record *rec, uint64_t now)
{
	struct winsize ws;
	enum status_mode mode = status__mode(rec->opts.quiet, isatty(STDERR_FILENO),
					     rec->opts.status_ns);

	status__init(&rec->status, mode, rec->opts.status_ns, now);
	if (mode == STATUS_TTY && !ioctl(STDERR_FILENO, TIOCGWINSZ, &ws))
		rec->status.columns = ws.ws_col;
}

/*
 * What the status line shows, read while the readers run: the counters
 * each reader publishes after its step (a line may be a step behind).
 * The rings' heads are the kernel's; their tails only ever grow.
 */
static void status_snapshot(struct record *rec, struct status_snapshot *snap)
{
	struct record_threads *rt = &rec->readers;
	uint64_t best = 0;

	memset(snap, 0, sizeof(*snap));
	snap->bytes_written = rec->bytes_before + output__written(&rec->out);
	snap->ring_cpu = -1;
	snap->queue = rec->writer.inflight;
	/* With --switch-output, the files finished so far (record__take_stats). */
	snap->samples = rec->stats.samples;
	snap->lost = record_stats__lost(&rec->stats);
	for (int i = 0; i < rt->nr; i++) {
		snap->samples += atomic_load_explicit(&rt->t[i].pub_samples, memory_order_relaxed);
		snap->lost += atomic_load_explicit(&rt->t[i].pub_lost, memory_order_relaxed);
		snap->queue += atomic_load_explicit(&rt->t[i].pub_queue, memory_order_relaxed);
	}
	for (int i = 0; i < rec->rings.nr; i++) {
		struct mmap *m = &rec->rings.maps[i];
		/* data_head - data_tail, both shared with the kernel (acquire loads). */
		struct perf_event_mmap_page *pc = m->base;
		uint64_t ready = pc ? __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE) -
				      __atomic_load_n(&pc->data_tail, __ATOMIC_ACQUIRE) : 0;

		if (m->size && ready * 100 / m->size >= best && ready) {
			best = ready * 100 / m->size;
			snap->ring_cpu = m->cpu;
		}
	}
	snap->ring_pct = best > 100 ? 100 : (unsigned int)best;
}

static void status_tick(struct record *rec, uint64_t now)
{
	struct status_snapshot snap;

	if (rec->status.mode == STATUS_OFF || now < rec->status.next_ns)
		return;
	status_snapshot(rec, &snap);
	status__tick(&rec->status, now, &snap, stderr);
}

/* ---- control of the recording ------------------------------------------- */

/*
 * -D, --control, --max-size and --switch-output act between two passes
 * of the record loop (record__control_tick). With reader threads the
 * loop sleeps on its eventfd only: it wakes for a control line (the
 * control thread pokes it), a signal, or the nearest due time below.
 */
#define LIMIT_POLL_MS 10	/* with reader threads and a size to watch */

static int record__finish(struct record *rec, int err);

static bool record__delayed(const struct record *rec)
{
	return rec->opts.delay_ms || rec->opts.nr_delay_ranges;
}

/* Checks, the control channel's fds, the switching state: before the file is created. */
static int record__setup_control(struct record *rec)
{
	struct record_opts *o = &rec->opts;

	if ((o->switch_output || o->timestamp_filename) && !strcmp(o->output, "-")) {
		pr_err("--switch-output and --timestamp-filename need a file, not pipe output (-o -)\n");
		return -EINVAL;
	}
	switch_output__init(&rec->so, o, now_ns());
	return control__open(&rec->control, &o->control);
}

static int evsel_ioctl(struct evsel *e, unsigned long req)
{
	int err = 0;

	for (int i = 0; e->fds && i < e->nr_cpus * e->nr_threads; i++)
		if (e->fds[i] >= 0 && ioctl(e->fds[i], req, 0) && !err)
			err = -errno;
	return err;
}

static bool evsel_is_dummy(const struct evsel *e)
{
	return e->attr.type == PERF_TYPE_SOFTWARE && e->attr.config == PERF_COUNT_SW_DUMMY;
}

enum which_events { ALL_EVENTS, NON_DUMMY };

/*
 * The events of one -e name, or all (name NULL or ""), on or off, said
 * as perf says it. NON_DUMMY leaves the tracking dummy on, as perf's -D
 * ranges do: maps and tasks keep coming between the windows.
 */
static int set_events(struct record *rec, bool on, const char *name, enum which_events which)
{
	unsigned long req = on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE;
	struct evsel *e, *found = NULL;
	int err = 0;

	if (!name || !*name) {
		if (which == ALL_EVENTS) {
			err = on ? evlist__enable(&rec->evlist) : evlist__disable(&rec->evlist);
		} else {
			evlist__for_each_evsel(&rec->evlist, e) {
				int r = evsel_is_dummy(e) ? 0 : evsel_ioctl(e, req);

				if (r && !err)
					err = r;
			}
		}
		if (err)
			pr_err("cannot %s the events: %s\n", on ? "enable" : "disable",
			       strerror(-err));
		else
			pr_info(on ? "Events enabled\n" : "Events disabled\n");
		return err;
	}
	evlist__for_each_evsel(&rec->evlist, e)
		if (!found && e->name && !strcmp(e->name, name))
			found = e;
	if (!found) {
		pr_info("failed: can't find '%s' event\n", name);
		return 0;
	}
	err = evsel_ioctl(found, req);
	if (err)
		pr_err("cannot %s event '%s': %s\n", on ? "enable" : "disable", name,
		       strerror(-err));
	else
		pr_info("Event %s %s\n", found->name, on ? "enabled" : "disabled");
	return err;
}

/*
 * The recording starts: -D keeps the events off until the delay is over
 * (-1: until --control enables them), and --switch-output=TIME counts
 * from here.
 */
static void record__start_delay(struct record *rec)
{
	struct record_opts *o = &rec->opts;
	uint64_t now = now_ns();

	/* --switch-output=TIME counts from here, not from before the file's start was written. */
	switch_output__rearm(&rec->so, now);
	if (!record__delayed(rec))
		return;
	pr_info("Events disabled\n");
	rec->delay_base_ns = now;
	rec->delay_step = 0;
	if (o->nr_delay_ranges)
		rec->delay_due_ns = now + o->delay_ranges[0].start_ms * 1000000ULL;
	else if (o->delay_ms > 0)
		rec->delay_due_ns = now + (uint64_t)o->delay_ms * 1000000ULL;
}

/*
 * The -D time has come: on after a delay; with ranges on at each start
 * and off at each end, and after the last one the recording ends, as
 * perf's event_enable_timer does.
 */
static int delay_tick(struct record *rec, uint64_t now)
{
	struct record_opts *o = &rec->opts;
	int k, err;

	if (!rec->delay_due_ns || now < rec->delay_due_ns)
		return 0;
	rec->delay_due_ns = 0;
	if (!o->nr_delay_ranges)
		return set_events(rec, true, NULL, ALL_EVENTS);
	k = rec->delay_step++;
	if (k % 2 == 0) {
		err = set_events(rec, true, NULL, NON_DUMMY);
		rec->delay_due_ns = rec->delay_base_ns + o->delay_ranges[k / 2].end_ms * 1000000ULL;
		return err;
	}
	err = set_events(rec, false, NULL, NON_DUMMY);
	if (k / 2 + 1 < o->nr_delay_ranges)
		rec->delay_due_ns = rec->delay_base_ns +
				    o->delay_ranges[k / 2 + 1].start_ms * 1000000ULL;
	else
		rec->stop = true;
	return err;
}

/* The lines the control thread queued, carried out and acknowledged in order. */
static int control_tick(struct record *rec)
{
	char arg[CONTROL_LINE_MAX];
	enum control_cmd cmd;
	int err = 0;

	if (!control__pending(&rec->control))
		return 0;
	while (!err && (cmd = control__next(&rec->control, arg)) != CONTROL_NONE) {
		struct evsel *e;

		switch (cmd) {
		case CONTROL_ENABLE:
		case CONTROL_DISABLE:
			err = set_events(rec, cmd == CONTROL_ENABLE, arg, ALL_EVENTS);
			break;
		case CONTROL_STOP:
			rec->stop = true;
			break;
		case CONTROL_EVLIST:
			evlist__for_each_evsel(&rec->evlist, e)
				fprintf(stderr, "%s\n", e->name);
			break;
		case CONTROL_SNAPSHOT:
			/* perf 6.1: an AUX area snapshot (-S), which perfcap does not take; acked. */
		case CONTROL_PING:
			break;
		default:
			continue;	/* not acknowledged, as perf */
		}
		control__ack(&rec->control);
	}
	return err;
}

static bool max_size_reached(struct record *rec)
{
	uint64_t bytes;

	if (!rec->opts.max_size)
		return false;
	bytes = output__head(&rec->out);
	if (bytes < rec->opts.max_size)
		return false;
	if (verbose >= 0)
		fprintf(stderr, "[ perfcap record: size limit reached (%llu KB), stopping session ]\n",
			(unsigned long long)(bytes >> 10));
	return true;
}

/* What the readers saw since the last switch becomes the file's; stats keeps the sum. */
static void record__take_stats(struct record *rec)
{
	struct record_threads *rt = &rec->readers;
	uint64_t st = rec->evlist.evsels[0]->attr.sample_type;

	record_stats__init(&rec->file_stats, st);
	record_threads__stats(rt, &rec->file_stats);
	record_stats__merge(&rec->stats, &rec->file_stats);
	for (int i = 0; i < rt->nr; i++) {
		record_stats__init(&rt->t[i].stats, st);
		/* The status line counts them in stats now. */
		atomic_store(&rt->t[i].pub_samples, 0);
		atomic_store(&rt->t[i].pub_lost, 0);
	}
}

/*
 * --switch-output: finish this file and go on in a new one, as perf's
 * record__switch_output does. The readers stop at a clean point (the
 * threads joined; the single loop is between passes), one last pass
 * takes what the rings hold now into this file, and every write is
 * waited for; the events stay on, so what they record from here on is
 * in the rings for the new file: nothing is lost or written twice. The
 * file gets its features and final header and is renamed PATH.<time>;
 * a new PATH gets a header, the attrs and the tasks and maps as they are
 * now; the readers' writers are pointed at it (their dup'ed fd numbers
 * now name the new file) and the readers start again.
 */
static int record__switch_output(struct record *rec)
{
	struct record_threads *rt = &rec->readers;
	struct record_opts *o = &rec->opts;
	char path[4096];
	uint64_t wakeups, t0 = now_ns(), t1, t2;
	ssize_t n;
	int err;

	err = record_threads__stop(rt);
	if (!err) {
		n = record_threads__last_pass(rt, now_ns());
		if (n < 0)
			err = n;
	}
	output__set_err(&rec->out, err);
	err = record_threads__drain(rt);
	if (err)
		return err;
	wakeups = record_threads__total(rt, wakeups);
	if (verbose >= 0)
		fprintf(stderr, "[ perfcap record: dump data: Woken up %llu times ]\n",
			(unsigned long long)(wakeups - rec->so.wakeups_at_switch));
	rec->so.wakeups_at_switch = wakeups;
	record__take_stats(rec);
	t1 = now_ns();
	err = record__finish(rec, 0);
	t2 = now_ns();
	if (!err)
		err = switch_output__rename(&rec->so, o->output, path, sizeof(path));
	if (err)
		return err;
	if (verbose >= 0)
		fprintf(stderr, "[ perfcap record: Dump %s ]\n", path);

	rec->bytes_before += output__head(&rec->out);
	output__close(&rec->out);
	err = output__open(&rec->out, o->output, &rec->writer);
	if (err) {
		rec->file_created = false;	/* nothing to finish at the end */
		return err;
	}
	rec->writer.fd = rec->out.fd;
	err = record_threads__retarget(rt, rec->out.fd);
	if (err)
		return err;
	err = perf_data__start(&rec->pd, &rec->out, rec->attrs, rec->evlist.nr);
	if (!err)
		err = synthesize(rec, true);
	if (err) {
		pr_err("cannot write %s: %s\n", o->output, strerror(-err));
		return err;
	}
	rec->synth_end = output__head(&rec->out);
	pr_debug("switch: %.1f ms to drain, %.1f ms to finish, %.1f ms to start the next file\n",
		 (t1 - t0) / 1e6, (t2 - t1) / 1e6, (now_ns() - t2) / 1e6);
	atomic_store(&rt->stop, false);
	atomic_store(&rt->hung, 0);
	switch_output__rearm(&rec->so, now_ns());
	return record_threads__start(rt);
}

static int switch_tick(struct record *rec, uint64_t now)
{
	bool sig = switch_signal;
	uint64_t data;

	if (!switch_output__enabled(&rec->so))
		return 0;
	if (sig)
		switch_signal = 0;
	/* A file of nothing but synthesized records is not switched for its size. */
	data = output__head(&rec->out) - rec->synth_end;
	if (!switch_output__due(&rec->so, now, sig && rec->so.mode == SWITCH_OUTPUT_SIGNAL,
				data ? output__head(&rec->out) - rec->out.data_offset : 0))
		return 0;
	return record__switch_output(rec);
}

/* Between passes of the record loop. 0, or -errno; rec->stop: end the recording. */
static int record__control_tick(struct record *rec, uint64_t now)
{
	int err = delay_tick(rec, now);

	if (!err)
		err = control_tick(rec);
	if (!err && max_size_reached(rec))
		rec->stop = true;
	if (!err && !rec->stop)
		err = switch_tick(rec, now);
	return err;
}

/* How long the record loop may sleep: at most max_ms, and not past what is due. */
static int record__timeout(struct record *rec, uint64_t now, int max_ms)
{
	int ms = max_ms;

	if (rec->delay_due_ns) {
		uint64_t left = rec->delay_due_ns > now ? rec->delay_due_ns - now : 0;

		ms = MIN((uint64_t)ms, (left + 999999) / 1000000);
	}
	ms = switch_output__timeout(&rec->so, now, ms);
	if (rec->opts.max_size || rec->so.mode == SWITCH_OUTPUT_SIZE)
		ms = MIN(ms, LIMIT_POLL_MS);
	return ms;
}

/*
 * At the end, with --timestamp-filename (or --switch-output): the last
 * file is PATH.<time> too.
 */
static int record__name_output(struct record *rec)
{
	char path[4096];
	int err;

	if (!rec->so.timestamp_filename || !rec->file_created)
		return 0;
	err = switch_output__rename(&rec->so, rec->opts.output, path, sizeof(path));
	if (!err && verbose >= 0)
		fprintf(stderr, "[ perfcap record: Dump %s ]\n", path);
	return err;
}

static int record__loop(struct record *rec)
{
	struct record_threads *rt = &rec->readers;
	uint64_t last_tick = 0;
	int err;

	status_start(rec, now_ns());
	err = control__start(&rec->control, wake_fd);
	while (!err && !done_signal) {
		uint64_t now = now_ns();
		bool tick, chld;
		int r;

		err = atomic_load(&rt->failed);
		/* The main writer's own writes (synthesized records) complete here. */
		if (!err)
			err = output__reap(&rec->out, false);
		if (err)
			break;
		/*
		 * What costs a system call is done once per tick (HEADER_SYNC_NS)
		 * or when a signal says so, not on every pass of a busy loop.
		 */
		tick = now - last_tick >= HEADER_SYNC_NS;
		if (tick) {
			output__sync_header_size(&rec->out);
			last_tick = now;
		}
		if (rttime_signal) {
			rttime_signal = 0;
			if (record_threads__demote(rt) && verbose >= 0)
				pr_warn("a reader ran %d ms without sleeping (RLIMIT_RTTIME): the readers "
					"run at normal priority from now on\n", READER_RTTIME_US / 1000);
		}
		status_tick(rec, now);
		err = record__control_tick(rec, now);
		if (err || rec->stop)
			break;
		chld = take_child_signal();
		if (rec->has_workload && (chld || tick) && workload__poll(&rec->wl))
			break;
		if (rec->nr_targets && tick && targets_gone(rec))
			break;
		/* Sleep until a signal, a reader, the control channel or a due time wakes it. */
		r = sleep_main(record__timeout(rec, now, POLL_TIMEOUT_MS));
		if (r < 0) {
			err = r;
			break;
		}
		/* The events' tasks are gone from every ring. */
		if (atomic_load(&rt->hung) == rt->nr && !rec->evlist.system_wide)
			break;
	}
	/* A reader's error comes first: it is why the loop ended. */
	{
		int terr = record_threads__stop(rt);

		if (terr)
			err = terr;
	}
	return err;
}

/* ---- the end ------------------------------------------------------------ */

/*
 * The kernel counts samples it dropped per event (read_format LOST);
 * perf record reports them as PERF_RECORD_LOST_SAMPLES at the end.
 */
static int emit_lost_samples(struct record *rec)
{
	struct evlist *el = &rec->evlist;
	struct evsel *e;

	evlist__for_each_evsel(el, e) {
		uint64_t st = e->attr.sample_type;

		for (int c = 0; c < e->nr_cpus; c++) {
			for (int t = 0; t < e->nr_threads; t++) {
				struct { uint64_t value, id, lost; } r;
				char buf[128];
				struct perf_event_header *h = (void *)buf;
				uint64_t *p;
				int fd = FD(e, c, t);

				if (fd < 0 || read(fd, &r, sizeof(r)) != sizeof(r) || !r.lost)
					continue;
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
				if (st & PERF_SAMPLE_CPU)
					*p++ = (uint32_t)el->cpus->cpu[c];
				if (st & PERF_SAMPLE_IDENTIFIER)
					*p++ = r.id;
				h->size = (char *)p - buf;
				rec->stats.lost_samples += r.lost;
				output__append(&rec->out, buf, h->size);
			}
		}
	}
	return output__flush(&rec->out);
}

/*
 * Where the context switches are: the record loop (this thread) against
 * the whole process (a writer's helper threads too). The benchmark counts
 * the process.
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

static void print_summary(struct record *rec, int err)
{
	struct record_stats *s = &rec->stats;
	struct record_threads *rt = &rec->readers;
	uint64_t lost = record_stats__lost(s);
	double pct = s->samples + lost ? 100.0 * lost / (s->samples + lost) : 0;
	uint64_t bytes = rec->bytes_before + output__head(&rec->out);
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
		rec->so.timestamp_filename ? ".<timestamp>" : "", (unsigned long long)s->samples,
		(unsigned long long)lost, pct, (unsigned long long)s->lost_records,
		rec->out.pipe ? "pipe" : rec->writer.ops ? rec->writer.ops->name : "no");
	if (rec->opts.comp_level) {
		uint64_t in = st.bytes_in, out = st.bytes_out;

		fprintf(stderr, "[ perfcap record: compressed: %.3f MB of records in %.3f MB, "
			"ratio %.3f (zstd level %d) ]\n", in / 1048576.0, out / 1048576.0,
			out ? (double)in / out : 0.0, rec->opts.comp_level);
	}
	if (s->throttles)
		fprintf(stderr, "[ perfcap record: the kernel throttled sampling %llu times ]\n",
			(unsigned long long)s->throttles);
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
		 * How full the rings were when the loop came to them: a ring
		 * found at 5/8 or more had little room left before it lost
		 * events (bench/results/2026-11-30-lost-records/,
		 * -overflow-causes/).
		 */
		fprintf(stderr, "[ perfcap record: rings found with data, by eighths full (0/8 .. 7/8+):");
		for (size_t f = 0; f < ARRAY_SIZE(fill); f++)
			fprintf(stderr, " %llu", (unsigned long long)fill[f]);
		fprintf(stderr, " ]\n");
		print_switches();
	}
}

static void build_feature_env(struct record *rec, struct feature_env *env,
			      struct feature_event *fev, const char **sys, const char **ev)
{
	struct evlist *el = &rec->evlist;
	struct feature_group *groups;
	int ntp = 0;

	memset(env, 0, sizeof(*env));
	env->argc = rec->argc;
	env->argv = rec->argv;
	for (int i = 0; i < el->nr; i++) {
		struct evsel *e = el->evsels[i];

		fev[i].attr = &e->attr;
		fev[i].name = e->name;
		fev[i].ids = e->ids;
		fev[i].nr_ids = e->nr_ids;
		if (e->tracepoint) {
			sys[ntp] = e->tp_system;
			ev[ntp++] = e->tp_event;
		}
	}
	env->nr_events = el->nr;
	env->events = fev;
	/* GROUP_DESC; the caller frees env->groups. */
	env->groups = groups = xzalloc((el->nr + 1) * sizeof(*groups));
	for (int i = 0; i < el->nr; i++)
		if (evsel__is_leader(el->evsels[i]) && el->evsels[i]->nr_members > 1)
			groups[env->nr_groups++] = (struct feature_group){ i,
						   el->evsels[i]->nr_members };
	env->first_sample_time = rec->file_stats.first_time;
	env->last_sample_time = rec->file_stats.last_time;
	env->nr_tracepoints = ntp;
	env->tp_system = sys;
	env->tp_event = ev;
	env->no_buildid = rec->opts.no_buildid;
	if (rec->opts.comp_level) {
		struct stage_stats st = { 0 };
		uint64_t in, out;

		/* HEADER_COMPRESSED: perf report sizes its buffers by mmap_len. */
		record_threads__stage_stats(&rec->readers, &st);
		in = st.bytes_in;
		out = st.bytes_out;
		env->comp_level = rec->opts.comp_level;
		env->comp_ratio = out ? (uint32_t)((double)in / out + 0.5) : 0;
		env->comp_mmap_len = rec->comp_mmap_len;
	}
}

/*
 * -o -: a pipe has nothing to rewrite at the end (perf sends no features
 * or build ids there either); what is in the FIFO goes out, and the
 * stream ends where the data ends.
 */
static int record__finish_pipe(struct record *rec, int err)
{
	int werr = output__drain(&rec->out);

	if (werr)
		pr_err("writing to the pipe failed: %s%s; recording stopped after %.3f MB\n",
		       strerror(-werr), werr == -EPIPE ? " (its reader exited)" : "",
		       output__durable(&rec->out) / 1048576.0);
	return err ? err : werr;
}

static int record__finish(struct record *rec, int err)
{
	struct evlist *el = &rec->evlist;
	int nr = el->nr;
	struct feature_event *fev = xzalloc(nr * sizeof(*fev));
	const char **sys = xzalloc(nr * sizeof(*sys)), **ev = xzalloc(nr * sizeof(*ev));
	struct feature_env env;
	int ferr;

	if (rec->out.pipe) {
		free(fev);
		free(sys);
		free(ev);
		return record__finish_pipe(rec, err);
	}
	if (!rec->file_created) {
		/* A --switch-output switch could not open the next file: nothing to finish. */
		free(fev);
		free(sys);
		free(ev);
		return err;
	}
	build_feature_env(rec, &env, fev, sys, ev);
	ferr = perf_data__finish(&rec->pd, &env);
	if (!err)
		err = ferr;
	/* One message for a failed write, whenever it happened. */
	if (rec->out.err || ferr) {
		int werr = rec->out.err ? rec->out.err : ferr;

		pr_err("writing %s failed: %s%s; recording stopped.\n", rec->opts.output,
		       strerror(-werr), werr == -ENOSPC ? " (disk full)" : "");
		pr_err("%s keeps the data up to the last complete write (%.3f MB of "
		       "records); perf report reads it\n", rec->opts.output,
		       (rec->out.durable > rec->pd.data_offset ?
			rec->out.durable - rec->pd.data_offset : 0) / 1048576.0);
	}
	free(fev);
	free((void *)env.groups);
	free(sys);
	free(ev);
	return err;
}

/* ---- command ------------------------------------------------------------ */

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
 * The recorder's threads (the loop, and the writer's helper threads, which
 * inherit it) run RECORDER_NICE_BOOST nice levels above the nice value
 * perfcap was started with: about 3x the scheduler weight of the workload
 * at equal nice. They run in short bursts (a pass, a write) and little of
 * the time, about 1 s of CPU in a 2.6 s tracepoint flood on 2 CPUs. The
 * weight decides how soon they get a CPU when a ring's watermark or a
 * write needs them, so the rings wait less.
 *
 * Measured on 2 saturated CPUs, in interleaved runs of 21 reps against the
 * 0.1 ms scheduler slice this replaced (bench/results/
 * 2026-11-30-nice5-priority/). In the tracepoint flood, --aio lost less in
 * 51 of 63 rep pairs, and less than perf record --aio in 45 of 63, at
 * 0.87-1.02x perf's context switches. In dwarf-small (9 reps), --aio lost
 * 7.77% against 16.21% and perf's 25.77%, and the default writer 2.69%
 * against 12.66% and perf's 13.29%. The workload was slowed about 3% more.
 * Only the loop and the helper together did it: the loop alone at the
 * higher priority lost as much as before (11 of 21).
 *
 * Set after the workload is forked (it keeps the nice value it was started
 * with) and before the writer starts its threads. Lowering the nice value
 * needs CAP_SYS_NICE or RLIMIT_NICE; refused, the recording goes on as it
 * was. Under -r the loop runs SCHED_FIFO, where the nice value is unused.
 */
#define RECORDER_NICE_BOOST 5

static void raise_priority(void)
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

/*
 * One fd per event x CPU x thread: -p on a process with many threads, on
 * a machine with hundreds of CPUs, needs far more than the usual 1024.
 * Like perf, use all the hard limit allows.
 */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/*
 * perf's rule (check_pipe()): "-o -", or no -o and a FIFO on stdout.
 * --switch-output needs files to switch, so with it a FIFO stdout keeps
 * the default file (options.c refuses it with -o -).
 */
static bool pipe_output_wanted(const struct record_opts *o)
{
	struct stat st;

	if (!strcmp(o->output, "-"))
		return true;
	if (o->output_given || o->switch_output)
		return false;
	return !fstat(STDOUT_FILENO, &st) && S_ISFIFO(st.st_mode);
}

/* The pipe format's start: attrs, features and tracing data as records. */
static int pipe_start(struct record *rec)
{
	int nr = rec->evlist.nr;
	struct feature_event *fev = xzalloc(nr * sizeof(*fev));
	const char **sys = xzalloc(nr * sizeof(*sys)), **ev = xzalloc(nr * sizeof(*ev));
	struct feature_env env;
	int err;

	build_feature_env(rec, &env, fev, sys, ev);
	err = pipe_data__start(&rec->out, &env);
	free(fev);
	free((void *)env.groups);
	free(sys);
	free(ev);
	return err;
}

static const struct writer_ops *choose_writer(const struct record_opts *o)
{
	const char *name = o->writer ? o->writer : o->aio ? "aio" : "sync";
	const struct writer_ops *ops = writer__find(name);

	if (!ops)
		pr_err("unknown writer '%s' (this build has: sync, aio, uring)\n", name);
	return ops;
}

/* --help, --list-options, --user-regs=? and -I?: print, record nothing. */
static bool print_only(const struct record_opts *o)
{
	if (o->help)
		fputs(record_opts__usage(), stdout);
	else if (o->list_options)
		record_opts__list_options(stdout);
	else if (o->list_user_regs || o->list_intr_regs)
		printf("available registers: %s\n", perf_regs__names());
	else
		return false;
	return true;
}

/*
 * Phase 1: the command line. An exit status when there is nothing to
 * record (--help, a list, --dry-run, a usage error), else -1.
 */
static int record__options(struct record *rec, int argc, char **argv)
{
	struct record_opts *o = &rec->opts;
	char errbuf[512] = "";
	int err;

	err = record_opts__parse(o, argc, argv, errbuf, sizeof(errbuf));
	if (!err && print_only(o))
		return 0;
	if (err) {
		fprintf(stderr, "perfcap record: %s\n(perfcap record --help lists the options)\n",
			errbuf);
		return 2;
	}
	verbose = o->quiet ? -1 : o->verbose;
	if (o->warning)
		pr_warn("%s\n", o->warning);
	for (size_t i = 0; i < ARRAY_SIZE(o->notice); i++)
		if (o->notice[i][0])
			pr_info("%s\n", o->notice[i]);
	if (o->dry_run)
		return 0;
	return -1;
}

/*
 * Phase 2: where the data goes. A directory is refused; pipe output takes
 * stdout over. 0, or the exit status.
 */
static int record__take_output(struct record *rec)
{
	struct record_opts *o = &rec->opts;

	{
		struct stat st;

		/* An existing file becomes FILE.old; a directory is never moved. */
		if (!stat(o->output, &st) && S_ISDIR(st.st_mode)) {
			fprintf(stderr, "perfcap record: -o %s is a directory (perf record "
				"--threads output?): remove it or give another file name\n",
				o->output);
			return 2;
		}
	}
	rec->pipe_fd = -1;
	if (pipe_output_wanted(o)) {
		/*
		 * Pipe format to stdout (perf's check_pipe()). Keep the pipe,
		 * and make stdout stderr, as perf does for its workload: the
		 * command perfcap starts, and anything printed, must not write
		 * into the stream. The pipe is close-on-exec, so only perfcap
		 * holds it open.
		 */
		rec->pipe_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if (rec->pipe_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
			pr_err("pipe output: cannot take standard output: %s\n", strerror(errno));
			if (rec->pipe_fd >= 0)
				close(rec->pipe_fd);
			return 1;
		}
		o->output = "-";
		if (o->comp_level) {
			/* Checked: perf report -i - fails on perf record -z -o -'s own stream. */
			pr_warn("-z is left out with pipe output: perf 6.1 cannot read compressed "
				"records from a pipe (not even its own: \"failed to process type: "
				"81\"); the stream is written uncompressed\n");
			o->comp_level = 0;
		}
	}
	return 0;
}

/*
 * Phase 4: the output opened (file or pipe), the readers' writers and
 * -z stages, the file's start and the synthesized tasks and maps. On an
 * error, rec->file_created says whether there is a file to remove.
 */
static int record__create_output(struct record *rec, const struct writer_ops *wops,
				 unsigned int pages, int nr_bufs)
{
	struct record_opts *o = &rec->opts;
	int err;

	if (rec->pipe_fd >= 0) {
		err = output__open_pipe(&rec->out, rec->pipe_fd, &rec->writer, 0);
		if (err)
			close(rec->pipe_fd);
		rec->pipe_fd = -1; /* the output's now */
	} else {
		err = output__open(&rec->out, o->output, &rec->writer);
	}
	if (err)
		return err;
	rec->writer.fd = rec->out.fd;
	rec->file_created = true;
	/* Each reader's pipeline: -z adds a compression stage (stage-compress.c). */
	if (o->comp_level)
		rec->comp_mmap_len = (pages + 1) * (uint32_t)sysconf(_SC_PAGESIZE);
	err = record_threads__pipelines(&rec->readers, wops, nr_bufs,
					(size_t)pages * sysconf(_SC_PAGESIZE), o->comp_level);
	if (err)
		return err;

	rec->attrs = xzalloc(rec->evlist.nr * sizeof(*rec->attrs));
	for (int i = 0; i < rec->evlist.nr; i++) {
		struct evsel *e = rec->evlist.evsels[i];

		rec->attrs[i] = (struct perf_data_attr){ &e->attr, e->ids, e->nr_ids };
	}
	if (rec->out.pipe)
		err = pipe_start(rec);
	else
		err = perf_data__start(&rec->pd, &rec->out, rec->attrs, rec->evlist.nr);
	if (!err)
		err = synthesize(rec, false);
	if (err) {
		if (rec->out.pipe && rec->out.err)
			record__finish_pipe(rec, err); /* says why: the pipe's reader exited */
		else
			pr_err("cannot write %s: %s\n", o->output, strerror(-err));
	}
	return err;
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

/*
 * Phase 5: -r, the readers started and ready, the events on (or at the
 * command's exec), the command started, -D.
 */
static int record__start(struct record *rec)
{
	struct record_opts *o = &rec->opts;
	int err;

	if (o->realtime) {
		err = setup_realtime(o->realtime);
		if (err)
			return err;
	}
	if (rec->readers.sched.fifo && !o->realtime)
		bound_rttime();
	/*
	 * The reader threads run, and are ready, before the first event is:
	 * until the command has exec'd (workload__start waits for it, 6-7 ms
	 * for sleep here) nothing else drains the rings, and with DWARF stacks
	 * on 32 KiB rings the kernel dropped 20-60 samples a CPU in that gap.
	 */
	err = record_threads__start(&rec->readers);
	if (err)
		return err;

	if (!workload_is_target(rec) && !record__delayed(rec)) {
		err = evlist__enable(&rec->evlist);
		if (err) {
			pr_err("cannot enable the events (PERF_EVENT_IOC_ENABLE): %s\n",
			       strerror(-err));
			return err;
		}
	}
	if (rec->has_workload) {
		err = workload__start(&rec->wl, o->argv);
		if (err)
			return err;
	}
	record__start_delay(rec);
	return 0;
}

/*
 * Phase 7: the events off, the rings drained, the writes done, the lost
 * samples counted, the command ended (or waited for). Returns the error
 * the recording ends with.
 */
static int record__stop(struct record *rec, int err, bool *ended_by_signal)
{
	/*
	 * Stop the events, then take what they left in the rings. A failed
	 * disable leaves events running while the last pass drains: the file
	 * is still complete up to that pass, so it is said and not fatal.
	 */
	{
		int derr = evlist__disable(&rec->evlist);

		if (derr)
			pr_warn("cannot disable every event (PERF_EVENT_IOC_DISABLE): %s; the "
				"rings are drained once more and the recording ends\n",
				strerror(-derr));
	}
	if (!err) {
		ssize_t n = record_threads__last_pass(&rec->readers, now_ns());

		if (n < 0)
			err = n;
	}
	record_threads__drain(&rec->readers);
	record__take_stats(rec);
	if (!err)
		emit_lost_samples(rec);
	*ended_by_signal = done_signal != 0;

	if (rec->has_workload && !rec->wl.exited) {
		/*
		 * Interrupted, a write failed (disk full: nothing more can be
		 * recorded, as perf does), or the -p/-t/-a targets ended before
		 * the timer command: stop it. Otherwise the command is ending by
		 * itself (its rings hung up before its exit was reaped): wait for
		 * it, its exit status is ours.
		 */
		if (done_signal || err || rec->out.err || rec->stop || !workload_is_target(rec)) {
			kill(rec->wl.pid, done_signal ? done_signal : SIGTERM);
			*ended_by_signal = true;
		}
		while (!workload__poll(&rec->wl))
			usleep(1000);
	}
	return err;
}

/*
 * Phase 3: the targets, the events (opened, their rings mapped), the
 * readers and --control; the command forked, waiting for its exec. On an
 * error *status is the exit status (2 for bad input).
 */
static int record__open_events(struct record *rec, unsigned int pages, int nr_bufs,
			       int *status)
{
	struct record_opts *o = &rec->opts;
	int err;

	/* Bad values on the command line (CPU list, event names) are usage errors. */
	raise_fd_limit();
	err = resolve_target(rec);
	if (err) {
		*status = err == -EINVAL ? 2 : 1;
		return err;
	}
	err = setup_events(rec);
	if (err) {
		/* A bad name is a usage error; tracefs we may not read is not. */
		*status = err == -EACCES || err == -EPERM ? 1 : 2;
		return err;
	}
	if (rec->has_workload) {
		err = workload__prepare(&rec->wl, o->argv);
		if (err)
			return err;
		if (!rec->evlist.system_wide && !o->pid_list && !o->tid_list)
			add_thread(rec, rec->wl.pid);
	}
	evlist__config(&rec->evlist, o, workload_is_target(rec));
	evlist__apply_event_config(&rec->evlist);
	record_stats__init(&rec->stats, rec->evlist.evsels[0]->attr.sample_type);

	err = evlist__open(&rec->evlist);
	if (err)
		return err;
	err = rings__map(&rec->rings, &rec->evlist, pages, nr_bufs);
	if (err)
		return err;
	err = setup_readers(rec);
	if (err) {
		/* A --threads layout that does not fit the CPUs is a usage error. */
		*status = err == -EINVAL ? 2 : 1;
		return err;
	}
	err = record__setup_control(rec);
	if (err)
		*status = err == -EINVAL ? 2 : 1;
	return err;
}

int cmd_record(int argc, char **argv)
{
	struct record *rec = xzalloc(sizeof(*rec));
	struct record_opts *o = &rec->opts;
	const struct writer_ops *wops;
	bool ended_by_signal;
	unsigned int pages;
	int nr_bufs, err, ret;

	ret = record__options(rec, argc, argv);
	if (ret >= 0) {
		record_opts__exit(o);
		free(rec);
		return ret;
	}
	ret = 1;
	sys_fault__init(getenv("PERFCAP_FAULT_INJECT"));
	/* CMDLINE wants perfcap's whole command line: argv is main's, shifted by one. */
	rec->argc = argc + 1;
	rec->argv = argv - 1;
	rec->has_workload = o->argc > 0;
	if (!o->output)
		o->output = "perf.data";
	ret = record__take_output(rec);
	if (ret) {
		record_opts__exit(o);
		free(rec);
		return ret;
	}
	ret = 1;
	wops = choose_writer(o);
	if (!wops) {
		record_opts__exit(o);
		free(rec);
		return 2;
	}
	pages = o->mmap_pages ? o->mmap_pages : DEFAULT_MMAP_PAGES;
	nr_bufs = o->aio ? o->aio : 1;
	/*
	 * -z: a ring's buffer is busy while its stage compresses it; with a
	 * second one the reader copies the ring meanwhile instead of waiting
	 * for zstd (tracepoint flood, sync writer: 169 waits in 1 s with one).
	 */
	if (o->comp_level && nr_bufs < 2)
		nr_bufs = 2;
	evlist__init(&rec->evlist);

	/* From here SIGINT and SIGTERM end the recording (see on_signal). */
	if (signals__catch())
		goto out_free;

	err = record__open_events(rec, pages, nr_bufs, &ret);
	if (err) {
		/* A command forked and waiting for its exec is ended too. */
		if (rec->wl.pid > 0)
			goto out_workload;
		goto out_evlist;
	}

	/* Everything that can fail on bad input has been checked: create the file. */
	raise_priority();
	err = writer__init(&rec->writer, wops, -1, rec->rings.nr * nr_bufs + 16);
	if (err)
		goto out_workload;
	err = record__create_output(rec, wops, pages, nr_bufs);
	if (err) {
		if (rec->file_created)
			goto out_file;
		goto out_writer;
	}
	err = record__start(rec);
	if (err)
		goto out_file;
	err = record__loop(rec);

	err = record__stop(rec, err, &ended_by_signal);
	status__end(&rec->status, stderr);
	err = record__finish(rec, err ? err : rec->out.err);
	if (!err)
		err = record__name_output(rec);
	print_summary(rec, err);
	if (err)
		ret = 1;
	else
		ret = rec->has_workload && !ended_by_signal ? workload__exit_code(&rec->wl) : 0;
	goto out_writer;

out_file:
	/* Nothing was recorded: leave no file behind. */
	output__drain(&rec->out);
	output__unlink(&rec->out);
out_writer:
	/* The readers' writers first: their writes in flight hold rings. */
	record_threads__exit(&rec->readers);
	rings__close(&rec->rings);
	if (rec->file_created) {
		output__drain(&rec->out);
		output__close(&rec->out);
	}
	writer__exit(&rec->writer);
out_workload:
	if (rec->has_workload && !rec->wl.exited)
		workload__abort(&rec->wl);
out_evlist:
	evlist__exit(&rec->evlist);
	event_list__exit(&rec->events);
	free(rec->attrs);
	free(rec->targets);
	/* The readers' pipelines give their chunks back to the rings first. */
	record_threads__exit(&rec->readers);
	rings__exit(&rec->rings);
	thread_spec__exit(&rec->tspec);
	control__close(&rec->control);
	switch_output__exit(&rec->so);
	strbuf__exit(&rec->kcache);
out_free:
	record_opts__exit(o);
	free(rec);
	signals__restore();
	return ret;
}
