// SPDX-License-Identifier: GPL-2.0
/* A recording's map timeline, read with perf_reader (recording-maps.h). */
#include <stdlib.h>
#include <string.h>

#include "inject/recording-maps.h"
#include "perf-file.h"
#include "util.h"

/* Where a record's fields are (uapi perf_event.h's record layouts). */
#define MMAP_FILENAME_OFF 40
#define MMAP2_FILENAME_OFF 72
#define MMAP2_BUILD_ID_OFF 40
#define FORK_TIME_OFF 24

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

static const char *rec_string(const struct perf_event_header *h, size_t off)
{
	const char *s = (const char *)h + off;

	if (h->size <= off || !memchr(s, 0, h->size - off))
		return NULL;
	return s;
}

static int pass1_cb(struct perf_reader *r, const struct perf_reader_record *rec, void *priv)
{
	struct walk *c = priv;
	const struct perf_event_header *h = rec->header;
	const unsigned char *p = (const unsigned char *)h;
	uint32_t pid, ppid;
	uint64_t start, len, pgoff, time;
	const char *name;

	c->idx++;
	if (c->also) {
		int err = c->also(r, rec, c->also_priv);

		if (err)
			return err;
	}
	switch (h->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		struct build_id bid = { .size = 0 };
		uint64_t dev = 0, ino = 0;
		size_t name_off = h->type == PERF_RECORD_MMAP ? MMAP_FILENAME_OFF : MMAP2_FILENAME_OFF;

		if ((h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
			break;
		name = rec_string(h, name_off);
		if (!name)
			break;
		memcpy(&pid, p + 8, 4);
		memcpy(&start, p + 16, 8);
		memcpy(&len, p + 24, 8);
		memcpy(&pgoff, p + 32, 8);
		if (pid == UINT32_MAX)
			break;
		if (h->type == PERF_RECORD_MMAP2) {
			if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
				bid.size = MIN(p[MMAP2_BUILD_ID_OFF], BUILD_ID_MAX);
				memcpy(bid.data, p + MMAP2_BUILD_ID_OFF + 4, bid.size);
			} else {
				uint32_t maj, min;

				memcpy(&maj, p + 40, 4);
				memcpy(&min, p + 44, 4);
				memcpy(&ino, p + 48, 8);
				dev = ((uint64_t)maj << 32) | min;
			}
		}
		maps__add_mmap(c->maps, pid, rec_time(c, h), start, len, pgoff, name, &bid, dev, ino);
		break;
	}
	case PERF_RECORD_FORK:
		if (h->size < 32)
			break;
		memcpy(&pid, p + 8, 4);
		memcpy(&ppid, p + 12, 4);
		memcpy(&time, p + FORK_TIME_OFF, 8);
		if (c->use_seq)
			time = c->idx;
		else if (!perf_reader__time_valid(time))
			time = 0;
		maps__add_fork(c->maps, pid, ppid, time);
		break;
	case PERF_RECORD_COMM:
		if (!(h->misc & PERF_RECORD_MISC_COMM_EXEC) || h->size < 16)
			break;
		memcpy(&pid, p + 8, 4);
		maps__add_exec(c->maps, pid, rec_time(c, h));
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
