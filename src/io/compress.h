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
 * So each call compresses its input as one whole zstd frame (frames of
 * several readers may then follow each other in the file; zstd reads
 * concatenated frames), cut into slices of at most slice bytes (at most
 * COMPRESS_SLICE_MAX and the ring size, so at most mmap_len), each slice
 * flushed into a record of its own: every record inflates to exactly
 * its slice. A slice whose worst case (ZSTD_compressBound) fits in one
 * record never needs a second one.
 */
#ifndef PERFCAP_COMPRESS_H
#define PERFCAP_COMPRESS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define COMPRESSED_MAX_PAYLOAD (65535 - 8)
/* ZSTD_compressBound(60 KiB) + a frame header and block headers < 65527 */
#define COMPRESS_SLICE_MAX (60 * 1024)

struct compressor {
	void *cctx;		/* ZSTD_CCtx */
	int level;
	size_t slice;
	uint64_t bytes_in;	/* what was compressed */
	uint64_t bytes_out;	/* COMPRESSED records made of it, headers included */
};

/*
 * level 1..22; slice: most input bytes per record (0: COMPRESS_SLICE_MAX).
 * 0 or -errno (with a message).
 */
int compressor__init(struct compressor *c, int level, size_t slice);
void compressor__exit(struct compressor *c);
/* Most bytes compressor__records() writes for len input bytes. */
size_t compressor__bound(const struct compressor *c, size_t len);
/*
 * Compress src[0, len) as one zstd frame into COMPRESSED records at dst,
 * which has room for cap bytes (cap >= compressor__bound(len)). Returns
 * the bytes written (0 for len 0) or -errno.
 */
ssize_t compressor__records(struct compressor *c, const void *src, size_t len, void *dst,
			    size_t cap);

#endif
