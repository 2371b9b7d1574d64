// SPDX-License-Identifier: GPL-2.0
/*
 * A reader's pipeline: which stages a recording has, in which order
 * (pipeline.h). The one place that knows the list: a new stage is added
 * here and nowhere in the rings or the reader.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/helper-threads.h"
#include "record/pipeline.h"
#include "util.h"

/*
 * The output stage's writer takes every data buffer of the reader's
 * rings at once, and some more; behind -z it takes the compression
 * stage's buffers and one more.
 */
#define WRITER_SLACK 16

int pipeline__init(struct pipeline *p, const struct pipeline_config *cfg)
{
	bool comp_auto = cfg->comp_level && cfg->comp_auto && cfg->budget;
	int inflight = comp_auto ? MAX(COMPRESS_STAGE_BUFS, TRIAGE_STAGE_INFLIGHT) + 1
		     : cfg->comp_level ? COMPRESS_STAGE_BUFS + 1
		     : cfg->budget ? TRIAGE_STAGE_INFLIGHT + 1 : cfg->max_chunks + WRITER_SLACK;
	struct stage *out;

	p->head = NULL;
	p->idx = cfg->thread;

	out = output_stage__new(cfg->out, cfg->ops, inflight, cfg->rounds, cfg->thread);
	if (!out)
		return -ENOMEM;
	p->head = out;
	if (cfg->comp_level) {
		/*
		 * -z: compressed in a thread of its own, then written
		 * (stage-compress.c); -zauto: the triage stage hands it its
		 * blocks once the output falls behind, and past it until then.
		 */
		struct stage *z = compress_stage__new(out, cfg->out, cfg->comp_level,
						      cfg->ring_size, cfg->max_chunks, cfg->thread,
						      comp_auto);

		if (!z)
			return -ENOMEM;
		p->head = z;
	}
	if (cfg->unwind && cfg->budget) {
		/* Behind triage: what it cannot keep up with, triage thins (stage-unwind.c). */
		int blocks = cfg->comp_level ? MIN(TRIAGE_STAGE_INFLIGHT, cfg->max_chunks)
					     : TRIAGE_STAGE_INFLIGHT;
		struct stage *u = unwind_stage__new(p->head, cfg->out, cfg->layouts, cfg->unwind,
						    blocks, cfg->thread);

		if (!u)
			return -ENOMEM;
		p->head = u;
	}
	if (cfg->budget) {
		/* In front of all: the reader's chunks come back at once (stage-triage.c). */
		int blocks = cfg->comp_level ? MIN(TRIAGE_STAGE_INFLIGHT, cfg->max_chunks)
					     : TRIAGE_STAGE_INFLIGHT;
		struct stage *t = triage_stage__new(p->head, cfg->out, cfg->layouts, cfg->budget,
						    blocks, cfg->thread, comp_auto);

		if (!t)
			return -ENOMEM;
		p->head = t;
	}
	return 0;
}

int pipeline__start(struct pipeline *p)
{
	struct stage *s;
	int err = 0;

	pipeline__for_each_stage(p, s)
		if (!err && s->ops->start)
			err = s->ops->start(s, p->idx);
	return err;
}

int pipeline__drain(struct pipeline *p)
{
	struct stage *s;
	int err = 0;

	/* Head first: each stage's last chunks reach the next before it drains. */
	pipeline__for_each_stage(p, s) {
		int serr = s->ops->drain ? s->ops->drain(s) : 0;

		if (serr && !err)
			err = serr;
	}
	return err;
}

void pipeline__exit(struct pipeline *p)
{
	struct stage *s = p->head;

	/*
	 * Everything written first: a stage's buffers are in flight in the
	 * stages behind it until then. Then head first, so that the chunks a
	 * stage gives back go to a producer that is still there.
	 */
	pipeline__drain(p);
	while (s) {
		struct stage *next = s->next;

		s->ops->destroy(s);
		s = next;
	}
	p->head = NULL;
}

int pipeline__retarget(struct pipeline *p, int fd)
{
	struct stage *s;

	pipeline__for_each_stage(p, s) {
		int err = s->ops->retarget ? s->ops->retarget(s, fd) : 0;

		if (err)
			return err;
	}
	return 0;
}

int pipeline__queued(const struct pipeline *p)
{
	/* The head only: the stages behind it may be another thread's. */
	return p->head->ops->queued(p->head);
}

void pipeline__stats(const struct pipeline *p, struct stage_stats *sum)
{
	const struct stage *s;

	for (s = p->head; s; s = s->next) {
		sum->writes += s->stats.writes;
		sum->shorts += s->stats.shorts;
		sum->rounds += s->stats.rounds;
		sum->bytes_in += s->stats.bytes_in;
		sum->bytes_out += s->stats.bytes_out;
		sum->chunks += s->stats.chunks;
		sum->frames += s->stats.frames;
		sum->dropped += s->stats.dropped;
		sum->carried += s->stats.carried;
		sum->cut += s->stats.cut;
		sum->trim_in += s->stats.trim_in;
		sum->trim_out += s->stats.trim_out;
		sum->bytes_kept += s->stats.bytes_kept;
		sum->direct += s->stats.direct;
		sum->direct_pauses += s->stats.direct_pauses;
		sum->unwind_samples += s->stats.unwind_samples;
		sum->unwind_frames += s->stats.unwind_frames;
		for (int i = 0; i < UNWIND__NR; i++)
			sum->unwind_stops[i] += s->stats.unwind_stops[i];
		sum->unwind_in += s->stats.unwind_in;
		sum->unwind_out += s->stats.unwind_out;
		sum->unwind_unknown += s->stats.unwind_unknown;
		if (s->stats.compressing && (!sum->compressing ||
					     s->stats.compress_from_ns < sum->compress_from_ns))
			sum->compress_from_ns = s->stats.compress_from_ns;
		sum->compressing += s->stats.compressing;
	}
}

void chunk_returns__init(struct chunk_returns *r, pthread_mutex_t *lock)
{
	memset(r, 0, sizeof(*r));
	r->lock = lock;
	pthread_cond_init(&r->cv, NULL);
	r->tail = &r->head;
}

void chunk_returns__exit(struct chunk_returns *r)
{
	pthread_cond_destroy(&r->cv);
}

void chunk_returns__put(struct chunk_returns *r, struct chunk *c, int err)
{
	struct write_req *req = &c->req;

	req->u.pad[0] = (uint64_t)(int64_t)err;
	req->next = NULL;
	pthread_mutex_lock(r->lock);
	*r->tail = req;
	r->tail = &req->next;
	pthread_cond_signal(&r->cv);
	pthread_mutex_unlock(r->lock);
}

void chunk_returns__reap(struct chunk_returns *r, bool wait)
{
	struct write_req *list;

	pthread_mutex_lock(r->lock);
	while (wait && !r->head && r->pending > 0)
		pthread_cond_wait(&r->cv, r->lock);
	list = r->head;
	r->head = NULL;
	r->tail = &r->head;
	pthread_mutex_unlock(r->lock);
	while (list) {
		struct write_req *req = list;

		list = req->next;
		r->pending--;
		req->on_complete(req, (int)(int64_t)req->u.pad[0]);
	}
}

int stage_thread__start(pthread_t *tid, void *(*fn)(void *), void *arg, const char *tag,
			int idx, const char *what)
{
	sigset_t all, old;
	char name[16];
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = own_thread__create(tid, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pr_err("cannot start %s thread %d: %s\n", what, idx, strerror(-err));
		return err;
	}
	snprintf(name, sizeof(name), "perfcap-%s%d", tag, idx);
	pthread_setname_np(*tid, name);
	return 0;
}
