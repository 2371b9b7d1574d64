// SPDX-License-Identifier: GPL-2.0
/*
 * "perfcap test": what `perf test` is to perf. Checks that this binary,
 * installed or not, records correctly on the running kernel: it needs
 * nothing from the source tree. Each test runs this very binary
 * (/proc/self/exe) as "perfcap record" on a workload that the binary
 * also carries ("perfcap test -w spin"), then reads the file back with
 * perfcap's own reader and, where it is installed, upstream perf.
 *
 * Each test runs in a child process of its own, in a scratch directory
 * of its own, with its output in a log that -v shows; a test that hangs
 * is killed after TEST_TIMEOUT_S. Every child it starts dies with it
 * (PR_SET_PDEATHSIG), so nothing keeps spinning after a failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <dirent.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "cli/builtin.h"
#include "perf-file.h"
#include "read/reader.h"
#include "util.h"
#include "version.h"

#define TEST_TIMEOUT_S 120
/* How long one "perfcap record" may take before the test calls it hung. */
#define RECORD_TIMEOUT_S 60

enum { TEST_OK = 0, TEST_FAIL = 1, TEST_SKIP = 2 };

struct test_ctx {
	char self[PATH_MAX];	/* this binary */
	char dir[PATH_MAX];	/* the test's scratch directory (the cwd) */
};

struct selftest {
	const char *name;
	int (*fn)(struct test_ctx *t);
};

static const char usage[] =
	"usage: perfcap test [-v] [-l] [<test number>|<name substring> ...]\n"
	"       perfcap test -w spin [<seconds> [<threads>]]\n"
	"\n"
	"Check that this perfcap records correctly on this machine, as perf test\n"
	"does for perf. Each test prints Ok, FAILED! or Skip (reason).\n"
	"\n"
	"  -l, --list       list the tests with their numbers\n"
	"  -v, --verbose    show each test's output (the commands and what they said)\n"
	"  -w, --workload   run a built-in workload instead (used by the tests):\n"
	"                   spin: <threads> threads (default 1) burn CPU for <seconds>\n"
	"                   (default 1), in perfcap_spin_burn(), named perfcap-spin\n"
	"  -h, --help       this text\n"
	"\n"
	"Exit status: 0 when no test failed, 1 when one did, 2 usage error.\n";

/* ---- the workload --------------------------------------------------------- */

static volatile int spin_stop;

/* Not static, not inlined: the symbol the samples and stacks land in. */
unsigned long perfcap_spin_burn(unsigned long n);
__attribute__((noinline)) unsigned long perfcap_spin_burn(unsigned long n)
{
	volatile unsigned long x = 0;

	for (unsigned long i = 0; i < n; i++)
		x += i * 7 + 1;
	return x;
}

static void *spin_thread(void *arg)
{
	prctl(PR_SET_NAME, "perfcap-spin");
	while (!spin_stop)
		perfcap_spin_burn(100000);
	return arg;
}

static int spin_workload(int argc, char **argv)
{
	double secs = argc > 0 ? strtod(argv[0], NULL) : 1.0;
	long nr = argc > 1 ? strtol(argv[1], NULL, 10) : 1;
	pthread_t th[64];
	struct timespec ts;
	pid_t parent = getppid();
	long i;

	if (secs <= 0 || secs > 3600 || nr < 1 || nr > (long)ARRAY_SIZE(th)) {
		fprintf(stderr, "perfcap test -w spin: want 0 < seconds <= 3600, 1..64 threads\n");
		return 2;
	}
	/* Never outlive whoever started us (a recorder killed by a test). */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		return 1;
	for (i = 0; i < nr; i++)
		if (pthread_create(&th[i], NULL, spin_thread, NULL))
			break;
	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	spin_stop = 1;
	while (i-- > 0)
		pthread_join(th[i], NULL);
	return 0;
}

/* ---- running commands -------------------------------------------------------- */

static void log_cmd(char *const argv[], const char *env)
{
	printf("$ %s%s", env ? env : "", env ? " " : "");
	for (int i = 0; argv[i]; i++)
		printf("%s%s", i ? " " : "", argv[i]);
	printf("\n");
	fflush(stdout);
}

static int redirect(const char *path, int to)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	return fd < 0 || dup2(fd, to) < 0 ? -1 : 0;
}

/*
 * Start argv (argv[0] a path) in the test's directory: stdout into the
 * file out, stderr into the file err (the same file when the same name;
 * NULL: the test's log). env: one "NAME=value" or NULL. Returns the pid
 * or -errno.
 */
static pid_t spawn(char *const argv[], const char *out, const char *err, const char *env)
{
	pid_t parent = getpid();
	pid_t pid;

	log_cmd(argv, env);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		if (out && redirect(out, 1))
			_exit(127);
		if (err && out && !strcmp(err, out) ? dup2(1, 2) < 0 : err && redirect(err, 2))
			_exit(127);
		if (env)
			putenv((char *)env);
		execv(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Wait for pid at most timeout seconds (then SIGKILL it). Returns its
 * exit code, 128 + signal if a signal ended it, or -ETIMEDOUT.
 */
static int wait_for(pid_t pid, double timeout)
{
	double end = now_s() + timeout;
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			return -errno;
		if (now_s() > end) {
			printf("timed out after %.0f s: killing pid %d\n", timeout, (int)pid);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -ETIMEDOUT;
		}
		usleep(10000);
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* Copy a file to stdout (the log, or the terminal for -v), each line after prefix. */
static void show_file(const char *path, const char *prefix)
{
	char line[1024];
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		printf("%s%s%s", prefix, line, strchr(line, '\n') ? "" : "\n");
	fclose(f);
	fflush(stdout);
}

/*
 * Run argv to completion; stdout and stderr both into the file out (its
 * contents copied to the log too) or into the log. Returns as wait_for.
 */
static int run_cmd(char *const argv[], const char *out, const char *env, double timeout)
{
	pid_t pid;
	int rc;

	fflush(stdout);
	/* stderr too: the messages are what several tests check. */
	pid = spawn(argv, out, out, env);
	if (pid < 0)
		return pid;
	rc = wait_for(pid, timeout);
	if (out)
		show_file(out, "    ");
	printf("exit status %d\n", rc);
	return rc;
}

/*
 * "perfcap record ARGS -- perfcap test -w spin SECS THREADS": argv built
 * into a static array; args end with NULL.
 */
#define MAX_ARGS 48
struct argv_buf {
	char *v[MAX_ARGS];
	int n;
};

static void argv_add(struct argv_buf *a, const char *s)
{
	if (a->n < MAX_ARGS - 1)
		a->v[a->n++] = (char *)s;
	a->v[a->n] = NULL;
}

static void record_argv(struct test_ctx *t, struct argv_buf *a, const char *const *opts,
			const char *secs, const char *threads)
{
	a->n = 0;
	argv_add(a, t->self);
	argv_add(a, "record");
	for (; opts && *opts; opts++)
		argv_add(a, *opts);
	argv_add(a, "--");
	argv_add(a, t->self);
	argv_add(a, "test");
	argv_add(a, "-w");
	argv_add(a, "spin");
	argv_add(a, secs);
	argv_add(a, threads);
}

static int record(struct test_ctx *t, const char *const *opts, const char *secs,
		  const char *threads, const char *out, const char *env)
{
	struct argv_buf a;

	record_argv(t, &a, opts, secs, threads);
	return run_cmd(a.v, out, env, RECORD_TIMEOUT_S);
}

static bool file_has(const char *path, const char *needle)
{
	char *buf = NULL;
	bool found = read_file(path, &buf) >= 0 && strstr(buf, needle);

	free(buf);
	return found;
}

static int count_in_file(const char *path, const char *needle)
{
	char *buf = NULL, *p;
	int n = 0;

	if (read_file(path, &buf) < 0)
		return 0;
	for (p = buf; (p = strcasestr(p, needle)); p += strlen(needle))
		n++;
	free(buf);
	return n;
}

/* ---- what a test needs ---------------------------------------------------------- */

static char skip_reason[256];

static int skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(skip_reason, sizeof(skip_reason), fmt, ap);
	va_end(ap);
	return TEST_SKIP;
}

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	va_list ap;

	printf("FAILED: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	return TEST_FAIL;
}

#define CHECK(cond, ...) do { if (!(cond)) return fail(__VA_ARGS__); } while (0)

static long paranoid(void)
{
	long long v = 2;

	read_int("/proc/sys/kernel/perf_event_paranoid", &v);
	return (long)v;
}

/*
 * Can this process open a cpu-clock sampling event: on itself, user
 * space only (what recording one's own command needs), or on CPU 0 for
 * every task (what -a needs)? 0 or a skip with the reason.
 */
static int need_perf(bool system_wide)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 100000,
		.disabled = 1,
		.exclude_kernel = !system_wide,
		.exclude_hv = 1,
	};
	long fd = syscall(__NR_perf_event_open, &attr, system_wide ? -1 : 0,
			  system_wide ? 0 : -1, -1, 0);
	int err = errno;

	if (fd >= 0) {
		close((int)fd);
		return 0;
	}
	return skip("%s recording is not permitted: perf_event_open: %s "
		    "(uid %d, perf_event_paranoid=%ld)", system_wide ? "system-wide" : "user-space",
		    strerror(err), (int)geteuid(), paranoid());
}

/* A tracefs with sched:sched_switch, mounted here if root and it is not. */
static int need_tracefs(void)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[PATH_MAX];

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/events/sched/sched_switch/id", dirs[i]);
		if (access(path, R_OK) == 0)
			return 0;
	}
	if (geteuid() == 0 && access("/sys/kernel/tracing", F_OK) == 0) {
		if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0) {
			printf("mounted tracefs on /sys/kernel/tracing\n");
			if (access("/sys/kernel/tracing/events/sched/sched_switch/id", R_OK) == 0)
				return 0;
		} else {
			printf("mount tracefs: %s\n", strerror(errno));
		}
	}
	return skip("no tracefs with sched:sched_switch (%s)",
		    geteuid() ? "not root, cannot mount it" : "mounting it failed");
}

/* ---- reading a file back ------------------------------------------------------ */

#define MAX_PIDS 256

struct file_stats {
	uint64_t records;
	uint64_t samples;
	uint64_t lost_records, lost_events;
	uint64_t bad_samples;		/* parse_sample said no */
	uint64_t spin_samples;		/* of a perfcap-spin thread */
	uint64_t spin_stacks;		/* ... with a user stack and registers */
	uint64_t raw_samples;		/* with tracepoint data */
	uint64_t other_pid_samples;	/* not of the spin threads' process */
	uint32_t spin_tids[MAX_PIDS];
	int nr_spin_tids;
	uint32_t spin_pid;
	/* Processes the workload started (under ASan, LeakSanitizer's tracer at exit). */
	uint32_t child_pids[MAX_PIDS];
	int nr_child_pids;
	uint32_t pids[MAX_PIDS];	/* distinct pids of samples */
	int nr_pids;
	uint64_t cpu_mask[16];		/* CPUs of samples, up to 1024 */
	int nr_cpus;
	bool tracing_data;
	char first_event[64];
};

static bool is_spin_tid(const struct file_stats *fs, uint32_t tid)
{
	for (int i = 0; i < fs->nr_spin_tids; i++)
		if (fs->spin_tids[i] == tid)
			return true;
	return false;
}

static bool is_child_pid(const struct file_stats *fs, uint32_t pid)
{
	for (int i = 0; i < fs->nr_child_pids; i++)
		if (fs->child_pids[i] == pid)
			return true;
	return false;
}

/*
 * First pass: the threads that named themselves perfcap-spin, and the
 * processes they or their children forked (inherited events follow them).
 */
static int find_spin(struct perf_reader *r, const struct perf_reader_record *rec, void *priv)
{
	const struct perf_event_header *h = rec->header;
	struct file_stats *fs = priv;
	const struct { uint32_t pid, tid; char comm[]; } *c = (const void *)(h + 1);
	const struct { uint32_t pid, ppid, tid, ptid; } *f = (const void *)(h + 1);

	if (h->type == PERF_RECORD_FORK && h->size >= sizeof(*h) + sizeof(*f)) {
		if (fs->spin_pid && f->pid != f->ppid && fs->nr_child_pids < MAX_PIDS &&
		    (f->ppid == fs->spin_pid || is_child_pid(fs, f->ppid)) &&
		    !is_child_pid(fs, f->pid))
			fs->child_pids[fs->nr_child_pids++] = f->pid;
		return 0;
	}

	if (h->type != PERF_RECORD_COMM || h->size < sizeof(*h) + 8 + 13)
		return 0;
	if (strncmp(c->comm, "perfcap-spin", 13) || is_spin_tid(fs, c->tid) ||
	    fs->nr_spin_tids >= MAX_PIDS)
		return 0;
	fs->spin_tids[fs->nr_spin_tids++] = c->tid;
	fs->spin_pid = c->pid;
	return 0;
}

static int count_record(struct perf_reader *r, const struct perf_reader_record *rec, void *priv)
{
	const struct perf_event_header *h = rec->header;
	struct file_stats *fs = priv;
	struct perf_reader_sample s;
	int i;

	fs->records++;
	if (h->type == PERF_RECORD_LOST && h->size >= sizeof(*h) + 16) {
		const uint64_t *p = (const void *)(h + 1);

		fs->lost_records++;
		fs->lost_events += p[1];
		return 0;
	}
	if (h->type != PERF_RECORD_SAMPLE)
		return 0;
	fs->samples++;
	if (perf_reader__parse_sample(r, h, &s)) {
		fs->bad_samples++;
		return 0;
	}
	if (is_spin_tid(fs, s.tid)) {
		fs->spin_samples++;
		if (s.user_stack_dyn_size > 0 && s.user_regs_abi)
			fs->spin_stacks++;
	}
	if (s.pid != fs->spin_pid && !is_child_pid(fs, s.pid))
		fs->other_pid_samples++;
	if (s.raw_size > 0)
		fs->raw_samples++;
	for (i = 0; i < fs->nr_pids && fs->pids[i] != s.pid; i++)
		;
	if (i == fs->nr_pids && i < MAX_PIDS)
		fs->pids[fs->nr_pids++] = s.pid;
	if ((s.sample_type & PERF_SAMPLE_CPU) && s.cpu < 1024 &&
	    !(fs->cpu_mask[s.cpu / 64] & (1ULL << (s.cpu % 64)))) {
		fs->cpu_mask[s.cpu / 64] |= 1ULL << (s.cpu % 64);
		fs->nr_cpus++;
	}
	return 0;
}

/*
 * Open and walk a file with perfcap's reader, as far as its header says
 * it goes: any error fails the test (the reader printed why).
 */
static int read_back(const char *path, struct file_stats *fs)
{
	struct perf_reader r;
	int err;

	memset(fs, 0, sizeof(*fs));
	fflush(stdout);
	err = perf_reader__open(&r, path);
	if (err)
		return fail("perfcap's reader cannot open %s: %s", path, strerror(-err));
	err = perf_reader__for_each_record(&r, find_spin, fs);
	if (!err)
		err = perf_reader__for_each_record(&r, count_record, fs);
	fs->tracing_data = perf_reader__has_feature(&r, HEADER_TRACING_DATA);
	if (r.nr_attrs)
		snprintf(fs->first_event, sizeof(fs->first_event), "%s",
			 perf_reader__attr_name(&r, 0));
	perf_reader__close(&r);
	fflush(stderr);
	if (err)
		return fail("perfcap's reader stopped in %s: %s", path, strerror(-err));
	printf("%s: %" PRIu64 " records, %" PRIu64 " samples (%" PRIu64 " of perfcap-spin, "
	       "%" PRIu64 " with user stacks, %" PRIu64 " raw), %d pids, %d cpus, %" PRIu64
	       " LOST records (%" PRIu64 " events), first event %s\n",
	       path, fs->records, fs->samples, fs->spin_samples, fs->spin_stacks,
	       fs->raw_samples, fs->nr_pids, fs->nr_cpus, fs->lost_records,
	       fs->lost_events, fs->first_event);
	CHECK(fs->bad_samples == 0, "%" PRIu64 " samples do not parse", fs->bad_samples);
	return TEST_OK;
}

/* ---- the tests -------------------------------------------------------------------- */

static int test_basics(struct test_ctx *t)
{
	char *ver[] = { t->self, "--version", NULL };
	char *help[] = { t->self, "record", "--help", NULL };
	char *bad[] = { t->self, "record", "--no-such-option", NULL };
	char want[64];
	int rc;

	snprintf(want, sizeof(want), "perfcap version %s", PERFCAP_VERSION);
	rc = run_cmd(ver, "version.out", NULL, 10);
	CHECK(rc == 0 && file_has("version.out", want), "--version: want '%s', exit 0", want);
	rc = run_cmd(help, "help.out", NULL, 10);
	CHECK(rc == 0 && file_has("help.out", "--writer"), "record --help: exit 0, lists --writer");
	rc = run_cmd(bad, "bad.out", NULL, 10);
	CHECK(rc == 2, "an unknown option is a usage error: exit 2, not %d", rc);
	return TEST_OK;
}

static int test_workload(struct test_ctx *t)
{
	static const char *const opts[] = { "-e", "cpu-clock", "-o", "w.data", NULL };
	struct file_stats fs;
	int rc;

	if (need_perf(false))
		return TEST_SKIP;
	rc = record(t, opts, "0.5", "2", "rec.out", NULL);
	CHECK(rc == 0, "perfcap record exited %d", rc);
	CHECK(file_has("rec.out", "Captured and wrote"), "no summary line");
	if (read_back("w.data", &fs))
		return TEST_FAIL;
	CHECK(fs.nr_spin_tids == 2, "want COMM records of 2 perfcap-spin threads, got %d",
	      fs.nr_spin_tids);
	CHECK(fs.spin_samples >= 50, "want >= 50 samples of the spinning threads");
	CHECK(fs.other_pid_samples == 0,
	      "%" PRIu64 " samples of other processes: only the workload was asked for",
	      fs.other_pid_samples);
	return TEST_OK;
}

static int test_system_wide(struct test_ctx *t)
{
	static const char *const opts[] = { "-a", "-e", "cpu-clock", "-o", "a.data", NULL };
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct file_stats fs;
	int rc;

	if (need_perf(true))
		return TEST_SKIP;
	rc = record(t, opts, "0.5", "1", NULL, NULL);
	CHECK(rc == 0, "perfcap record -a exited %d", rc);
	if (read_back("a.data", &fs))
		return TEST_FAIL;
	CHECK(fs.spin_samples >= 50, "want >= 50 samples of the spinning thread");
	/* cpu-clock ticks on idle CPUs too (pid 0), so -a sees them all. */
	CHECK(fs.nr_cpus == ncpus, "samples on %d CPUs, %ld online", fs.nr_cpus, ncpus);
	CHECK(fs.nr_pids >= 2, "-a: want samples of more than the workload, got %d pids",
	      fs.nr_pids);
	return TEST_OK;
}

static int test_tracepoint(struct test_ctx *t)
{
	static const char *const opts[] = { "-a", "-e", "sched:sched_switch", "-o", "tp.data",
					    NULL };
	struct file_stats fs;
	int rc;

	if (need_perf(true) || need_tracefs())
		return TEST_SKIP;
	/* Four spinning threads on fewer CPUs switch for sure. */
	rc = record(t, opts, "0.3", "4", NULL, NULL);
	CHECK(rc == 0, "perfcap record -e sched:sched_switch exited %d", rc);
	if (read_back("tp.data", &fs))
		return TEST_FAIL;
	CHECK(!strcmp(fs.first_event, "sched:sched_switch"), "event named '%s'",
	      fs.first_event);
	CHECK(fs.samples > 0 && fs.raw_samples == fs.samples,
	      "want samples, each with raw tracepoint data");
	CHECK(fs.tracing_data, "no HEADER_TRACING_DATA: perf could not decode the fields");
	return TEST_OK;
}

static int test_dwarf(struct test_ctx *t)
{
	static const char *const opts[] = { "--call-graph", "dwarf", "-e", "cpu-clock",
					    "-o", "d.data", NULL };
	struct file_stats fs;
	int rc;

	if (need_perf(false))
		return TEST_SKIP;
	rc = record(t, opts, "0.5", "1", NULL, NULL);
	CHECK(rc == 0, "perfcap record --call-graph dwarf exited %d", rc);
	if (read_back("d.data", &fs))
		return TEST_FAIL;
	CHECK(fs.spin_samples >= 20, "want >= 20 samples of the spinning thread");
	/*
	 * The kernel gives a sample no user stack when the thread has none to
	 * give at that moment (taken in its exit, after its memory is gone):
	 * 1 of ~1960 samples in 1 of 5 runs here. Nearly all must have one.
	 */
	CHECK(fs.spin_stacks * 100 >= fs.spin_samples * 99,
	      "%" PRIu64 " of %" PRIu64 " samples lack a user stack or registers",
	      fs.spin_samples - fs.spin_stacks, fs.spin_samples);
	return TEST_OK;
}

/* kernel.io_uring_disabled is set (1 or 2): no io_uring for perfcap. */
static bool io_uring_disabled(void)
{
	char *buf = NULL;
	bool off = read_file("/proc/sys/kernel/io_uring_disabled", &buf) >= 0 && atoi(buf) != 0;

	free(buf);
	return off;
}

static int test_writer(struct test_ctx *t, const char *writer)
{
	char opt[32], file[32];
	const char *opts[] = { opt, "-e", "cpu-clock", "-o", file, NULL };
	struct file_stats fs;
	int rc;

	if (need_perf(false))
		return TEST_SKIP;
	/*
	 * Every writer is built in: one that fails is a failure, unless the
	 * kernel turned io_uring off (kernel.io_uring_disabled).
	 */
	if (!strcmp(writer, "uring") && io_uring_disabled())
		return skip("io_uring is disabled on this kernel (kernel.io_uring_disabled)");
	snprintf(opt, sizeof(opt), "--writer=%s", writer);
	snprintf(file, sizeof(file), "%s.data", writer);
	rc = record(t, opts, "0.5", "2", "rec.out", NULL);
	CHECK(rc == 0, "perfcap record %s exited %d", opt, rc);
	{
		char want[64];

		snprintf(want, sizeof(want), "%s writer ]", writer);
		CHECK(file_has("rec.out", want), "the summary does not name the %s writer",
		      writer);
	}
	if (read_back(file, &fs))
		return TEST_FAIL;
	CHECK(fs.spin_samples >= 50, "want >= 50 samples of the spinning threads");
	return TEST_OK;
}

static int test_writer_sync(struct test_ctx *t)  { return test_writer(t, "sync"); }
static int test_writer_aio(struct test_ctx *t)   { return test_writer(t, "aio"); }
static int test_writer_uring(struct test_ctx *t) { return test_writer(t, "uring"); }

/*
 * Wait until the recorder's workload has its spinning thread (so events
 * are on and samples come), at most 10 s: the machine may be busy.
 * Without /proc/PID/task/PID/children, just wait a little.
 */
static void wait_workload_spinning(pid_t rec)
{
	char path[64], task[64], *buf = NULL;
	double end = now_s() + 10;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)rec, (int)rec);
	while (now_s() < end) {
		long child = 0;
		DIR *d;
		int n = 0;

		free(buf);
		buf = NULL;
		if (read_file(path, &buf) < 0) {
			usleep(700000);
			break;
		}
		child = strtol(buf, NULL, 10);
		snprintf(task, sizeof(task), "/proc/%ld/task", child);
		d = child > 0 ? opendir(task) : NULL;
		for (struct dirent *de; d && (de = readdir(d));)
			n += de->d_name[0] != '.';
		if (d)
			closedir(d);
		if (n >= 2)
			break;
		usleep(20000);
	}
	free(buf);
}

/* Record the spinning workload for 30 s and send sig once it has run a while. */
static int record_killed(struct test_ctx *t, int sig, const char *file, int *rc, double *took)
{
	const char *opts[] = { "-e", "cpu-clock", "-o", file, NULL };
	struct argv_buf a;
	double start;
	pid_t pid;

	record_argv(t, &a, opts, "30", "1");
	pid = spawn(a.v, NULL, NULL, NULL);
	if (pid < 0)
		return fail("fork: %s", strerror(-pid));
	wait_workload_spinning(pid);
	usleep(500000);
	start = now_s();
	printf("sending %s to %d\n", strsignal(sig), (int)pid);
	kill(pid, sig);
	*rc = wait_for(pid, 20);
	*took = now_s() - start;
	printf("exit status %d, %.2f s after the signal\n", *rc, *took);
	return TEST_OK;
}

static int test_sigint(struct test_ctx *t)
{
	struct file_stats fs;
	double took;
	int rc;

	if (need_perf(false))
		return TEST_SKIP;
	if (record_killed(t, SIGINT, "int.data", &rc, &took))
		return TEST_FAIL;
	CHECK(rc == 0, "SIGINT: want exit 0 (a complete file), got %d", rc);
	CHECK(took < 10, "the recording took %.1f s to end after SIGINT", took);
	if (read_back("int.data", &fs))
		return TEST_FAIL;
	CHECK(fs.spin_samples >= 20, "want >= 20 samples of the first 0.5 s");
	return TEST_OK;
}

static int test_sigkill(struct test_ctx *t)
{
	struct file_stats fs;
	double took;
	int rc;

	if (need_perf(false))
		return TEST_SKIP;
	if (record_killed(t, SIGKILL, "kill.data", &rc, &took))
		return TEST_FAIL;
	CHECK(rc == 128 + SIGKILL, "want death by SIGKILL, got %d", rc);
	/* The header's data size is kept up to date while recording. */
	if (read_back("kill.data", &fs))
		return TEST_FAIL;
	CHECK(fs.samples > 0, "no sample of the 0.5 s before SIGKILL reached the file");
	return TEST_OK;
}

static int test_disk_full(struct test_ctx *t)
{
	/*
	 * Small rings and call chains: many writes, the 5th comes soon.
	 * System-wide where allowed, as tests/shell/failure.bats: the
	 * command then only says how long to record, and the error ends the
	 * recording at once. With the command as the target (unprivileged),
	 * the recorder waits for it to end by itself, so it spins only 3 s.
	 */
	static const char *const opts[] = { "-a", "-e", "cpu-clock", "-g", "-m", "4",
					    "-o", "full.data", NULL };
	bool system_wide = need_perf(true) == 0;
	struct file_stats fs;
	double start, took;
	int rc;

	if (!system_wide && need_perf(false))
		return TEST_SKIP;
	start = now_s();
	rc = record(t, opts + !system_wide, system_wide ? "20" : "3", "2", "rec.out",
		    "PERFCAP_FAULT_INJECT=enospc@12");
	took = now_s() - start;
	CHECK(rc == 1, "disk full: want exit 1, got %d", rc);
	CHECK(count_in_file("rec.out", "No space left on device") == 1,
	      "want one message saying 'No space left on device'");
	CHECK(file_has("rec.out", "full.data"), "the message does not name the file");
	CHECK(took < 15, "recording went on for %.1f s after the disk filled", took);
	/* What was written before the failure is readable, up to its end. */
	if (read_back("full.data", &fs))
		return TEST_FAIL;
	/*
	 * The 12th write fails: the readers run before the events, and a round
	 * may have one write a few records of the command's start before any
	 * sample (with the 5th, some runs kept no sample).
	 */
	CHECK(fs.samples > 0, "no sample of the first eleven writes is in the file");
	return TEST_OK;
}

/* A top-level number of `perfcap loss --json` (two-space indent). */
static int json_u64(const char *path, const char *key, uint64_t *val)
{
	char *buf = NULL, pat[64], *p;
	int err = -ENOENT;

	if (read_file(path, &buf) < 0)
		return -EIO;
	snprintf(pat, sizeof(pat), "\n  \"%s\": ", key);
	p = strstr(buf, pat);
	if (p && sscanf(p + strlen(pat), "%" SCNu64, val) == 1)
		err = 0;
	free(buf);
	return err;
}

static int test_loss(struct test_ctx *t)
{
	/*
	 * Dwarf stacks of 8 KiB in rings of one 4 KiB page: no sample fits,
	 * the kernel drops every one and says so in LOST records.
	 */
	static const char *const opts[] = { "--call-graph", "dwarf", "-m", "1", "-e", "cpu-clock",
					    "-o", "l.data", NULL };
	char *loss[] = { t->self, "loss", "--json", "l.data", NULL };
	uint64_t samples, lost, lost_events, lost_records, summary_lost = 0;
	struct file_stats fs;
	char *buf = NULL, *p;
	int rc;

	if (need_perf(false))
		return TEST_SKIP;
	rc = record(t, opts, "0.3", "1", "rec.out", NULL);
	CHECK(rc == 0, "perfcap record exited %d", rc);
	if (read_file("rec.out", &buf) >= 0 && (p = strstr(buf, "samples), lost ")))
		summary_lost = strtoull(p + strlen("samples), lost "), NULL, 10);
	free(buf);
	if (read_back("l.data", &fs))
		return TEST_FAIL;
	rc = run_cmd(loss, "loss.json", NULL, 30);
	CHECK(rc == 0, "perfcap loss --json exited %d", rc);
	CHECK(!json_u64("loss.json", "samples", &samples) &&
	      !json_u64("loss.json", "lost", &lost) &&
	      !json_u64("loss.json", "lost_events", &lost_events) &&
	      !json_u64("loss.json", "lost_records", &lost_records),
	      "perfcap loss --json lacks samples, lost, lost_events or lost_records");
	CHECK(fs.lost_records > 0 && lost > 0, "nothing was lost with 8 KiB stacks in 4 KiB rings");
	CHECK(samples == fs.samples, "loss says %" PRIu64 " samples, the file has %" PRIu64,
	      samples, fs.samples);
	CHECK(lost_records == fs.lost_records && lost_events == fs.lost_events,
	      "loss says %" PRIu64 " LOST records of %" PRIu64 " events, the file has %" PRIu64
	      " of %" PRIu64, lost_records, lost_events, fs.lost_records, fs.lost_events);
	CHECK(lost >= lost_events, "lost %" PRIu64 " < lost_events %" PRIu64, lost, lost_events);
	CHECK(summary_lost == lost, "the recorder's summary says lost %" PRIu64
	      ", perfcap loss %" PRIu64, summary_lost, lost);
	return TEST_OK;
}

static int test_stdout(struct test_ctx *t)
{
	static const char *const opts[] = { "-e", "cpu-clock", "-o", "-", NULL };
	char magic[8] = { 0 };
	struct file_stats fs;
	int fd, rc;

	if (need_perf(false))
		return TEST_SKIP;
	{
		struct argv_buf a;
		pid_t pid;

		record_argv(t, &a, opts, "0.3", "1");
		pid = spawn(a.v, "pipe.out", NULL, NULL);
		if (pid < 0)
			return fail("fork: %s", strerror(-pid));
		rc = wait_for(pid, RECORD_TIMEOUT_S);
		printf("exit status %d\n", rc);
	}
	fd = open("pipe.out", O_RDONLY);
	if (fd >= 0) {
		(void)!read(fd, magic, sizeof(magic));
		close(fd);
	}
	CHECK(!memcmp(magic, "PERFILE2", 8), "-o - wrote no pipe-mode stream on stdout");
	CHECK(rc == 0, "perfcap record -o - exited %d", rc);
	if (read_back("pipe.out", &fs))
		return TEST_FAIL;
	CHECK(fs.spin_samples > 0, "no sample of the workload in the stream");
	return TEST_OK;
}

/* Upstream perf, the oracle: /usr/bin/perf, or perf on PATH. */
static int find_perf(char *path, size_t size)
{
	const char *env = getenv("PATH");
	char *copy, *dir, *save = NULL;
	int found = 0;

	if (access("/usr/bin/perf", X_OK) == 0) {
		snprintf(path, size, "/usr/bin/perf");
		return 1;
	}
	copy = xstrdup(env ? env : "");
	for (dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		snprintf(path, size, "%s/perf", dir);
		found = access(path, X_OK) == 0;
	}
	free(copy);
	return found;
}

/* A line on stdout of perf that means it did not like the file. */
static const char *const perf_warnings[] = {
	"Warning:", "WARNING:", "Failed to", "failed to process", "out of order events",
	"data size field is 0", "properly terminated", "Check IO/CPU overload",
	"unknown events", "non matching",
};

/* perf ARGS: exit 0, nothing but blank lines on stderr, no warning on stdout. */
static int perf_clean(char *const argv[])
{
	char *buf = NULL;
	int rc;
	pid_t pid;

	fflush(stdout);
	pid = spawn(argv, "perf.out", "perf.err", NULL);
	if (pid < 0)
		return fail("fork: %s", strerror(-pid));
	rc = wait_for(pid, 120);
	printf("exit status %d; stderr:\n", rc);
	show_file("perf.err", "    ");
	CHECK(rc == 0, "perf exited %d", rc);
	if (read_file("perf.err", &buf) >= 0) {
		for (char *p = buf; *p; p++)
			if (*p != ' ' && *p != '\t' && *p != '\n') {
				free(buf);
				return fail("perf printed on stderr (above)");
			}
	}
	free(buf);
	buf = NULL;
	if (read_file("perf.out", &buf) >= 0) {
		for (size_t i = 0; i < ARRAY_SIZE(perf_warnings); i++) {
			char *p = strstr(buf, perf_warnings[i]);

			if (p) {
				char *eol = strchr(p, '\n');

				if (eol)
					*eol = 0;
				fail("perf's output says: %.200s", p);
				free(buf);
				return TEST_FAIL;
			}
		}
	}
	free(buf);
	return TEST_OK;
}

static int test_perf_oracle(struct test_ctx *t)
{
	/* System-wide (kernel samples, other tasks) where allowed. */
	static const char *const opts[] = { "-a", "-g", "-e", "cpu-clock", "-o", "o.data", NULL };
	bool system_wide;
	char perf[PATH_MAX], *buf = NULL, *p;
	char *version[] = { perf, "version", NULL };
	char *stats[] = { perf, "report", "--stats", "-i", "o.data", NULL };
	char *script[] = { perf, "script", "-i", "o.data", NULL };
	uint64_t perf_samples = 0;
	struct file_stats fs;
	int rc;

	if (!find_perf(perf, sizeof(perf)))
		return skip("upstream perf is not installed (no /usr/bin/perf): apt-get install "
			    "linux-perf");
	/* Debian's /usr/bin/perf runs the perf of the running kernel's version. */
	if (run_cmd(version, "version.out", NULL, 30))
		return skip("%s does not run on this kernel (see -v)", perf);
	system_wide = need_perf(true) == 0;
	if (!system_wide && need_perf(false))
		return TEST_SKIP;
	rc = record(t, opts + !system_wide, "0.5", "2", NULL, NULL);
	CHECK(rc == 0, "perfcap record exited %d", rc);
	if (read_back("o.data", &fs))
		return TEST_FAIL;
	if (perf_clean(stats))
		return TEST_FAIL;
	if (read_file("perf.out", &buf) >= 0 && (p = strstr(buf, "SAMPLE events:")))
		perf_samples = strtoull(p + strlen("SAMPLE events:"), NULL, 10);
	free(buf);
	CHECK(perf_samples == fs.samples, "perf report --stats counts %" PRIu64
	      " samples, perfcap's reader %" PRIu64, perf_samples, fs.samples);
	if (perf_clean(script))
		return TEST_FAIL;
	CHECK(count_in_file("perf.out", "perfcap-spin") > 0,
	      "perf script shows no sample of perfcap-spin");
	return TEST_OK;
}

static const struct selftest tests[] = {
	{ "perfcap runs: --version, record --help, a usage error",	test_basics },
	{ "Record a workload perfcap starts",				test_workload },
	{ "System-wide recording (-a)",					test_system_wide },
	{ "Tracepoint sched:sched_switch",				test_tracepoint },
	{ "DWARF user stacks (--call-graph dwarf)",			test_dwarf },
	{ "Writer: sync",						test_writer_sync },
	{ "Writer: aio",						test_writer_aio },
	{ "Writer: uring",						test_writer_uring },
	{ "SIGINT mid-recording: exit 0, complete file",		test_sigint },
	{ "SIGKILL mid-recording: readable file",			test_sigkill },
	{ "Disk full (injected ENOSPC): exit 1, readable file",		test_disk_full },
	{ "Loss accounting: record's summary, perfcap loss --json",	test_loss },
	{ "Output to stdout (-o -)",					test_stdout },
	{ "Upstream perf reads the file (report --stats, script)",	test_perf_oracle },
};

/* ---- the driver ------------------------------------------------------------------ */

static int rm_rf(const char *dir)
{
	char *argv[] = { "/bin/rm", "-rf", (char *)dir, NULL };
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0)
			dup2(fd, 1);
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0)
		return -errno;
	waitpid(pid, &status, 0);
	return 0;
}

/* Run test i in a child of its own; its output goes to log. */
static int run_one(struct test_ctx *t, int i, const char *log_path)
{
	pid_t pid;
	int rc, fd;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 || chdir(t->dir))
			_exit(TEST_FAIL);
		close(fd);
		setvbuf(stdout, NULL, _IOLBF, 0);
		/* perf and the recorder keep a build-id cache in ~/.debug: ours. */
		setenv("HOME", t->dir, 1);
		unsetenv("PERFCAP_FAULT_INJECT");
		rc = tests[i].fn(t);
		fflush(stdout);
		fflush(stderr);
		if (rc == TEST_SKIP) {
			FILE *f = fopen(".skip", "w");

			if (f) {
				fputs(skip_reason, f);
				fclose(f);
			}
		}
		_exit(rc);
	}
	rc = wait_for(pid, TEST_TIMEOUT_S);
	return rc;
}

static bool selected(int i, int argc, char **argv)
{
	if (argc == 0)
		return true;
	for (int a = 0; a < argc; a++) {
		char *end;
		long n = strtol(argv[a], &end, 10);

		if (*argv[a] && !*end) {
			if (n == i + 1)
				return true;
		} else if (strcasestr(tests[i].name, argv[a])) {
			return true;
		}
	}
	return false;
}

int cmd_test(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "list", no_argument, NULL, 'l' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "workload", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *workload = NULL, *tmp;
	bool list = false;
	int verbosity = 0, c, failed = 0, ran = 0;
	struct test_ctx t;
	ssize_t n;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+lvw:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'l': list = true; break;
		case 'v': verbosity++; break;
		case 'w': workload = optarg; break;
		case 'h': fputs(usage, stdout); return 0;
		default:
			fprintf(stderr, "perfcap test: unknown option '%s'\n\n%s",
				argv[optind - 1], usage);
			return 2;
		}
	}
	argc -= optind;
	argv += optind;
	if (workload) {
		if (!strcmp(workload, "spin"))
			return spin_workload(argc, argv);
		fprintf(stderr, "perfcap test: unknown workload '%s' (there is: spin)\n", workload);
		return 2;
	}
	for (int a = 0; a < argc; a++) {
		bool any = false;

		for (int i = 0; i < (int)ARRAY_SIZE(tests); i++)
			any |= selected(i, 1, &argv[a]);
		if (!any) {
			fprintf(stderr, "perfcap test: no test matches '%s' (perfcap test -l)\n",
				argv[a]);
			return 2;
		}
	}
	if (list) {
		for (int i = 0; i < (int)ARRAY_SIZE(tests); i++)
			if (selected(i, argc, argv))
				printf("%2d: %s\n", i + 1, tests[i].name);
		return 0;
	}

	memset(&t, 0, sizeof(t));
	n = readlink("/proc/self/exe", t.self, sizeof(t.self) - 1);
	if (n <= 0) {
		fprintf(stderr, "perfcap test: /proc/self/exe: %s\n", strerror(errno));
		return 1;
	}
	t.self[n] = 0;
	tmp = getenv("TMPDIR");
	snprintf(t.dir, sizeof(t.dir), "%s/perfcap-test.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(t.dir)) {
		fprintf(stderr, "perfcap test: cannot make a directory %s: %s\n", t.dir,
			strerror(errno));
		return 1;
	}

	for (int i = 0; i < (int)ARRAY_SIZE(tests); i++) {
		char log_path[PATH_MAX + 16], skip_path[PATH_MAX + 16], *reason = NULL;
		char testdir[PATH_MAX];
		struct test_ctx tc = t;
		int rc;

		if (!selected(i, argc, argv))
			continue;
		if (snprintf(testdir, sizeof(testdir), "%s/%d", t.dir, i + 1) >= (int)sizeof(testdir))
			return 1;	/* mkdtemp made t.dir from a short template */
		memcpy(tc.dir, testdir, sizeof(tc.dir));
		snprintf(log_path, sizeof(log_path), "%s/log", t.dir);
		snprintf(skip_path, sizeof(skip_path), "%s/.skip", testdir);
		if (mkdir(testdir, 0755)) {
			fprintf(stderr, "perfcap test: mkdir %s: %s\n", testdir, strerror(errno));
			failed++;
			continue;
		}
		printf("%2d: %-55s:%s", i + 1, tests[i].name, verbosity ? "\n" : "");
		fflush(stdout);
		rc = run_one(&tc, i, log_path);
		if (verbosity) {
			fflush(stdout);
			show_file(log_path, "  | ");
			printf("%2d: %-55s:", i + 1, tests[i].name);
		}
		ran++;
		if (rc == TEST_OK) {
			printf(" Ok\n");
		} else if (rc == TEST_SKIP) {
			if (read_file(skip_path, &reason) < 0)
				reason = NULL;
			printf(" Skip (%s)\n", reason && *reason ? reason : "no reason given");
			free(reason);
		} else {
			failed++;
			if (rc == -ETIMEDOUT)
				printf(" FAILED! (timed out after %d s)\n", TEST_TIMEOUT_S);
			else if (rc > 128)
				printf(" FAILED! (killed by %s)\n", strsignal(rc - 128));
			else
				printf(" FAILED!\n");
		}
		fflush(stdout);
		rm_rf(testdir);
	}
	rm_rf(t.dir);
	if (failed && !verbosity)
		printf("%d of %d failed; perfcap test -v %s shows why\n", failed, ran,
		       "<number>");
	return failed ? 1 : 0;
}
