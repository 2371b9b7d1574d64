/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the fields of a PERF_RECORD_SAMPLE are, from its event's attr
 * (the order of the kernel's perf_output_sample(), uapi perf_event.h):
 * what a recorder needs to cut a sample's user stack, carry its period,
 * or say in a LOST_SAMPLES record which event and CPU lost it, without
 * parsing the whole sample the way a reader does.
 */
#ifndef PERFCAP_FORMAT_SAMPLE_LAYOUT_H
#define PERFCAP_FORMAT_SAMPLE_LAYOUT_H

#include <linux/perf_event.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What of an attr decides a sample's layout. */
struct sample_layout {
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t regs_user, regs_intr;	/* masks */
	uint64_t branch_sample_type;
	bool sample_id_all;
};

/*
 * The fields of one sample: byte offsets from the start of the record
 * (its perf_event_header), 0 where the sample has none.
 */
struct sample_fields {
	size_t id;		/* u64: IDENTIFIER, else ID */
	size_t tid;		/* u32 pid, u32 tid */
	size_t time;
	size_t stream_id;
	size_t cpu;		/* u32 cpu, u32 res */
	size_t period;
	/* With STACK_USER only: where CALLCHAIN's u64 nr is, or would go without it */
	size_t callchain;
	size_t regs_user;	/* ... REGS_USER's u64 abi, or where it would go (= stack) */
	size_t stack;		/* STACK_USER's u64 size */
	size_t after_stack;	/* the first byte behind the stack (behind dyn_size) */
};

void sample_layout__init(struct sample_layout *l, const struct perf_event_attr *a);
/*
 * Find the fields of the sample rec (size bytes, whole). 0, or -EINVAL
 * when the sample is shorter than its layout says.
 */
int sample_layout__parse(const struct sample_layout *l, const void *rec, size_t size,
			 struct sample_fields *f);
/*
 * The sample_id trailer of a non-sample record of this event (sample_id_all),
 * with the values of sample rec (fields f): the bytes written to out
 * (at most SAMPLE_ID_MAX), 0 without sample_id_all.
 */
#define SAMPLE_ID_MAX 48
size_t sample_layout__id_trailer(const struct sample_layout *l, const void *rec,
				 const struct sample_fields *f, void *out);

/* The layouts of a recording's events, and which ids are whose. */
struct sample_layouts {
	struct sample_layout *l;
	int nr;
	uint64_t *ids;		/* sorted */
	int *idx;		/* ids[i] is an id of l[idx[i]] */
	size_t nr_ids;
	bool identifier;	/* every sample starts with its id (IDENTIFIER) */
	/*
	 * Ids that came while recording (events opened again when a CPU came
	 * back): appended by one thread while others look them up, so into
	 * arrays of a fixed size, the count published last.
	 */
	uint64_t *late_ids;
	int *late_idx;
	_Atomic size_t nr_late;
};
#define SAMPLE_LAYOUTS_LATE_MAX 1024

void sample_layouts__init(struct sample_layouts *ls);
/* Add an event: its attr and its ids. */
void sample_layouts__add(struct sample_layouts *ls, const struct perf_event_attr *a,
			 const uint64_t *ids, size_t nr_ids);
void sample_layouts__exit(struct sample_layouts *ls);
/*
 * Event k has a new id, while others may look ids up (one thread adds):
 * 0, or -ENOSPC past SAMPLE_LAYOUTS_LATE_MAX ids.
 */
int sample_layouts__add_late(struct sample_layouts *ls, int k, uint64_t id);
/* The layout of sample rec, NULL when its id is unknown (or it is too short). */
const struct sample_layout *sample_layouts__find(const struct sample_layouts *ls, const void *rec,
						 size_t size);

#endif
