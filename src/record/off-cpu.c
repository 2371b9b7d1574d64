// SPDX-License-Identifier: GPL-2.0
/*
 * --off-cpu (off-cpu.h): the event offcpu-time, the BPF program that
 * accounts the time the recorded tasks sleep (record/bpf/off-cpu.bpf.c,
 * built into a libbpf skeleton by the Makefile), and its samples at the
 * end of the recording.
 *
 * As perf 6.1 (tools/perf/util/bpf_off_cpu.c): offcpu-time is a software
 * bpf-output event that is opened with the others (its ids name its
 * samples) but never samples itself; the samples are written by the
 * recorder after the last pass over the rings, one per (tid, pid,
 * stacks, state), with the nanoseconds asleep as the period and times
 * from 0xffffffff00000000 up, so that perf sorts them after every real
 * one. What perfcap adds: the kernel stack in the callchain, above the
 * user stack perf 6.1 records.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "perf-file.h"
#include "record/off-cpu.h"
#include "record/off-cpu.skel.h"
#include "record/record.h"

/* perf 6.1's OFF_CPU_TIMESTAMP: no real time, only "after everything". */
#define OFF_CPU_TIME (~0ULL << 32)

struct off_cpu {
	struct off_cpu_bpf *skel;
	struct evsel *evsel;
	struct off_cpu_stats stats;
};

size_t off_cpu__encode_sample(uint64_t *buf, uint64_t st, uint64_t id,
			      const struct off_cpu_key *key, uint64_t ns, uint64_t time,
			      const uint64_t *kstack, const uint64_t *ustack)
{
	struct perf_event_header *h = (void *)buf;
	size_t n = 1, nk = 0, nu = 0;

	while (kstack && nk < OFF_CPU_MAX_STACK && kstack[nk])
		nk++;
	while (ustack && nu < OFF_CPU_MAX_STACK && ustack[nu])
		nu++;
	/* In the order of the sample_type bits (perf_event.h). */
	if (st & PERF_SAMPLE_IDENTIFIER)
		buf[n++] = id;
	if (st & PERF_SAMPLE_IP)
		buf[n++] = nu ? ustack[0] : nk ? kstack[0] : 0;
	if (st & PERF_SAMPLE_TID) {
		uint32_t pid_tid[2] = { key->pid, key->tid };

		memcpy(&buf[n++], pid_tid, sizeof(pid_tid));
	}
	if (st & PERF_SAMPLE_TIME)
		buf[n++] = time;
	if (st & PERF_SAMPLE_ID)
		buf[n++] = id;
	if (st & PERF_SAMPLE_CPU)
		buf[n++] = 0;	/* {u32 cpu, res}: perf 6.1 writes CPU 0 too */
	if (st & PERF_SAMPLE_PERIOD)
		buf[n++] = ns;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		size_t nr_at = n++;

		/* Innermost first: where the kernel put it to sleep, then the program. */
		if (nk) {
			buf[n++] = PERF_CONTEXT_KERNEL;
			memcpy(&buf[n], kstack, nk * sizeof(*buf));
			n += nk;
		}
		if (nu) {
			buf[n++] = PERF_CONTEXT_USER;
			memcpy(&buf[n], ustack, nu * sizeof(*buf));
			n += nu;
		}
		buf[nr_at] = n - nr_at - 1;
	}
	memset(h, 0, sizeof(*h));
	h->type = PERF_RECORD_SAMPLE;
	h->misc = nu || !nk ? PERF_RECORD_MISC_USER : PERF_RECORD_MISC_KERNEL;
	h->size = n * sizeof(*buf);
	return h->size;
}

/* libbpf's messages only with -v (its debug lines with -vv): one message of ours otherwise. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (verbose < 1 || (level == LIBBPF_DEBUG && verbose < 2))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int fill_filter(struct bpf_map *map, const uint32_t *keys, int nr, const char *what)
{
	uint8_t one = 1;

	for (int i = 0; i < nr; i++) {
		/* libbpf 1.x returns -errno. */
		int err = bpf_map__update_elem(map, &keys[i], sizeof(keys[i]), &one, sizeof(one),
					       BPF_ANY);

		if (err) {
			pr_err("--off-cpu: cannot add %s %u to the BPF filter: %s\n", what, keys[i],
			       strerror(-err));
			return err;
		}
	}
	return 0;
}

/*
 * Which tasks are recorded, as perf 6.1 filters them: the command's
 * process (every thread of it), -p's processes, -t's threads, every task
 * on -C's CPUs, every task with -a.
 */
static int set_filters(struct record *rec, struct off_cpu_bpf *skel)
{
	struct evlist *el = &rec->evlist;
	uint32_t *keys;
	int nr = 0, err = 0;

	if (el->system_wide && rec->opts.cpu_list) {
		keys = xzalloc(el->cpus->nr * sizeof(*keys));
		for (int i = 0; i < el->cpus->nr; i++)
			keys[nr++] = el->cpus->cpu[i];
		skel->bss->filter_cpu = 1;
		err = fill_filter(skel->maps.cpu_filter, keys, nr, "CPU");
		free(keys);
		return err;
	}
	if (el->system_wide)
		return 0;
	if (record__workload_is_target(rec)) {
		keys = xzalloc(sizeof(*keys));
		keys[nr++] = rec->wl.pid;
	} else {
		keys = xzalloc((rec->nr_targets + 1) * sizeof(*keys));
		for (int i = 0; i < rec->nr_targets; i++)
			keys[nr++] = rec->targets[i];
	}
	/* -t names threads; the command and -p processes, whose threads come and go. */
	skel->bss->filter_by_pid = !rec->opts.tid_list;
	skel->bss->filter_task = 1;
	err = fill_filter(skel->maps.task_filter, keys, nr, rec->opts.tid_list ? "thread" : "process");
	free(keys);
	return err;
}

/* Filter sizes are fixed at load time: the targets' count, at least 1. */
static void size_filters(struct record *rec, struct off_cpu_bpf *skel)
{
	struct evlist *el = &rec->evlist;
	int tasks = record__workload_is_target(rec) ? 1 : rec->nr_targets;

	if (el->system_wide && rec->opts.cpu_list)
		bpf_map__set_max_entries(skel->maps.cpu_filter, el->cpus->nr);
	if (!el->system_wide && tasks > 1)
		bpf_map__set_max_entries(skel->maps.task_filter, tasks);
}

static void say_load_error(int err)
{
	if (err == -EPERM || err == -EACCES)
		pr_err("--off-cpu: loading its BPF program was refused (%s): it needs root, or "
		       "CAP_BPF and CAP_PERFMON\n", strerror(-err));
	else
		pr_err("--off-cpu: cannot load its BPF program: %s (-v shows libbpf's "
		       "messages)\n", strerror(-err));
}

int record__off_cpu_prepare(struct record *rec)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_BPF_OUTPUT,
		.size = PERFCAP_ATTR_SIZE,
		/* perf 6.1's; evlist__config makes the rest of the attr. */
		.freq = 1,
		.sample_freq = 1,
		.sample_type = PERF_SAMPLE_CALLCHAIN,
	};
	struct off_cpu_bpf *skel;
	struct off_cpu *oc;
	int err;

	if (!rec->opts.off_cpu)
		return 0;
	libbpf_set_print(libbpf_print);
	skel = off_cpu_bpf__open();
	if (!skel) {
		err = -errno;
		pr_err("--off-cpu: cannot open its BPF program: %s\n", strerror(-err));
		return err;
	}
	size_filters(rec, skel);
	err = off_cpu_bpf__load(skel);
	if (err) {
		say_load_error(err);
		goto out_destroy;
	}
	err = set_filters(rec, skel);
	if (err)
		goto out_destroy;
	err = off_cpu_bpf__attach(skel);
	if (err) {
		pr_err("--off-cpu: cannot attach its BPF program to sched_switch: %s\n",
		       strerror(-err));
		goto out_destroy;
	}
	oc = xzalloc(sizeof(*oc));
	oc->skel = skel;
	oc->evsel = evsel__new(&attr, OFF_CPU_EVENT);
	evlist__add(&rec->evlist, oc->evsel);
	rec->offcpu = oc;
	return 0;

out_destroy:
	off_cpu_bpf__destroy(skel);
	return err;
}

void record__off_cpu_start(struct record *rec)
{
	if (rec->offcpu)
		rec->offcpu->skel->bss->enabled = 1;
}

static uint64_t first_id(const struct evsel *e)
{
	for (int i = 0; i < e->nr_cpus * e->nr_threads; i++)
		if (e->fds[i] >= 0)
			return e->ids[i];
	return 0;
}

/* A stack of the stacks map, zero-terminated in buf; false if there is none. */
static bool read_stack(int fd, int32_t id, uint64_t *buf)
{
	memset(buf, 0, OFF_CPU_MAX_STACK * sizeof(*buf));
	return id >= 0 && !bpf_map_lookup_elem(fd, &id, buf) && buf[0];
}

int record__off_cpu_write(struct record *rec)
{
	struct off_cpu *oc = rec->offcpu;
	struct off_cpu_stats *s;
	uint64_t st, id, time = OFF_CPU_TIME;
	uint64_t kstack[OFF_CPU_MAX_STACK], ustack[OFF_CPU_MAX_STACK];
	uint64_t buf[OFF_CPU_SAMPLE_MAX];
	struct off_cpu_key key, next;
	int fd, sfd, err = 0;
	uint64_t t0 = record__now_ns();

	if (!oc)
		return 0;
	s = &oc->stats;
	oc->skel->bss->enabled = 0;
	st = oc->evsel->attr.sample_type;
	id = first_id(oc->evsel);
	fd = bpf_map__fd(oc->skel->maps.off_cpu);
	sfd = bpf_map__fd(oc->skel->maps.stacks);
	for (void *prev = NULL; !err && !bpf_map_get_next_key(fd, prev, &next); prev = &key) {
		bool k, u;
		uint64_t ns;

		key = next;
		if (bpf_map_lookup_elem(fd, &key, &ns))
			continue;
		k = read_stack(sfd, key.kernel_stack, kstack);
		u = read_stack(sfd, key.user_stack, ustack);
		s->no_stack += !k && !u;
		s->samples++;
		s->ns += ns;
		err = output__append(&rec->out, buf,
				     off_cpu__encode_sample(buf, st, id, &key, ns, time++,
							    k ? kstack : NULL, u ? ustack : NULL));
	}
	if (!err)
		err = output__flush(&rec->out);
	s->lost = oc->skel->bss->lost;
	if (s->lost)
		pr_warn("--off-cpu: %llu switches to sleep were not counted: the BPF maps were "
			"full\n", (unsigned long long)s->lost);
	if (verbose >= 0)
		fprintf(stderr, "[ perfcap record: off-cpu: %llu %s samples, %.3f s asleep ]\n",
			(unsigned long long)s->samples, OFF_CPU_EVENT, s->ns / 1e9);
	if (verbose > 0)
		fprintf(stderr, "[ perfcap record: off-cpu: %llu without a stack, read and "
			"written in %.3f ms ]\n", (unsigned long long)s->no_stack,
			(record__now_ns() - t0) / 1e6);
	return err;
}

void off_cpu__delete(struct off_cpu *oc)
{
	if (!oc)
		return;
	off_cpu_bpf__destroy(oc->skel);
	free(oc);
}
