/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The perf.data on-disk format: what perf 6.1 reads. Facts from upstream's
 * perf.data-file-format documentation and the kernel uapi header; see
 * shared/PERFDATA.md for what was checked against perf 6.1.
 */
#ifndef PERFCAP_PERF_FILE_H
#define PERFCAP_PERF_FILE_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

#define PERF_MAGIC2 0x32454c4946524550ULL /* "PERFILE2" */

/*
 * perf 6.1 rejects attrs larger than the struct it knows (VER7, 128 bytes),
 * so this is the size we write whatever the kernel headers say.
 */
#define PERFCAP_ATTR_SIZE PERF_ATTR_SIZE_VER7

struct perf_file_section {
	uint64_t offset;
	uint64_t size;
};

#define HEADER_FEAT_BITS 256

struct perf_file_header {
	uint64_t magic;
	uint64_t size;		/* sizeof(struct perf_file_header) */
	uint64_t attr_size;	/* attr.size + sizeof(struct perf_file_section) */
	struct perf_file_section attrs;
	struct perf_file_section data;
	struct perf_file_section event_types; /* unused, zero */
	uint64_t adds_features[HEADER_FEAT_BITS / 64];
};

/* One entry of the attrs section: the attr, then where its ids live. */
struct perf_file_attr {
	struct perf_event_attr attr; /* PERFCAP_ATTR_SIZE bytes */
	struct perf_file_section ids;
};

/* Record types that tools (not the kernel) emit. */
enum perf_user_event_type {
	PERF_RECORD_USER_TYPE_START = 64,
	PERF_RECORD_HEADER_ATTR = 64,
	PERF_RECORD_HEADER_EVENT_TYPE = 65,
	PERF_RECORD_HEADER_TRACING_DATA = 66,
	PERF_RECORD_HEADER_BUILD_ID = 67,
	PERF_RECORD_FINISHED_ROUND = 68,
	PERF_RECORD_ID_INDEX = 69,
	PERF_RECORD_AUXTRACE_INFO = 70,
	PERF_RECORD_AUXTRACE = 71,
	PERF_RECORD_AUXTRACE_ERROR = 72,
	PERF_RECORD_THREAD_MAP = 73,
	PERF_RECORD_CPU_MAP = 74,
	PERF_RECORD_STAT_CONFIG = 75,
	PERF_RECORD_STAT = 76,
	PERF_RECORD_STAT_ROUND = 77,
	PERF_RECORD_EVENT_UPDATE = 78,
	PERF_RECORD_TIME_CONV = 79,
	PERF_RECORD_HEADER_FEATURE = 80,
	PERF_RECORD_COMPRESSED = 81,
	PERF_RECORD_FINISHED_INIT = 82,
};

/* Feature bits of the header bitmap (perf's header.h numbering). */
enum perf_header_feature {
	HEADER_RESERVED = 0,
	HEADER_TRACING_DATA = 1,
	HEADER_BUILD_ID,
	HEADER_HOSTNAME,
	HEADER_OSRELEASE,
	HEADER_VERSION,
	HEADER_ARCH,
	HEADER_NRCPUS,
	HEADER_CPUDESC,
	HEADER_CPUID,
	HEADER_TOTAL_MEM,
	HEADER_CMDLINE,
	HEADER_EVENT_DESC,
	HEADER_CPU_TOPOLOGY,
	HEADER_NUMA_TOPOLOGY,
	HEADER_BRANCH_STACK,
	HEADER_PMU_MAPPINGS,
	HEADER_GROUP_DESC,
	HEADER_AUXTRACE,
	HEADER_STAT,
	HEADER_CACHE,
	HEADER_SAMPLE_TIME,
	HEADER_MEM_TOPOLOGY,
	HEADER_CLOCKID,
	HEADER_DIR_FORMAT,
	HEADER_BPF_PROG_INFO,
	HEADER_BPF_BTF,
	HEADER_COMPRESSED,
	HEADER_CPU_PMU_CAPS,
	HEADER_CLOCK_DATA,
	HEADER_HYBRID_TOPOLOGY,
	HEADER_PMU_CAPS,
	HEADER_LAST_FEATURE,
};

/* Header misc bit of BUILD_ID feature entries: the size byte is valid. */
#define PERF_RECORD_MISC_BUILD_ID_SIZE (1 << 15)
#define BUILD_ID_SIZE 20

/* Entry of the BUILD_ID feature section; filename follows, padded to 64. */
struct perf_build_id_entry {
	struct perf_event_header header; /* type 0, misc = cpumode | BUILD_ID_SIZE */
	int32_t pid;			 /* -1: host kernel */
	uint8_t build_id[24];		 /* 20 bytes of id, then the rest zero */
	/* char filename[] */
};
/* perf lays it out as u8 build_id[20], u8 size, u8 pad[3]. */
#define BUILD_ID_ENTRY_SIZE_BYTE 20

#define NAME_ALIGN 64

/* Size of the sample_id trailer (attr.sample_id_all) for a sample_type. */
static inline size_t perf_sample_id_size(uint64_t st)
{
	return 8 * (!!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) +
		    !!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID) +
		    !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_IDENTIFIER));
}

#endif
