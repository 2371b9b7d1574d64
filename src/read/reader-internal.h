/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal to the perf.data reader: what its files share, and nothing
 * the commands or the tests may use (they include reader.h). One job a
 * file:
 *
 *   open.c     perf_reader__open/close: a file, standard input, a
 *              --threads directory; pread helpers
 *   header.c   the header, attrs and ids, the feature table, EVENT_DESC,
 *              DIR_FORMAT
 *   pipe.c     pipe format: the ATTR and FEATURE records ahead of the data
 *   records.c  the record walk; COMPRESSED records inflated (zstd)
 *   sample.c   decoding a SAMPLE and the sample_id trailer
 *   names.c    names of record types, features, sample_type bits, events
 *   args.c     the command line of a command that reads one perf.data
 *
 * The functions below are not API: the perf_reader__ prefix only keeps
 * them apart from the rest of the library.
 *
 * Nothing read from the file is trusted: every offset and length is
 * checked against the file size (or the record size) before use, and all
 * multi-byte fields are copied out with memcpy so that odd offsets in a
 * corrupt file cannot fault.
 */
#ifndef PERFCAP_READER_INTERNAL_H
#define PERFCAP_READER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "read/reader.h"

/* The record walk reads the file through a window of this size. */
#define READER_WINDOW (1U << 20)
/* Sanity limits on header fields, far above anything perf writes. */
#define MAX_ATTR_SIZE 4096
#define MAX_NAME 65536
/* perf opens one fd per event and CPU; no real file comes near this. */
#define MAX_ATTRS 65536

/* A cursor over a byte range; every take checks the bounds. */
struct cursor {
	const unsigned char *p, *end;
};

static inline bool take(struct cursor *c, void *out, size_t len)
{
	if ((size_t)(c->end - c->p) < len)
		return false;
	if (out)
		memcpy(out, c->p, len);
	c->p += len;
	return true;
}

static inline bool take_u32(struct cursor *c, uint32_t *v)
{
	return take(c, v, sizeof(*v));
}

static inline bool take_u64(struct cursor *c, uint64_t *v)
{
	return take(c, v, sizeof(*v));
}

/* Skip n items of size each, refusing counts that would overflow. */
static inline bool skip_n(struct cursor *c, uint64_t n, size_t each)
{
	if (each && n > (uint64_t)(c->end - c->p) / each)
		return false;
	c->p += n * each;
	return true;
}

/* ---- open.c: reading the files ------------------------------------------ */

/* pread all of [off, off+len) or fail: -EIO on a short read, -errno else. */
int perf_reader__pread_all(int fd, void *buf, size_t len, uint64_t off, size_t *got);
/* Read a section of the header file that open already checked for bounds. */
int perf_reader__read_section(struct perf_reader *r, void *buf, size_t len, uint64_t off,
			      const char *what);

/* ---- header.c: steps of perf_reader__open, each returning 0 or -errno ---- */

/* The header; a pipe-format one (size 16) sets r->is_pipe, data = the rest. */
int perf_reader__read_header(struct perf_reader *r);
/* The attrs section and each attr's ids, then perf_reader__index_attrs(). */
int perf_reader__read_attrs(struct perf_reader *r);
/* The id map and the id positions, once the attrs are in r->attrs. */
int perf_reader__index_attrs(struct perf_reader *r, size_t nr_ids);
/* The table of feature sections that follows the data section. */
int perf_reader__read_feature_table(struct perf_reader *r);
/* Event names from EVENT_DESC; a corrupt one is a warning, not an error. */
int perf_reader__read_event_desc(struct perf_reader *r);
/* r->dir_version from DIR_FORMAT, when present. */
int perf_reader__read_dir_format(struct perf_reader *r);

/* ---- pipe.c ------------------------------------------------------------ */

/* Pipe format: the records ahead of the data give the attrs and the features. */
int perf_reader__read_pipe_prefix(struct perf_reader *r);

/* ---- records.c --------------------------------------------------------- */

/* Bytes that follow a record and belong to it (AUXTRACE, TRACING_DATA). */
uint64_t perf_reader__record_payload(const struct perf_event_header *h);

/* ---- names.c ----------------------------------------------------------- */

/* A name for an attr that EVENT_DESC does not name: "cpu-clock", "type8/config0x1/". */
char *perf_reader__default_attr_name(const struct perf_event_attr *attr);

#endif
