// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <zstd.h>

#include "io/compress.h"
#include "perf-file.h"
#include "util.h"

/* Beyond ZSTD_compressBound() of a slice: a frame's closing bytes (an empty last block). */
#define SLICE_SLACK 16
/*
 * Levels 20..22 ask for windows of up to 2^27 bytes; readers bound what
 * they allocate (ours at 2^24, read/records.c). A frame is at most a ring's
 * chunk, so a window above this gains nothing but memory.
 */
#define WINDOW_LOG_MAX 24

int compressor__init(struct compressor *c, int level, size_t slice)
{
	ZSTD_CCtx *cctx;
	size_t r;

	memset(c, 0, sizeof(*c));
	if (level < 1 || level > ZSTD_maxCLevel()) {
		pr_err("zstd level %d: expected 1..%d\n", level, ZSTD_maxCLevel());
		return -EINVAL;
	}
	cctx = ZSTD_createCCtx();
	if (!cctx) {
		pr_err("cannot create a zstd compression context: out of memory\n");
		return -ENOMEM;
	}
	r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
	if (!ZSTD_isError(r) && level >= 20)
		r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, WINDOW_LOG_MAX);
	if (ZSTD_isError(r)) {
		pr_err("zstd level %d: %s\n", level, ZSTD_getErrorName(r));
		ZSTD_freeCCtx(cctx);
		return -EINVAL;
	}
	c->cctx = cctx;
	c->level = level;
	c->slice = slice && slice < COMPRESS_SLICE_MAX ? slice : COMPRESS_SLICE_MAX;
	return 0;
}

void compressor__exit(struct compressor *c)
{
	ZSTD_freeCCtx(c->cctx);
	c->cctx = NULL;
}

/* Most bytes of one record that holds a slice of n bytes. */
static size_t record_bound(size_t n)
{
	return sizeof(struct perf_event_header) +
	       MIN(ZSTD_compressBound(n) + SLICE_SLACK, (size_t)COMPRESSED_MAX_PAYLOAD);
}

size_t compressor__bound(const struct compressor *c, size_t len)
{
	size_t full = len / c->slice, rest = len % c->slice;

	return full * record_bound(c->slice) + (rest ? record_bound(rest) : 0);
}

/* Give the frame up: the next append opens a new one. */
static void abandon(struct compressor *c)
{
	ZSTD_CCtx_reset(c->cctx, ZSTD_reset_session_only);
	c->frame_in = 0;
	c->last = NULL;
}

ssize_t compressor__append(struct compressor *c, const void *src, size_t len, void *dst,
			   size_t cap)
{
	ZSTD_CCtx *cctx = c->cctx;
	char *out = dst;
	size_t pos = 0, done = 0;

	if (!len)
		return 0;
	if (cap < compressor__bound(c, len))
		return -ENOSPC;
	while (pos < len) {
		size_t n = MIN(c->slice, len - pos);
		struct perf_event_header h = { .type = PERF_RECORD_COMPRESSED };
		ZSTD_inBuffer in = { (const char *)src + pos, n, 0 };
		/* The record's slack stays free for the frame's closing bytes. */
		ZSTD_outBuffer zo = { out + done + sizeof(h),
				      record_bound(n) - sizeof(h) - SLICE_SLACK, 0 };
		size_t r = ZSTD_compressStream2(cctx, &zo, &in, ZSTD_e_flush);

		if (ZSTD_isError(r)) {
			pr_err("zstd: %s\n", ZSTD_getErrorName(r));
			abandon(c);
			return -EIO;
		}
		/*
		 * r > 0: the slice did not fit in its record. ZSTD_compressBound()
		 * says that cannot be; a record cut inside a block would inflate
		 * to nothing, which perf 6.1 refuses, so it is an error.
		 */
		if (r || in.pos != n) {
			pr_err("zstd: %zu bytes did not fit in a COMPRESSED record\n", n);
			abandon(c);
			return -EOVERFLOW;
		}
		h.size = (uint16_t)(sizeof(h) + zo.pos);
		memcpy(out + done, &h, sizeof(h));
		c->last = (struct perf_event_header *)(out + done);
		done += h.size;
		pos += n;
	}
	c->frame_in += len;
	c->bytes_in += len;
	c->bytes_out += done;
	return (ssize_t)done;
}

ssize_t compressor__end(struct compressor *c, void *tail, size_t room)
{
	struct perf_event_header h;
	ZSTD_inBuffer in = { NULL, 0, 0 };
	ZSTD_outBuffer zo = { tail, MIN(room, (size_t)SLICE_SLACK), 0 };
	size_t r;

	if (!c->frame_in)
		return 0;
	r = ZSTD_compressStream2(c->cctx, &zo, &in, ZSTD_e_end);
	memcpy(&h, c->last, sizeof(h));
	if (ZSTD_isError(r) || r || h.size + zo.pos > sizeof(h) + COMPRESSED_MAX_PAYLOAD) {
		pr_err("zstd: cannot close a frame: %s\n",
		       ZSTD_isError(r) ? ZSTD_getErrorName(r) : "no room left");
		abandon(c);
		return -EOVERFLOW;
	}
	h.size = (uint16_t)(h.size + zo.pos);
	memcpy(c->last, &h, sizeof(h));
	c->bytes_out += zo.pos;
	c->frames++;
	c->frame_in = 0;
	c->last = NULL;
	return (ssize_t)zo.pos;
}

ssize_t compressor__records(struct compressor *c, const void *src, size_t len, void *dst,
			    size_t cap)
{
	ssize_t n, e;

	if (c->frame_in)
		abandon(c);	/* whatever happened to the last one */
	n = compressor__append(c, src, len, dst, cap);
	if (n <= 0)
		return n;
	e = compressor__end(c, (char *)dst + n, cap - (size_t)n);
	return e < 0 ? e : n + e;
}
