// SPDX-License-Identifier: GPL-2.0
/*
 * The loss picture (loss-svg.h): a recording's per-CPU record rate,
 * lost intervals and throttles on one time axis, as SVG 1.1 that
 * browsers and image viewers (librsvg) draw alike: no scripts, no CSS
 * beyond presentation attributes, no external references. Tooltips are
 * <title> elements; the exact times of each shaded interval are in
 * data-* attributes, for tests and for whoever reads the file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "read/loss-svg.h"
#include "util.h"

#define COLOR_RATE "#4a78b0"
#define COLOR_LOST "#d62728"
#define COLOR_THROTTLE "#ff8c00"
#define COLOR_GRID "#d0d0d0"
#define COLOR_BAND "#f3f3f3"
#define COLOR_OFFLINE "#7f7f7f"

#define TITLE_H 28		/* the picture's title line */
#define LEGEND_H 22
#define PANEL_HEAD_H 54		/* three text lines above a panel's rows */
#define ALL_ROW_H 36
#define ROWS_MAX_H 512		/* CPU rows share this height... */
#define ROW_MIN_H 3		/* ...at no less than this each */
#define ROW_MAX_H 56
#define PANEL_GAP 18
#define AXIS_H 34
#define CMDLINE_MAX 170		/* characters of the command line shown */

/* ---- bucketing ---------------------------------------------------------- */

uint64_t loss_timeline__bucket_ns(uint64_t max_elapsed_ns)
{
	uint64_t b = max_elapsed_ns / LOSS_SVG_BUCKETS + 1;

	return MAX(b, 1);
}

/* CMDLINE: u32 nr, then nr perf strings (u32 len, len bytes, NUL padded). */
static char *read_cmdline(struct perf_reader *r)
{
	struct strbuf sb;
	size_t size, off = 4;
	uint32_t nr, len;
	void *buf;
	char *p;

	if (!perf_reader__has_feature(r, HEADER_CMDLINE) ||
	    perf_reader__read_feature(r, HEADER_CMDLINE, &buf, &size))
		return NULL;
	p = buf;
	if (size < 4) {
		free(buf);
		return NULL;
	}
	memcpy(&nr, p, 4);
	strbuf__init(&sb);
	for (uint32_t i = 0; i < nr && off + 4 <= size; i++) {
		memcpy(&len, p + off, 4);
		off += 4;
		if (len > size - off)
			break;
		if (sb.len)
			strbuf__add(&sb, " ", 1);
		strbuf__add(&sb, p + off, strnlen(p + off, len));
		off += len;
	}
	free(buf);
	if (!sb.len) {
		strbuf__exit(&sb);
		return NULL;
	}
	return sb.data;
}

void loss_timeline__init(struct loss_timeline *tl, struct perf_reader *r,
			 const struct loss_stats *ls, uint64_t bucket_ns)
{
	memset(tl, 0, sizeof(*tl));
	tl->path = r->path;
	tl->cmdline = read_cmdline(r);
	tl->ls = ls;
	tl->row_of = xzalloc((ls->nr_cpus + 1) * sizeof(*tl->row_of));
	tl->row_cpu = xzalloc((MIN(ls->nr_cpus, (size_t)LOSS_SVG_MAX_CPU_ROWS) + 1) *
			      sizeof(*tl->row_cpu));
	for (size_t i = 0; i < ls->nr_cpus; i++) {
		tl->row_of[i] = UINT32_MAX;	/* the last row, once it is known */
		if (!ls->cpus[i].seen)
			continue;
		if (tl->nr_rows == LOSS_SVG_MAX_CPU_ROWS) {
			tl->other_cpus++;
			continue;
		}
		tl->row_of[i] = tl->nr_rows;
		tl->row_cpu[tl->nr_rows++] = (int64_t)i;
	}
	for (size_t i = 0; i < ls->nr_cpus; i++)
		if (tl->row_of[i] == UINT32_MAX)
			tl->row_of[i] = tl->nr_rows;
	tl->row_cpu[tl->nr_rows++] = -1;
	tl->last_used = ls->unknown_cpu.seen || tl->other_cpus;
	if (!ls->have_time || !bucket_ns)
		return;
	tl->t0 = ls->first_time;
	tl->bucket_ns = bucket_ns;
	tl->nr_buckets = ls->elapsed_time / bucket_ns + 1;
	tl->bytes = xzalloc(tl->nr_rows * tl->nr_buckets * sizeof(*tl->bytes));
	tl->throttle = xzalloc(tl->nr_rows * tl->nr_buckets * sizeof(*tl->throttle));
}

void loss_timeline__exit(struct loss_timeline *tl)
{
	free(tl->cmdline);
	free(tl->row_of);
	free(tl->row_cpu);
	free(tl->bytes);
	free(tl->throttle);
	memset(tl, 0, sizeof(*tl));
}

int loss_timeline__add_record(struct loss_timeline *tl, const struct perf_reader *r,
			      const struct perf_event_header *ev)
{
	struct perf_reader_sample s;
	size_t row, b;
	int err;

	if (!tl->bucket_ns || ev->type >= PERF_RECORD_USER_TYPE_START)
		return 0;
	if (ev->type == PERF_RECORD_SAMPLE)
		err = perf_reader__parse_sample(r, ev, &s);
	else
		err = perf_reader__parse_id_sample(r, ev, &s);
	if (err || !(s.sample_type & PERF_SAMPLE_TIME) || !perf_reader__time_valid(s.time) ||
	    s.time < tl->t0 ||
	    (ev->type == PERF_RECORD_SAMPLE && perf_reader__attr_is_off_cpu(r, s.attr)))
		return 0;
	row = s.sample_type & PERF_SAMPLE_CPU && s.cpu < tl->ls->nr_cpus ? tl->row_of[s.cpu] :
	      tl->nr_rows - 1;
	b = MIN((s.time - tl->t0) / tl->bucket_ns, tl->nr_buckets - 1);
	tl->bytes[row * tl->nr_buckets + b] += ev->size;
	if (ev->type == PERF_RECORD_THROTTLE)
		tl->throttle[row * tl->nr_buckets + b]++;
	return 0;
}

/* ---- text ------------------------------------------------------------- */

/*
 * s as XML character data (or an attribute value): markup escaped, bytes
 * XML cannot hold (controls, invalid UTF-8) as '?'; at most max
 * characters, then an ellipsis.
 */
static void xml_text(FILE *f, const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t chars = 0;

	while (*s) {
		size_t n = utf8_len(s);

		if (chars++ == max) {
			fputs("\xe2\x80\xa6", f);
			return;
		}
		if (!n) {
			fputc('?', f);
			s++;
			continue;
		}
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			if (*s < 0x20 || *s == 0x7f)
				fputc('?', f);
			else
				fwrite(s, 1, n, f);
		}
		s += n;
	}
}

/* A time given in ns, in the unit that suits step (the axis' tick step). */
static void fmt_time(char *buf, size_t size, double ns, double step)
{
	if (step >= 1e9 || ns == 0)
		snprintf(buf, size, "%g s", ns / 1e9);
	else if (step >= 1e6)
		snprintf(buf, size, "%g ms", ns / 1e6);
	else if (step >= 1e3)
		snprintf(buf, size, "%g \xc2\xb5s", ns / 1e3);
	else
		snprintf(buf, size, "%g ns", ns);
}

static void fmt_secs(char *buf, size_t size, uint64_t ns)
{
	snprintf(buf, size, "%.3f s", ns / 1e9);
}

static void fmt_pct(char *buf, size_t size, bool valid, double v)
{
	if (valid)
		snprintf(buf, size, "%.2f%%", v * 100);
	else
		snprintf(buf, size, "n/a");
}

/* ---- layout ------------------------------------------------------------- */

struct panel {
	struct loss_timeline *tl;
	size_t nr_rows;		/* the timeline's, less the last when unused */
	int row_h;
	int y;			/* top of the panel (its head) */
	int rows_y;		/* top of the "all" row */
	int height;
};

static void panel__layout(struct panel *p, struct loss_timeline *tl, int y)
{
	memset(p, 0, sizeof(*p));
	p->tl = tl;
	p->nr_rows = tl->nr_rows - !tl->last_used;
	p->row_h = p->nr_rows ? ROWS_MAX_H / (int)MIN(p->nr_rows, (size_t)ROWS_MAX_H) : ROW_MAX_H;
	p->row_h = MAX(MIN(p->row_h, ROW_MAX_H), ROW_MIN_H);
	p->y = y;
	p->rows_y = y + PANEL_HEAD_H;
	p->height = PANEL_HEAD_H + ALL_ROW_H + 4 + (int)p->nr_rows * p->row_h;
}

/* The mapping of time to x, common to all panels. */
struct axis {
	uint64_t span_ns;	/* the plot's width in ns */
	double px_per_ns;
};

static double axis__x(const struct axis *a, const struct loss_timeline *tl, uint64_t t)
{
	return LOSS_SVG_PLOT_X + (double)(t - tl->t0) * a->px_per_ns;
}

/* A 1-2-5 tick step giving 5 to 12 ticks over span (ns; no libm). */
static double tick_step(double span)
{
	double p = 1;

	while (p * 10 <= span)
		p *= 10;
	while (span / p > 12)
		p *= span / (2 * p) <= 12 ? 2 : span / (5 * p) <= 12 ? 5 : 10;
	while (span / p < 5 && p >= 2)
		p /= 2;
	return p;
}

/* ---- drawing ------------------------------------------------------------ */

/*
 * A row's rate as one filled step path: bucket b's bytes scaled so that
 * vmax fills the row. Runs of equal height (to 0.1 px) are one step.
 */
static void draw_rate(FILE *f, const struct loss_timeline *tl, const uint64_t *sum,
		      size_t tl_row, double vmax, double y, double h)
{
	double bw = (double)LOSS_SVG_PLOT_WIDTH / LOSS_SVG_BUCKETS, prev = -1;
	double bottom = y + h;
	bool any = false;

	if (vmax <= 0)
		return;
	for (size_t b = 0; b < tl->nr_buckets; b++) {
		uint64_t v = sum ? sum[b] : tl->bytes[tl_row * tl->nr_buckets + b];
		double top = (double)(long long)((bottom - (double)v / vmax * (h - 1)) * 10 + 0.5) / 10;
		double x = LOSS_SVG_PLOT_X + b * bw;

		if (!any) {
			fprintf(f, "<path fill=\"" COLOR_RATE "\" d=\"M%.1f %.1f", x, bottom);
			any = true;
		}
		if (top != prev) {
			fprintf(f, "H%.1fV%.1f", x, top);
			prev = top;
		}
	}
	if (any)
		fprintf(f, "H%.1fV%.1fZ\"/>\n", LOSS_SVG_PLOT_X + tl->nr_buckets * bw, bottom);
}

static int cmp_iv(const void *a, const void *b)
{
	const struct loss_interval *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/*
 * Shade iv[0..n) (sorted by start, one CPU or all with cpu set to -2),
 * merging intervals less than a pixel apart: each rect says in data-*
 * where its first interval starts and its last ends, and how many LOST
 * records and lost events it stands for.
 */
static void draw_lost(FILE *f, const struct axis *a, const struct loss_timeline *tl,
		      const struct loss_interval *iv, size_t n, double y, double h,
		      const char *what)
{
	uint64_t gap = (uint64_t)(1 / a->px_per_ns);

	for (size_t i = 0, j; i < n; i = j) {
		uint64_t start = iv[i].start, end = iv[i].end, lost = 0;
		size_t records = 0;
		double x0, x1;
		char b0[32], b1[32];

		if (start >= end) {
			j = i + 1;
			continue; /* empty: nothing went missing in between */
		}
		for (j = i; j < n && iv[j].start <= end + gap; j++) {
			if (iv[j].start >= iv[j].end)
				continue;
			end = MAX(end, iv[j].end);
			lost += iv[j].lost;
			records++;
		}
		x0 = axis__x(a, tl, start);
		x1 = axis__x(a, tl, end);
		fmt_secs(b0, sizeof(b0), start - tl->t0);
		fmt_secs(b1, sizeof(b1), end - tl->t0);
		fprintf(f, "<rect class=\"lost\" data-cpu=\"%s\" data-start-ns=\"%" PRIu64
			"\" data-end-ns=\"%" PRIu64 "\" data-records=\"%zu\" data-lost=\"%" PRIu64
			"\" x=\"%.3f\" y=\"%.1f\" width=\"%.3f\" height=\"%.1f\" fill=\"" COLOR_LOST
			"\" fill-opacity=\"0.45\"><title>%s: %zu LOST record%s, %" PRIu64
			" events lost in (%s, %s]</title></rect>\n",
			what, start, end, records, lost, x0, y, MAX(x1 - x0, 1.0), h, what, records,
			records == 1 ? "" : "s", lost, b0, b1);
	}
}

/* Row's offline gaps (perfcap-loss(1)): grey, under the rest; not lost, so not in "all". */
static void draw_offline(FILE *f, const struct axis *a, const struct loss_timeline *tl, size_t row,
			 double y, double h, const char *what)
{
	const struct loss_stats *ls = tl->ls;

	for (size_t i = 0; i < ls->nr_gaps; i++) {
		const struct loss_gap *g = &ls->gaps[i];
		size_t r = g->cpu >= 0 && (uint64_t)g->cpu < ls->nr_cpus ? tl->row_of[g->cpu] :
			   tl->nr_rows - 1;
		double x0, x1;
		char b0[32], b1[32];

		if (r != row || g->start >= g->end)
			continue;
		x0 = axis__x(a, tl, g->start);
		x1 = axis__x(a, tl, g->end);
		fmt_secs(b0, sizeof(b0), g->start - tl->t0);
		fmt_secs(b1, sizeof(b1), g->end - tl->t0);
		fprintf(f, "<rect class=\"offline\" data-cpu=\"%s\" data-start-ns=\"%" PRIu64
			"\" data-end-ns=\"%" PRIu64 "\" x=\"%.3f\" y=\"%.1f\" width=\"%.3f\" "
			"height=\"%.1f\" fill=\"" COLOR_OFFLINE "\" fill-opacity=\"0.35\"><title>%s: "
			"offline, not recorded in (%s, %s]</title></rect>\n", what, g->start, g->end,
			x0, y, MAX(x1 - x0, 1.0), h, what, b0, b1);
	}
}

static void draw_throttle(FILE *f, const struct loss_timeline *tl, const uint32_t *counts,
			  double y, double h)
{
	double bw = (double)LOSS_SVG_PLOT_WIDTH / LOSS_SVG_BUCKETS;
	double mh = MIN(h, 8.0);

	for (size_t b = 0; b < tl->nr_buckets; b++) {
		if (!counts[b])
			continue;
		fprintf(f, "<rect class=\"throttle\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%.1f\" fill=\"" COLOR_THROTTLE "\"><title>%u THROTTLE</title></rect>\n",
			LOSS_SVG_PLOT_X + b * bw, y, MAX(bw, 2.0), mh, counts[b]);
	}
}

/* Largest bucket of any CPU row and of the summed row. */
static void rate_max(struct loss_timeline *const *tl, size_t n, double *cpu, double *all)
{
	*cpu = *all = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t b = 0; b < tl[i]->nr_buckets; b++) {
			uint64_t s = 0;

			for (size_t r = 0; r < tl[i]->nr_rows; r++) {
				uint64_t v = tl[i]->bytes[r * tl[i]->nr_buckets + b];

				*cpu = MAX(*cpu, (double)v);
				s += v;
			}
			*all = MAX(*all, (double)s);
		}
}

static void draw_head(FILE *f, const struct panel *p, const char *tag, double mbs_cpu,
		      double mbs_all)
{
	const struct loss_stats *ls = p->tl->ls;
	char frac[32], lt[32], el[32], ltf[32];

	fprintf(f, "<text x=\"8\" y=\"%d\" font-size=\"13\" font-weight=\"bold\">%s", p->y + 14,
		tag);
	xml_text(f, p->tl->path, 200);
	fprintf(f, "</text>\n<text x=\"8\" y=\"%d\" font-size=\"11\" font-family=\"monospace\" "
		"fill=\"#444\">", p->y + 30);
	xml_text(f, p->tl->cmdline ? p->tl->cmdline : "(no command line in the file)",
		 CMDLINE_MAX);
	fmt_pct(frac, sizeof(frac), ls->loss_fraction_valid, ls->loss_fraction);
	fmt_pct(ltf, sizeof(ltf), ls->lost_time_fraction_valid, ls->lost_time_fraction);
	if (ls->lost_time_valid)
		fmt_secs(lt, sizeof(lt), ls->lost_time);
	else
		snprintf(lt, sizeof(lt), "n/a");
	if (ls->elapsed_valid)
		fmt_secs(el, sizeof(el), ls->elapsed_time);
	else
		snprintf(el, sizeof(el), "n/a");
	fprintf(f, "</text>\n<text x=\"8\" y=\"%d\" font-size=\"12\">%" PRIu64 " samples, lost %"
		PRIu64 " (%s) in %" PRIu64 " LOST records; lost time %s of %s (%s); %" PRIu64
		" THROTTLE", p->y + 46, ls->samples, ls->lost, frac, ls->lost_records, lt, el, ltf,
		ls->throttle);
	/* The recorder's own drops (perfcap's triage) are not the kernel's loss. */
	if (ls->triage_records)
		fprintf(f, "; dropped by the recorder (output behind) %" PRIu64, ls->triage_dropped);
	if (p->tl->bucket_ns)
		fprintf(f, "; rate scale: a full CPU row %.1f MB/s, the full \"all\" row %.1f MB/s",
			mbs_cpu, mbs_all);
	fprintf(f, "</text>\n");
}

/*
 * A panel: its head, the "all" row, a row per CPU. Each panel has its own
 * rate scale (the busiest bucket fills a row): recordings compared need
 * not write at the same rate for their losses to be seen.
 */
static void draw_panel(FILE *f, const struct axis *a, const struct panel *p, const char *tag)
{
	const struct loss_timeline *tl = p->tl;
	const struct loss_stats *ls = tl->ls;
	struct loss_interval *iv;
	uint64_t *sum = NULL;
	uint32_t *thr = NULL;
	int label_every, y;
	char what[32];
	double vmax_cpu, vmax_all, mb_per_s = 0;

	rate_max(&p->tl, 1, &vmax_cpu, &vmax_all);
	/* MB as in perf's summary: 2^20 bytes */
	if (tl->bucket_ns)
		mb_per_s = 1e9 / (double)tl->bucket_ns / (1 << 20);

	fprintf(f, "<g class=\"panel\" data-file=\"");
	xml_text(f, tl->path, 4096);
	fprintf(f, "\" data-t0-ns=\"%" PRIu64 "\" data-x0=\"%d\" data-ns-per-px=\"%.6f\">\n",
		tl->t0, LOSS_SVG_PLOT_X, 1 / a->px_per_ns);
	draw_head(f, p, tag, vmax_cpu * mb_per_s, vmax_all * mb_per_s);
	y = p->rows_y;
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"" COLOR_BAND
		"\"/>\n<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">all</text>\n",
		LOSS_SVG_PLOT_X, y, LOSS_SVG_PLOT_WIDTH, ALL_ROW_H, LOSS_SVG_PLOT_X - 6,
		y + ALL_ROW_H / 2 + 4);
	if (!tl->bucket_ns) {
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\">no timestamps in this file: "
			"nothing to place on a time axis</text>\n</g>\n", LOSS_SVG_PLOT_X + 8,
			y + ALL_ROW_H / 2 + 4);
		return;
	}

	/* The "all" row: summed rates, the union of all intervals, any throttle. */
	sum = xzalloc(tl->nr_buckets * sizeof(*sum));
	thr = xzalloc(tl->nr_buckets * sizeof(*thr));
	for (size_t r = 0; r < tl->nr_rows; r++)
		for (size_t b = 0; b < tl->nr_buckets; b++) {
			sum[b] += tl->bytes[r * tl->nr_buckets + b];
			thr[b] += tl->throttle[r * tl->nr_buckets + b];
		}
	iv = xzalloc((ls->nr_iv + 1) * sizeof(*iv));
	if (ls->nr_iv)
		memcpy(iv, ls->iv, ls->nr_iv * sizeof(*iv));
	for (size_t i = 0; i < ls->nr_iv; i++)
		iv[i].cpu = -2;
	if (ls->nr_iv)
		qsort(iv, ls->nr_iv, sizeof(*iv), cmp_iv);
	/* Shades first: the rate stays readable on top of them. */
	draw_lost(f, a, tl, iv, ls->nr_iv, y, ALL_ROW_H, "all");
	draw_rate(f, tl, sum, 0, vmax_all, y, ALL_ROW_H);
	draw_throttle(f, tl, thr, y, ALL_ROW_H);
	y += ALL_ROW_H + 4;

	/* One row per CPU: the intervals sorted by row (kept in .cpu), then start. */
	for (size_t i = 0; i < ls->nr_iv; i++) {
		int64_t cpu = ls->iv[i].cpu;

		iv[i] = ls->iv[i];
		iv[i].cpu = cpu >= 0 && (uint64_t)cpu < ls->nr_cpus ? tl->row_of[cpu] :
			    (int64_t)tl->nr_rows - 1;
	}
	if (ls->nr_iv)
		qsort(iv, ls->nr_iv, sizeof(*iv), cmp_iv);
	label_every = (11 + p->row_h - 1) / p->row_h;
	for (size_t i = 0, k = 0; i < p->nr_rows; i++, y += p->row_h) {
		bool last = i == tl->nr_rows - 1;
		size_t n;

		if (i % 2)
			fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\""
				COLOR_BAND "\"/>\n", LOSS_SVG_PLOT_X, y, LOSS_SVG_PLOT_WIDTH,
				p->row_h);
		if (!last)
			snprintf(what, sizeof(what), "cpu %" PRId64, tl->row_cpu[i]);
		else if (tl->other_cpus)
			snprintf(what, sizeof(what), "%zu more cpus", tl->other_cpus);
		else
			snprintf(what, sizeof(what), "unknown cpu");
		if (i % label_every == 0 || last)
			fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"%d\" text-anchor=\"end\">%s"
				"</text>\n", LOSS_SVG_PLOT_X - 6,
				y + MIN(p->row_h, 14) / 2 + 4, p->row_h >= 10 ? 11 : 9, what);
		while (k < ls->nr_iv && iv[k].cpu < (int64_t)i)
			k++;
		for (n = 0; k + n < ls->nr_iv && iv[k + n].cpu == (int64_t)i; n++)
			;
		draw_offline(f, a, tl, i, y, p->row_h, what);
		draw_lost(f, a, tl, iv + k, n, y, p->row_h, what);
		k += n;
		draw_rate(f, tl, NULL, i, vmax_cpu, y, p->row_h);
		draw_throttle(f, tl, tl->throttle + i * tl->nr_buckets, y, p->row_h);
	}
	fprintf(f, "</g>\n");
	free(iv);
	free(sum);
	free(thr);
}

static void draw_axis(FILE *f, const struct axis *a, int top, int bottom)
{
	double step = tick_step((double)a->span_ns);
	char label[48];

	fprintf(f, "<g class=\"axis\" font-size=\"11\" text-anchor=\"middle\">\n");
	for (double t = 0; t <= (double)a->span_ns + step / 1000; t += step) {
		double x = LOSS_SVG_PLOT_X + t * a->px_per_ns;

		fmt_time(label, sizeof(label), t, step);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"" COLOR_GRID
			"\" stroke-width=\"0.6\"/>\n<text x=\"%.1f\" y=\"%d\">%s</text>\n", x, top, x,
			bottom + 4, x, bottom + 16, label);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\">time since the file's first timestamp</text>\n</g>\n",
		LOSS_SVG_PLOT_X + LOSS_SVG_PLOT_WIDTH / 2, bottom + 30);
}

int loss_svg__write(FILE *f, struct loss_timeline *const *tl, size_t n, bool standalone)
{
	struct panel panels[2];
	struct axis a = { 0 };
	uint64_t bucket_ns = 0;
	int y, height;

	if (n < 1 || n > ARRAY_SIZE(panels))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		bucket_ns = MAX(bucket_ns, tl[i]->bucket_ns);
	a.span_ns = (bucket_ns ? bucket_ns : 1) * LOSS_SVG_BUCKETS;
	a.px_per_ns = (double)LOSS_SVG_PLOT_WIDTH / (double)a.span_ns;

	y = TITLE_H + LEGEND_H;
	for (size_t i = 0; i < n; i++) {
		panel__layout(&panels[i], tl[i], y);
		y += panels[i].height + PANEL_GAP;
	}
	height = y - PANEL_GAP + AXIS_H + 8;

	if (standalone)
		fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n<title>perfcap "
		"loss: ", LOSS_SVG_WIDTH, height, LOSS_SVG_WIDTH, height);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? " vs " : "", f);
		xml_text(f, tl[i]->path, 200);
	}
	fprintf(f, "</title>\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(f, "<text x=\"8\" y=\"19\" font-size=\"16\" font-weight=\"bold\">What was lost, "
		"when and where%s</text>\n", n > 1 ? ": two recordings on one time axis" : "");
	/* The legend; each panel's head gives its rate scale. */
	y = TITLE_H + 13;
	fprintf(f, "<g class=\"legend\" font-size=\"11\">\n"
		"<rect x=\"8\" y=\"%d\" width=\"14\" height=\"10\" fill=\"" COLOR_RATE "\"/>"
		"<text x=\"26\" y=\"%d\">rate of records the kernel wrote (MB/s, scale in each "
		"panel's head)</text>\n"
		"<rect x=\"580\" y=\"%d\" width=\"14\" height=\"10\" fill=\"" COLOR_LOST
		"\" fill-opacity=\"0.45\"/><text x=\"598\" y=\"%d\">lost interval: a LOST record's "
		"gap since the CPU's previous record</text>\n"
		"<rect x=\"1000\" y=\"%d\" width=\"4\" height=\"10\" fill=\"" COLOR_THROTTLE "\"/>"
		"<text x=\"1008\" y=\"%d\">THROTTLE</text>\n"
		"<rect x=\"1085\" y=\"%d\" width=\"14\" height=\"10\" fill=\"" COLOR_OFFLINE
		"\" fill-opacity=\"0.35\"/><text x=\"1103\" y=\"%d\">CPU offline</text>\n</g>\n",
		y - 9, y, y - 9, y, y - 9, y, y - 9, y);

	for (size_t i = 0; i < n; i++)
		draw_panel(f, &a, &panels[i], n > 1 ? (i ? "B: " : "A: ") : "");
	draw_axis(f, &a, TITLE_H + LEGEND_H + PANEL_HEAD_H,
		  panels[n - 1].y + panels[n - 1].height);
	fprintf(f, "</svg>\n");
	fflush(f);
	return ferror(f) ? -EIO : 0;
}

/* ---- HTML ------------------------------------------------------------- */

static void html_row(FILE *f, const char *name, struct loss_timeline *const *tl, size_t n,
		     void (*cell)(char *buf, size_t size, const struct loss_stats *ls))
{
	char buf[64];

	fprintf(f, "<tr><th>%s</th>", name);
	for (size_t i = 0; i < n; i++) {
		cell(buf, sizeof(buf), tl[i]->ls);
		fprintf(f, "<td>%s</td>", buf);
	}
	fprintf(f, "</tr>\n");
}

#define CELL_U64(field)								\
	static void cell_##field(char *b, size_t size, const struct loss_stats *ls)	\
	{									\
		snprintf(b, size, "%" PRIu64, ls->field);			\
	}
CELL_U64(samples)
CELL_U64(lost_records)
CELL_U64(lost_events)
CELL_U64(lost_samples)
CELL_U64(lost)
CELL_U64(throttle)
CELL_U64(unthrottle)

static void cell_loss_fraction(char *b, size_t size, const struct loss_stats *ls)
{
	fmt_pct(b, size, ls->loss_fraction_valid, ls->loss_fraction);
}

static void cell_elapsed(char *b, size_t size, const struct loss_stats *ls)
{
	if (ls->elapsed_valid)
		snprintf(b, size, "%.6f s", ls->elapsed_time / 1e9);
	else
		snprintf(b, size, "n/a");
}

static void cell_lost_time(char *b, size_t size, const struct loss_stats *ls)
{
	if (ls->lost_time_valid)
		snprintf(b, size, "%.6f s", ls->lost_time / 1e9);
	else
		snprintf(b, size, "n/a");
}

static void cell_lost_time_fraction(char *b, size_t size, const struct loss_stats *ls)
{
	fmt_pct(b, size, ls->lost_time_fraction_valid, ls->lost_time_fraction);
}

static void html_cpus(FILE *f, const struct loss_timeline *tl)
{
	const struct loss_stats *ls = tl->ls;

	fprintf(f, "<details><summary>Per CPU: ");
	xml_text(f, tl->path, 200);
	fprintf(f, "</summary>\n<table>\n<tr><th>cpu</th><th>samples</th><th>LOST records</th>"
		"<th>lost events</th><th>lost time</th><th>offline (not recorded)</th></tr>\n");
	for (size_t i = 0; i <= ls->nr_cpus; i++) {
		const struct loss_cpu *c = i < ls->nr_cpus ? &ls->cpus[i] : &ls->unknown_cpu;

		if (!c->seen)
			continue;
		if (i < ls->nr_cpus)
			fprintf(f, "<tr><td>%zu</td>", i);
		else
			fprintf(f, "<tr><td>unknown</td>");
		fprintf(f, "<td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td>",
			c->samples, c->lost_records, c->lost_events);
		if (ls->lost_time_valid)
			fprintf(f, "<td>%.6f s</td>", c->lost_time / 1e9);
		else
			fprintf(f, "<td>n/a</td>");
		fprintf(f, "<td>%.6f s</td></tr>\n", c->offline_time / 1e9);
	}
	fprintf(f, "</table></details>\n");
}

int loss_html__write(FILE *f, struct loss_timeline *const *tl, size_t n)
{
	int err;

	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
		"<title>perfcap loss: ");
	for (size_t i = 0; i < n; i++) {
		fputs(i ? " vs " : "", f);
		xml_text(f, tl[i]->path, 200);
	}
	fprintf(f, "</title>\n<style>\nbody { font-family: sans-serif; margin: 1em; }\n"
		"table { border-collapse: collapse; margin: 0.5em 0; }\n"
		"td, th { padding: 2px 10px; text-align: right; border-bottom: 1px solid #ddd; }\n"
		"th { text-align: left; }\n"
		".sw { display: inline-block; width: 1em; height: 0.8em; margin-right: 0.4em; }\n"
		"code { background: #f3f3f3; }\nsvg { max-width: 100%%; height: auto; }\n</style>\n</head>\n<body>\n"
		"<h1>perfcap loss</h1>\n<div>\n");
	err = loss_svg__write(f, tl, n, false);
	if (err)
		return err;
	fprintf(f, "</div>\n<h2>Legend</h2>\n<ul>\n"
		"<li><span class=\"sw\" style=\"background:" COLOR_RATE "\"></span>The rate at "
		"which the kernel wrote records of the CPU (bytes of records per %.3g ms); one "
		"scale for all CPU rows of a recording, given in its head.</li>\n"
		"<li><span class=\"sw\" style=\"background:" COLOR_LOST ";opacity:0.45\"></span>"
		"A lost interval: a <code>PERF_RECORD_LOST</code> record on that CPU stands for "
		"the time since the CPU's previous record, in which its data went missing. "
		"The row <em>all</em> shades their union; its length is the lost time.</li>\n"
		"<li><span class=\"sw\" style=\"background:" COLOR_THROTTLE "\"></span>A "
		"<code>PERF_RECORD_THROTTLE</code>: the kernel lowered the sampling rate.</li>\n"
		"</ul>\n<p>Hover over a shaded interval for its times. The definitions of every "
		"number are in <code>perfcap-loss(1)</code>.</p>\n<h2>Numbers</h2>\n<table>\n<tr>"
		"<th></th>", tl[0]->bucket_ns / 1e6);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "<th>%s", n > 1 ? (i ? "B: " : "A: ") : "");
		xml_text(f, tl[i]->path, 200);
		fprintf(f, "</th>");
	}
	fprintf(f, "</tr>\n<tr><th>command line</th>");
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "<td><code>");
		xml_text(f, tl[i]->cmdline ? tl[i]->cmdline : "n/a", 4096);
		fprintf(f, "</code></td>");
	}
	fprintf(f, "</tr>\n");
	html_row(f, "samples", tl, n, cell_samples);
	html_row(f, "LOST records", tl, n, cell_lost_records);
	html_row(f, "lost events", tl, n, cell_lost_events);
	html_row(f, "lost samples", tl, n, cell_lost_samples);
	html_row(f, "lost", tl, n, cell_lost);
	html_row(f, "loss fraction", tl, n, cell_loss_fraction);
	html_row(f, "THROTTLE", tl, n, cell_throttle);
	html_row(f, "UNTHROTTLE", tl, n, cell_unthrottle);
	html_row(f, "elapsed time", tl, n, cell_elapsed);
	html_row(f, "lost time", tl, n, cell_lost_time);
	html_row(f, "lost time fraction", tl, n, cell_lost_time_fraction);
	fprintf(f, "</table>\n");
	for (size_t i = 0; i < n; i++)
		html_cpus(f, tl[i]);
	fprintf(f, "</body>\n</html>\n");
	fflush(f);
	return ferror(f) ? -EIO : 0;
}
