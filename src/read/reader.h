/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A perf.data reader: ours and upstream's, a single file or the directory
 * that `perf record --threads` writes (PATH/data holds the header, the
 * attrs, the synthesized records and the features; PATH/data.N hold bare
 * record streams, one per reader thread).
 *
 * Every length in the file is checked against the file's size before it
 * is used: a truncated or corrupt file gives -EINVAL or -EIO and one
 * message naming the file, never a crash. Byte-swapped files (recorded
 * on a machine of the other endianness) are detected and refused.
 *
 * Pipe format (perf record -o -, perfcap record -o -): a 16-byte header,
 * then the attrs (HEADER_ATTR) and the features (HEADER_FEATURE) as
 * records ahead of the data. Those records are read at open and stand in
 * for the header's sections (features get sections inside their records,
 * so perf_reader__read_feature() works); the walk then hands out every
 * record after the 16 bytes, these included. A stream may end inside a
 * record (its writer was stopped): the walk ends there with a warning.
 * "-" reads standard input, a pipe included: it is first copied to an
 * unlinked temporary file in $TMPDIR (or /tmp), as large as the stream.
 *
 * Records inside PERF_RECORD_COMPRESSED (perf record -z, zstd) are
 * decompressed and handed out like the others.
 *
 * Used by the tests, `perfcap dump` and `perfcap loss` (through loss.h).
 * The code is in src/read/, one job a file (reader-internal.h lists them).
 */
#ifndef PERFCAP_READER_H
#define PERFCAP_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perf-file.h"

/* Header sizes we accept: with the feature bitmap, and the legacy one. */
#define PERF_FILE_HEADER_SIZE 104
#define PERF_FILE_HEADER_SIZE_LEGACY 72
/* A pipe-mode stream starts with a 16-byte header (magic, size). */
#define PERF_PIPE_HEADER_SIZE 16

/* DIR_FORMAT version written by perf record --threads. */
#define PERF_DIR_FORMAT_VERSION 1

/* Types of the kernel's uapi that an older <linux/perf_event.h> may lack. */
#define PERF_READER_RECORD_AUX_OUTPUT_HW_ID 21

/* One event of the file: its attr, its ids, its name. */
struct perf_reader_attr {
	/* Zero-extended (or cut) to the size of the struct we know. */
	struct perf_event_attr attr;
	uint64_t *ids;
	size_t nr_ids;
	/* From EVENT_DESC when present, else derived from type/config. */
	char *name;
	/* Bytes of the sample_id trailer on non-sample records (0 without sample_id_all). */
	size_t id_hdr_size;
};

/* One feature section, from the table that follows the data section. */
struct perf_reader_feature {
	int bit;		/* HEADER_* */
	uint64_t offset;
	uint64_t size;
};

/* One stream of records: the data section of a file, or a data.N file. */
struct perf_reader_stream {
	char *path;
	int fd;
	uint64_t offset;	/* of the first record */
	uint64_t size;		/* bytes of records */
};

/* An id of the file and the attr it belongs to. */
struct perf_reader_id {
	uint64_t id;
	size_t attr;
};

struct perf_reader {
	char *path;		/* as given: the file or the directory */
	bool is_dir;
	bool is_pipe;		/* pipe format: header.size 16, no sections */
	int fd;			/* the file holding the header */
	uint64_t file_size;	/* of that file */
	struct perf_file_header header; /* legacy header: adds_features zero */

	struct perf_reader_attr *attrs;
	size_t nr_attrs;
	/* All ids, sorted, each with the index of its attr. */
	struct perf_reader_id *id_map;
	size_t nr_id_map;
	/*
	 * Where the id sits, taken from the first attr as perf does (perf
	 * refuses files whose attrs disagree): u64 index from the start of
	 * a sample, and from the end of a sample_id trailer; -1 for none.
	 */
	int id_pos;
	int is_pos;
	bool sample_id_all;

	struct perf_reader_feature *features; /* in bit order */
	size_t nr_features;
	uint64_t dir_version;	/* DIR_FORMAT payload, 0 when absent */

	struct perf_reader_stream *streams; /* [0] the main file's data section */
	size_t nr_streams;

	/* The window of file bytes the record walk reads through. */
	unsigned char *buf;
	size_t buf_cap;
};

/* A record handed to the for_each callback; valid during the call only. */
struct perf_reader_record {
	const struct perf_event_header *header; /* header->size bytes, 8-aligned */
	size_t stream;		/* index into r->streams */
	uint64_t offset;	/* of the record in that stream's file */
	/*
	 * Bytes that follow the record in the file and belong to it
	 * (AUXTRACE data, HEADER_TRACING_DATA); they are skipped, not read.
	 */
	uint64_t payload_size;
	/*
	 * Decompressed from a PERF_RECORD_COMPRESSED record (perf record -z);
	 * offset is then that record's. The COMPRESSED record itself is
	 * handed to the callback first, then the records it holds.
	 */
	bool compressed;
};

/*
 * What a SAMPLE record, or the sample_id trailer of another kernel
 * record, holds. Only the fields named by sample_type are set; the rest
 * are zero. Pointers point into the record.
 */
struct perf_reader_sample {
	int attr;		/* index into r->attrs; -1: id not in the header */
	uint64_t sample_type;	/* of the attr used to decode */
	uint64_t id;		/* IDENTIFIER or ID */
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t stream_id;
	uint32_t cpu;
	uint64_t period;
	uint64_t callchain_nr;
	const void *callchain;	/* callchain_nr u64s, unaligned */
	uint32_t raw_size;
	const void *raw;
	uint64_t branch_nr;
	uint64_t user_regs_abi;
	uint64_t user_stack_size;	/* bytes reserved in the record */
	uint64_t user_stack_dyn_size;	/* bytes the kernel filled in */
	uint64_t weight;
	uint64_t data_src;
	uint64_t transaction;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size;
	uint64_t code_page_size;
	uint64_t aux_size;
};

/*
 * Open a perf.data file, or a directory from `perf record --threads`.
 * Reads and checks the header, the attrs and their ids, the feature table
 * and EVENT_DESC names. Returns 0 or -errno (message printed). On failure
 * r needs no close.
 */
int perf_reader__open(struct perf_reader *r, const char *path);
void perf_reader__close(struct perf_reader *r);

/*
 * Call cb for each record of each stream in turn (the main file's data
 * section first, then data.0, data.1, ...). cb returns 0 to go on; any
 * other value stops the walk and is returned. A record of size < 8 or
 * one running past the end of its stream stops the walk with -EINVAL,
 * a short read with -EIO (message printed). Returns 0 at the end.
 */
typedef int (*perf_reader__record_cb)(struct perf_reader *r,
				      const struct perf_reader_record *rec,
				      void *priv);
int perf_reader__for_each_record(struct perf_reader *r, perf_reader__record_cb cb,
				 void *priv);

/*
 * Decode a PERF_RECORD_SAMPLE. Returns 0, or -EINVAL when the record is
 * too short for what its attr's sample_type says it holds.
 */
int perf_reader__parse_sample(const struct perf_reader *r,
			      const struct perf_event_header *ev,
			      struct perf_reader_sample *s);
/*
 * Decode the sample_id trailer of a non-sample kernel record (type < 64).
 * Returns 0; -ENOENT when the record has none (no sample_id_all, a
 * SAMPLE or a user type); -EINVAL when the record is too short.
 */
int perf_reader__parse_id_sample(const struct perf_reader *r,
				 const struct perf_event_header *ev,
				 struct perf_reader_sample *s);

/* Index of the attr owning id, or -1. */
int perf_reader__attr_of_id(const struct perf_reader *r, uint64_t id);
/* Name of attr i, never NULL ("unknown" for -1). */
const char *perf_reader__attr_name(const struct perf_reader *r, int i);
/*
 * Attr i is perf 6.1's --off-cpu event (a software bpf-output event named
 * offcpu-time): its samples are written after the recording, their times
 * are no times (0xffffffff00000000 and up, so that perf sorts them last).
 */
bool perf_reader__attr_is_off_cpu(const struct perf_reader *r, int i);

/* Feature bits. */
bool perf_reader__has_feature(const struct perf_reader *r, int bit);
/* The feature's section, or NULL when the bit is clear. */
const struct perf_reader_feature *perf_reader__feature(const struct perf_reader *r, int bit);
/*
 * Read a feature's payload into a heap buffer (*size bytes, NUL added).
 * Returns 0, -ENOENT when absent, -EIO/-EINVAL on a bad section.
 */
int perf_reader__read_feature(struct perf_reader *r, int bit, void **buf, size_t *size);

/* perf's upper-case names: "SAMPLE", "MMAP2", "FINISHED_ROUND"; NULL if unknown. */
const char *perf_reader__record_name(uint32_t type);
/* "HOSTNAME", "EVENT_DESC", ...; NULL if unknown. */
const char *perf_reader__feature_name(int bit);
/* sample_type as "IP|TID|TIME" into buf; returns buf. */
char *perf_reader__sample_type_str(uint64_t sample_type, char *buf, size_t size);

/* Bytes of the sample_id trailer that an attr with this sample_type adds. */
size_t perf_reader__id_hdr_size(uint64_t sample_type);
/*
 * Sum of counts taken from a file (LOST.lost, LOST_SAMPLES.lost): sticks
 * at UINT64_MAX where a hostile file would make it wrap.
 */
static inline uint64_t perf_reader__add_count(uint64_t sum, uint64_t n)
{
	return sum > UINT64_MAX - n ? UINT64_MAX : sum + n;
}

/* A timestamp that means "none": synthesized records carry 0 (or ~0). */
static inline bool perf_reader__time_valid(uint64_t t)
{
	return t != 0 && t != UINT64_MAX;
}

/*
 * The command line of a command that reads one perf.data: [FLAG] [FILE]
 * (or -i/--input FILE), -h/--help, "--". flag_short/flag_long name the
 * command's one boolean option. Returns 0 (path set, default
 * "perf.data"), 1 (help printed: exit 0) or -EINVAL (usage printed).
 */
int perf_reader__parse_args(int argc, char **argv, const char *cmd, const char *usage,
			    const char *flag_short, const char *flag_long, bool *flag,
			    const char **path);

#endif
