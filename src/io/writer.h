/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The writer interface: how bytes whose file offset is already decided
 * reach the disk. Its users (each reader's output stage, the output's own
 * writes for the record loop) only ever call writer__submit() and
 * writer__reap(); none asks which backend it has (DESIGN.md, 4).
 *
 * Ownership of a write_req: the submitter fills it and owns it until
 * writer__submit() returns 0; from then on the writer owns it (and the
 * bytes req->buf points to) until it calls req->complete(), which hands
 * both back. A request is complete when every byte is written or the
 * write failed; short writes are resubmitted by the common code in
 * writer.c, never by the backend or the submitter.
 */
#ifndef PERFCAP_WRITER_H
#define PERFCAP_WRITER_H

#include <aio.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct writer;

struct write_req {
	void *buf;
	size_t len;
	uint64_t off;		/* file offset of buf[0], reserved from the output */
	size_t done;		/* bytes already written (short writes) */
	/* Called once, by the writer: err is 0 or -errno. */
	void (*complete)(struct write_req *req, int err);
	/* For the output object (output.c), which wraps complete(). */
	void (*on_complete)(struct write_req *req, int err);
	struct output *out;
	uint64_t seq;
	void *owner;
	/* Backend-private state. */
	union {
		struct aiocb aio;
		uint64_t pad[4];
	} u;
	struct write_req *next; /* backend queue link */
};

struct writer_ops {
	const char *name;
	/*
	 * Required. Prepare for at most max_inflight requests at a time.
	 * Returns 0 or -errno (with a message printed).
	 */
	int (*init)(struct writer *w, int max_inflight);
	/*
	 * Required. Start writing req->buf[done, len) at off + done. Returns
	 * 0 (the writer owns req now; it may even have completed already) or
	 * -errno (not started: the caller still owns req).
	 */
	int (*submit)(struct writer *w, struct write_req *req);
	/*
	 * Required. Collect finished I/O and report each one through
	 * writer__io_done(). With wait, block (never spin) until at least one
	 * request finishes, if any is in flight. Returns the number of I/Os
	 * finished or -errno.
	 */
	int (*reap)(struct writer *w, bool wait);
	/* Optional. Release what init() took; no request is in flight. */
	void (*exit)(struct writer *w);
	/*
	 * Every request completes before submit() returns (the sync backend):
	 * the submitter waits for the disk, and nothing it submitted is held.
	 */
	bool synchronous;
};

struct writer {
	const struct writer_ops *ops;
	int fd;			/* the output file */
	int inflight;		/* requests submitted and not complete */
	int max_inflight;
	unsigned long nr_submits; /* I/Os started, resubmissions included */
	unsigned long nr_short;	/* short writes resubmitted */
	void *priv;
};

extern const struct writer_ops writer_sync_ops;
extern const struct writer_ops writer_aio_ops;
extern const struct writer_ops writer_uring_ops;

/* "sync", "aio", "uring": NULL if this build has no such backend. */
const struct writer_ops *writer__find(const char *name);

int writer__init(struct writer *w, const struct writer_ops *ops, int fd, int max_inflight);
void writer__exit(struct writer *w);
int writer__submit(struct writer *w, struct write_req *req);
int writer__reap(struct writer *w, bool wait);
/* Reap until nothing is in flight. Returns 0 or the first -errno seen. */
int writer__drain(struct writer *w);

/*
 * For backends: an I/O of req finished with res (bytes or -errno).
 * Applies fault injection, resubmits the rest of a short write, or
 * completes the request.
 */
void writer__io_done(struct writer *w, struct write_req *req, ssize_t res);

#endif
