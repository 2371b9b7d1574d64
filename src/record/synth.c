// SPDX-License-Identifier: GPL-2.0
/*
 * The records for what existed before the recording (record.h): the
 * kernel's and the modules' maps (read once, cached for each new file of
 * --switch-output) and the tasks and maps of the targets, from /proc.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "events/cgroup.h"
#include "format/synthesize.h"
#include "record/aux.h"
#include "record/record.h"

static int synth_emit(struct synth *s, const void *data, size_t len)
{
	struct record *rec = s->priv;

	if (rec->kcaching)
		strbuf__add(&rec->kcache, data, len);
	if (rec->synth_hits.on)
		dso_hits__observe(&rec->synth_hits, data, len);
	/* --unwind: the maps of what existed before (live-maps.h). */
	if (rec->readers.live)
		live_maps__observe_synth(rec->readers.live, data, len);
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
 * --all-cgroups: a CGROUP record for every cgroup that exists (the kernel
 * writes one only for those made later), so that perf report --sort
 * cgroup names the ids that samples carry. The tree is walked below the
 * mount point; dir is its path from there ("" the root, which is "/").
 */
static int synth_cgroup_tree(struct synth *sy, const char *mnt, const char *dir, int depth)
{
	char path[8192];
	struct dirent *d;
	uint64_t id;
	DIR *dp;
	int err = 0;

	snprintf(path, sizeof(path), "%s%s", mnt, dir);
	if (!cgroup__id(path, &id)) {
		err = synthesize__cgroup(sy, id, dir[0] ? dir : "/");
		if (err)
			return err;
	}
	/* A cgroup tree deeper than this is a loop or a mistake; perf stops too. */
	if (depth > 64 || !(dp = opendir(path)))
		return 0;
	while (!err && (d = readdir(dp))) {
		char sub[4096];

		if (d->d_type != DT_DIR || d->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, d->d_name);
		err = synth_cgroup_tree(sy, mnt, sub, depth + 1);
	}
	closedir(dp);
	return err;
}

static int synthesize_cgroups(struct record *rec, struct synth *sy)
{
	char mnt[4096];

	if (!rec->opts.all_cgroups || !(rec->opts.synth & SYNTH_CGROUP))
		return 0;
	if (cgroup__mountpoint(mnt, sizeof(mnt))) {
		pr_warn("--all-cgroups: no cgroup file system mounted; samples carry cgroup "
			"ids that nothing names\n");
		return 0;
	}
	return synth_cgroup_tree(sy, mnt, "", 0);
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
		.namespaces = rec->opts.namespaces,
		.no_tasks = !(rec->opts.synth & SYNTH_TASK),
		.no_maps = !(rec->opts.synth & SYNTH_MMAP),
		.map_timeout = true,
		.map_timeout_ns = (uint64_t)rec->opts.proc_map_timeout_ms * 1000000ULL,
	};
	struct strbuf info = { 0 };
	int err;

	/* An AUX event's AUXTRACE_INFO first, as perf writes it: perf report needs it to decode. */
	err = aux__info_record(&rec->evlist, &rec->rings, &info);
	if (!err && info.len)
		err = output__append(&rec->out, info.data, info.len);
	strbuf__exit(&info);
	if (err)
		return err;
	err = synthesize_kernel(rec, &s, again);
	if (!err)
		err = synthesize_cgroups(rec, &s);
	if (err)
		return err;
	/* --synth=no: nothing from /proc but the kernel's maps (and cgroups if asked). */
	if (!(rec->opts.synth & (SYNTH_TASK | SYNTH_MMAP)))
		goto out;
	if (rec->evlist.system_wide) {
		err = synthesize__all(&s);
	} else if (rec->opts.pid_list || rec->opts.uid) {
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
		/* The command's namespaces, as perf gives them before its exec. */
		if (s.namespaces)
			synthesize__namespaces(&s, rec->wl.pid, rec->wl.pid);
	}
out:
	if (s.nr_map_timeouts)
		pr_warn("--proc-map-timeout: the maps of %lu processes took longer than %d ms "
			"and were cut short; samples in what is left out will not resolve\n",
			s.nr_map_timeouts, rec->opts.proc_map_timeout_ms);
	pr_debug("synthesized %lu COMM, %lu FORK, %lu MMAP, %lu NAMESPACES, %lu CGROUP records\n",
		 s.nr_comm, s.nr_fork, s.nr_mmap, s.nr_namespaces, s.nr_cgroup);
	if (err < 0)
		return err;
	return output__flush(&rec->out);
}
