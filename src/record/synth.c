// SPDX-License-Identifier: GPL-2.0
/*
 * The records for what existed before the recording (record.h): the
 * kernel's and the modules' maps (read once, cached for each new file of
 * --switch-output) and the tasks and maps of the targets, from /proc.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/synthesize.h"
#include "record/record.h"

static int synth_emit(struct synth *s, const void *data, size_t len)
{
	struct record *rec = s->priv;

	if (rec->kcaching)
		strbuf__add(&rec->kcache, data, len);
	if (rec->synth_hits.on)
		dso_hits__observe(&rec->synth_hits, data, len);
	return output__append(&rec->out, data, len);
}

/*
 * The kernel's map and the modules'. Read once, because reading
 * /proc/kallsyms is slow and a --switch-output switch holds the readers
 * back while it runs (the time is in bench/results/2026-12-01-ready-wait/):
 * a new file gets the same records again.
 */
static int synthesize_kernel(struct record *rec, struct synth *sy, bool again)
{
	struct evsel *e;
	bool kernel = false;
	int err;

	if (again && rec->kcached) {
		if (rec->synth_hits.on)
			dso_hits__observe(&rec->synth_hits, rec->kcache.data, rec->kcache.len);
		return output__append(&rec->out, rec->kcache.data, rec->kcache.len);
	}
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
int record__synthesize(struct record *rec, bool again)
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
	if (record__workload_is_target(rec) && again) {
		pid_t *tree;
		int nr = switch_output__descendants(rec->wl.pid, &tree);

		for (int i = 0; i < nr; i++)
			synthesize__process(&s, tree[i], 0);
		free(tree);
	} else if (record__workload_is_target(rec)) {
		synthesize__comm(&s, rec->wl.pid, rec->wl.pid, "perf-exec");
	}
	pr_debug("synthesized %lu COMM, %lu FORK, %lu MMAP records\n",
		 s.nr_comm, s.nr_fork, s.nr_mmap);
	if (err < 0)
		return err;
	return output__flush(&rec->out);
}
