/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Feature sections: the payloads that follow the data section and
 * describe the machine and the recording (hostname, cpu topology, event
 * names, build ids, tracing data ...). Layouts as perf 6.1 reads them.
 */
#ifndef PERFCAP_FEATURES_H
#define PERFCAP_FEATURES_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

#include "util.h"

struct feature_event {
	const struct perf_event_attr *attr;
	const char *name;
	const uint64_t *ids;
	int nr_ids;
};

struct feature_env {
	int argc;		/* perfcap's own command line, for CMDLINE */
	char **argv;
	int nr_events;
	const struct feature_event *events;
	uint64_t first_sample_time; /* SAMPLE_TIME; 0 if no samples */
	uint64_t last_sample_time;
	int nr_tracepoints;	/* TRACING_DATA: the tracepoints recorded */
	const char *const *tp_system;
	const char *const *tp_event;
	bool no_buildid;	/* -B: no BUILD_ID section */
};

/*
 * Append the payload of feature feat to sb. Returns 0, -ENOENT when the
 * feature does not apply to this recording (its bit stays clear), or
 * another -errno.
 */
int feature__write(int feat, const struct feature_env *env, struct strbuf *sb);

/* Every feature perfcap knows how to write, in bit order; ends with -1. */
extern const int perfcap_features[];

#endif
