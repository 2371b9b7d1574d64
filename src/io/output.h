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
 *
 * Pipe mode (-o -, or a FIFO on stdout without -o): a pipe has no
 * offsets, so the bytes must leave in offset order. See
 * output__open_pipe().
 */
#ifndef PERFCAP_OUTPUT_H
#define PERFCAP_OUTPUT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"
#include "io/writer.h"

struct output_pipe;

struct output_span {
	uint64_t end;
	bool done;
};

struct output {
	int fd;
	char *path;
	struct writer *writer;	/* the main thread's; reader threads bring their own */
	/* Next free offset. Read without the lock; moved only under it. */
	_Atomic uint64_t head;
	_Atomic int err;	/* first write error, sticky (output__set_err) */
	/*
	 * No reader writes to the file itself before this time (mono ns):
	 * a write of any thread was slow, and the file is one queue, so
	 * even a reader's 8-byte FINISHED_ROUND waits behind it
	 * (record/stage-triage.c). Relaxed: a hint, not a guarantee.
	 */
	_Atomic uint64_t slow_until;

	/*
	 * Reader threads share the output (DESIGN.md, "Reader threads into
	 * one file"). lock protects the reservation and its span together
	 * (so spans are in offset order whatever thread reserved), the spans
	 * and what follows from them: durable, bytes_written. It is taken
	 * once per write and once per completion, never held across I/O; it
	 * is the innermost lock (rounds.lock may be held when it is taken).
	 */
	pthread_mutex_t lock;
	uint64_t bytes_written;	/* completed */

	/* Reservations not yet durable, in offset order. */
	struct output_span *spans;
	uint64_t first_seq, next_seq;
	size_t spans_cap;
	uint64_t durable;

	/* Small records (synthesized events) gathered into one write: main thread only. */
	struct strbuf stage;
	uint64_t stage_off;
	uint64_t stage_seq;

	/* Pipe mode: the FIFO and its thread (output.c); NULL for a file. */
	struct output_pipe *pipe;

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
/*
 * Pipe mode: write perf's pipe format to fd (a pipe, or whatever stdout
 * is), which the output now owns. Writes keep the one offset allocator:
 * a submitter reserves its bytes and copies them into a bounded FIFO
 * (fifo_size bytes; 0: OUTPUT_PIPE_FIFO) in one step, under one lock,
 * so FIFO order is offset order whichever thread or writer backend
 * submits; the request completes once copied. One thread writes the
 * FIFO to fd, in order. A reader that goes away (EPIPE, or POLLERR seen
 * while idle) is a sticky -EPIPE, never a SIGPIPE. 0 or -errno.
 */
#define OUTPUT_PIPE_FIFO (4U << 20)
int output__open_pipe(struct output *o, int fd, struct writer *w, size_t fifo_size);
static inline bool output__is_pipe(const struct output *o) { return o->pipe != NULL; }

/* Only the fd: for tests that bring their own file. */
void output__init_fd(struct output *o, int fd, struct writer *w);
void output__close(struct output *o);
/* Remove the file (an error before any data was recorded). */
void output__unlink(struct output *o);

/* Reserve len bytes; returns the offset (tests; writes reserve through submit). */
uint64_t output__reserve(struct output *o, size_t len);
/* Remember err (a -errno) if it is the first error. Any thread. */
void output__set_err(struct output *o, int err);

/*
 * Reserve len bytes for req and submit it. req->buf/len must be set and
 * req->on_complete is called when it is written (or failed). The caller
 * must not touch req until then. 0 or -errno.
 */
int output__submit(struct output *o, struct write_req *req);
/* The same through writer w: a reader thread's own writer. Any thread. */
int output__submit_via(struct output *o, struct writer *w, struct write_req *req);

/* Append a small record; gathered and written in large writes. */
int output__append(struct output *o, const void *data, size_t len);
/* Submit what output__append() gathered. */
int output__flush(struct output *o);
/* A one-off write of a copy of buf at a fresh reservation; returns offset. */
int64_t output__write_copy(struct output *o, const void *buf, size_t len);

/* Collect completions of the main writer. 0 or the sticky error. */
int output__reap(struct output *o, bool wait);
/* Collect completions of writer w (the thread that owns w). 0 or the sticky error. */
int output__reap_via(struct output *o, struct writer *w, bool wait);
/* Wait for every write in flight. 0 or the sticky error. */
int output__drain(struct output *o);

/* Bytes below this offset are all written. */
uint64_t output__durable(struct output *o);
/* Bytes whose writes have completed (any thread may ask). */
uint64_t output__written(struct output *o);
static inline uint64_t output__head(struct output *o) { return atomic_load(&o->head); }

/*
 * Keep the header's data.size at the durable prefix (one 8-byte pwrite
 * when it moved). Only once data_offset is set.
 */
int output__sync_header_size(struct output *o);

#endif
