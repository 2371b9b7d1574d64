/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The output: one file, one offset allocator (DESIGN.md, decision 1).
 * Every byte of perf.data is written at an offset reserved here, so
 * writes may complete in any order, from any backend.
 *
 * It also knows the durable prefix: the offset below which every
 * reserved byte has been written. The data size in the file header is
 * kept at that prefix during recording, so a recorder killed with
 * SIGKILL leaves a file that perf reads up to its last complete write.
 */
#ifndef PERFCAP_OUTPUT_H
#define PERFCAP_OUTPUT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"
#include "writer.h"

struct output_span {
	uint64_t end;
	bool done;
};

struct output {
	int fd;
	char *path;
	struct writer *writer;
	/* Next free offset. Atomic: reader threads may reserve concurrently. */
	_Atomic uint64_t head;
	int err;		/* first write error, sticky */
	uint64_t bytes_written;	/* completed */

	/* Reservations not yet durable, in offset order (main thread only). */
	struct output_span *spans;
	uint64_t first_seq, next_seq;
	size_t spans_cap;
	uint64_t durable;

	/* Small records (synthesized events) gathered into one write. */
	struct strbuf stage;
	uint64_t stage_off;
	uint64_t stage_seq;

	/* Where the header's data.size lives, and what the data starts at. */
	uint64_t data_offset;
	uint64_t header_data_size; /* last value written to the header */
};

#define OUTPUT_STAGE_FLUSH (256 * 1024)

/*
 * Create path for writing (an existing file becomes path.old, as perf
 * does). Returns 0 or -errno with a message printed.
 */
int output__open(struct output *o, const char *path, struct writer *w);
/* Only the fd: for tests that bring their own file. */
void output__init_fd(struct output *o, int fd, struct writer *w);
void output__close(struct output *o);
/* Remove the file (an error before any data was recorded). */
void output__unlink(struct output *o);

/* Reserve len bytes; returns the offset. */
uint64_t output__reserve(struct output *o, size_t len);

/*
 * Reserve len bytes for req and submit it. req->buf/len must be set and
 * req->on_complete is called when it is written (or failed). The caller
 * must not touch req until then. 0 or -errno.
 */
int output__submit(struct output *o, struct write_req *req);

/* Append a small record; gathered and written in large writes. */
int output__append(struct output *o, const void *data, size_t len);
/* Submit what output__append() gathered. */
int output__flush(struct output *o);
/* A one-off write of a copy of buf at a fresh reservation; returns offset. */
int64_t output__write_copy(struct output *o, const void *buf, size_t len);

/* Collect completions; update the header's data size. 0 or the sticky error. */
int output__reap(struct output *o, bool wait);
/* Wait for every write in flight. 0 or the sticky error. */
int output__drain(struct output *o);

/* Bytes below this offset are all written. */
static inline uint64_t output__durable(const struct output *o) { return o->durable; }
static inline uint64_t output__head(struct output *o) { return atomic_load(&o->head); }

/*
 * Keep the header's data.size at the durable prefix (one 8-byte pwrite
 * when it moved). Only once data_offset is set.
 */
int output__sync_header_size(struct output *o);

#endif
