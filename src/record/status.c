// SPDX-License-Identifier: GPL-2.0
/*
 * The live status line (status.h). The recorder calls status__tick()
 * from its loop; until a line is due that is two compares, so it costs
 * the loop nothing it could measure. Formatting and the write to the
 * terminal happen at most twice a second.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "record/status.h"
#include "util.h"

#define NSEC_PER_SEC 1000000000ULL
#define STATUS_MIN_INTERVAL_NS (NSEC_PER_SEC / 10)
#define STATUS_MAX_INTERVAL_NS (86400 * NSEC_PER_SEC)

enum status_mode status__mode(bool quiet, bool is_tty, uint64_t forced_ns)
{
	if (forced_ns)
		return STATUS_LINES;
	return is_tty && !quiet ? STATUS_TTY : STATUS_OFF;
}

int status__parse_interval(const char *arg, uint64_t *ns)
{
	char *end;
	double s;

	if (!arg || !*arg)
		return -EINVAL;
	errno = 0;
	s = strtod(arg, &end);
	if (errno || *end || !(s * NSEC_PER_SEC >= STATUS_MIN_INTERVAL_NS) ||
	    !(s * NSEC_PER_SEC <= STATUS_MAX_INTERVAL_NS))
		return -EINVAL;
	*ns = (uint64_t)(s * NSEC_PER_SEC + 0.5);
	return 0;
}

void status__init(struct status *st, enum status_mode mode, uint64_t interval_ns,
		  uint64_t now_ns)
{
	memset(st, 0, sizeof(*st));
	st->mode = mode;
	if (mode == STATUS_TTY)
		st->interval_ns = STATUS_TTY_INTERVAL_NS;
	else
		st->interval_ns = interval_ns ? interval_ns : NSEC_PER_SEC;
	st->start_ns = now_ns;
	st->last_ns = now_ns;
	st->next_ns = now_ns + st->interval_ns;
}

/* A count in at most 5 characters: exact below 10000, then k, M, G. */
static void fmt_count(char *buf, size_t size, uint64_t v)
{
	if (v < 10000)
		snprintf(buf, size, "%" PRIu64, v);
	else if (v < 1000000)
		snprintf(buf, size, "%.*fk", v < 100000 ? 1 : 0, v / 1e3);
	else if (v < 1000000000)
		snprintf(buf, size, "%.*fM", v < 10000000 ? 2 : v < 100000000 ? 1 : 0, v / 1e6);
	else
		snprintf(buf, size, "%.2fG", v / 1e9);
}

int status__format(char *buf, size_t size, uint64_t elapsed_ns,
		   const struct status_snapshot *snap, double rate)
{
	uint64_t total = snap->samples + snap->lost;
	char samples[16], lost[16], mbs[32], ring[40];

	fmt_count(samples, sizeof(samples), snap->samples);
	fmt_count(lost, sizeof(lost), snap->lost);
	/* MB as in perf's summary ("Captured and wrote 1.234 MB"): 2^20 bytes. */
	if (rate >= 0)
		snprintf(mbs, sizeof(mbs), "%.1f MB/s", rate / (1 << 20));
	else
		snprintf(mbs, sizeof(mbs), "- MB/s");
	if (snap->ring_cpu >= 0)
		snprintf(ring, sizeof(ring), "ring %u%% cpu %d", MIN(snap->ring_pct, 100u),
			 snap->ring_cpu);
	else
		snprintf(ring, sizeof(ring), "ring %u%%", MIN(snap->ring_pct, 100u));
	return snprintf(buf, size,
			"perfcap %.1f s  %.1f MB  %s  %s samples  lost %s (%.2f%%)  %s  queue %u",
			elapsed_ns / 1e9, snap->bytes_written / (double)(1 << 20), mbs, samples,
			lost, total ? 100.0 * snap->lost / total : 0.0, ring, snap->queue);
}

bool status__tick(struct status *st, uint64_t now_ns, const struct status_snapshot *snap,
		  FILE *f)
{
	char line[256];
	double rate = -1;
	int len;

	if (st->mode == STATUS_OFF || now_ns < st->next_ns)
		return false;
	if (now_ns > st->last_ns && snap->bytes_written >= st->last_bytes)
		rate = (double)(snap->bytes_written - st->last_bytes) * NSEC_PER_SEC /
		       (double)(now_ns - st->last_ns);
	len = status__format(line, sizeof(line), now_ns - st->start_ns, snap, rate);
	len = MIN(len, (int)sizeof(line) - 1);
	if (st->mode == STATUS_TTY) {
		if (st->columns > 1 && len > (int)st->columns - 1)
			len = st->columns - 1;
		/* Back to column 0, the line, then clear what a longer one left. */
		fprintf(f, "\r%.*s\033[K", len, line);
		st->shown = true;
	} else {
		fprintf(f, "%.*s\n", len, line);
	}
	fflush(f);
	st->last_ns = now_ns;
	st->last_bytes = snap->bytes_written;
	st->next_ns = now_ns + st->interval_ns;
	st->lines++;
	return true;
}

void status__end(struct status *st, FILE *f)
{
	if (st->mode == STATUS_TTY && st->shown) {
		fputs("\r\033[K", f);
		fflush(f);
	}
	st->shown = false;
}
