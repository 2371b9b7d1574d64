// SPDX-License-Identifier: GPL-2.0
/*
 * Pipe format (perf record -o -): no sections, so the ATTR and FEATURE
 * records ahead of the data stand in for the header's attrs and feature
 * table. Read once at open; the walk (records.c) then hands these records
 * out again with the rest, and says where a stream was cut short.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "read/reader-internal.h"
#include "read/reader.h"
#include "util.h"

/* One HEADER_ATTR record: header, attr (attr.size bytes), u64 ids to the end. */
static int pipe_attr(struct perf_reader *r, const unsigned char *rec, size_t size,
		     uint64_t off, size_t *nr_ids, size_t *cap)
{
	struct perf_reader_attr *a;
	uint32_t attr_size;
	size_t n;

	if (size < sizeof(struct perf_event_header) + PERF_ATTR_SIZE_VER0)
		goto bad;
	memcpy(&attr_size, rec + sizeof(struct perf_event_header) +
	       offsetof(struct perf_event_attr, size), sizeof(attr_size));
	if (attr_size < PERF_ATTR_SIZE_VER0 ||
	    attr_size > size - sizeof(struct perf_event_header))
		goto bad;
	if (r->nr_attrs >= MAX_ATTRS) {
		pr_err("%s: more than %d ATTR records; perfcap reads at most %d events\n",
		       r->path, MAX_ATTRS, MAX_ATTRS);
		return -EINVAL;
	}
	/* Doubling: a stream of many small ATTR records must not cost n^2 copies. */
	if (r->nr_attrs == *cap) {
		*cap = *cap ? 2 * *cap : 8;
		r->attrs = xrealloc(r->attrs, *cap * sizeof(*r->attrs));
	}
	a = &r->attrs[r->nr_attrs++];
	memset(a, 0, sizeof(*a));
	memcpy(&a->attr, rec + sizeof(struct perf_event_header),
	       MIN((size_t)attr_size, sizeof(a->attr)));
	n = (size - sizeof(struct perf_event_header) - attr_size) / sizeof(uint64_t);
	a->nr_ids = n;
	a->ids = xzalloc(n * sizeof(uint64_t) + 1);
	memcpy(a->ids, rec + sizeof(struct perf_event_header) + attr_size, n * sizeof(uint64_t));
	*nr_ids += n;
	return 0;
bad:
	pr_err("%s: ATTR record at offset %#" PRIx64 " (size %zu) is corrupt\n", r->path, off,
	       size);
	return -EINVAL;
}

static int cmp_feature(const void *a, const void *b)
{
	const struct perf_reader_feature *x = a, *y = b;

	return x->bit - y->bit;
}

/*
 * Pipe format: the records ahead of the data. ATTR records give the
 * events, FEATURE records the features (a section inside the record),
 * TRACING_DATA is skipped with what follows it; the first kernel record
 * ends the look (perf sends these before any data). A stream cut short
 * in here keeps what came whole.
 */
int perf_reader__read_pipe_prefix(struct perf_reader *r)
{
	uint64_t off = PERF_PIPE_HEADER_SIZE, end = r->file_size;
	size_t nr_ids = 0, cap = 0, attr_cap = 0;
	unsigned char *rec = xzalloc(1 << 16);
	int err = 0;

	while (end - off >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		uint64_t next;

		err = perf_reader__read_section(r, &h, sizeof(h), off, "a record header");
		if (err)
			goto out;
		if (h.size < sizeof(h)) {
			pr_err("%s: record of size %u at offset %#" PRIx64 " (type %u): corrupt "
			       "data\n", r->path, h.size, off, h.type);
			err = -EINVAL;
			goto out;
		}
		if (h.type < PERF_RECORD_USER_TYPE_START || h.size > end - off)
			break;
		next = off + h.size;
		if (h.type == PERF_RECORD_HEADER_ATTR || h.type == PERF_RECORD_HEADER_FEATURE ||
		    h.type == PERF_RECORD_HEADER_TRACING_DATA) {
			err = perf_reader__read_section(r, rec, h.size, off, "a record");
			if (err)
				goto out;
		}
		if (h.type == PERF_RECORD_HEADER_ATTR) {
			err = pipe_attr(r, rec, h.size, off, &nr_ids, &attr_cap);
			if (err)
				goto out;
		} else if (h.type == PERF_RECORD_HEADER_FEATURE && h.size >= 16) {
			uint64_t bit;

			memcpy(&bit, rec + sizeof(h), sizeof(bit));
			/* HEADER_LAST_FEATURE marks the end of the features: no section. */
			if (bit < HEADER_FEAT_BITS && bit != HEADER_LAST_FEATURE &&
			    !perf_reader__has_feature(r, (int)bit)) {
				if (r->nr_features == cap) {
					cap = cap ? 2 * cap : 32;
					r->features = xrealloc(r->features, cap * sizeof(*r->features));
				}
				r->features[r->nr_features++] = (struct perf_reader_feature){
					.bit = (int)bit, .offset = off + 16, .size = h.size - 16,
				};
				r->header.adds_features[bit / 64] |= 1ULL << (bit % 64);
			}
		} else if (h.type == PERF_RECORD_HEADER_TRACING_DATA) {
			uint64_t skip =
				perf_reader__record_payload((const struct perf_event_header *)rec);

			if (skip > end - next)
				break;
			next += skip;
		}
		off = next;
	}
	if (!r->nr_attrs) {
		pr_err("%s: a pipe-format stream without ATTR records: no events to read it "
		       "by (cut short, or not perf data?)\n", r->path);
		err = -EINVAL;
		goto out;
	}
	if (r->nr_features)
		qsort(r->features, r->nr_features, sizeof(*r->features), cmp_feature);
	err = perf_reader__index_attrs(r, nr_ids);
out:
	free(rec);
	return err;
}
