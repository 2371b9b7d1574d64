// SPDX-License-Identifier: GPL-2.0
/*
 * The output stage: the last stage of every reader's pipeline, and the
 * one component that decides where FINISHED_ROUND goes.
 *
 * It takes a pass's chunks in order. Behind the last chunk of a clean
 * pass that handed chunks over it places the marker, when the rounds
 * shared by the readers allow it (rounds.h: every other reader has had a
 * clean pass since the last marker); the marker goes into that chunk's
 * own buffer (a chunk always has room for it), so it costs no write of
 * its own. Then each chunk's offset is reserved from the one output and
 * the chunk is submitted to this stage's writer; it completes, back to
 * its producer, when written. Only once every chunk of the clean pass is
 * reserved is the pass published as clean (rounds__clean), and a marker
 * placed counted (rounds__close).
 *
 * It runs in the thread that submits to it: the reader without -z, the
 * compression stage's thread with it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/output.h"
#include "perf-file.h"
#include "record/pipeline.h"
#include "record/rounds.h"
#include "util.h"

struct output_stage {
	struct stage stage;
	struct output *out;
	struct rounds *rounds;	/* NULL: one reader, a round behind every clean pass with data */
	int thread;		/* the reader's index in rounds */
	struct writer *writer;
	struct writer own;	/* writer points here when the stage owns it */
	int fd;			/* own's dup of the output's fd, or -1 */
};

static const struct perf_event_header round_marker = {
	.type = PERF_RECORD_FINISHED_ROUND,
	.size = sizeof(struct perf_event_header),
};

static struct output_stage *to_os(struct stage *s)
{
	return container_of(s, struct output_stage, stage);
}

static int os_submit(struct stage *s, struct chunk **c, int n, struct pass_end *end)
{
	struct output_stage *os = to_os(s);
	bool clean = end && end->clean, closing = false;
	int err = 0;

	if (clean && end->data && n)
		closing = !os->rounds || rounds__try_close(os->rounds, os->thread, end->gen,
									 end->now);
	if (closing) {
		struct write_req *last = &c[n - 1]->req;

		memcpy((char *)last->buf + last->len, &round_marker, sizeof(round_marker));
		last->len += sizeof(round_marker);
		s->stats.rounds++;
		end->round = true;
	}
	for (int i = 0; i < n; i++) {
		int serr = output__submit_via(os->out, os->writer, &c[i]->req);

		if (serr) {
			/* Not taken by the writer: back to its producer, its bytes lost. */
			c[i]->req.on_complete(&c[i]->req, serr);
			if (!err)
				err = serr;
		}
	}
	if (os->rounds) {
		/* Only now is all the pass copied reserved (rounds.h). */
		if (clean && !err)
			rounds__clean(os->rounds, os->thread, end->gen, end->now);
		if (closing)
			rounds__close(os->rounds, end->now);
	}
	return err;
}

static int os_reap(struct stage *s, bool wait)
{
	struct output_stage *os = to_os(s);

	return output__reap_via(os->out, os->writer, wait);
}

static int os_queued(const struct stage *s)
{
	return container_of(s, struct output_stage, stage)->writer->inflight;
}

static bool os_direct(const struct stage *s)
{
	const struct output_stage *os = container_of(s, struct output_stage, stage);

	return os->writer->ops->synchronous && !os->out->pipe;
}

static int os_drain(struct stage *s)
{
	struct output_stage *os = to_os(s);

	s->stats.writes = os->writer->nr_submits;
	s->stats.shorts = os->writer->nr_short;
	output__set_err(os->out, writer__drain(os->writer));
	return os->out->err;
}

static int os_retarget(struct stage *s, int fd)
{
	struct output_stage *os = to_os(s);

	/* The dup'ed fd number names the new file from now on. */
	if (os->fd >= 0 && dup3(fd, os->fd, O_CLOEXEC) < 0)
		return -errno;
	return 0;
}

static void os_destroy(struct stage *s)
{
	struct output_stage *os = to_os(s);

	if (os->writer == &os->own) {
		writer__drain(&os->own);
		writer__exit(&os->own);
	}
	if (os->fd >= 0)
		close(os->fd);
	free(os);
}

static const struct stage_ops output_stage_ops = {
	.name = "output",
	.submit = os_submit,
	.reap = os_reap,
	.queued = os_queued,
	.drain = os_drain,
	.retarget = os_retarget,
	.direct = os_direct,
	.destroy = os_destroy,
};

struct stage *output_stage__new_on(struct output *out, struct writer *w,
				   struct rounds *rounds, int thread)
{
	struct output_stage *os = xzalloc(sizeof(*os));

	os->stage.ops = &output_stage_ops;
	os->out = out;
	os->rounds = rounds;
	os->thread = thread;
	os->writer = w;
	os->fd = -1;
	return &os->stage;
}

struct stage *output_stage__new(struct output *out, const struct writer_ops *ops,
				int max_inflight, struct rounds *rounds, int thread)
{
	struct stage *s = output_stage__new_on(out, NULL, rounds, thread);
	struct output_stage *os = to_os(s);
	int err;

	/*
	 * A file descriptor of its own: glibc's AIO runs the requests of one
	 * descriptor one after another on one helper thread.
	 */
	os->fd = fcntl(out->fd, F_DUPFD_CLOEXEC, 0);
	if (os->fd < 0) {
		pr_err("reader thread %d: dup: %s\n", thread, strerror(errno));
		os_destroy(s);
		return NULL;
	}
	err = writer__init(&os->own, ops, os->fd, max_inflight);
	if (err) {
		os_destroy(s);
		return NULL;
	}
	os->writer = &os->own;
	return s;
}
