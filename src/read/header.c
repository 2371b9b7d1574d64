// SPDX-License-Identifier: GPL-2.0
/*
 * The header of a perf.data file and what it points to: the attrs and
 * their ids (indexed for perf_reader__attr_of_id), the feature table and
 * the features read at open (EVENT_DESC names, DIR_FORMAT). Each step
 * checks every offset and size against the file before it reads.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/reader-internal.h"
#include "read/reader.h"
#include "util.h"

/* u64 index of the id in a sample, or -1 (perf's id_pos). */
static int sample_id_pos(uint64_t st)
{
	int pos = 0;

	if (st & PERF_SAMPLE_IDENTIFIER)
		return 0;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	pos += !!(st & PERF_SAMPLE_IP);
	pos += !!(st & PERF_SAMPLE_TID);
	pos += !!(st & PERF_SAMPLE_TIME);
	pos += !!(st & PERF_SAMPLE_ADDR);
	return pos;
}

/* u64s from the end of a sample_id trailer to the id, 1 = last; or -1. */
static int trailer_id_pos(uint64_t st)
{
	int pos = 1;

	if (st & PERF_SAMPLE_IDENTIFIER)
		return 1;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	pos += !!(st & PERF_SAMPLE_CPU);
	pos += !!(st & PERF_SAMPLE_STREAM_ID);
	return pos;
}

/* Is [off, off+size) inside a file of file_size bytes (no overflow)? */
static bool in_file(uint64_t off, uint64_t size, uint64_t file_size)
{
	return off <= file_size && size <= file_size - off;
}

static int cmp_id(const void *a, const void *b)
{
	const struct perf_reader_id *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->attr < y->attr ? -1 : x->attr > y->attr;
}

int perf_reader__attr_of_id(const struct perf_reader *r, uint64_t id)
{
	size_t lo = 0, hi = r->nr_id_map;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->id_map[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < r->nr_id_map && r->id_map[lo].id == id)
		return (int)r->id_map[lo].attr;
	return -1;
}

const char *perf_reader__attr_name(const struct perf_reader *r, int i)
{
	if (i < 0 || (size_t)i >= r->nr_attrs)
		return "unknown";
	return r->attrs[i].name;
}

bool perf_reader__attr_is_off_cpu(const struct perf_reader *r, int i)
{
	const struct perf_event_attr *a;

	if (i < 0 || (size_t)i >= r->nr_attrs)
		return false;
	a = &r->attrs[i].attr;
	return a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_BPF_OUTPUT &&
	       r->attrs[i].name && !strcmp(r->attrs[i].name, "offcpu-time");
}

int perf_reader__read_header(struct perf_reader *r)
{
	struct perf_file_header *h = &r->header;
	unsigned char raw[PERF_FILE_HEADER_SIZE];
	size_t got = 0;
	uint64_t magic, size;
	int err;

	err = perf_reader__pread_all(r->fd, raw, 16, 0, &got);
	if (err && got < 16) {
		pr_err("%s: too short for a perf.data header (%zu bytes)\n", r->path, got);
		return -EINVAL;
	}
	memcpy(&magic, raw, 8);
	memcpy(&size, raw + 8, 8);
	if (magic == __builtin_bswap64(PERF_MAGIC2)) {
		pr_err("%s: byte-swapped perf.data (recorded on a machine of the other "
		       "endianness); not supported\n", r->path);
		return -EINVAL;
	}
	if (!memcmp(raw, "PERFFILE", 8)) {
		pr_err("%s: version 1 perf.data (magic PERFFILE); not supported\n", r->path);
		return -EINVAL;
	}
	if (magic != PERF_MAGIC2) {
		pr_err("%s: not a perf.data file (bad magic)\n", r->path);
		return -EINVAL;
	}
	if (size == PERF_PIPE_HEADER_SIZE) {
		/* Pipe format: the records that follow stand in for the sections. */
		memset(h, 0, sizeof(*h));
		h->magic = magic;
		h->size = size;
		h->data.offset = PERF_PIPE_HEADER_SIZE;
		h->data.size = r->file_size - PERF_PIPE_HEADER_SIZE;
		r->is_pipe = true;
		return 0;
	}
	if (size != PERF_FILE_HEADER_SIZE_LEGACY && size < PERF_FILE_HEADER_SIZE) {
		pr_err("%s: bad header size %" PRIu64 "\n", r->path, size);
		return -EINVAL;
	}
	size = MIN(size, (uint64_t)PERF_FILE_HEADER_SIZE);
	err = perf_reader__pread_all(r->fd, raw, size, 0, &got);
	if (err) {
		pr_err("%s: truncated header (%zu of %" PRIu64 " bytes)\n", r->path, got, size);
		return err == -EIO ? -EINVAL : err;
	}
	memset(h, 0, sizeof(*h));
	memcpy(h, raw, size);

	if (h->attr_size < PERF_ATTR_SIZE_VER0 + sizeof(struct perf_file_section) ||
	    h->attr_size > MAX_ATTR_SIZE) {
		pr_err("%s: bad attr size %" PRIu64 " in the header\n", r->path, h->attr_size);
		return -EINVAL;
	}
	if (!in_file(h->attrs.offset, h->attrs.size, r->file_size) ||
	    h->attrs.size % h->attr_size) {
		pr_err("%s: attrs section [%#" PRIx64 ", +%" PRIu64 "] is bad or past the "
		       "end of the file (%" PRIu64 " bytes): truncated?\n",
		       r->path, h->attrs.offset, h->attrs.size, r->file_size);
		return -EINVAL;
	}
	if (!h->attrs.size) {
		pr_err("%s: the header lists no events\n", r->path);
		return -EINVAL;
	}
	if (h->attrs.size / h->attr_size > MAX_ATTRS) {
		pr_err("%s: attrs section at offset %#" PRIx64 " holds %" PRIu64 " events; "
		       "perfcap reads at most %d\n", r->path, h->attrs.offset,
		       h->attrs.size / h->attr_size, MAX_ATTRS);
		return -EINVAL;
	}
	if (!in_file(h->data.offset, h->data.size, r->file_size)) {
		pr_err("%s: data section [%#" PRIx64 ", +%" PRIu64 "] runs past the end of "
		       "the file (%" PRIu64 " bytes): truncated?\n",
		       r->path, h->data.offset, h->data.size, r->file_size);
		return -EINVAL;
	}
	if (!h->data.size)
		pr_warn("%s: the header's data size is 0: was the recording finished?\n",
			r->path);
	return 0;
}


int perf_reader__read_attrs(struct perf_reader *r)
{
	const struct perf_file_header *h = &r->header;
	size_t attr_bytes = h->attr_size - sizeof(struct perf_file_section);
	size_t n = h->attrs.size / h->attr_size, nr_ids = 0;
	uint64_t id_bytes = 0;
	unsigned char *raw;
	int err;

	raw = xzalloc(h->attr_size);
	r->attrs = xzalloc(n * sizeof(*r->attrs));
	r->nr_attrs = n;
	for (size_t i = 0; i < n; i++) {
		struct perf_reader_attr *a = &r->attrs[i];
		struct perf_file_section ids;

		err = perf_reader__read_section(r, raw, h->attr_size,
						h->attrs.offset + i * h->attr_size, "an attr");
		if (err)
			goto out;
		memcpy(&a->attr, raw, MIN(attr_bytes, sizeof(a->attr)));
		memcpy(&ids, raw + attr_bytes, sizeof(ids));
		if (a->attr.size && a->attr.size != attr_bytes)
			pr_debug("%s: attr %zu says size %u, header says %zu\n", r->path, i,
				 a->attr.size, attr_bytes);
		if (!in_file(ids.offset, ids.size, r->file_size) || ids.size % 8) {
			pr_err("%s: ids of attr %zu [%#" PRIx64 ", +%" PRIu64 "] are bad or past "
			       "the end of the file: truncated?\n", r->path, i, ids.offset,
			       ids.size);
			err = -EINVAL;
			goto out;
		}
		/*
		 * Each attr's ids have their own bytes in perf's layout: sections
		 * that overlap could multiply a small file into a huge id map.
		 */
		id_bytes += ids.size;
		if (id_bytes > r->file_size) {
			pr_err("%s: ids of attr %zu at offset %#" PRIx64 " bring the events' ids "
			       "to %" PRIu64 " bytes, more than the file holds: corrupt "
			       "header\n", r->path, i, ids.offset, id_bytes);
			err = -EINVAL;
			goto out;
		}
		a->nr_ids = ids.size / 8;
		a->ids = xzalloc(ids.size);
		if (ids.size) {
			err = perf_reader__read_section(r, a->ids, ids.size, ids.offset, "ids");
			if (err)
				goto out;
		}
		nr_ids += a->nr_ids;
	}
	err = perf_reader__index_attrs(r, nr_ids);
out:
	free(raw);
	return err;
}

/*
 * After the attrs and their ids are read (from the attrs section or from
 * ATTR records): each attr's trailer size, the sorted id map, and where
 * the id sits.
 */
int perf_reader__index_attrs(struct perf_reader *r, size_t nr_ids)
{
	size_t n = r->nr_attrs;

	for (size_t i = 0; i < n; i++) {
		struct perf_reader_attr *a = &r->attrs[i];

		if (a->attr.sample_id_all)
			a->id_hdr_size = perf_reader__id_hdr_size(a->attr.sample_type);
	}
	r->id_map = xzalloc(nr_ids * sizeof(*r->id_map));
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < r->attrs[i].nr_ids; j++) {
			r->id_map[r->nr_id_map].id = r->attrs[i].ids[j];
			r->id_map[r->nr_id_map++].attr = i;
		}
	qsort(r->id_map, r->nr_id_map, sizeof(*r->id_map), cmp_id);

	r->sample_id_all = r->attrs[0].attr.sample_id_all;
	r->id_pos = sample_id_pos(r->attrs[0].attr.sample_type);
	r->is_pos = trailer_id_pos(r->attrs[0].attr.sample_type);
	for (size_t i = 1; i < n; i++) {
		uint64_t st = r->attrs[i].attr.sample_type;

		if (sample_id_pos(st) != r->id_pos || trailer_id_pos(st) != r->is_pos ||
		    r->attrs[i].attr.sample_id_all != r->sample_id_all)
			pr_warn("%s: events disagree on where the sample id is "
				"(perf report refuses such files)\n", r->path);
	}
	if (n > 1 && r->id_pos < 0)
		pr_warn("%s: %zu events but no sample ids: samples cannot be told apart\n",
			r->path, n);
	return 0;
}

int perf_reader__read_feature_table(struct perf_reader *r)
{
	const struct perf_file_header *h = &r->header;
	uint64_t table = h->data.offset + h->data.size;
	size_t n = 0, k = 0;
	struct perf_file_section *secs;
	int err;

	for (int bit = 0; bit < HEADER_FEAT_BITS; bit++)
		n += !!(h->adds_features[bit / 64] & (1ULL << (bit % 64)));
	if (!n)
		return 0;
	if (!in_file(table, n * sizeof(*secs), r->file_size)) {
		pr_err("%s: feature table (%zu sections at %#" PRIx64 ") runs past the end "
		       "of the file (%" PRIu64 " bytes): truncated?\n", r->path, n, table,
		       r->file_size);
		return -EINVAL;
	}
	secs = xzalloc(n * sizeof(*secs));
	err = perf_reader__read_section(r, secs, n * sizeof(*secs), table,
					"the feature table");
	if (err)
		goto out;
	r->features = xzalloc(n * sizeof(*r->features));
	for (int bit = 0; bit < HEADER_FEAT_BITS; bit++) {
		if (!(h->adds_features[bit / 64] & (1ULL << (bit % 64))))
			continue;
		if (!in_file(secs[k].offset, secs[k].size, r->file_size)) {
			pr_err("%s: feature %s [%#" PRIx64 ", +%" PRIu64 "] runs past the end "
			       "of the file: truncated?\n", r->path,
			       perf_reader__feature_name(bit) ?: "?", secs[k].offset,
			       secs[k].size);
			err = -EINVAL;
			goto out;
		}
		r->features[k].bit = bit;
		r->features[k].offset = secs[k].offset;
		r->features[k].size = secs[k].size;
		k++;
	}
	r->nr_features = k;
out:
	free(secs);
	return err;
}

bool perf_reader__has_feature(const struct perf_reader *r, int bit)
{
	if (bit < 0 || bit >= HEADER_FEAT_BITS)
		return false;
	return r->header.adds_features[bit / 64] & (1ULL << (bit % 64));
}

const struct perf_reader_feature *perf_reader__feature(const struct perf_reader *r, int bit)
{
	for (size_t i = 0; i < r->nr_features; i++)
		if (r->features[i].bit == bit)
			return &r->features[i];
	return NULL;
}

int perf_reader__read_feature(struct perf_reader *r, int bit, void **buf, size_t *size)
{
	const struct perf_reader_feature *f = perf_reader__feature(r, bit);
	char what[64];
	void *p;
	int err;

	*buf = NULL;
	*size = 0;
	if (!f)
		return -ENOENT;
	if (f->size > SIZE_MAX - 1)
		return -EINVAL;
	p = xzalloc(f->size + 1);
	snprintf(what, sizeof(what), "feature %s", perf_reader__feature_name(bit) ?: "?");
	err = perf_reader__read_section(r, p, f->size, f->offset, what);
	if (err) {
		free(p);
		return err;
	}
	*buf = p;
	*size = f->size;
	return 0;
}

/* EVENT_DESC: u32 nr, u32 attr_size, then per event attr, u32 nr_ids, string, ids. */
int perf_reader__read_event_desc(struct perf_reader *r)
{
	void *buf;
	size_t size;
	struct cursor c;
	uint32_t nr, attr_size;
	int err;

	err = perf_reader__read_feature(r, HEADER_EVENT_DESC, &buf, &size);
	if (err)
		return err == -ENOENT ? 0 : err;
	c.p = buf;
	c.end = c.p + size;
	if (!take_u32(&c, &nr) || !take_u32(&c, &attr_size))
		goto bad;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t nr_ids, len;
		uint64_t id0 = 0;
		const char *name;
		int a = -1;

		if (!take(&c, NULL, attr_size) || !take_u32(&c, &nr_ids) ||
		    !take_u32(&c, &len) || len > MAX_NAME)
			goto bad;
		name = (const char *)c.p;
		if (!take(&c, NULL, len))
			goto bad;
		if (nr_ids) {
			struct cursor ids = c;

			if (!take_u64(&ids, &id0))
				goto bad;
			a = perf_reader__attr_of_id(r, id0);
		}
		if (!skip_n(&c, nr_ids, sizeof(uint64_t)))
			goto bad;
		if (a < 0 && i < r->nr_attrs)
			a = (int)i;
		if (a >= 0 && !r->attrs[a].name)
			r->attrs[a].name = strndup(name, strnlen(name, len));
	}
	free(buf);
	return 0;
bad:
	pr_warn("%s: EVENT_DESC feature is corrupt; event names derived from the attrs\n",
		r->path);
	free(buf);
	return 0;
}

int perf_reader__read_dir_format(struct perf_reader *r)
{
	void *buf;
	size_t size;
	int err;

	err = perf_reader__read_feature(r, HEADER_DIR_FORMAT, &buf, &size);
	if (err)
		return err == -ENOENT ? 0 : err;
	if (size >= sizeof(uint64_t))
		memcpy(&r->dir_version, buf, sizeof(uint64_t));
	free(buf);
	return 0;
}
