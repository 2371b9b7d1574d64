/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The TRACING_DATA feature: tracefs format files of the recorded
 * tracepoints, serialized as perf's trace-event reader (version 0.6)
 * expects, so perf script can decode tracepoint fields.
 */
#ifndef PERFCAP_TRACING_DATA_H
#define PERFCAP_TRACING_DATA_H

#include "util.h"

int tracing_data__write(struct strbuf *sb, int nr, const char *const *systems,
			const char *const *events);

#endif
