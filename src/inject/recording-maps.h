/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The map timeline (unwind/maps.h) of a recording read with perf_reader:
 * its MMAP/MMAP2 records (user space only), FORK and COMM exec records,
 * and its BUILD_ID section for DSOs whose MMAP2 record carries no build
 * id. perfcap inject's first pass, and bench/unwind-compare's.
 *
 * Times: each record's sample_id time (a FORK's own). A recording
 * without times (no sample_id_all, or an event without TIME) orders by
 * the record's index in the walk instead: the caller then gives each
 * sample the index it has in its own walk of the same file.
 */
#ifndef PERFCAP_INJECT_RECORDING_MAPS_H
#define PERFCAP_INJECT_RECORDING_MAPS_H

#include <stdbool.h>

#include "read/reader.h"
#include "unwind/maps.h"

/* Whether r's records carry no usable time, so that times are record indexes. */
bool recording_maps__by_index(const struct perf_reader *r);

/* Each entry of r's BUILD_ID section (the file name as perf wrote it), to cb. */
void recording_maps__build_ids(struct perf_reader *r,
			       void (*cb)(const char *name, const struct build_id *bid, void *priv),
			       void *priv);

/* Walk r and build its sealed timeline into *maps (new). 0, or the walk's -errno. */
int recording_maps__read(struct perf_reader *r, struct maps **maps);
/*
 * The same walk, handing every record to also(r, rec, priv) too (before
 * the maps take it): a caller that needs another pass over the records
 * makes none. also's non-zero return ends the walk with that error.
 */
int recording_maps__read_also(struct perf_reader *r, struct maps **maps,
			      perf_reader__record_cb also, void *priv);

#endif
