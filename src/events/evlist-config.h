/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every attr from the command line's options, as perf 6.1's
 * evsel__config sets it, and the tracking dummy (evlist-config.c).
 */
#ifndef PERFCAP_EVLIST_CONFIG_H
#define PERFCAP_EVLIST_CONFIG_H

#include <stdbool.h>

struct evlist;
struct record_opts;	/* record-opts.h: what the command line asked for */

/*
 * Set every attr's sampling, tracking and id bits from the options
 * (perf record's defaults). has_workload: perfcap starts a command.
 */
/* 0, or -EINVAL (said) where --strict-freq refuses the -F. */
int evlist__config(struct evlist *el, const struct record_opts *opts, bool has_workload);

#endif
