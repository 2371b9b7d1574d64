// SPDX-License-Identifier: GPL-2.0
/*
 * perfcap record --unwind (record.h): what the recording needs around
 * the unwind stages (stage-unwind.c). The readers feed the live map
 * timeline (live-maps.h) as they copy, the synthesized records feed it at
 * the start (synth.c); the file's attrs say what its samples hold once
 * unwound: a callchain with the user frames, no registers or stack copy
 * (unwind/callchain.h), as perfcap inject --convert-callchain writes them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "format/buildid-cache.h"
#include "record/record.h"
#include "unwind/callchain.h"

/* User frames at most: perf's default --max-stack (PERF_MAX_STACK_DEPTH). */
#define UNWIND_MAX_STACK 127

int record__unwind_init(struct record *rec)
{
	struct evlist *el = &rec->evlist;
	const char *delay;
	struct utsname u;

	if (!rec->opts.unwind)
		return 0;
	uname(&u);
	rec->unwind.arch = unwind_arch__find(u.machine);
	if (!rec->unwind.arch) {
		pr_err("--unwind: cannot unwind on %s (perfcap unwinds x86_64 and aarch64); "
		       "record without it and unwind elsewhere with perfcap inject "
		       "--convert-callchain\n", u.machine);
		return -EINVAL;
	}
	if (!buildid_cache__dir(rec->unwind_bdir, sizeof(rec->unwind_bdir)))
		rec->unwind.buildid_dir = rec->unwind_bdir;
	rec->unwind.max_stack = UNWIND_MAX_STACK;
	/* Tests: unwinding slower than the data (perfcap-record(1), ENVIRONMENT). */
	delay = getenv("PERFCAP_UNWIND_DELAY_MS");
	if (delay)
		rec->unwind.delay_ns = strtoull(delay, NULL, 10) * 1000000ULL;
	live_maps__init(&rec->live, rec->readers.nr, el->evsels[0]->attr.sample_type);
	rec->unwind.live = &rec->live;
	rec->readers.live = &rec->live;
	rec->readers.unwind = &rec->unwind;
	rec->file_attrs = xzalloc(el->nr * sizeof(*rec->file_attrs));
	for (int i = 0; i < el->nr; i++) {
		rec->file_attrs[i] = el->evsels[i]->attr;
		callchain__convert_attr(&rec->file_attrs[i]);
	}
	return 0;
}

void record__unwind_exit(struct record *rec)
{
	live_maps__exit(&rec->live);
	free(rec->file_attrs);
	rec->file_attrs = NULL;
}

const struct perf_event_attr *record__file_attr(const struct record *rec, int i)
{
	return rec->file_attrs ? &rec->file_attrs[i] : &rec->evlist.evsels[i]->attr;
}

void record__unwind_summary(const struct record *rec, const struct stage_stats *st)
{
	uint64_t n = 0, early;

	if (!rec->opts.unwind)
		return;
	for (int k = 0; k < UNWIND__NR; k++)
		n += st->unwind_stops[k];
	early = n - st->unwind_stops[UNWIND_END] - st->unwind_stops[UNWIND_NO_STACK];
	fprintf(stderr, "[ perfcap record: --unwind: %" PRIu64 " DWARF samples unwound, %" PRIu64
		" whole, %" PRIu64 " stopped early; %.1f user frames a sample; records of %.3f MB "
		"written as %.3f MB ]\n", n, st->unwind_stops[UNWIND_END], early,
		n ? (double)st->unwind_frames / n : 0.0, st->unwind_in / 1048576.0,
		st->unwind_out / 1048576.0);
	if (st->unwind_unknown)
		fprintf(stderr, "[ perfcap record: --unwind: %" PRIu64 " samples of no known event "
			"(past the ids the stages keep for events opened again after CPUs came "
			"back) or that did not parse were dropped ]\n", st->unwind_unknown);
	for (int k = 0; k < UNWIND__NR; k++) {
		if (k == UNWIND_END || !st->unwind_stops[k] || (k == UNWIND_NO_STACK && verbose <= 0))
			continue;
		fprintf(stderr, "[ perfcap record: --unwind: %" PRIu64 " (%.2f%%) %s: %s ]\n",
			st->unwind_stops[k], 100.0 * st->unwind_stops[k] / n,
			k == UNWIND_NO_STACK ? "had" : "stopped", unwind_stop__str(k));
	}
}
