// SPDX-License-Identifier: GPL-2.0
/* A recording's map timeline, read with perf_reader (recording-maps.h). */
#include <stdlib.h>
#include <string.h>

#include "inject/recording-maps.h"
#include "perf-file.h"
#include "util.h"

struct walk {
	struct perf_reader *r;
	struct maps *maps;
	bool use_seq;
	uint64_t idx;		/* records walked */
	perf_reader__record_cb also;	/* every record, before the maps take it */
	void *also_priv;
};

static uint64_t rec_time(struct walk *c, const struct perf_event_header *h)
{
	struct perf_reader_sample s;

	if (c->use_seq)
		return c->idx;
	if (perf_reader__parse_id_sample(c->r, h, &s) || !perf_reader__time_valid(s.time))
		return 0;
	return s.time;
}

static int pass1_cb(struct perf_reader *r, const struct perf_reader_record *rec, void *priv)
{
	struct walk *c = priv;
	const struct perf_event_header *h = rec->header;

	c->idx++;
	if (c->also) {
		int err = c->also(r, rec, c->also_priv);

		if (err)
			return err;
	}
	switch (h->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_COMM:
		maps__add_record(c->maps, h, rec_time(c, h), c->use_seq);
		break;
	case PERF_RECORD_FORK:
		/* Its own time, unless times are indexes. */
		maps__add_record(c->maps, h, c->idx, c->use_seq);
		break;
	}
	return 0;
}

/* BUILD_ID: records of { header, s32 pid, u8 build_id[24], char filename[] }. */
void recording_maps__build_ids(struct perf_reader *r,
			       void (*cb)(const char *name, const struct build_id *bid, void *priv),
			       void *priv)
{
	unsigned char *buf;
	size_t size, at = 0;

	if (perf_reader__read_feature(r, HEADER_BUILD_ID, (void **)&buf, &size))
		return;
	while (size - at >= sizeof(struct perf_event_header) + 4 + 24) {
		struct perf_event_header h;
		struct build_id bid;
		const char *name = (const char *)buf + at + 8 + 4 + 24;

		memcpy(&h, buf + at, sizeof(h));
		if (h.size < 8 + 4 + 24 || h.size > size - at)
			break;
		bid.size = h.misc & PERF_RECORD_MISC_BUILD_ID_SIZE ?
			MIN(buf[at + 8 + 4 + BUILD_ID_ENTRY_SIZE_BYTE], BUILD_ID_MAX) : BUILD_ID_MAX;
		memcpy(bid.data, buf + at + 8 + 4, BUILD_ID_MAX);
		if (memchr(name, 0, h.size - (8 + 4 + 24)))
			cb(name, &bid, priv);
		at += h.size;
	}
	free(buf);
}

static void add_build_id(const char *name, const struct build_id *bid, void *priv)
{
	maps__add_build_id(priv, name, bid);
}

bool recording_maps__by_index(const struct perf_reader *r)
{
	if (!r->sample_id_all)
		return true;
	for (size_t i = 0; i < r->nr_attrs; i++)
		if (!(r->attrs[i].attr.sample_type & PERF_SAMPLE_TIME))
			return true;
	return false;
}

int recording_maps__read(struct perf_reader *r, struct maps **maps)
{
	return recording_maps__read_also(r, maps, NULL, NULL);
}

int recording_maps__read_also(struct perf_reader *r, struct maps **maps,
			      perf_reader__record_cb also, void *priv)
{
	struct walk w = { .r = r, .maps = maps__new(), .use_seq = recording_maps__by_index(r),
			  .also = also, .also_priv = priv };
	int err;

	recording_maps__build_ids(r, add_build_id, w.maps);
	err = perf_reader__for_each_record(r, pass1_cb, &w);
	if (err) {
		maps__delete(w.maps);
		*maps = NULL;
		return err;
	}
	maps__seal(w.maps);
	*maps = w.maps;
	return 0;
}
