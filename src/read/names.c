// SPDX-License-Identifier: GPL-2.0
/*
 * Names: perf's upper-case names of record types and features, the
 * sample_type bits, and the name an event gets when EVENT_DESC gives it
 * none. Tables only, no file access: dump prints them and every part of
 * the reader names things with them in its messages.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdbool.h>
#include <string.h>

#include "read/reader-internal.h"
#include "read/reader.h"
#include "util.h"

static const char *const record_names[] = {
	[PERF_RECORD_MMAP] = "MMAP",
	[PERF_RECORD_LOST] = "LOST",
	[PERF_RECORD_COMM] = "COMM",
	[PERF_RECORD_EXIT] = "EXIT",
	[PERF_RECORD_THROTTLE] = "THROTTLE",
	[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
	[PERF_RECORD_FORK] = "FORK",
	[PERF_RECORD_READ] = "READ",
	[PERF_RECORD_SAMPLE] = "SAMPLE",
	[PERF_RECORD_MMAP2] = "MMAP2",
	[PERF_RECORD_AUX] = "AUX",
	[PERF_RECORD_ITRACE_START] = "ITRACE_START",
	[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
	[PERF_RECORD_SWITCH] = "SWITCH",
	[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
	[PERF_RECORD_NAMESPACES] = "NAMESPACES",
	[PERF_RECORD_KSYMBOL] = "KSYMBOL",
	[PERF_RECORD_BPF_EVENT] = "BPF_EVENT",
	[PERF_RECORD_CGROUP] = "CGROUP",
	[PERF_RECORD_TEXT_POKE] = "TEXT_POKE",
	[PERF_READER_RECORD_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID",
	[PERF_RECORD_HEADER_ATTR] = "ATTR",
	[PERF_RECORD_HEADER_EVENT_TYPE] = "EVENT_TYPE",
	[PERF_RECORD_HEADER_TRACING_DATA] = "TRACING_DATA",
	[PERF_RECORD_HEADER_BUILD_ID] = "BUILD_ID",
	[PERF_RECORD_FINISHED_ROUND] = "FINISHED_ROUND",
	[PERF_RECORD_ID_INDEX] = "ID_INDEX",
	[PERF_RECORD_AUXTRACE_INFO] = "AUXTRACE_INFO",
	[PERF_RECORD_AUXTRACE] = "AUXTRACE",
	[PERF_RECORD_AUXTRACE_ERROR] = "AUXTRACE_ERROR",
	[PERF_RECORD_THREAD_MAP] = "THREAD_MAP",
	[PERF_RECORD_CPU_MAP] = "CPU_MAP",
	[PERF_RECORD_STAT_CONFIG] = "STAT_CONFIG",
	[PERF_RECORD_STAT] = "STAT",
	[PERF_RECORD_STAT_ROUND] = "STAT_ROUND",
	[PERF_RECORD_EVENT_UPDATE] = "EVENT_UPDATE",
	[PERF_RECORD_TIME_CONV] = "TIME_CONV",
	[PERF_RECORD_HEADER_FEATURE] = "FEATURE",
	[PERF_RECORD_COMPRESSED] = "COMPRESSED",
	[PERF_RECORD_FINISHED_INIT] = "FINISHED_INIT",
};

static const char *const feature_names[] = {
	[HEADER_RESERVED] = "RESERVED",
	[HEADER_TRACING_DATA] = "TRACING_DATA",
	[HEADER_BUILD_ID] = "BUILD_ID",
	[HEADER_HOSTNAME] = "HOSTNAME",
	[HEADER_OSRELEASE] = "OSRELEASE",
	[HEADER_VERSION] = "VERSION",
	[HEADER_ARCH] = "ARCH",
	[HEADER_NRCPUS] = "NRCPUS",
	[HEADER_CPUDESC] = "CPUDESC",
	[HEADER_CPUID] = "CPUID",
	[HEADER_TOTAL_MEM] = "TOTAL_MEM",
	[HEADER_CMDLINE] = "CMDLINE",
	[HEADER_EVENT_DESC] = "EVENT_DESC",
	[HEADER_CPU_TOPOLOGY] = "CPU_TOPOLOGY",
	[HEADER_NUMA_TOPOLOGY] = "NUMA_TOPOLOGY",
	[HEADER_BRANCH_STACK] = "BRANCH_STACK",
	[HEADER_PMU_MAPPINGS] = "PMU_MAPPINGS",
	[HEADER_GROUP_DESC] = "GROUP_DESC",
	[HEADER_AUXTRACE] = "AUXTRACE",
	[HEADER_STAT] = "STAT",
	[HEADER_CACHE] = "CACHE",
	[HEADER_SAMPLE_TIME] = "SAMPLE_TIME",
	[HEADER_MEM_TOPOLOGY] = "MEM_TOPOLOGY",
	[HEADER_CLOCKID] = "CLOCKID",
	[HEADER_DIR_FORMAT] = "DIR_FORMAT",
	[HEADER_BPF_PROG_INFO] = "BPF_PROG_INFO",
	[HEADER_BPF_BTF] = "BPF_BTF",
	[HEADER_COMPRESSED] = "COMPRESSED",
	[HEADER_CPU_PMU_CAPS] = "CPU_PMU_CAPS",
	[HEADER_CLOCK_DATA] = "CLOCK_DATA",
	[HEADER_HYBRID_TOPOLOGY] = "HYBRID_TOPOLOGY",
	[HEADER_PMU_CAPS] = "PMU_CAPS",
};

/* Bit i of sample_type. */
static const char *const sample_type_names[] = {
	"IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU", "PERIOD",
	"STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT",
	"DATA_SRC", "IDENTIFIER", "TRANSACTION", "REGS_INTR", "PHYS_ADDR", "AUX",
	"CGROUP", "DATA_PAGE_SIZE", "CODE_PAGE_SIZE", "WEIGHT_STRUCT",
};

static const char *const sw_names[] = {
	[PERF_COUNT_SW_CPU_CLOCK] = "cpu-clock",
	[PERF_COUNT_SW_TASK_CLOCK] = "task-clock",
	[PERF_COUNT_SW_PAGE_FAULTS] = "page-faults",
	[PERF_COUNT_SW_CONTEXT_SWITCHES] = "context-switches",
	[PERF_COUNT_SW_CPU_MIGRATIONS] = "cpu-migrations",
	[PERF_COUNT_SW_PAGE_FAULTS_MIN] = "minor-faults",
	[PERF_COUNT_SW_PAGE_FAULTS_MAJ] = "major-faults",
	[PERF_COUNT_SW_ALIGNMENT_FAULTS] = "alignment-faults",
	[PERF_COUNT_SW_EMULATION_FAULTS] = "emulation-faults",
	[PERF_COUNT_SW_DUMMY] = "dummy",
	[PERF_COUNT_SW_BPF_OUTPUT] = "bpf-output",
	[PERF_COUNT_SW_CGROUP_SWITCHES] = "cgroup-switches",
};

static const char *const hw_names[] = {
	[PERF_COUNT_HW_CPU_CYCLES] = "cycles",
	[PERF_COUNT_HW_INSTRUCTIONS] = "instructions",
	[PERF_COUNT_HW_CACHE_REFERENCES] = "cache-references",
	[PERF_COUNT_HW_CACHE_MISSES] = "cache-misses",
	[PERF_COUNT_HW_BRANCH_INSTRUCTIONS] = "branches",
	[PERF_COUNT_HW_BRANCH_MISSES] = "branch-misses",
	[PERF_COUNT_HW_BUS_CYCLES] = "bus-cycles",
	[PERF_COUNT_HW_STALLED_CYCLES_FRONTEND] = "stalled-cycles-frontend",
	[PERF_COUNT_HW_STALLED_CYCLES_BACKEND] = "stalled-cycles-backend",
	[PERF_COUNT_HW_REF_CPU_CYCLES] = "ref-cycles",
};

const char *perf_reader__record_name(uint32_t type)
{
	return type < ARRAY_SIZE(record_names) ? record_names[type] : NULL;
}

const char *perf_reader__feature_name(int bit)
{
	return bit >= 0 && (size_t)bit < ARRAY_SIZE(feature_names) ? feature_names[bit] : NULL;
}

char *perf_reader__sample_type_str(uint64_t sample_type, char *buf, size_t size)
{
	size_t len = 0;

	if (!size)
		return buf;
	buf[0] = '\0';
	for (int i = 0; i < 64; i++) {
		char unknown[16];
		const char *name;

		if (!(sample_type & (1ULL << i)))
			continue;
		if ((size_t)i < ARRAY_SIZE(sample_type_names)) {
			name = sample_type_names[i];
		} else {
			snprintf(unknown, sizeof(unknown), "bit%d", i);
			name = unknown;
		}
		/* whole names only: stop at the first one that does not fit */
		if (len + !!len + strlen(name) >= size)
			break;
		len += snprintf(buf + len, size - len, "%s%s", len ? "|" : "", name);
	}
	return buf;
}

/*
 * The modifiers perf 6.1 puts behind a hardware or software event's name
 * when it has only the attr to go by (no EVENT_DESC: a file cut short):
 * with any of kernel, user or hypervisor excluded, the letters of those
 * not excluded (k, u, h); a 'p' for each level of precise_ip; and H and
 * G for host and guest not excluded, unless exclude_guest is what such
 * a name implies (set where k/u/h or p were written, clear otherwise)
 * and the host is not excluded. perf 6.1 names them so: cpu-clock,
 * cpu-clock:uH, cpu-clock:ppp, cpu-clock:ppH, dummy:HG.
 */
static void add_modifiers(char *buf, size_t size, const struct perf_event_attr *attr)
{
	size_t len = strlen(buf), start = len;
	bool implied = false;

#define MOD(cond, c) do { if ((cond) && len + 2 < size) buf[len++] = (c); } while (0)
	len++;	/* the colon, if anything follows */
	if (attr->exclude_kernel || attr->exclude_user || attr->exclude_hv) {
		MOD(!attr->exclude_kernel, 'k');
		MOD(!attr->exclude_user, 'u');
		MOD(!attr->exclude_hv, 'h');
		implied = true;
	}
	for (unsigned int i = 0; i < attr->precise_ip && i < 3; i++)
		MOD(true, 'p');
	if (attr->precise_ip)
		implied = true;
	if (attr->exclude_host || attr->exclude_guest == implied) {
		MOD(!attr->exclude_host, 'H');
		MOD(!attr->exclude_guest, 'G');
	}
#undef MOD
	if (len == start + 1) {
		buf[start] = '\0';
		return;
	}
	buf[start] = ':';
	buf[len] = '\0';
}

char *perf_reader__default_attr_name(const struct perf_event_attr *attr)
{
	char buf[64];

	if (attr->type == PERF_TYPE_SOFTWARE && attr->config < ARRAY_SIZE(sw_names) &&
	    sw_names[attr->config]) {
		snprintf(buf, sizeof(buf), "%s", sw_names[attr->config]);
		add_modifiers(buf, sizeof(buf), attr);
		return xstrdup(buf);
	}
	if (attr->type == PERF_TYPE_HARDWARE && attr->config < ARRAY_SIZE(hw_names) &&
	    hw_names[attr->config]) {
		snprintf(buf, sizeof(buf), "%s", hw_names[attr->config]);
		add_modifiers(buf, sizeof(buf), attr);
		return xstrdup(buf);
	}
	if (attr->type == PERF_TYPE_TRACEPOINT)
		snprintf(buf, sizeof(buf), "tracepoint:%llu", (unsigned long long)attr->config);
	else
		snprintf(buf, sizeof(buf), "type%u/config%#llx/", attr->type,
			 (unsigned long long)attr->config);
	return xstrdup(buf);
}
