/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The build-id cache in perf's layout, so that perf report, perf archive
 * and perf buildid-cache find what a recording hit after the files
 * changed or on another machine (facts from perf 6.1, checked by letting
 * it fill one):
 *
 *   DIR/<path of the dso>/<build id>/elf     the file (hard link, or a copy)
 *   DIR/<path of the dso>/<build id>/debug   its /usr/lib/debug/.build-id file, if any
 *   DIR/[kernel.kallsyms]/<build id>/kallsyms  a copy of /proc/kallsyms
 *   DIR/[vdso]/<build id>/vdso               the vdso image
 *   DIR/.build-id/<2 hex>/<the other hex>  -> ../../<path of the dso>/<build id>
 *
 * DIR is $PERF_BUILDID_DIR, else perf's buildid.dir (perf-config.h), else
 * $HOME/.debug. Entries already there are kept. Beside elf and vdso, an
 * empty "probes" (perf's SDT probe cache) when the DSO has no SDT probes;
 * perf's list of the probes of one that has them is not written.
 */
#ifndef PERFCAP_BUILDID_CACHE_H
#define PERFCAP_BUILDID_CACHE_H

#include <stddef.h>

#include "format/build-id.h"

/* The cache's directory into buf. 0, or -ENOENT when none of the three is set. */
int buildid_cache__dir(char *buf, size_t size);
/*
 * A file DSO: name as the recording names it (its map's path), path the
 * file to take it from (name, or the same file through /proc/PID/root).
 * 0 or -errno.
 */
int buildid_cache__add_file(const char *dir, const struct build_id *bid,
			    const char *name, const char *path);
/* The running kernel: /proc/kallsyms under [kernel.kallsyms]. */
int buildid_cache__add_kallsyms(const char *dir, const struct build_id *bid);
/* The vdso: its image bytes under [vdso]. */
int buildid_cache__add_vdso(const char *dir, const struct build_id *bid,
			    const void *image, size_t size);

#endif
