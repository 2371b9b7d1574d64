// SPDX-License-Identifier: GPL-2.0
/*
 * The record walk: every record of every stream through a window of the
 * file, each checked against its stream's end before the callback sees
 * it, and the records inside PERF_RECORD_COMPRESSED inflated (zstd) and
 * handed out in turn. The only file of the reader that uses zstd.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "read/reader-internal.h"
#include "read/reader.h"
#include "util.h"

struct window {
	int fd;
	uint64_t start;		/* file offset of buf[0] */
	size_t len;		/* valid bytes in buf */
};

/*
 * Make [off, off+need) readable in r->buf and return a pointer to it,
 * 8-aligned because a refill always starts at off. limit is where the
 * stream ends. NULL with *err set on a read error or a short file.
 */
static const unsigned char *window_get(struct perf_reader *r, struct window *w,
				       const struct perf_reader_stream *s, uint64_t off,
				       size_t need, uint64_t limit, int *err)
{
	size_t want, got = 0;
	int e;

	if (off >= w->start && off - w->start <= w->len &&
	    need <= w->len - (off - w->start) && !((off - w->start) & 7))
		return r->buf + (off - w->start);
	if (need > r->buf_cap) {
		r->buf = xrealloc(r->buf, need);
		r->buf_cap = need;
	}
	want = (size_t)MIN((uint64_t)r->buf_cap, limit - off);
	want = MAX(want, need);
	e = perf_reader__pread_all(w->fd, r->buf, want, off, &got);
	w->start = off;
	w->len = got;
	if (got >= need)
		return r->buf;
	*err = e && e != -EIO ? e : -EIO;
	pr_err("%s: cannot read %zu bytes at offset %#" PRIx64 " (got %zu): %s\n",
	       s->path, need, off, got, e && e != -EIO ? strerror(-e) : "file truncated");
	return NULL;
}

/* Bytes that follow a record and belong to it: perf skips them too. */
uint64_t perf_reader__record_payload(const struct perf_event_header *h)
{
	const unsigned char *p = (const unsigned char *)h;
	uint64_t v = 0;
	uint32_t v32 = 0;

	switch (h->type) {
	case PERF_RECORD_AUXTRACE:
		/* hdr, u64 size, u64 offset, ...: size bytes of trace follow */
		if (h->size >= 16)
			memcpy(&v, p + 8, 8);
		return v;
	case PERF_RECORD_HEADER_TRACING_DATA:
		/* hdr, u32 size: the tracing data follows, padded to 8 */
		if (h->size >= 12)
			memcpy(&v32, p + 8, 4);
		return ALIGN_UP((uint64_t)v32, 8);
	default:
		return 0;
	}
}

/*
 * PERF_RECORD_COMPRESSED: after the header, a piece of the zstd stream of
 * one record stream (perf record -z). A record may be cut between two
 * pieces: what is decompressed but not yet a whole record waits in buf.
 *
 * Decompression is bounded, so that a small hostile file cannot take
 * memory or time out of proportion to its size: records are handed out
 * as each step of output arrives (buf never holds more than one record
 * and one step), the stream may inflate to at most INFLATE_MAX_RATIO
 * times the compressed bytes read so far plus INFLATE_SLACK, and a frame
 * may ask for a window of at most 2^INFLATE_WINDOW_LOG_MAX bytes (zstd
 * levels up to 19 use less).
 *
 * The bound is on the whole stream, not on each record: perf keeps one
 * zstd context for a whole recording, so a record deep in a repetitive
 * stream (a tracepoint flood) is a back-reference that inflates far more
 * than 1024 times (22 bytes to over 22 KiB in perf 6.1's own -z files),
 * while the stream as a whole inflates some 16 to 100 times.
 */
struct inflate {
	ZSTD_DCtx *dctx;
	unsigned char *buf;
	size_t len, cap;
	uint64_t in_total, out_total;	/* compressed bytes read, inflated bytes made */
};

#define INFLATE_STEP 65536
#define INFLATE_MAX_RATIO 1024
#define INFLATE_SLACK (1ULL << 20)
#define INFLATE_WINDOW_LOG_MAX 24

/* Hand out every whole record in z->buf; keep the start of a cut one. */
static int inflate_hand_out(struct perf_reader *r, struct inflate *z,
			    const struct perf_reader_record *outer, perf_reader__record_cb cb,
			    void *priv)
{
	const char *path = r->streams[outer->stream].path;
	size_t pos = 0;
	int err = 0;

	while (z->len - pos >= sizeof(struct perf_event_header)) {
		struct perf_reader_record rec = *outer;
		struct perf_event_header ih;

		memcpy(&ih, z->buf + pos, sizeof(ih));
		if (ih.size < sizeof(ih) || (ih.size & 7)) {
			pr_err("%s: COMPRESSED record at offset %#" PRIx64 " holds a record of "
			       "size %u (type %u): corrupt data\n", path, outer->offset, ih.size,
			       ih.type);
			return -EINVAL;
		}
		if (ih.size > z->len - pos)
			break;
		rec.header = (const struct perf_event_header *)(z->buf + pos);
		rec.payload_size = 0;
		rec.compressed = true;
		err = cb(r, &rec, priv);
		if (err)
			break;
		pos += ih.size;
	}
	memmove(z->buf, z->buf + pos, z->len - pos);
	z->len -= pos;
	return err;
}

static int inflate_record(struct perf_reader *r, struct inflate *z,
			  const struct perf_reader_record *outer, perf_reader__record_cb cb,
			  void *priv)
{
	const struct perf_event_header *h = outer->header;
	const char *path = r->streams[outer->stream].path;
	ZSTD_inBuffer in = { (const char *)(h + 1), h->size - sizeof(*h), 0 };
	uint64_t limit;

	/* Records are < 64 KiB, a file < 2^64: in_total x 1024 cannot wrap before 2^54 of input. */
	z->in_total += in.size;
	limit = z->in_total * INFLATE_MAX_RATIO + INFLATE_SLACK;

	if (!z->dctx) {
		z->dctx = ZSTD_createDCtx();
		if (!z->dctx)
			return -ENOMEM;
		ZSTD_DCtx_setParameter(z->dctx, ZSTD_d_windowLogMax, INFLATE_WINDOW_LOG_MAX);
	}
	for (;;) {
		ZSTD_outBuffer out;
		size_t ret;
		int err;

		/* buf holds less than a record (< 64 KiB) here: cap stays bounded */
		if (z->cap - z->len < INFLATE_STEP) {
			z->cap = z->len + INFLATE_STEP;
			z->buf = xrealloc(z->buf, z->cap);
		}
		out = (ZSTD_outBuffer){ z->buf + z->len, INFLATE_STEP, 0 };
		ret = ZSTD_decompressStream(z->dctx, &out, &in);
		if (ZSTD_isError(ret)) {
			pr_err("%s: COMPRESSED record at offset %#" PRIx64 ": %s\n", path,
			       outer->offset, ZSTD_getErrorName(ret));
			return -EINVAL;
		}
		z->len += out.pos;
		z->out_total += out.pos;
		if (z->out_total > limit) {
			pr_err("%s: COMPRESSED record at offset %#" PRIx64 " (%zu bytes): the "
			       "compressed data up to it inflates to more than %d times its size "
			       "(%" PRIu64 " bytes so far): corrupt data\n", path, outer->offset,
			       in.size, INFLATE_MAX_RATIO, z->out_total);
			return -EINVAL;
		}
		err = inflate_hand_out(r, z, outer, cb, priv);
		if (err)
			return err;
		/* Done when the input is used up and zstd has nothing more to flush. */
		if (in.pos == in.size && out.pos < out.size)
			return 0;
	}
}

/*
 * A pipe-format stream has no size in a header: it ends where its writer
 * stopped, maybe inside a record (perf record killed, a reader that cut
 * it). What came whole is read; the rest is said, not an error.
 */
static int pipe_cut(const struct perf_reader_stream *s, uint64_t off, uint64_t end)
{
	pr_warn("%s: the stream ends inside a record at offset %#" PRIx64 " (%" PRIu64
		" bytes left): cut short? The records before it are read\n", s->path, off,
		end - off);
	return 0;
}

static int walk_records(struct perf_reader *r, size_t idx, struct inflate *z,
			perf_reader__record_cb cb, void *priv)
{
	const struct perf_reader_stream *s = &r->streams[idx];
	struct window w = { .fd = s->fd >= 0 ? s->fd : r->fd };
	uint64_t off = s->offset, end = s->offset + s->size;
	int err = 0;

	while (off < end) {
		struct perf_reader_record rec = { 0 };
		const unsigned char *p;
		struct perf_event_header h;

		if (r->is_pipe && end - off < sizeof(h))
			return pipe_cut(s, off, end);
		if (end - off < sizeof(h)) {
			pr_err("%s: %" PRIu64 " stray bytes at the end of the data (offset "
			       "%#" PRIx64 ")\n", s->path, end - off, off);
			return -EINVAL;
		}
		p = window_get(r, &w, s, off, sizeof(h), end, &err);
		if (!p)
			return err;
		memcpy(&h, p, sizeof(h));
		/*
		 * The kernel pads its records to 8 bytes; perf's own types may
		 * not be (COMPRESSED is not: the reason for 6.16's COMPRESSED2).
		 */
		if (h.size < sizeof(h) ||
		    (h.type < PERF_RECORD_USER_TYPE_START && (h.size & 7))) {
			pr_err("%s: record of size %u at offset %#" PRIx64 " (type %u): "
			       "corrupt data\n", s->path, h.size, off, h.type);
			return -EINVAL;
		}
		if (r->is_pipe && h.size > end - off)
			return pipe_cut(s, off, end);
		if (h.size > end - off) {
			pr_err("%s: record at offset %#" PRIx64 " (type %u, size %u) runs past "
			       "the end of the data at %#" PRIx64 "\n", s->path, off, h.type,
			       h.size, end);
			return -EINVAL;
		}
		p = window_get(r, &w, s, off, h.size, end, &err);
		if (!p)
			return err;
		rec.header = (const struct perf_event_header *)p;
		rec.stream = idx;
		rec.offset = off;
		rec.payload_size = perf_reader__record_payload(rec.header);
		if (r->is_pipe && rec.payload_size > end - off - h.size)
			return pipe_cut(s, off, end);
		if (rec.payload_size > end - off - h.size) {
			pr_err("%s: %s record at offset %#" PRIx64 " says %" PRIu64 " bytes "
			       "follow, past the end of the data\n", s->path,
			       perf_reader__record_name(h.type), off, rec.payload_size);
			return -EINVAL;
		}
		err = cb(r, &rec, priv);
		if (!err && h.type == PERF_RECORD_COMPRESSED)
			err = inflate_record(r, z, &rec, cb, priv);
		if (err)
			return err;
		off += h.size + rec.payload_size;
	}
	return 0;
}

static int walk_stream(struct perf_reader *r, size_t idx, perf_reader__record_cb cb,
		       void *priv)
{
	struct inflate z = { 0 };
	int err = walk_records(r, idx, &z, cb, priv);

	if (!err && z.len)
		pr_warn("%s: the compressed data ends %zu bytes into a record; "
			"that record is left out\n", r->streams[idx].path, z.len);
	ZSTD_freeDCtx(z.dctx);
	free(z.buf);
	return err;
}

int perf_reader__for_each_record(struct perf_reader *r, perf_reader__record_cb cb,
				 void *priv)
{
	for (size_t i = 0; i < r->nr_streams; i++) {
		int err = walk_stream(r, i, cb, priv);

		if (err)
			return err;
	}
	return 0;
}
