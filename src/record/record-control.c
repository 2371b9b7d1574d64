// SPDX-License-Identifier: GPL-2.0
/*
 * Control of the recording (record.h): -D and its ranges, --control's
 * commands and acks, --max-size, and --switch-output with the file
 * switch itself. The loop calls one tick between two of its sleeps; the
 * fields they own are struct record_control's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "record/aux.h"
#include "record/record.h"

/*
 * -D, --control, --max-size and --switch-output act between two sleeps
 * of the record loop (record_control__tick). The loop sleeps on its
 * eventfd only: it wakes for a control line (the control thread pokes
 * it), a signal, a reader, or the nearest due time below.
 */
#define LIMIT_POLL_MS 10	/* with a size to watch (--max-size, --switch-output=SIZE) */

bool record__delayed(const struct record *rec)
{
	return rec->opts.delay_ms || rec->opts.nr_delay_ranges;
}

int record_control__setup(struct record *rec)
{
	struct record_opts *o = &rec->opts;

	if ((o->switch_output || o->timestamp_filename) && !strcmp(o->output, "-")) {
		pr_err("--switch-output and --timestamp-filename need a file, not pipe output (-o -)\n");
		return -EINVAL;
	}
	switch_output__init(&rec->ctl.so, o, record__now_ns());
	return control__open(&rec->ctl.chan, &o->control);
}

enum which_events { ALL_EVENTS, NON_DUMMY };

/*
 * The events of one -e name, or all (name NULL or ""), on or off, said
 * as perf says it. NON_DUMMY leaves the tracking dummy on, as perf's -D
 * ranges do: maps and tasks keep coming between the windows.
 */
static int set_events(struct record *rec, bool on, const char *name, enum which_events which)
{
	struct evsel *found;
	int err;

	if (!name || !*name) {
		if (which == NON_DUMMY)
			err = evlist__set_non_dummy(&rec->evlist, on);
		else
			err = on ? evlist__enable(&rec->evlist) : evlist__disable(&rec->evlist);
		if (err)
			pr_err("cannot %s the events: %s\n", on ? "enable" : "disable",
			       strerror(-err));
		else
			pr_info(on ? "Events enabled\n" : "Events disabled\n");
		return err;
	}
	found = evlist__find(&rec->evlist, name);
	if (!found) {
		pr_info("failed: can't find '%s' event\n", name);
		return 0;
	}
	err = evsel__set_enabled(found, on);
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
void record_control__start(struct record *rec)
{
	struct record_opts *o = &rec->opts;
	uint64_t now = record__now_ns();

	/* --switch-output=TIME counts from here, not from before the file's start was written. */
	switch_output__rearm(&rec->ctl.so, now);
	if (!record__delayed(rec))
		return;
	pr_info("Events disabled\n");
	rec->ctl.delay_base_ns = now;
	rec->ctl.delay_step = 0;
	if (o->nr_delay_ranges)
		rec->ctl.delay_due_ns = now + o->delay_ranges[0].start_ms * 1000000ULL;
	else if (o->delay_ms > 0)
		rec->ctl.delay_due_ns = now + (uint64_t)o->delay_ms * 1000000ULL;
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

	if (!rec->ctl.delay_due_ns || now < rec->ctl.delay_due_ns)
		return 0;
	rec->ctl.delay_due_ns = 0;
	if (!o->nr_delay_ranges)
		return set_events(rec, true, NULL, ALL_EVENTS);
	k = rec->ctl.delay_step++;
	if (k % 2 == 0) {
		err = set_events(rec, true, NULL, NON_DUMMY);
		rec->ctl.delay_due_ns = rec->ctl.delay_base_ns + o->delay_ranges[k / 2].end_ms * 1000000ULL;
		return err;
	}
	err = set_events(rec, false, NULL, NON_DUMMY);
	if (k / 2 + 1 < o->nr_delay_ranges)
		rec->ctl.delay_due_ns = rec->ctl.delay_base_ns +
				    o->delay_ranges[k / 2 + 1].start_ms * 1000000ULL;
	else
		rec->ctl.stop = true;
	return err;
}

/* The lines the control thread queued, carried out and acknowledged in order. */
static int control_tick(struct record *rec)
{
	char arg[CONTROL_LINE_MAX];
	enum control_cmd cmd;
	int err = 0;

	if (!control__pending(&rec->ctl.chan))
		return 0;
	while (!err && (cmd = control__next(&rec->ctl.chan, arg)) != CONTROL_NONE) {
		struct evsel *e;

		switch (cmd) {
		case CONTROL_ENABLE:
		case CONTROL_DISABLE:
			err = set_events(rec, cmd == CONTROL_ENABLE, arg, ALL_EVENTS);
			break;
		case CONTROL_STOP:
			rec->ctl.stop = true;
			break;
		case CONTROL_EVLIST:
			evlist__for_each_evsel(&rec->evlist, e)
				fprintf(stderr, "%s\n", e->name);
			break;
		case CONTROL_SNAPSHOT:
			/* perf 6.1: an AUX area snapshot (-S); without -S nothing to take. */
			if (rec->opts.aux_snapshot)
				aux__snapshot_rings(&rec->rings, &rec->readers);
			break;
		case CONTROL_PING:
			break;
		default:
			continue;	/* not acknowledged, as perf */
		}
		control__ack(&rec->ctl.chan);
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

/*
 * --switch-output: finish this file and go on in a new one, as perf's
 * record__switch_output does. The readers stop at a clean point (the
 * reader threads joined), one last pass takes what the rings hold now
 * into this file, and every write is waited for; the events stay on, so
 * what they record from here on is in the rings for the new file:
 * nothing is lost or written twice. The file gets its features and final
 * header and is renamed PATH.<time>; a new PATH gets a header, the attrs
 * and the tasks and maps as they are now; the readers' writers are
 * pointed at it (their dup'ed fd numbers now name the new file) and the
 * readers start again.
 */
static int record__switch_output(struct record *rec)
{
	struct record_threads *rt = &rec->readers;
	struct record_opts *o = &rec->opts;
	char path[4096];
	uint64_t wakeups, t0 = record__now_ns(), t1, t2;
	ssize_t n;
	int err;

	err = record_threads__stop(rt);
	rings__set_flush(&rec->rings, 0);
	if (!err) {
		/* --overwrite: each file is a snapshot of the flight recorder's rings. */
		rings__snapshot(&rec->rings);
		n = record_threads__last_pass(rt, record__now_ns());
		if (n < 0)
			err = n;
	}
	output__set_err(&rec->out, err);
	err = record_threads__drain(rt);
	/*
	 * --overwrite and --tail-synthesize: the tasks and maps of now, at the
	 * end of each file (record__stop says why).
	 */
	if (!err && (o->overwrite || o->tail_synthesize))
		err = record__synthesize(rec, true);
	if (err)
		return err;
	wakeups = record_threads__total(rt, wakeups);
	if (verbose >= 0)
		fprintf(stderr, "[ perfcap record: dump data: Woken up %llu times ]\n",
			(unsigned long long)(wakeups - rec->ctl.so.wakeups_at_switch));
	rec->ctl.so.wakeups_at_switch = wakeups;
	rec->ctl.take_stats(rec);
	t1 = record__now_ns();
	err = rec->ctl.finish(rec, 0);
	t2 = record__now_ns();
	if (!err)
		err = switch_output__rename(&rec->ctl.so, o->output, path, sizeof(path));
	if (err)
		return err;
	if (verbose >= 0)
		fprintf(stderr, "[ perfcap record: Dump %s ]\n", path);

	rec->ctl.bytes_before += output__head(&rec->out);
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
	if (!err && !o->tail_synthesize)
		err = record__synthesize(rec, true);
	if (err) {
		pr_err("cannot write %s: %s\n", o->output, strerror(-err));
		return err;
	}
	rec->ctl.synth_end = output__head(&rec->out);
	pr_debug("switch: %.1f ms to drain, %.1f ms to finish, %.1f ms to start the next file\n",
		 (t1 - t0) / 1e6, (t2 - t1) / 1e6, (record__now_ns() - t2) / 1e6);
	rings__set_flush(&rec->rings, o->mmap_flush);
	atomic_store(&rt->stop, false);
	atomic_store(&rt->hung, 0);
	switch_output__rearm(&rec->ctl.so, record__now_ns());
	return record_threads__start(rt);
}

static int switch_tick(struct record *rec, uint64_t now, bool sig)
{
	uint64_t data;

	if (!switch_output__enabled(&rec->ctl.so))
		return 0;
	/* A file of nothing but synthesized records is not switched for its size. */
	data = output__head(&rec->out) - rec->ctl.synth_end;
	if (!switch_output__due(&rec->ctl.so, now, sig && rec->ctl.so.mode == SWITCH_OUTPUT_SIGNAL,
				data ? output__head(&rec->out) - rec->out.data_offset : 0))
		return 0;
	return record__switch_output(rec);
}

int record_control__tick(struct record *rec, uint64_t now, bool switch_signal)
{
	int err = delay_tick(rec, now);

	/* -S: SIGUSR2 takes an AUX area snapshot, as in perf. */
	if (switch_signal && rec->opts.aux_snapshot)
		aux__snapshot_rings(&rec->rings, &rec->readers);

	if (!err)
		err = control_tick(rec);
	if (!err && max_size_reached(rec))
		rec->ctl.stop = true;
	if (!err && !rec->ctl.stop)
		err = switch_tick(rec, now, switch_signal);
	return err;
}

int record_control__timeout(struct record *rec, uint64_t now, int max_ms)
{
	int ms = max_ms;

	if (rec->ctl.delay_due_ns) {
		uint64_t left = rec->ctl.delay_due_ns > now ? rec->ctl.delay_due_ns - now : 0;

		ms = MIN((uint64_t)ms, (left + 999999) / 1000000);
	}
	ms = switch_output__timeout(&rec->ctl.so, now, ms);
	if (rec->opts.max_size || rec->ctl.so.mode == SWITCH_OUTPUT_SIZE)
		ms = MIN(ms, LIMIT_POLL_MS);
	return ms;
}

int record_control__name_output(struct record *rec)
{
	char path[4096];
	int err;

	if (!rec->ctl.so.timestamp_filename || !rec->file_created)
		return 0;
	err = switch_output__rename(&rec->ctl.so, rec->opts.output, path, sizeof(path));
	if (!err && verbose >= 0)
		fprintf(stderr, "[ perfcap record: Dump %s ]\n", path);
	return err;
}
