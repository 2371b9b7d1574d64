// SPDX-License-Identifier: GPL-2.0
/*
 * perfcap record: the one place that knows the order of steps.
 *
 *   parse options -> resolve the target -> parse and open events -> map
 *   rings, set up the readers -> create the file (only now: a failure
 *   above leaves nothing) -> header + attrs -> synthesize -> readers
 *   started and ready -> enable -> loop -> disable -> last pass -> lost
 *   counts -> wait for every write -> features -> final header.
 *
 * Reader threads drain the rings (record/record-thread.c, each through
 * its chunk pipeline, record/pipeline.h); the loop here reads no ring.
 * It supervises: it sleeps on an eventfd written by the signal handler,
 * a reader that fails or whose rings hang up, and the control thread,
 * and between two sleeps it does the slow checks (the workload, the
 * targets, the header's data size, a reader's failure), the status line
 * and the control of the recording (record/record-control.c). The other
 * concerns live beside it: record/target.c, record/reader-sched.c,
 * record/synth.c, record/summary.c (record/record.h lists them).
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
#include "cli/options.h"
#include "events/cgroup.h"
#include "events/evlist-config.h"
#include "events/perf-regs.h"
#include "format/features.h"
#include "format/pipe-data.h"
#include "format/synthesize.h"
#include "perf-file.h"
#include "record/aux.h"
#include "record/helper-threads.h"
#include "record/record.h"
#include "sys.h"

#define DEFAULT_MMAP_PAGES 128		/* 512 KiB with 4 KiB pages, as perf */
#define POLL_TIMEOUT_MS 100
/* How often the header's data size is updated and slow checks are made. */
#define HEADER_SYNC_NS (100 * 1000000ULL)

static volatile sig_atomic_t done_signal;
static volatile sig_atomic_t switch_signal;	/* SIGUSR2: --switch-output=signal */
static volatile sig_atomic_t rttime_signal;	/* SIGXCPU: a reader overran RLIMIT_RTTIME */

/* ---- events ---------------------------------------------------------- */

static int setup_events(struct record *rec)
{
	const struct record_opts *o = &rec->opts;
	char err_msg[512] = "";
	const char *spec = o->events;
	int *ends = NULL;
	int err = 0;

	if (!o->nr_event_args && !spec) {
		/*
		 * perf 6.1's default: cycles:P. Where the PMU has no cycles the
		 * open falls back to cpu-clock, named as perf names it then
		 * (cpu-clock:ppp: the precision P had come to; parity.tsv,
		 * default-event).
		 */
		spec = "cycles:P";
		pr_debug("default event: %s\n", spec);
	}
	if (o->nr_event_args) {
		/* Each -e with its own --filter, in order; ends[i]: the events of the first i+1. */
		ends = xzalloc(o->nr_event_args * sizeof(*ends));
		for (int i = 0; i < o->nr_event_args && !err; i++) {
			err = parse_events__add(&rec->events, o->event_args[i].events,
						o->event_args[i].filter, err_msg, sizeof(err_msg));
			ends[i] = rec->events.nr;
		}
	} else {
		err = parse_events(&rec->events, spec, err_msg, sizeof(err_msg));
	}
	if (err) {
		pr_err("%s\n", err_msg[0] ? err_msg : "cannot parse the event list");
		free(ends);
		return err;
	}
	/* --group: perf 6.1 makes one group of every event given. */
	if (o->group)
		parse_events__group_all(&rec->events);
	evlist__add_events(&rec->evlist, &rec->events);
	/* --exclude-perf: the tracepoints of its -e, which record__exclude_perf refilters. */
	for (int i = 0; i < o->nr_event_args && !err; i++) {
		if (!o->event_args[i].exclude_perf)
			continue;
		for (int j = i ? ends[i - 1] : 0; j < ends[i]; j++) {
			if (!rec->evlist.evsels[j]->tracepoint) {
				pr_err("--exclude-perf option should follow a -e tracepoint option "
				       "('%s' is not one)\n", rec->evlist.evsels[j]->name);
				err = -EINVAL;
				break;
			}
			/*
			 * The kernel takes one filter per event: the user's goes
			 * on with perfcap's threads' (record__exclude_perf).
			 */
			rec->evlist.evsels[j]->exclude_perf_arg = i + 1;
			free(rec->evlist.evsels[j]->filter);
			rec->evlist.evsels[j]->filter = NULL;
		}
	}
	if (!err && o->nr_cgroup_args)
		err = cgroup__apply(&rec->evlist, o, ends);
	free(ends);
	return err;
}

/*
 * The signals that end the recording (SIGINT, SIGTERM), SIGCHLD, SIGUSR2
 * and SIGXCPU run a handler that notes them and writes to the eventfd the
 * loop sleeps on: one that comes between the checks and the sleep makes
 * poll() return at once.
 *
 * Not a signalfd: the kernel wakes every signalfd reader of the process
 * on any signal, blocked or not, and an aio writer may take a real-time
 * signal per finished write (io/writer-aio.c), so a loop asleep on a
 * signalfd would wake at each of them
 * (bench/results/2026-11-30-signalfd-eventfd/).
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
	snap->bytes_written = rec->ctl.bytes_before + output__written(&rec->out);
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

		/* A backward ring has no tail: how full it is says nothing. */
		if (!m->backward && m->size && ready * 100 / m->size >= best && ready) {
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

static int record__loop(struct record *rec)
{
	struct record_threads *rt = &rec->readers;
	uint64_t last_tick = 0;
	int err;

	status_start(rec, record__now_ns());
	hotplug__init(&rec->hotplug, rec, record__now_ns());
	err = control__start(&rec->ctl.chan, wake_fd);
	while (!err && !done_signal) {
		uint64_t now = record__now_ns();
		bool tick, chld, sw;
		int r;

		err = atomic_load(&rt->failed);
		/* The main writer's own writes (synthesized records) complete here. */
		if (!err)
			err = output__reap(&rec->out, false);
		if (err)
			break;
		/*
		 * What costs a system call is done once per tick (HEADER_SYNC_NS)
		 * or when a signal says so, not at every wakeup of the loop.
		 */
		tick = now - last_tick >= HEADER_SYNC_NS;
		if (tick) {
			output__sync_header_size(&rec->out);
			/* The writers' helpers: never real-time, on our CPUs (helper-threads.c). */
			helper_threads__sweep();
			/* A CPU that came back gets its events again (hotplug.c). */
			hotplug__tick(&rec->hotplug, rec, now);
			last_tick = now;
		}
		if (rttime_signal) {
			rttime_signal = 0;
			record__demote_readers(rec);
		}
		status_tick(rec, now);
		sw = switch_signal;
		switch_signal = 0;
		err = record_control__tick(rec, now, sw);
		if (err || rec->ctl.stop)
			break;
		chld = take_child_signal();
		if (rec->has_workload && (chld || tick) && workload__poll(&rec->wl))
			break;
		if (rec->nr_targets && tick && record__targets_gone(rec))
			break;
		/* Sleep until a signal, a reader, the control channel or a due time wakes it. */
		r = sleep_main(record_control__timeout(rec, now, POLL_TIMEOUT_MS));
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

		fev[i].attr = record__file_attr(rec, i);
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
		/* -zauto: said only where a reader compressed (its output fell behind). */
		if (rec->opts.comp_auto && !st.compressing)
			return;
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

/* Features and the final header of the current file (or the end of a pipe stream). */
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
	record__build_ids(rec, &env);
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
	record__build_ids_free(&env);
	free(fev);
	free((void *)env.groups);
	free(sys);
	free(ev);
	return err;
}

/* ---- command ------------------------------------------------------------ */

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
 * The targets and the events, parsed and checked, nothing opened. On an
 * error *status is the exit status: bad values on the command line (CPU
 * list, event names) are usage errors (2); a pid that does not exist, or
 * tracefs we may not read, is not (1).
 */
static int record__targets_and_events(struct record *rec, int *status)
{
	int err = record__resolve_target(rec);

	if (err) {
		*status = err == -EINVAL ? 2 : 1;
		return err;
	}
	err = setup_events(rec);
	/* -zauto: perf 6.1 reads an AUX area's trace only uncompressed; it never pays there. */
	if (!err && rec->opts.comp_auto && aux__evsel(&rec->evlist)) {
		rec->opts.comp_level = 0;
		rec->opts.comp_auto = false;
	}
	/* -S, --aux-sample: perf's refusals without an AUX event; it goes first. */
	if (!err)
		err = aux__setup_events(&rec->evlist, &rec->opts);
	if (err)
		*status = err == -EACCES || err == -EPERM ? 1 : 2;
	return err;
}

/*
 * --dry-run: what a recording would refuse before it opens anything, said
 * as it would say it (record__targets_and_events). 0, or the recording's
 * exit status.
 */
static int record__dry_run(struct record *rec)
{
	int ret = 0;

	evlist__init(&rec->evlist);
	record__targets_and_events(rec, &ret);
	/* --switch-output-event's events are refused as -e's are. */
	if (!ret && rec->opts.switch_output_event) {
		struct event_list sb = { 0 };
		char msg[512] = "";

		if (parse_events(&sb, rec->opts.switch_output_event, msg, sizeof(msg))) {
			pr_err("--switch-output-event: %s\n", msg[0] ? msg : "cannot parse the events");
			ret = 2;
		}
		event_list__exit(&sb);
	}
	evlist__exit(&rec->evlist);
	event_list__exit(&rec->events);
	free(rec->targets);
	rec->targets = NULL;
	return ret;
}

/*
 * The files options name, checked as perf 6.1 checks them: --vmlinux must
 * exist, and --kcore needs a readable /proc/kcore. 0 or the exit status.
 */
static int record__check_files(const struct record_opts *o)
{
	if (o->vmlinux && access(o->vmlinux, R_OK)) {
		pr_err("Invalid file: %s (--vmlinux: %s)\n", o->vmlinux, strerror(errno));
		return 2;
	}
	if (o->kcore && access("/proc/kcore", R_OK)) {
		pr_err("ERROR: kcore is not readable. (--kcore copies /proc/kcore: %s)\n",
		       strerror(errno));
		return 1;
	}
	if (o->kcore) {
		/* perf writes a directory with a copy of kcore; perfcap does not yet. */
		pr_err("--kcore: copying /proc/kcore into a perf.data directory is not "
		       "implemented in perfcap; record without it\n");
		return 2;
	}
	return 0;
}

/*
 * Phase 1: the command line. An exit status when there is nothing to
 * record (--help, a list, --dry-run, a usage error), else -1.
 */
static int record__options(struct record *rec, int argc, char **argv)
{
	struct record_opts *o = &rec->opts;
	char errbuf[512] = "";
	int err, ret;

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
	ret = record__check_files(o);
	if (ret)
		return ret;
	if (o->dry_run)
		return record__dry_run(rec);
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
		if (o->comp_level && o->comp_auto) {
			/* -zauto: compression that perf could not read does not pay. */
			o->comp_level = 0;
			o->comp_auto = false;
		} else if (o->comp_level) {
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
	/* And in front of all, the triage stage (stage-triage.c), which reads the samples. */
	rec->readers.budget = o->user_buffer_set ? o->user_buffer : TRIAGE_DEFAULT_BUDGET;
	for (int i = 0; i < rec->evlist.nr; i++)
		sample_layouts__add(&rec->readers.layouts, &rec->evlist.evsels[i]->attr,
				    rec->evlist.evsels[i]->ids, rec->evlist.evsels[i]->nr_ids);
	/* --unwind: an unwind stage behind triage, and the file's attrs converted. */
	err = record__unwind_init(rec);
	if (err)
		return err;
	err = record_threads__pipelines(&rec->readers, wops, nr_bufs,
					(size_t)pages * sysconf(_SC_PAGESIZE), o->comp_level,
					o->comp_auto);
	if (err)
		return err;

	rec->attrs = xzalloc(rec->evlist.nr * sizeof(*rec->attrs));
	for (int i = 0; i < rec->evlist.nr; i++) {
		struct evsel *e = rec->evlist.evsels[i];

		rec->attrs[i] = (struct perf_data_attr){ record__file_attr(rec, i), e->ids,
							 e->nr_ids };
	}
	if (rec->out.pipe)
		err = pipe_start(rec);
	else
		err = perf_data__start(&rec->pd, &rec->out, rec->attrs, rec->evlist.nr);
	/* --tail-synthesize: at the end instead (record__stop), as perf. */
	if (!err && !o->tail_synthesize)
		err = record__synthesize(rec, false);
	if (o->unwind)
		live_maps__synth_done(&rec->live);
	if (err) {
		if (rec->out.pipe && rec->out.err)
			record__finish_pipe(rec, err); /* says why: the pipe's reader exited */
		else
			pr_err("cannot write %s: %s\n", o->output, strerror(-err));
	}
	return err;
}

/*
 * --exclude-perf: perf's filter leaves out its own pid, and a tracepoint's
 * common_pid is the thread's; perfcap's reader threads do the writing, so
 * every thread of perfcap is filtered out, once they run and before the
 * events are enabled. The kernel takes one filter per event, so the
 * user's --filter waited for this one (setup_events).
 */
static int record__exclude_perf(struct record *rec)
{
	struct strbuf pids;
	struct dirent *d;
	struct evsel *e;
	bool any = false;
	DIR *dir;
	int err = 0;

	evlist__for_each_evsel(&rec->evlist, e)
		any |= e->exclude_perf_arg > 0;
	if (!any)
		return 0;
	dir = opendir("/proc/self/task");
	if (!dir) {
		err = -errno;
		pr_err("--exclude-perf: cannot read /proc/self/task: %s\n", strerror(-err));
		return err;
	}
	strbuf__init(&pids);
	while ((d = readdir(dir)))
		if (d->d_name[0] >= '1' && d->d_name[0] <= '9')
			strbuf__addf(&pids, "%scommon_pid != %s", pids.len ? " && " : "", d->d_name);
	closedir(dir);
	evlist__for_each_evsel(&rec->evlist, e) {
		const char *user;
		char *f;

		if (!e->exclude_perf_arg || err)
			continue;
		user = rec->opts.event_args[e->exclude_perf_arg - 1].filter;
		if (user && asprintf(&f, "(%s) && (%s)", user, pids.data) < 0)
			f = NULL;
		else if (!user)
			f = xstrdup(pids.data);
		err = f ? evsel__set_filter(e, f) : -ENOMEM;
		free(f);
	}
	strbuf__exit(&pids);
	return err;
}

/*
 * Phase 5: -r, the readers started and ready, the events on (or at the
 * command's exec), the command started, -D.
 */
static int record__start(struct record *rec)
{
	struct record_opts *o = &rec->opts;
	int err;

	err = record__sched_start(rec);
	if (err)
		return err;
	/*
	 * The reader threads run, and are ready, before the first event is:
	 * this thread drains no ring and is busy until the command has exec'd
	 * (workload__start waits for it), and readers started after the
	 * events left the rings of a DWARF recording overflowing in that gap
	 * (bench/results/2026-12-01-reader-fifo/, 2026-12-01-readers-first/).
	 */
	err = record_threads__start(&rec->readers);
	if (!err)
		err = record__exclude_perf(rec);
	if (err)
		return err;

	if (!record__workload_is_target(rec) && !record__delayed(rec)) {
		err = evlist__enable(&rec->evlist);
		if (err) {
			pr_err("cannot enable the events (PERF_EVENT_IOC_ENABLE): %s\n",
			       strerror(-err));
			return err;
		}
	}
	record__off_cpu_start(rec);
	if (rec->has_workload) {
		err = workload__start(&rec->wl, o->argv);
		if (err)
			return err;
	}
	record_control__start(rec);
	if (o->switch_output_event)
		return switch_event__start(&rec->sw_event);
	return 0;
}

/*
 * Phase 7: the events off, the rings drained, the writes done, the lost
 * samples counted, the command ended (or waited for). Returns the error
 * the recording ends with.
 */
static int record__stop(struct record *rec, int err, bool *ended_by_signal)
{
	/* No switch may start once the end has. */
	if (rec->opts.switch_output_event)
		switch_event__close(&rec->sw_event);
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
	rings__set_flush(&rec->rings, 0);
	if (!err) {
		ssize_t n;

		/* --overwrite: the flight recorder's rings are read now, and only now. */
		rings__snapshot(&rec->rings);
		/* -Se: and the AUX areas. */
		if (rec->opts.aux_snapshot_on_exit)
			aux__snapshot_rings(&rec->rings, NULL);
		n = record_threads__last_pass(&rec->readers, record__now_ns());

		if (n < 0)
			err = n;
	}
	record_threads__drain(&rec->readers);
	record__take_stats(rec);
	/*
	 * The records of what exists now, at the end: --tail-synthesize (the
	 * command may have gone, as with perf), and --overwrite, whose rings
	 * overwrote the maps of what started long before the snapshot (perf's
	 * --overwrite implies --tail-synthesize).
	 */
	if (!err && (rec->opts.overwrite || rec->opts.tail_synthesize))
		err = record__synthesize(rec, true);
	if (!err)
		record__emit_lost_samples(rec);
	if (!err)
		err = record__off_cpu_write(rec);
	*ended_by_signal = done_signal != 0;

	if (rec->has_workload && !rec->wl.exited) {
		/*
		 * Interrupted, a write failed (disk full: nothing more can be
		 * recorded, as perf does), or the -p/-t/-a targets ended before
		 * the timer command: stop it. Otherwise the command is ending by
		 * itself (its rings hung up before its exit was reaped): wait for
		 * it, its exit status is ours.
		 */
		if (done_signal || err || rec->out.err || rec->ctl.stop || !record__workload_is_target(rec)) {
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

	raise_fd_limit();
	err = record__targets_and_events(rec, status);
	if (err)
		return err;
	if (rec->has_workload) {
		err = workload__prepare(&rec->wl, o->argv);
		if (err)
			return err;
		if (record__workload_is_target(rec))
			record__add_thread(rec, rec->wl.pid);
	}
	err = record__off_cpu_prepare(rec);
	if (err)
		return err;
	err = evlist__config(&rec->evlist, o, record__workload_is_target(rec));
	if (err) {
		*status = 2;
		return err;
	}
	aux__config(&rec->evlist, o);
	evlist__apply_event_config(&rec->evlist);
	record_stats__init(&rec->stats, rec->evlist.evsels[0]->attr.sample_type);

	err = evlist__open(&rec->evlist);
	if (err)
		return err;
	/* -a: room for a ring per CPU that may come online (maps[] never moves once mapped). */
	hotplug__reserve(rec);
	err = rings__map(&rec->rings, &rec->evlist, pages, nr_bufs);
	if (!err)
		err = aux__map_rings(&rec->rings, &rec->evlist, o);
	if (err)
		return err;
	rings__set_flush(&rec->rings, o->mmap_flush);
	err = record__setup_readers(rec, wake_fd);
	if (err) {
		/* A --threads layout that does not fit the CPUs is a usage error. */
		*status = err == -EINVAL ? 2 : 1;
		return err;
	}
	record__build_ids_setup(rec);
	err = record_control__setup(rec);
	if (err) {
		*status = err == -EINVAL ? 2 : 1;
		return err;
	}
	if (o->switch_output_event) {
		err = switch_event__open(&rec->sw_event, o->switch_output_event, &rec->evlist);
		if (err)
			*status = err == -EINVAL || err == -ENOENT ? 2 : 1;
	}
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

	rec->ctl.take_stats = record__take_stats;
	rec->ctl.finish = record__finish;
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
	 * for zstd (bench/results/2026-12-01-zstd/).
	 */
	if (o->comp_level && !o->comp_auto && nr_bufs < 2)
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
	record__raise_priority();
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
		err = record_control__name_output(rec);
	record__print_summary(rec, err);
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
	if (o->switch_output_event)
		switch_event__close(&rec->sw_event);
	evlist__exit(&rec->evlist);
	event_list__exit(&rec->events);
	free(rec->attrs);
	free(rec->targets);
	/* The readers' pipelines give their chunks back to the rings first. */
	record_threads__exit(&rec->readers);
	record__unwind_exit(rec);
	rings__exit(&rec->rings);
	hotplug__exit(&rec->hotplug);
	thread_spec__exit(&rec->tspec);
	control__close(&rec->ctl.chan);
	switch_output__exit(&rec->ctl.so);
	strbuf__exit(&rec->kcache);
	off_cpu__delete(rec->offcpu);
	dso_hits__exit(&rec->synth_hits);
out_free:
	record_opts__exit(o);
	free(rec);
	signals__restore();
	return ret;
}
