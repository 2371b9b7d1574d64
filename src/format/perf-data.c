// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/perf-data.h"
#include "sys.h"

/*
 * The ids of every attr, then the attrs with their id sections, as perf
 * lays them out, for a file where they start at base: into sb. Returns
 * the attrs' offset.
 */
static uint64_t add_ids_and_attrs(const struct perf_data_attr *attrs, int nr_attrs, uint64_t base,
				  struct strbuf *sb)
{
	uint64_t ids_off = base;
	int i;

	for (i = 0; i < nr_attrs; i++)
		strbuf__add(sb, attrs[i].ids, attrs[i].nr_ids * sizeof(uint64_t));
	for (i = 0; i < nr_attrs; i++) {
		struct perf_event_attr a = *attrs[i].attr;
		struct perf_file_section ids = {
			.offset = ids_off,
			.size = attrs[i].nr_ids * sizeof(uint64_t),
		};

		a.size = PERFCAP_ATTR_SIZE;
		strbuf__add(sb, &a, PERFCAP_ATTR_SIZE);
		strbuf__add(sb, &ids, sizeof(ids));
		ids_off += ids.size;
	}
	return ids_off;
}

void perf_data__build_start(const struct perf_data_attr *attrs, int nr_attrs,
			    struct strbuf *sb, struct perf_file_header *hdr)
{
	memset(hdr, 0, sizeof(*hdr));
	hdr->magic = PERF_MAGIC2;
	hdr->size = sizeof(*hdr);
	hdr->attr_size = PERFCAP_ATTR_SIZE + sizeof(struct perf_file_section);

	/* Layout as perf writes it: ids right after the header, then attrs. */
	strbuf__reset(sb);
	strbuf__add(sb, hdr, sizeof(*hdr));
	hdr->attrs.offset = add_ids_and_attrs(attrs, nr_attrs, sizeof(*hdr), sb);
	hdr->attrs.size = nr_attrs * hdr->attr_size;
	hdr->data.offset = hdr->attrs.offset + hdr->attrs.size;
	hdr->data.size = 0;
	/* The header as laid out (write_header writes it again at the end). */
	memcpy(sb->data, hdr, sizeof(*hdr));
}

int perf_data__start(struct perf_data *pd, struct output *out,
		     const struct perf_data_attr *attrs, int nr_attrs)
{
	struct strbuf sb;
	int64_t off;

	memset(pd, 0, sizeof(*pd));
	pd->out = out;
	pd->attrs = (struct perf_data_attr *)attrs;
	pd->nr_attrs = nr_attrs;
	for (int i = 0; i < nr_attrs; i++)
		pd->start_ids += attrs[i].nr_ids;
	strbuf__init(&sb);
	perf_data__build_start(attrs, nr_attrs, &sb, &pd->header);
	off = output__write_copy(out, sb.data, sb.len);
	strbuf__exit(&sb);
	if (off < 0)
		return (int)off;
	if (off != 0)
		return -EINVAL; /* the header must be the first reservation */
	pd->data_offset = out->data_offset = pd->header.data.offset;
	return 0;
}

/*
 * All of buf at off, or -errno. A short write (a signal, a full disk on
 * its way) is retried for the rest; a write of nothing means the file
 * cannot grow. Each try passes through the fault seam as a write at site.
 */
static int pwrite_whole(enum sys_fault_site site, int fd, const void *buf, size_t len,
			uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = sys_pwrite_at(site, fd, (const char *)buf + done, len - done,
					  (off_t)(off + done));

		if (n < 0)
			return (int)n;
		if (n == 0)
			return -ENOSPC;
		done += n;
	}
	return 0;
}

static int write_header(struct perf_data *pd)
{
	return pwrite_whole(SYS_FAULT_HEADER, pd->out->fd, &pd->header, sizeof(pd->header), 0);
}

/* The feature sections as features__each hands them over: payloads and their table. */
struct feature_table {
	struct perf_file_section *table;
	struct strbuf *payloads;
	struct perf_file_header *h;
	int nr;
};

static void feature_section(void *arg, int feat, const void *payload, size_t len)
{
	struct feature_table *ft = arg;

	ft->table[ft->nr].offset = ft->payloads->len; /* relative for now */
	ft->table[ft->nr].size = len;
	strbuf__add(ft->payloads, payload, len);
	ft->h->adds_features[feat / 64] |= 1ULL << (feat % 64);
	ft->nr++;
}

/*
 * The attrs' id lists grew since the start (a CPU whose events were
 * opened again, hotplug.c): they no longer fit before the data, so the
 * ids and the attrs go after the features, and the header points there
 * (perf reads both through their offsets). 0 or -errno.
 */
static int move_attrs(struct perf_data *pd)
{
	struct output *o = pd->out;
	struct perf_file_header *h = &pd->header;
	struct strbuf sb;
	uint64_t ids_len = 0, base, attrs_off;
	int err;

	for (int i = 0; i < pd->nr_attrs; i++)
		ids_len += pd->attrs[i].nr_ids * sizeof(uint64_t);
	if (ids_len == pd->start_ids * sizeof(uint64_t))
		return 0;
	strbuf__init(&sb);
	base = output__reserve(o, ids_len + pd->nr_attrs * h->attr_size);
	attrs_off = add_ids_and_attrs(pd->attrs, pd->nr_attrs, base, &sb);
	err = pwrite_whole(SYS_FAULT_FEATURE, o->fd, sb.data, sb.len, base);
	if (!err) {
		h->attrs.offset = attrs_off;
		h->attrs.size = pd->nr_attrs * h->attr_size;
	}
	strbuf__exit(&sb);
	return err;
}

int perf_data__finish(struct perf_data *pd, const struct feature_env *env)
{
	struct output *o = pd->out;
	struct perf_file_header *h = &pd->header;
	struct perf_file_section *table;
	struct strbuf payloads;
	uint64_t table_off, feat_off;
	int nr = 0, err, i;

	err = output__drain(o);
	memset(h->adds_features, 0, sizeof(h->adds_features));
	if (err) {
		/*
		 * Keep what is on disk up to the last complete write; no features.
		 * The error that stopped the recording is the one to report; a
		 * header that cannot be written either leaves data size 0, which
		 * perf reports as an unfinished recording.
		 */
		h->data.size = o->durable > pd->data_offset ? o->durable - pd->data_offset : 0;
		if (write_header(pd))
			pr_debug("the header could not be written either\n");
		return err;
	}
	h->data.size = output__head(o) - pd->data_offset;

	/* Payloads first in memory, so the table knows every offset. */
	table = xzalloc(HEADER_FEAT_BITS * sizeof(*table));
	strbuf__init(&payloads);
	{
		struct feature_table ft = { .table = table, .payloads = &payloads, .h = h };

		features__each(env, NULL, feature_section, &ft);
		nr = ft.nr;
	}

	/* The table sits right at data end: perf finds it at data.offset + data.size. */
	table_off = output__reserve(o, nr * sizeof(*table));
	if (table_off != pd->data_offset + h->data.size) {
		err = -EINVAL;
		goto out;
	}
	feat_off = output__reserve(o, payloads.len);
	for (i = 0; i < nr; i++)
		table[i].offset += feat_off;
	err = pwrite_whole(SYS_FAULT_FEATURE, o->fd, table, nr * sizeof(*table), table_off);
	if (!err)
		err = pwrite_whole(SYS_FAULT_FEATURE, o->fd, payloads.data, payloads.len, feat_off);
	if (err) {
		/*
		 * No features then: the data is still good, and a header whose
		 * bitmap is clear makes perf ignore whatever part of the table
		 * reached the disk.
		 */
		pr_warn("the feature sections could not be written (%s); the file keeps its "
			"data without them\n", strerror(-err));
		memset(h->adds_features, 0, sizeof(h->adds_features));
	}
	if (!err) {
		err = move_attrs(pd);
		if (err)
			pr_warn("the events' ids of the CPUs that came back could not be written "
				"(%s): their samples read as unknown\n", strerror(-err));
	}
	{
		int herr = write_header(pd);

		if (!err)
			err = herr;
	}
out:
	free(table);
	strbuf__exit(&payloads);
	return err;
}
