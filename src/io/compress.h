/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zstd into PERF_RECORD_COMPRESSED records (perf record -z), as perf 6.1
 * reads them:
 *
 * - A COMPRESSED record is a perf_event_header (type 81, misc 0, size =
 *   8 + payload) followed by a piece of a zstd stream, not padded to 8
 *   bytes (padding would be fed to the decompressor). The size is a u16,
 *   so a payload holds at most 65527 bytes.
 * - perf report keeps ONE decompression stream for the whole file and
 *   decompresses each record into a buffer of the HEADER_COMPRESSED
 *   feature's mmap_len bytes (plus what was left of a cut record): what a
 *   record inflates to must fit in it, and must not be empty (perf 6.1
 *   says "Couldn't decompress data" and stops).
 *
 * So a frame is written by one reader only, into one buffer whose bytes
 * go into the file contiguously (frames of several readers then follow
 * each other; zstd reads concatenated frames), and is cut into slices of
 * at most slice bytes (at most COMPRESS_SLICE_MAX and the ring size, so
 * at most mmap_len), each slice flushed into a record of its own: every
 * record inflates to exactly its slice. A frame may span many calls
 * (compressor__append), so later records refer back to earlier ones, as
 * perf's one stream does; compressor__end closes it by growing the last
 * record by the frame's few closing bytes, so no record inflates to
 * nothing. A slice whose worst case (ZSTD_compressBound, plus the closing
 * bytes) fits in one record never needs a second one.
 */
#ifndef PERFCAP_COMPRESS_H
#define PERFCAP_COMPRESS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct perf_event_header;

#define COMPRESSED_MAX_PAYLOAD (65535 - 8)
/* ZSTD_compressBound(60 KiB) + a frame header and block headers < 65527 */
#define COMPRESS_SLICE_MAX (60 * 1024)

struct compressor {
	void *cctx;		/* ZSTD_CCtx */
	int level;
	size_t slice;
	/* The open frame: its input so far (0: none open) and its last record. */
	uint64_t frame_in;
	struct perf_event_header *last;
	uint64_t bytes_in;	/* what was compressed */
	uint64_t bytes_out;	/* COMPRESSED records made of it, headers included */
	uint64_t frames;	/* zstd frames closed */
};

/*
 * level 1..22; slice: most input bytes per record (0: COMPRESS_SLICE_MAX).
 * 0 or -errno (with a message).
 */
int compressor__init(struct compressor *c, int level, size_t slice);
void compressor__exit(struct compressor *c);
/*
 * Most bytes compressor__append() writes for len input bytes, with room
 * left behind them for compressor__end() (and for compressor__records()).
 */
size_t compressor__bound(const struct compressor *c, size_t len);
/*
 * Compress src[0, len) into COMPRESSED records at dst, which has room for
 * cap bytes (cap >= compressor__bound(len)), continuing the open frame or
 * opening one. The records of one frame must lie one after the other,
 * with nothing between them but records that are not COMPRESSED. Returns
 * the bytes written (0 for len 0) or -errno; on an error the frame is
 * abandoned (the next call opens a new one).
 */
ssize_t compressor__append(struct compressor *c, const void *src, size_t len, void *dst,
			   size_t cap);
/*
 * Close the open frame: its closing bytes go at tail, right behind its
 * last record, which grows by them (room: bytes free at tail; the room
 * compressor__bound() left is enough). Returns the bytes added (0: no
 * frame open) or -errno.
 */
ssize_t compressor__end(struct compressor *c, void *tail, size_t room);
/* One whole frame: compressor__append() then compressor__end(). */
ssize_t compressor__records(struct compressor *c, const void *src, size_t len, void *dst,
			    size_t cap);

#endif
