/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AUX area tracing: an event's AUX area and the records perf 6.1 writes
 * for it (intel_pt, intel_bts, cs_etm, arm_spe).
 *
 * An AUX-capable PMU writes its trace into a second ring of the event's
 * mmap space, behind the data ring: the recorder says where and how big
 * (perf_event_mmap_page's aux_offset and aux_size, -m's second number of
 * pages) and maps it; the PMU publishes aux_head, the recorder copies
 * [its last position, aux_head) and gives the space back through
 * aux_tail, as with the data ring. Each copy goes into the stream as a
 * PERF_RECORD_AUXTRACE (a user record: perf writes it, not the kernel)
 * followed by the data itself, padded to 8 bytes; the kernel's own
 * PERF_RECORD_AUX records in the data ring say which offsets of the AUX
 * stream each piece of trace came in. A PERF_RECORD_AUXTRACE_INFO at
 * the start of the data names the tracer, which perf report needs to
 * decode it.
 *
 * With -S/--snapshot the AUX area is mapped read-only: the PMU overwrites
 * it, and it is read only when a snapshot is taken (SIGUSR2, or the
 * control command 'snapshot'), at most -S's size of its newest bytes.
 *
 * This machine has no AUX-capable PMU: everything here is tested over an
 * AUX area in ordinary memory (tests/unit/test_aux.c).
 */
#ifndef PERFCAP_RECORD_AUX_H
#define PERFCAP_RECORD_AUX_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* PERF_RECORD_AUXTRACE (71): header.size is the record's 48 bytes; size bytes of data follow. */
struct perf_record_auxtrace {
	struct perf_event_header header;
	uint64_t size;		/* the data that follows, padded to 8 */
	uint64_t offset;	/* where the data begins in the AUX area's stream */
	uint64_t reference;	/* the tracer's (intel_pt: a TSC); 0 */
	uint32_t idx;		/* which ring */
	uint32_t tid;		/* the ring's thread; -1: every thread of its CPU */
	uint32_t cpu;		/* the ring's CPU; -1: a thread's ring */
	uint32_t reserved;
};

/* PERF_RECORD_AUXTRACE_INFO (70): the tracer, and nr_priv words only it reads. */
struct perf_record_auxtrace_info {
	struct perf_event_header header;
	uint32_t type;		/* enum aux_kind */
	uint32_t reserved;
	uint64_t priv[];
};

/* perf's enum auxtrace_type: the tracers a file may name. */
enum aux_kind {
	AUX_UNKNOWN,
	AUX_INTEL_PT,
	AUX_INTEL_BTS,
	AUX_CS_ETM,
	AUX_ARM_SPE,
};

/* The tracer a PMU of this name is (arm_spe_0 is ARM_SPE); AUX_UNKNOWN if none. */
enum aux_kind aux__kind(const char *pmu_name);
/* The tracer of a dynamic attr.type, by the PMU sysfs names with that type. */
enum aux_kind aux__kind_of_type(uint32_t type);

struct evlist;
struct evsel;
struct mmap;
struct mmap_buf;
struct record_opts;
struct record_threads;
struct rings;
struct strbuf;

/* The first event of el whose PMU is an AUX tracer; NULL: none. */
struct evsel *aux__evsel(const struct evlist *el);
/*
 * After the events are parsed: -S and --aux-sample want an AUX event, as
 * perf 6.1 says when there is none ("No AUX area tracing to snapshot",
 * "No AUX area event to sample"); an AUX event goes first, so that its fd
 * owns its CPU's ring and AUX area, as perf puts it first. 0 or -EINVAL.
 */
int aux__setup_events(struct evlist *el, const struct record_opts *o);
/*
 * After evlist__config: --aux-sample gives the other events of the AUX
 * event's group PERF_SAMPLE_AUX and aux_sample_size, as perf 6.1 does.
 */
void aux__config(struct evlist *el, const struct record_opts *o);

struct aux_ring {
	struct perf_event_mmap_page *pc;	/* the data ring's control page */
	unsigned char *data;
	uint64_t len, mask;	/* the AUX area: a power of two */
	size_t map_len;		/* what was mmap()ed; 0 for a fake */
	uint64_t prev;		/* our position in the AUX stream */
	bool snapshot;		/* -S: read-only, overwritten, read at a snapshot */
	bool snap_due;
	uint64_t snapshot_size;	/* -S SIZE: at most the newest SIZE bytes; 0: the area */
	uint32_t idx, tid, cpu;
	uint64_t bytes, nr_records;
};

/*
 * Map the AUX area of fd, whose data ring (control page first) is mapped
 * read-write at ring_base, ring_map_len bytes: aux_pages pages behind it.
 * 0 or -errno (the kernel refuses an event whose PMU has no AUX area).
 */
int aux__map(struct aux_ring *a, int fd, void *ring_base, size_t ring_map_len,
	     unsigned int aux_pages, bool snapshot);
/* An AUX area in ordinary memory, for tests: pc the control page, len bytes at data. */
void aux__init_fake(struct aux_ring *a, struct perf_event_mmap_page *pc, void *data,
		    uint64_t len, bool snapshot);
void aux__unmap(struct aux_ring *a);

/* The most one aux__copy writes: a record and the whole area, padded. */
size_t aux__max_copy(const struct aux_ring *a);
/*
 * What the PMU published since the last copy, as one PERF_RECORD_AUXTRACE
 * and its data (copied in two pieces when it wraps) into buf, cap bytes,
 * then given back to the PMU (aux_tail; not for a snapshot area, which is
 * read only when a snapshot is due, at most snapshot_size of its newest
 * bytes). Bytes written, 0 when nothing is to be copied, -ENOSPC when it
 * does not fit (nothing copied or given back).
 */
ssize_t aux__copy(struct aux_ring *a, void *buf, size_t cap);
/* A snapshot of a -S area is due: the next aux__copy takes it. */
void aux__snapshot(struct aux_ring *a);

/*
 * The PERF_RECORD_AUXTRACE_INFO of kind, with nr priv words, into buf
 * (cap bytes): its size, or 0 when it does not fit or kind is
 * AUX_UNKNOWN (perf 6.1 refuses a file that names no tracer it knows).
 */
size_t aux__info(void *buf, size_t cap, enum aux_kind kind, const uint64_t *priv, int nr);

/* ---- in the recording ---------------------------------------------------- */

/* -m ,M not given: perf's AUX area as root, 4 MiB; else 128 KiB. */
#define AUX_DEFAULT_BYTES_ROOT (4u << 20)
#define AUX_DEFAULT_BYTES_USER (128u << 10)

/*
 * The AUX area of each ring whose first event is the AUX event
 * (aux__setup_events put it first): aux_pages pages (0: the default
 * above), read-only with -S; each ring's buffers get room for a copy of
 * it. 0 or -errno, said.
 */
int aux__map_rings(struct rings *r, const struct evlist *el, const struct record_opts *o);
/*
 * In a reader's pass, after ring m's own copy (copied bytes, into
 * *bufp): the AUX area's trace behind it, as a PERF_RECORD_AUXTRACE and
 * the data. Returns copied plus what it added, or mmap__copy's -ENOSPC
 * and -ENOBUFS, which the pass answers as for the ring's own copy.
 */
ssize_t aux__copy_ring(struct mmap *m, ssize_t copied, struct mmap_buf **bufp);
/* -S: a snapshot of every AUX area is due (SIGUSR2, 'snapshot'); rt's readers are woken for it. */
void aux__snapshot_rings(struct rings *r, struct record_threads *rt);
/*
 * The AUXTRACE_INFO record of el's AUX event into sb (perf writes it
 * before the synthesized records): nothing without an AUX event. 0 or
 * -errno.
 */
int aux__info_record(const struct evlist *el, const struct rings *r, struct strbuf *sb);

#endif
