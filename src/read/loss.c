// SPDX-License-Identifier: GPL-2.0
/*
 * Loss accounting (loss.h): counts of samples and of what was lost, and
 * the lost intervals on each CPU's timeline. Pure: no I/O, no messages.
 * The definitions of every number are in doc/perfcap-loss.1; keep the
 * two in step.
 */
#include <stdlib.h>
#include <string.h>

#include "read/loss.h"
#include "read/reader.h"
#include "util.h"

void loss_stats__init(struct loss_stats *ls, size_t nr_events)
{
	memset(ls, 0, sizeof(*ls));
	ls->nr_events = nr_events;
	ls->event_samples = xzalloc(nr_events * sizeof(*ls->event_samples));
	ls->event_lost_samples = xzalloc(nr_events * sizeof(*ls->event_lost_samples));
}

void loss_stats__exit(struct loss_stats *ls)
{
	free(ls->event_samples);
	free(ls->event_lost_samples);
	for (size_t i = 0; i < ls->nr_cpus; i++)
		free(ls->cpus[i].back_ids);
	free(ls->cpus);
	free(ls->iv);
	free(ls->gaps);
	memset(ls, 0, sizeof(*ls));
}

/* The stream of cpu; -1 or a corrupt number: the "unknown" stream. */
static struct loss_cpu *cpu_stream(struct loss_stats *ls, int64_t cpu)
{
	if (cpu < 0 || cpu >= LOSS_MAX_CPUS)
		return &ls->unknown_cpu;
	if ((size_t)cpu >= ls->nr_cpus) {
		size_t n = MAX((size_t)cpu + 1, ls->nr_cpus * 2);

		n = MIN(n, (size_t)LOSS_MAX_CPUS);
		ls->cpus = xrealloc(ls->cpus, n * sizeof(*ls->cpus));
		memset(ls->cpus + ls->nr_cpus, 0, (n - ls->nr_cpus) * sizeof(*ls->cpus));
		ls->nr_cpus = n;
	}
	return &ls->cpus[cpu];
}

/* ---- hotplug gaps ------------------------------------------------------- */

/*
 * An ID_INDEX record (hdr, u64 nr, {u64 id, idx, cpu, tid}[nr]). One
 * that comes after samples names events opened again: the entries of one
 * CPU and every thread (system-wide) are a CPU's events back after a
 * hotplug, and open a gap there that their first sample closes. One at
 * the start (perf writes them) says nothing of gaps.
 */
static void note_id_index(struct loss_stats *ls, const struct perf_event_header *ev)
{
	const unsigned char *p = (const unsigned char *)ev + sizeof(*ev);
	struct loss_cpu *c = NULL;
	uint64_t nr, e[4];

	if (!ls->samples || ev->size < sizeof(*ev) + 8)
		return;
	memcpy(&nr, p, 8);
	nr = MIN(nr, (ev->size - sizeof(*ev) - 8) / sizeof(e));
	for (uint64_t i = 0; i < nr; i++) {
		memcpy(e, p + 8 + i * sizeof(e), sizeof(e));
		if (e[2] >= LOSS_MAX_CPUS || e[3] != (uint64_t)-1)
			continue;
		if (c != cpu_stream(ls, (int64_t)e[2])) {
			/* A CPU's new ids: those of an earlier return are done with. */
			c = cpu_stream(ls, (int64_t)e[2]);
			c->nr_back_ids = 0;
			if (ls->nr_gaps == ls->cap_gaps) {
				ls->cap_gaps = ls->cap_gaps ? 2 * ls->cap_gaps : 8;
				ls->gaps = xrealloc(ls->gaps, ls->cap_gaps * sizeof(*ls->gaps));
			}
			c->back_gap = ls->nr_gaps;
			ls->gaps[ls->nr_gaps++] = (struct loss_gap){ .cpu = (int64_t)e[2],
								     .to_last = true };
			ls->back_pending = true;
		}
		c->back_ids = xrealloc(c->back_ids, (c->nr_back_ids + 1) * sizeof(*c->back_ids));
		c->back_ids[c->nr_back_ids++] = e[0];
	}
}

/*
 * A sample on CPU c (before it counts as the CPU's last record): under
 * one of the CPU's new ids, it ends the gap (the earliest such sample; the
 * first in file order starts it at the CPU's previous record).
 */
static void note_back(struct loss_stats *ls, struct loss_cpu *c, uint64_t id, uint64_t t)
{
	struct loss_gap *g;
	size_t i = 0;

	while (i < c->nr_back_ids && c->back_ids[i] != id)
		i++;
	if (i == c->nr_back_ids)
		return;
	g = &ls->gaps[c->back_gap];
	if (g->to_last) {
		g->from_first = !c->have_last;
		g->start = c->last_time;
		g->end = t;
		g->to_last = false;
	} else {
		g->end = MIN(g->end, t);
	}
}

static int cmp_gap(const void *a, const void *b)
{
	const struct loss_gap *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The gaps' open ends, then each CPU's offline time. */
static void finish_gaps(struct loss_stats *ls)
{
	if (!ls->have_time)
		ls->nr_gaps = 0;	/* nothing to place them by */
	for (size_t i = 0; i < ls->nr_gaps; i++) {
		struct loss_gap *g = &ls->gaps[i];
		struct loss_cpu *c = cpu_stream(ls, g->cpu);

		if (g->to_last) {
			g->from_first = !c->have_last;
			g->start = c->last_time;
			g->end = ls->last_time;
		}
		if (g->from_first)
			g->start = ls->first_time;
	}
	if (ls->nr_gaps)
		qsort(ls->gaps, ls->nr_gaps, sizeof(*ls->gaps), cmp_gap);
	for (size_t i = 0, j; i < ls->nr_gaps; i = j) {
		struct loss_interval *iv;

		for (j = i; j < ls->nr_gaps && ls->gaps[j].cpu == ls->gaps[i].cpu; j++)
			;
		iv = xzalloc((j - i) * sizeof(*iv));
		for (size_t k = i; k < j; k++)
			iv[k - i] = (struct loss_interval){ .start = ls->gaps[k].start,
							    .end = ls->gaps[k].end,
							    .cpu = ls->gaps[k].cpu };
		cpu_stream(ls, ls->gaps[i].cpu)->offline_time = loss__union_length(iv, j - i);
		ls->offline_time += cpu_stream(ls, ls->gaps[i].cpu)->offline_time;
		free(iv);
	}
}

void loss_stats__add_time(struct loss_stats *ls, int64_t cpu, uint64_t t, bool lost)
{
	struct loss_cpu *c;

	if (!perf_reader__time_valid(t)) {
		if (lost)
			ls->lost_untimed++;
		return;
	}
	if (!ls->have_time || t < ls->first_time)
		ls->first_time = t;
	if (!ls->have_time || t > ls->last_time)
		ls->last_time = t;
	ls->have_time = true;

	c = cpu_stream(ls, cpu);
	c->seen = true;
	if (lost) {
		struct loss_interval *iv;

		if (ls->nr_iv == ls->cap_iv) {
			ls->cap_iv = ls->cap_iv ? ls->cap_iv * 2 : 64;
			ls->iv = xrealloc(ls->iv, ls->cap_iv * sizeof(*ls->iv));
		}
		iv = &ls->iv[ls->nr_iv++];
		iv->from_first = !c->have_last;
		iv->start = c->have_last ? c->last_time : 0;
		iv->end = t;
		iv->cpu = c == &ls->unknown_cpu ? -1 : cpu;
		iv->lost = 0;
	}
	/* In file order: the LOST record itself is the previous one for the next. */
	c->last_time = t;
	c->have_last = true;
}

static uint64_t get_u64(const struct perf_event_header *ev, size_t off)
{
	uint64_t v = 0;

	if (ev->size >= off + sizeof(v))
		memcpy(&v, (const unsigned char *)ev + off, sizeof(v));
	return v;
}

int loss_stats__add_record(struct loss_stats *ls, const struct perf_reader *r,
			   const struct perf_event_header *ev)
{
	struct perf_reader_sample s;
	bool have_cpu, have_time;
	int64_t cpu;
	uint64_t lost;

	if (ev->type == PERF_RECORD_SAMPLE) {
		ls->samples++;
		if (perf_reader__parse_sample(r, ev, &s))
			return 0; /* counted; its fields cannot be trusted */
		if (s.attr >= 0 && (size_t)s.attr < ls->nr_events)
			ls->event_samples[s.attr]++;
		else
			ls->unknown_samples++;
		cpu = s.sample_type & PERF_SAMPLE_CPU ? (int64_t)s.cpu : -1;
		cpu_stream(ls, cpu)->samples++;
		cpu_stream(ls, cpu)->seen = true;
		/* --off-cpu's samples are dated after everything, not when they happened. */
		if (s.sample_type & PERF_SAMPLE_TIME && !perf_reader__attr_is_off_cpu(r, s.attr)) {
			/* After a CPU's events opened again (rare): does this one close its gap? */
			if (ls->back_pending && cpu_stream(ls, cpu)->nr_back_ids &&
			    perf_reader__time_valid(s.time))
				note_back(ls, cpu_stream(ls, cpu), s.id, s.time);
			loss_stats__add_time(ls, cpu, s.time, false);
		}
		return 0;
	}
	if (ev->type == PERF_RECORD_COMPRESSED)
		ls->compressed++;
	if (ev->type == PERF_RECORD_ID_INDEX)
		note_id_index(ls, ev);
	if (ev->type >= PERF_RECORD_USER_TYPE_START)
		return 0;

	if (perf_reader__parse_id_sample(r, ev, &s)) {
		memset(&s, 0, sizeof(s));
		s.attr = r->nr_attrs == 1 ? 0 : -1;
	}
	have_cpu = s.sample_type & PERF_SAMPLE_CPU;
	have_time = s.sample_type & PERF_SAMPLE_TIME;
	cpu = have_cpu ? (int64_t)s.cpu : -1;

	switch (ev->type) {
	case PERF_RECORD_LOST: {
		/* hdr, u64 id, u64 lost, trailer */
		struct loss_cpu *c = cpu_stream(ls, cpu);

		lost = get_u64(ev, 16);
		ls->lost_records++;
		ls->lost_events = perf_reader__add_count(ls->lost_events, lost);
		c->lost_records++;
		c->lost_events = perf_reader__add_count(c->lost_events, lost);
		c->seen = true;
		if (have_time) {
			size_t nr_iv = ls->nr_iv;

			loss_stats__add_time(ls, cpu, s.time, true);
			if (ls->nr_iv > nr_iv)
				ls->iv[nr_iv].lost = lost;
		} else {
			ls->lost_untimed++;
		}
		return 0;
	}
	case PERF_RECORD_LOST_SAMPLES:
		/* hdr, u64 lost, trailer */
		lost = get_u64(ev, 8);
		if ((ev->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER) {
			/* Dropped by perfcap record's triage stage: the output was behind. */
			ls->triage_records++;
			ls->triage_dropped = perf_reader__add_count(ls->triage_dropped, lost);
			break;
		}
		ls->lost_samples_records++;
		ls->lost_samples = perf_reader__add_count(ls->lost_samples, lost);
		if (!have_time || !perf_reader__time_valid(s.time))
			ls->lost_samples_final = perf_reader__add_count(ls->lost_samples_final, lost);
		if (s.attr >= 0 && (size_t)s.attr < ls->nr_events)
			ls->event_lost_samples[s.attr] =
				perf_reader__add_count(ls->event_lost_samples[s.attr], lost);
		break;
	case PERF_RECORD_THROTTLE:
		ls->throttle++;
		break;
	case PERF_RECORD_UNTHROTTLE:
		ls->unthrottle++;
		break;
	default:
		break;
	}
	if (have_time)
		loss_stats__add_time(ls, cpu, s.time, false);
	return 0;
}

static int cmp_iv_start(const void *a, const void *b)
{
	const struct loss_interval *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

static int cmp_iv_cpu(const void *a, const void *b)
{
	const struct loss_interval *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return cmp_iv_start(a, b);
}

uint64_t loss__union_length(struct loss_interval *iv, size_t n)
{
	uint64_t total = 0, cur_start = 0, cur_end = 0;
	bool open = false;

	if (n)
		qsort(iv, n, sizeof(*iv), cmp_iv_start);
	for (size_t i = 0; i < n; i++) {
		if (iv[i].start >= iv[i].end)
			continue; /* empty: (a, b] with a >= b */
		if (open && iv[i].start <= cur_end) {
			cur_end = MAX(cur_end, iv[i].end);
			continue;
		}
		if (open)
			total += cur_end - cur_start;
		cur_start = iv[i].start;
		cur_end = iv[i].end;
		open = true;
	}
	if (open)
		total += cur_end - cur_start;
	return total;
}

void loss_stats__finish(struct loss_stats *ls)
{
	uint64_t timed = ls->lost_samples - ls->lost_samples_final;
	uint64_t denom;

	/*
	 * End-of-recording LOST_SAMPLES counters (no timestamp; perf >= 6.0
	 * writes them from PERF_FORMAT_LOST) count every sample the kernel
	 * failed to write, those behind the LOST records included: take the
	 * larger of the two views rather than their sum.
	 */
	ls->lost = perf_reader__add_count(timed, MAX(ls->lost_events, ls->lost_samples_final));
	denom = perf_reader__add_count(ls->lost, ls->samples);
	ls->loss_fraction_valid = denom > 0;
	ls->loss_fraction = denom ? (double)ls->lost / (double)denom : 0;

	ls->elapsed_valid = ls->have_time;
	ls->elapsed_time = ls->have_time ? ls->last_time - ls->first_time : 0;

	for (size_t i = 0; i < ls->nr_iv; i++)
		if (ls->iv[i].from_first) {
			ls->iv[i].start = ls->first_time;
			ls->iv[i].from_first = false;
		}
	/* Per CPU: the union of that CPU's intervals. */
	if (ls->nr_iv)
		qsort(ls->iv, ls->nr_iv, sizeof(*ls->iv), cmp_iv_cpu);
	for (size_t i = 0, j; i < ls->nr_iv; i = j) {
		for (j = i; j < ls->nr_iv && ls->iv[j].cpu == ls->iv[i].cpu; j++)
			;
		cpu_stream(ls, ls->iv[i].cpu)->lost_time = loss__union_length(ls->iv + i, j - i);
	}
	ls->lost_time_valid = ls->have_time && !ls->lost_untimed;
	ls->lost_time = ls->lost_time_valid ? loss__union_length(ls->iv, ls->nr_iv) : 0;
	ls->lost_time_fraction_valid = ls->lost_time_valid && ls->elapsed_time > 0;
	ls->lost_time_fraction = ls->lost_time_fraction_valid ?
		(double)ls->lost_time / (double)ls->elapsed_time : 0;
	finish_gaps(ls);
}
