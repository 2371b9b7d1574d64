// SPDX-License-Identifier: GPL-2.0
/*
 * perfcap inject --convert-callchain (convert.h): the passes, the
 * workers that unwind, and the output file.
 *
 * Workers: the main thread walks the records into batches (JOB_BYTES of
 * records) on a ring of QUEUE_JOBS; a batch points into the input,
 * mapped whole (only records inflated from COMPRESSED ones are copied:
 * copying every record was a third of the time, most of it DWARF stack
 * bytes that are not written again). Each worker takes the oldest batch
 * nobody has, converts it into the batch's output buffer with its own
 * unwinder, and marks it done; the main thread writes done batches in
 * ring order, so the output keeps the input's order, and waits for the
 * oldest batch when the ring is full (memory is bounded by the ring).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/buildid-cache.h"
#include "format/sample-layout.h"
#include "format/perf-data.h"
#include "unwind/callchain.h"
#include "inject/convert.h"
#include "inject/recording-maps.h"
#include "perf-file.h"
#include "read/reader.h"
#include "unwind/dso.h"
#include "unwind/maps.h"
#include "unwind/unwind.h"
#include "util.h"

#define JOB_BYTES (2u << 20)
#define QUEUE_JOBS 8
#define MAX_THREADS 64

/* A record of a batch: in the mapped input (at), or copied into the batch's in (off). */
struct job_rec {
	const unsigned char *at;	/* NULL: in.data + off */
	size_t off;
	size_t len;			/* the record and the payload behind it */
	uint64_t idx;			/* its index in the walk (the time of a file without times) */
};

struct job {
	struct strbuf in, out;
	struct job_rec *recs;
	size_t nr, cap;
	size_t bytes;			/* of the records, mapped or copied */
	/* The mapped input its records span, to drop once written (-1: none, -2: two streams) */
	long stream;
	const unsigned char *lo, *hi;
	bool taken, done;
};

struct worker {
	pthread_t tid;
	struct conv *c;
	struct unwinder *u;
	uint64_t *dso_stops;	/* by DSO index */
	uint64_t samples, bad;
	uint64_t *ips;
};

struct conv {
	const struct convert_opts *o;
	struct perf_reader r;
	bool r_open;
	struct maps *maps;
	const struct unwind_arch *arch;
	char bdir[4096];
	bool have_bdir;
	struct sample_layout *layouts;	/* the input's, per attr */
	unsigned char **map;		/* per stream: its file, mapped whole */
	size_t *map_len;
	bool *converts;			/* per attr */
	bool use_seq;			/* the file has no times: order by record index */
	uint64_t idx;			/* records walked */

	int out_fd;
	uint64_t out_off;		/* the next byte of the output */
	uint64_t data_start;
	int err;

	pthread_mutex_t lock;
	pthread_cond_t work, done;
	struct job ring[QUEUE_JOBS];
	uint64_t fill, take, write;	/* job counters: fill >= take >= write */
	bool closing;
	struct worker *w;
	int nr_w;
	struct convert_stats *st;
};

/* ---- output ------------------------------------------------------------- */

static int out_write(struct conv *c, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(c->out_fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			c->err = -errno;
			pr_err("inject: cannot write %s: %s\n", c->o->output, strerror(errno));
			return c->err;
		}
		p += n;
		len -= n;
		c->out_off += n;
	}
	return 0;
}

/* ---- pass 2: the workers ------------------------------------------------ */

static void job_reset(struct job *j)
{
	strbuf__reset(&j->in);
	strbuf__reset(&j->out);
	j->nr = 0;
	j->bytes = 0;
	j->stream = -1;
	j->lo = j->hi = NULL;
	j->taken = j->done = false;
}

/* Add a record: at points into the mapped input (of stream), or NULL to copy rec. */
static void job_add(struct job *j, const unsigned char *at, long stream, const void *rec,
		    size_t len, uint64_t idx)
{
	struct job_rec *jr;

	if (at && j->stream == -1) {
		j->stream = stream;
		j->lo = at;
	} else if (at && j->stream != stream) {
		j->stream = -2;
	}
	if (at)
		j->hi = at + len;

	if (j->nr == j->cap) {
		j->cap = j->cap ? j->cap * 2 : 4096;
		j->recs = xrealloc(j->recs, j->cap * sizeof(*j->recs));
	}
	jr = &j->recs[j->nr++];
	jr->at = at;
	jr->len = len;
	jr->idx = idx;
	if (!at) {
		/* 8-aligned, as the kernel's records are (perf's own may end off 8). */
		strbuf__addz(&j->in, ALIGN_UP(j->in.len, (size_t)8) - j->in.len);
		jr->off = j->in.len;
		strbuf__add(&j->in, rec, len);
	}
	j->bytes += len;
}

/* EVENT_DESC: u32 nr, u32 attr_size, then per event: attr, u32 nr_ids, string, ids. */
static void patch_event_desc(unsigned char *buf, size_t size)
{
	uint32_t nr, asize, nr_ids, len;
	size_t at = 8;

	if (size < 8)
		return;
	memcpy(&nr, buf, 4);
	memcpy(&asize, buf + 4, 4);
	for (uint32_t i = 0; i < nr; i++) {
		if (asize > size - at)
			return;
		callchain__convert_attr_bytes(buf + at, asize);
		at += asize;
		if (size - at < 8)
			return;
		memcpy(&nr_ids, buf + at, 4);
		memcpy(&len, buf + at + 4, 4);
		at += 8;
		if (len > size - at)
			return;
		at += len;
		if ((uint64_t)nr_ids * 8 > size - at)
			return;
		at += (size_t)nr_ids * 8;
	}
}

static void convert_sample(struct worker *w, struct job *j, const struct perf_event_header *h,
			   uint64_t idx)
{
	struct conv *c = w->c;
	struct perf_reader_sample s;
	struct sample_fields f;
	const struct sample_layout *l;
	enum unwind_stop why;
	int dso_idx, max = c->o->max_stack;

	if (perf_reader__parse_sample(&c->r, h, &s) || s.attr < 0 || !c->converts[s.attr])
		goto copy;
	l = &c->layouts[s.attr];
	w->samples++;
	if (sample_layout__parse(l, h, h->size, &f) || !f.after_stack) {
		w->bad++;
		goto copy;
	}
	strbuf__grow(&j->out, callchain__max_size(h->size, max));
	j->out.len += callchain__unwind(w->u, h, h->size, l, &f, s.pid, c->use_seq ? idx : s.time,
					max, w->ips, j->out.data + j->out.len, &why, &dso_idx);
	if (dso_idx >= 0)
		w->dso_stops[dso_idx]++;
	return;
copy:
	strbuf__add(&j->out, h, h->size);
}

static void convert_job(struct worker *w, struct job *j)
{
	strbuf__reset(&j->out);
	for (size_t k = 0; k < j->nr; k++) {
		const struct job_rec *jr = &j->recs[k];
		const struct perf_event_header *h = (const void *)(jr->at ? jr->at : (unsigned char *)j->in.data + jr->off);
		size_t len = jr->len;

		switch (h->type) {
		case PERF_RECORD_SAMPLE:
			convert_sample(w, j, h, jr->idx);
			break;
		case PERF_RECORD_HEADER_ATTR: {
			size_t start = j->out.len;

			strbuf__add(&j->out, h, len);
			if (h->size >= 8 + PERF_ATTR_SIZE_VER0) {
				uint32_t asize;

				memcpy(&asize, j->out.data + start + 8 + offsetof(struct perf_event_attr, size), 4);
				callchain__convert_attr_bytes(j->out.data + start + 8,
							      MIN((size_t)asize, (size_t)h->size - 8));
			}
			break;
		}
		case PERF_RECORD_HEADER_FEATURE: {
			size_t start = j->out.len;
			uint64_t feat = 0;

			strbuf__add(&j->out, h, len);
			if (h->size >= 16)
				memcpy(&feat, j->out.data + start + 8, 8);
			if (feat == HEADER_EVENT_DESC)
				patch_event_desc((unsigned char *)j->out.data + start + 16, h->size - 16);
			break;
		}
		default:
			strbuf__add(&j->out, h, len);
		}
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct conv *c = w->c;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		struct job *j;

		while (c->take == c->fill && !c->closing)
			pthread_cond_wait(&c->work, &c->lock);
		if (c->take == c->fill)
			break;
		j = &c->ring[c->take++ % QUEUE_JOBS];
		j->taken = true;
		pthread_mutex_unlock(&c->lock);
		convert_job(w, j);
		pthread_mutex_lock(&c->lock);
		j->done = true;
		pthread_cond_broadcast(&c->done);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* Write the oldest batch once it is done. */
static int write_oldest(struct conv *c)
{
	struct job *j = &c->ring[c->write % QUEUE_JOBS];
	int err;

	pthread_mutex_lock(&c->lock);
	while (!j->done)
		pthread_cond_wait(&c->done, &c->lock);
	pthread_mutex_unlock(&c->lock);
	err = c->err ? c->err : c->out_fd < 0 ? 0 : out_write(c, j->out.data, j->out.len);
	c->st->bytes_out += j->out.len;
	c->st->records += j->nr;
	/* The input's pages behind the batch are read for good: out of the RSS with them. */
	if (j->stream >= 0 && j->lo && j->hi > j->lo) {
		uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
		uintptr_t lo = ((uintptr_t)j->lo + page - 1) & ~(page - 1);
		uintptr_t hi = (uintptr_t)j->hi & ~(page - 1);

		if (hi > lo)
			madvise((void *)lo, hi - lo, MADV_DONTNEED);
	}
	pthread_mutex_lock(&c->lock);
	job_reset(j);
	c->write++;
	pthread_mutex_unlock(&c->lock);
	return err;
}

static int submit(struct conv *c)
{
	pthread_mutex_lock(&c->lock);
	c->fill++;
	pthread_cond_signal(&c->work);
	pthread_mutex_unlock(&c->lock);
	if (c->fill - c->write == QUEUE_JOBS)
		return write_oldest(c);
	return 0;
}

static int pass2_cb(struct perf_reader *r, const struct perf_reader_record *rec, void *priv)
{
	struct conv *c = priv;
	const struct perf_event_header *h = rec->header;
	struct job *j = &c->ring[c->fill % QUEUE_JOBS];
	size_t len = h->size + rec->payload_size;
	int err;

	c->idx++;
	/* Its records come next, decompressed; the output is not compressed. */
	if (h->type == PERF_RECORD_COMPRESSED && !rec->compressed)
		return 0;
	c->st->bytes_in += len;
	if (rec->compressed) {
		job_add(j, NULL, -1, h, h->size, c->idx);
	} else {
		const unsigned char *at = c->map[rec->stream] + rec->offset;

		/* The reader checked that the record and its payload lie in the stream. */
		if (!c->map[rec->stream] || rec->offset + len > c->map_len[rec->stream]) {
			pr_err("inject: %s: a record runs past the end of the file\n",
			       r->streams[rec->stream].path);
			return -EIO;
		}
		if ((uintptr_t)at & 7)	/* behind a pipe's unpadded HEADER_FEATURE: read aligned */
			job_add(j, NULL, -1, at, len, c->idx);
		else
			job_add(j, at, (long)rec->stream, NULL, len, c->idx);
	}
	if (j->bytes >= JOB_BYTES) {
		err = submit(c);
		if (err)
			return err;
	}
	return c->err;
}

/* ---- the file's start and end ------------------------------------------- */

/* The file's events as the output has them: the attrs converted, the same ids. */
static void converted_attrs(const struct conv *c, struct perf_data_attr **pa,
			    struct perf_event_attr **attrs)
{
	*pa = xzalloc((c->r.nr_attrs + 1) * sizeof(**pa));
	*attrs = xzalloc((c->r.nr_attrs + 1) * sizeof(**attrs));
	for (size_t i = 0; i < c->r.nr_attrs; i++) {
		(*attrs)[i] = c->r.attrs[i].attr;
		callchain__convert_attr(&(*attrs)[i]);
		(*pa)[i].attr = &(*attrs)[i];
		(*pa)[i].ids = c->r.attrs[i].ids;
		(*pa)[i].nr_ids = (int)c->r.attrs[i].nr_ids;
	}
}

static int write_start(struct conv *c)
{
	struct perf_data_attr *pa;
	struct perf_event_attr *attrs;
	struct perf_file_header hdr;
	struct strbuf sb;
	int err;

	if (c->r.is_pipe) {
		uint64_t ph[2] = { PERF_MAGIC2, PERF_PIPE_HEADER_SIZE };

		return out_write(c, ph, sizeof(ph));
	}
	converted_attrs(c, &pa, &attrs);
	strbuf__init(&sb);
	perf_data__build_start(pa, (int)c->r.nr_attrs, &sb, &hdr);
	err = out_write(c, sb.data, sb.len);
	c->data_start = hdr.data.offset;
	strbuf__exit(&sb);
	free(pa);
	free(attrs);
	return err;
}

/* The features after the data, then the header with the sizes. */
static int write_end(struct conv *c)
{
	struct perf_file_header hdr;
	struct perf_data_attr *pa;
	struct perf_event_attr *attrs;
	struct strbuf sb, table, payloads;
	uint64_t data_end = c->out_off;
	size_t nr = 0;
	int err;

	if (c->r.is_pipe)
		return 0;
	strbuf__init(&table);
	strbuf__init(&payloads);
	memset(&hdr, 0, sizeof(hdr));
	for (size_t i = 0; i < c->r.nr_features; i++) {
		int bit = c->r.features[i].bit;

		if (bit == HEADER_COMPRESSED || bit == HEADER_DIR_FORMAT)
			continue;
		nr++;
	}
	for (size_t i = 0; i < c->r.nr_features; i++) {
		int bit = c->r.features[i].bit;
		struct perf_file_section sec;
		void *buf;
		size_t size;

		if (bit == HEADER_COMPRESSED || bit == HEADER_DIR_FORMAT)
			continue;
		err = perf_reader__read_feature(&c->r, bit, &buf, &size);
		if (err)
			goto out;
		if (bit == HEADER_EVENT_DESC)
			patch_event_desc(buf, size);
		sec.offset = data_end + nr * sizeof(sec) + payloads.len;
		sec.size = size;
		strbuf__add(&table, &sec, sizeof(sec));
		strbuf__add(&payloads, buf, size);
		free(buf);
		hdr.adds_features[bit / 64] |= 1ULL << (bit % 64);
	}
	err = out_write(c, table.data, table.len);
	if (!err)
		err = out_write(c, payloads.data, payloads.len);
	if (err)
		goto out;
	/* The header as write_start made it, with the data's size and the features. */
	converted_attrs(c, &pa, &attrs);
	{
		struct perf_file_header built;
		uint64_t feats[HEADER_FEAT_BITS / 64];

		memcpy(feats, hdr.adds_features, sizeof(feats));
		strbuf__init(&sb);
		perf_data__build_start(pa, (int)c->r.nr_attrs, &sb, &built);
		strbuf__exit(&sb);
		built.data.size = data_end - built.data.offset;
		memcpy(built.adds_features, feats, sizeof(feats));
		if (pwrite(c->out_fd, &built, sizeof(built), 0) != (ssize_t)sizeof(built)) {
			err = -errno;
			pr_err("inject: cannot write the header of %s: %s\n", c->o->output,
			       strerror(errno));
		}
	}
	free(pa);
	free(attrs);
out:
	strbuf__exit(&table);
	strbuf__exit(&payloads);
	return err;
}

/* ---- the whole ---------------------------------------------------------- */

static int setup(struct conv *c)
{
	void *arch = NULL;
	size_t size, nr_conv = 0;
	int err;

	c->layouts = xzalloc((c->r.nr_attrs + 1) * sizeof(*c->layouts));
	c->converts = xzalloc((c->r.nr_attrs + 1) * sizeof(*c->converts));
	for (size_t i = 0; i < c->r.nr_attrs; i++) {
		const struct perf_event_attr *a = &c->r.attrs[i].attr;

		sample_layout__init(&c->layouts[i], a);
		c->converts[i] = callchain__attr_converts(a);
		nr_conv += c->converts[i];
	}
	c->use_seq = recording_maps__by_index(&c->r);
	if (!nr_conv) {
		pr_err("inject: %s has no DWARF stacks to unwind: no event samples user stacks "
		       "(record with --call-graph dwarf)\n", c->r.path);
		return -EINVAL;
	}
	err = perf_reader__read_feature(&c->r, HEADER_ARCH, &arch, &size);
	/* perf_header_string: u32 len, then the string. */
	if (!err && size > 4)
		c->arch = unwind_arch__find((char *)arch + 4);
	if (!c->arch) {
		pr_err("inject: %s: cannot unwind for architecture '%s' (perfcap unwinds x86_64 "
		       "and aarch64)\n", c->r.path, !err && size > 4 ? (char *)arch + 4 : "unknown");
		free(arch);
		return -EINVAL;
	}
	free(arch);
	c->have_bdir = !buildid_cache__dir(c->bdir, sizeof(c->bdir));
	return 0;
}

/* Every stream's file, mapped whole, for the batches to point into. */
static int map_streams(struct conv *c)
{
	c->map = xzalloc((c->r.nr_streams + 1) * sizeof(*c->map));
	c->map_len = xzalloc((c->r.nr_streams + 1) * sizeof(*c->map_len));
	for (size_t i = 0; i < c->r.nr_streams; i++) {
		const struct perf_reader_stream *s = &c->r.streams[i];
		int fd = s->fd >= 0 ? s->fd : c->r.fd;
		struct stat st;
		void *p;

		if (fstat(fd, &st)) {
			int err = -errno;

			pr_err("inject: %s: %s\n", s->path, strerror(errno));
			return err;
		}
		if (!st.st_size)
			continue;
		p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			int err = -errno;

			pr_err("inject: cannot map %s: %s\n", s->path, strerror(errno));
			return err;
		}
		madvise(p, st.st_size, MADV_SEQUENTIAL);
		c->map[i] = p;
		c->map_len[i] = st.st_size;
	}
	return 0;
}

static int start_workers(struct conv *c)
{
	int n = c->o->threads;

	if (n <= 0) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		n = cpus > 0 ? (int)cpus : 1;
	}
	n = MIN(n, MAX_THREADS);
	c->w = xzalloc(n * sizeof(*c->w));
	for (int i = 0; i < n; i++) {
		struct worker *w = &c->w[i];
		int err;

		w->c = c;
		w->u = unwinder__new(c->maps, c->arch, c->have_bdir ? c->bdir : NULL);
		w->dso_stops = xzalloc((maps__nr_dsos(c->maps) + 1) * sizeof(*w->dso_stops));
		w->ips = xzalloc(((size_t)c->o->max_stack + 1) * sizeof(*w->ips));
		err = pthread_create(&w->tid, NULL, worker_main, w);
		if (err) {
			pr_err("inject: cannot start a worker thread: %s\n", strerror(err));
			unwinder__delete(w->u);
			free(w->dso_stops);
			free(w->ips);
			break;
		}
		c->nr_w++;
	}
	return c->nr_w ? 0 : -EAGAIN;
}

static int dso_stop_cmp(const void *a, const void *b)
{
	const struct convert_dso_stop *x = a, *y = b;

	return x->samples < y->samples ? 1 : x->samples > y->samples ? -1 : strcmp(x->name, y->name);
}

static void stop_workers(struct conv *c, struct convert_stats *st)
{
	size_t nr_dsos = maps__nr_dsos(c->maps);

	pthread_mutex_lock(&c->lock);
	c->closing = true;
	pthread_cond_broadcast(&c->work);
	pthread_mutex_unlock(&c->lock);
	for (int i = 0; i < c->nr_w; i++)
		pthread_join(c->w[i].tid, NULL);
	st->threads = c->nr_w;
	st->dso_stops = xzalloc((nr_dsos + 1) * sizeof(*st->dso_stops));
	for (size_t d = 0; d < nr_dsos; d++) {
		uint64_t sum = 0;
		const char *why = NULL;

		for (int i = 0; i < c->nr_w; i++) {
			const char *path;
			int state = unwinder__dso_state(c->w[i].u, d, &path);

			sum += c->w[i].dso_stops[d];
			if (state != DSO_UNKNOWN && !why)
				why = state == DSO_OK ? "no CFI for the address"
						      : unwind_dso_state__str(state);
		}
		if (!sum)
			continue;
		st->dso_stops[st->nr_dso_stops++] = (struct convert_dso_stop) {
			.name = xstrdup(maps__dso(c->maps, d)->name),
			.why = why ? why : "?",
			.samples = sum,
		};
	}
	qsort(st->dso_stops, st->nr_dso_stops, sizeof(*st->dso_stops), dso_stop_cmp);
	for (int i = 0; i < c->nr_w; i++) {
		const struct unwind_stats *us = unwinder__stats(c->w[i].u);

		st->samples += c->w[i].samples;
		st->bad_samples += c->w[i].bad;
		st->unwind.samples += us->samples;
		st->unwind.frames += us->frames;
		for (int k = 0; k < UNWIND__NR; k++)
			st->unwind.stop[k] += us->stop[k];
		unwinder__delete(c->w[i].u);
		free(c->w[i].dso_stops);
		free(c->w[i].ips);
	}
	free(c->w);
	c->w = NULL;
}

static int open_output(struct conv *c)
{
	const char *out = c->o->output;

	if (!out)
		return 0;	/* unwinding only, for its numbers (perfcap loss --unwind) */
	if (!strcmp(out, "-")) {
		if (!c->r.is_pipe) {
			pr_err("inject: -o -: %s is a perf.data file, whose header is written last; "
			       "to stdout only a pipe-format recording (perf record -o -) is "
			       "converted\n", c->r.path);
			return -EINVAL;
		}
		c->out_fd = STDOUT_FILENO;
		return 0;
	}
	c->out_fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (c->out_fd < 0) {
		int err = -errno;

		pr_err("inject: cannot create %s: %s\n", out, strerror(errno));
		return err;
	}
	return 0;
}

int convert_callchain(const struct convert_opts *o, struct convert_stats *st)
{
	struct conv c = { .o = o, .out_fd = -1, .st = st };
	bool started = false;
	int err;

	memset(st, 0, sizeof(*st));
	for (int i = 0; i < QUEUE_JOBS; i++)
		job_reset(&c.ring[i]);
	pthread_mutex_init(&c.lock, NULL);
	pthread_cond_init(&c.work, NULL);
	pthread_cond_init(&c.done, NULL);
	err = perf_reader__open(&c.r, o->input);
	if (err)
		goto out;
	c.r_open = true;
	err = setup(&c);
	if (err)
		goto out;
	err = recording_maps__read(&c.r, &c.maps);
	if (err)
		goto out;
	st->maps = maps__nr_maps(c.maps);
	st->procs = maps__nr_procs(c.maps);
	st->dsos = maps__nr_dsos(c.maps);
	err = open_output(&c);
	if (err)
		goto out;
	err = c.out_fd >= 0 ? write_start(&c) : 0;
	if (err)
		goto out;
	err = map_streams(&c);
	if (err)
		goto out;
	err = start_workers(&c);
	if (err)
		goto out;
	started = true;
	c.idx = 0;
	err = perf_reader__for_each_record(&c.r, pass2_cb, &c);
	if (!err && c.ring[c.fill % QUEUE_JOBS].nr)
		err = submit(&c);
	while (c.write < c.fill) {
		int e = write_oldest(&c);

		if (!err)
			err = e;
	}
	stop_workers(&c, st);
	started = false;
	if (!err && c.out_fd >= 0)
		err = write_end(&c);
out:
	if (started)
		stop_workers(&c, st);
	for (int i = 0; i < QUEUE_JOBS; i++) {
		strbuf__exit(&c.ring[i].in);
		strbuf__exit(&c.ring[i].out);
		free(c.ring[i].recs);
	}
	for (size_t i = 0; c.map && i < c.r.nr_streams; i++)
		if (c.map[i])
			munmap(c.map[i], c.map_len[i]);
	free(c.map);
	free(c.map_len);
	if (c.out_fd >= 0 && c.out_fd != STDOUT_FILENO && close(c.out_fd) && !err) {
		err = -errno;
		pr_err("inject: cannot close %s: %s\n", o->output, strerror(errno));
	}
	maps__delete(c.maps);
	free(c.layouts);
	free(c.converts);
	if (c.r_open)
		perf_reader__close(&c.r);
	pthread_mutex_destroy(&c.lock);
	pthread_cond_destroy(&c.work);
	pthread_cond_destroy(&c.done);
	return err;
}

void convert_stats__print(FILE *f, const struct convert_stats *st, double secs, bool all_dsos)
{
	const struct unwind_stats *u = &st->unwind;
	uint64_t early = u->samples - u->stop[UNWIND_END] - u->stop[UNWIND_NO_STACK];
	size_t shown = 0;

	fprintf(f, "%" PRIu64 " DWARF samples unwound by %d thread%s in %.2f s: %" PRIu64
		" whole, %" PRIu64 " stopped early; %.1f user frames a sample\n", u->samples,
		st->threads, st->threads == 1 ? "" : "s", secs, u->stop[UNWIND_END], early,
		u->samples ? (double)u->frames / u->samples : 0.0);
	if (u->stop[UNWIND_NO_STACK])
		fprintf(f, "  %" PRIu64 " had no user stack (kernel threads, execve): no user "
			"frames, as perf\n", u->stop[UNWIND_NO_STACK]);
	for (int k = 0; k < UNWIND__NR; k++) {
		if (k == UNWIND_END || k == UNWIND_NO_STACK || !u->stop[k])
			continue;
		fprintf(f, "  %" PRIu64 " (%.2f%%) stopped: %s\n", u->stop[k],
			100.0 * u->stop[k] / u->samples, unwind_stop__str(k));
	}
	for (size_t i = 0; i < st->nr_dso_stops; i++) {
		if (!all_dsos && shown == 5) {
			fprintf(f, "  ... %zu more DSOs (-v lists them)\n", st->nr_dso_stops - i);
			break;
		}
		fprintf(f, "    %" PRIu64 " in %s (%s)\n", st->dso_stops[i].samples,
			st->dso_stops[i].name, st->dso_stops[i].why);
		shown++;
	}
	if (st->bad_samples)
		fprintf(f, "  %" PRIu64 " samples did not parse and were kept as they were\n",
			st->bad_samples);
}

void convert_stats__exit(struct convert_stats *st)
{
	for (size_t i = 0; i < st->nr_dso_stops; i++)
		free((char *)st->dso_stops[i].name);
	free(st->dso_stops);
	st->dso_stops = NULL;
	st->nr_dso_stops = 0;
}
