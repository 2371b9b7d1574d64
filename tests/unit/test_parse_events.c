// SPDX-License-Identifier: GPL-2.0
/*
 * parse-events.c: names, aliases and modifiers -> attr, raw events,
 * tracepoints, and the error messages users see. Tracepoints are tested
 * against a fake tracefs tree (tracefs_set_tracing_dir), which needs no
 * privileges, and against the real sched:sched_switch when tracefs is
 * there. Expected attrs for modifiers are what perf 6.1 writes for the
 * same -e string (perf report --header-only).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracefs.h>

#include "events/parse-events.h"
#include "util.h"

#define HINT "(perfcap supports software events (cpu-clock, task-clock, ...), " \
	     "hardware and cache events by name, rNNNN, PMU/terms/ and tracepoints SUBSYS:NAME)"
#define MODS "(modifiers: u, k, h, G, H, I, D, p, pp, ppp, P, S, W, e)"

/* Excludes as a string "ukhGH" of the set bits, so a row reads at a glance. */
struct good_case {
	const char *str;
	__u32 type;
	__u64 config;
	const char *name;
	const char *excl;	/* NULL: perf's default, exclude_guest only */
	int precise;
};

static const struct good_case good_cases[] = {
	/* software events and their aliases: named as typed, like perf */
	{ "cpu-clock",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,	"cpu-clock", NULL, 0 },
	{ "task-clock",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,	"task-clock", NULL, 0 },
	{ "page-faults",	PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,	"page-faults", NULL, 0 },
	{ "faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,	"faults", NULL, 0 },
	{ "context-switches",	PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "context-switches", NULL, 0 },
	{ "cs",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "cs", NULL, 0 },
	{ "cpu-migrations",	PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "cpu-migrations", NULL, 0 },
	{ "migrations",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "migrations", NULL, 0 },
	{ "minor-faults",	PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, "minor-faults", NULL, 0 },
	{ "major-faults",	PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, "major-faults", NULL, 0 },
	{ "alignment-faults",	PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, "alignment-faults", NULL, 0 },
	{ "emulation-faults",	PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, "emulation-faults", NULL, 0 },
	{ "dummy",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY,	"dummy", NULL, 0 },
	{ "bpf-output",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT,	"bpf-output", NULL, 0 },
	{ "cgroup-switches",	PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CGROUP_SWITCHES, "cgroup-switches", NULL, 0 },

	/* hardware events: parsed here, supported or not at open time */
	{ "cycles",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,	"cycles", NULL, 0 },
	{ "cpu-cycles",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,	"cpu-cycles", NULL, 0 },
	{ "instructions",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,	"instructions", NULL, 0 },
	{ "cache-references",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, "cache-references", NULL, 0 },
	{ "cache-misses",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES,	"cache-misses", NULL, 0 },
	{ "branches",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "branches", NULL, 0 },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "branch-instructions", NULL, 0 },
	{ "branch-misses",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "branch-misses", NULL, 0 },
	{ "bus-cycles",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES,	"bus-cycles", NULL, 0 },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "stalled-cycles-frontend", NULL, 0 },
	{ "idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "idle-cycles-frontend", NULL, 0 },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "stalled-cycles-backend", NULL, 0 },
	{ "idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "idle-cycles-backend", NULL, 0 },
	{ "ref-cycles",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, "ref-cycles", NULL, 0 },

	/* raw */
	{ "r1a8",		PERF_TYPE_RAW, 0x1a8,			"r1a8", NULL, 0 },
	{ "r0",			PERF_TYPE_RAW, 0,			"r0", NULL, 0 },
	{ "rC0FFEE",		PERF_TYPE_RAW, 0xc0ffee,		"rC0FFEE", NULL, 0 },
	{ "rfedcba9876543210",	PERF_TYPE_RAW, 0xfedcba9876543210ULL,	"rfedcba9876543210", NULL, 0 },

	/* modifiers, with the attrs perf 6.1 writes for them */
	{ "cpu-clock:u",	PERF_TYPE_SOFTWARE, 0, "cpu-clock:u",	"khG", 0 },
	{ "cs:u",		PERF_TYPE_SOFTWARE, 3, "cs:u",		"khG", 0 },
	{ "cs:k",		PERF_TYPE_SOFTWARE, 3, "cs:k",		"uh", 0 },
	{ "cs:h",		PERF_TYPE_SOFTWARE, 3, "cs:h",		"uk", 0 },
	{ "cs:uk",		PERF_TYPE_SOFTWARE, 3, "cs:uk",		"hG", 0 },
	{ "cs:ku",		PERF_TYPE_SOFTWARE, 3, "cs:ku",		"hG", 0 },
	{ "cs:ukh",		PERF_TYPE_SOFTWARE, 3, "cs:ukh",	"G", 0 },
	{ "cs:G",		PERF_TYPE_SOFTWARE, 3, "cs:G",		"H", 0 },
	{ "cs:H",		PERF_TYPE_SOFTWARE, 3, "cs:H",		"G", 0 },
	{ "cs:p",		PERF_TYPE_SOFTWARE, 3, "cs:p",		"G", 1 },
	{ "cs:pp",		PERF_TYPE_SOFTWARE, 3, "cs:pp",		"G", 2 },
	{ "cs:ppp",		PERF_TYPE_SOFTWARE, 3, "cs:ppp",	"G", 3 },
	{ "cs:up",		PERF_TYPE_SOFTWARE, 3, "cs:up",		"khG", 1 },
	{ "cycles:u",		PERF_TYPE_HARDWARE, 0, "cycles:u",	"khG", 0 },
	{ "cycles:uk",		PERF_TYPE_HARDWARE, 0, "cycles:uk",	"hG", 0 },
	{ "cycles:pp",		PERF_TYPE_HARDWARE, 0, "cycles:pp",	"G", 2 },
	{ "r1a8:k",		PERF_TYPE_RAW, 0x1a8,	"r1a8:k",	"uh", 0 },
	/* perf 6.1: :k alone leaves exclude_guest clear, as do G, I, D ... */
	{ "cpu-clock:k",	PERF_TYPE_SOFTWARE, 0, "cpu-clock:k",	"uh", 0 },
	{ "cpu-clock:kh",	PERF_TYPE_SOFTWARE, 0, "cpu-clock:kh",	"u", 0 },
	{ "cpu-clock:Gu",	PERF_TYPE_SOFTWARE, 0, "cpu-clock:Gu",	"khH", 0 },
	{ "cpu-clock:Hk",	PERF_TYPE_SOFTWARE, 0, "cpu-clock:Hk",	"uhG", 0 },
	{ "cpu-clock:I",	PERF_TYPE_SOFTWARE, 0, "cpu-clock:I",	"", 0 },
	{ "cpu-clock:D",	PERF_TYPE_SOFTWARE, 0, "cpu-clock:D",	"", 0 },
	{ "cpu-clock:P",	PERF_TYPE_SOFTWARE, 0, "cpu-clock:P",	"", 0 },

	/*
	 * Generic cache events: type | op << 8 | result << 16, as "perf stat
	 * -vv" shows perf 6.1's attr; named as typed, without modifiers.
	 */
	{ "L1-dcache-load-misses", PERF_TYPE_HW_CACHE, 0x10000,	"L1-dcache-load-misses", NULL, 0 },
	{ "L1-dcache-loads",	PERF_TYPE_HW_CACHE, 0x0,	"L1-dcache-loads", NULL, 0 },
	{ "L1-dcache-stores",	PERF_TYPE_HW_CACHE, 0x100,	"L1-dcache-stores", NULL, 0 },
	{ "L1-dcache-prefetch-misses", PERF_TYPE_HW_CACHE, 0x10200, "L1-dcache-prefetch-misses", NULL, 0 },
	{ "L1-icache-load-misses", PERF_TYPE_HW_CACHE, 0x10001,	"L1-icache-load-misses", NULL, 0 },
	{ "LLC-loads",		PERF_TYPE_HW_CACHE, 0x2,	"LLC-loads", NULL, 0 },
	{ "LLC-store-misses",	PERF_TYPE_HW_CACHE, 0x10102,	"LLC-store-misses", NULL, 0 },
	{ "dTLB-load-misses",	PERF_TYPE_HW_CACHE, 0x10003,	"dTLB-load-misses", NULL, 0 },
	{ "dTLB-store-misses",	PERF_TYPE_HW_CACHE, 0x10103,	"dTLB-store-misses", NULL, 0 },
	{ "iTLB-loads",		PERF_TYPE_HW_CACHE, 0x4,	"iTLB-loads", NULL, 0 },
	{ "iTLB-load-misses",	PERF_TYPE_HW_CACHE, 0x10004,	"iTLB-load-misses", NULL, 0 },
	{ "branch-loads",	PERF_TYPE_HW_CACHE, 0x5,	"branch-loads", NULL, 0 },
	{ "branch-load-misses",	PERF_TYPE_HW_CACHE, 0x10005,	"branch-load-misses", NULL, 0 },
	{ "node-loads",		PERF_TYPE_HW_CACHE, 0x6,	"node-loads", NULL, 0 },
	{ "node-prefetches",	PERF_TYPE_HW_CACHE, 0x206,	"node-prefetches", NULL, 0 },
	{ "node-store-misses",	PERF_TYPE_HW_CACHE, 0x10106,	"node-store-misses", NULL, 0 },
	/* perf's other spellings */
	{ "l1d",		PERF_TYPE_HW_CACHE, 0x0,	"l1d", NULL, 0 },
	{ "l1-d-loads",		PERF_TYPE_HW_CACHE, 0x0,	"l1-d-loads", NULL, 0 },
	{ "L1-data-miss",	PERF_TYPE_HW_CACHE, 0x10000,	"L1-data-miss", NULL, 0 },
	{ "Data-TLB-write-miss", PERF_TYPE_HW_CACHE, 0x10103,	"Data-TLB-write-miss", NULL, 0 },
	{ "L2-speculative-read", PERF_TYPE_HW_CACHE, 0x202,	"L2-speculative-read", NULL, 0 },
	{ "LLC-misses-loads",	PERF_TYPE_HW_CACHE, 0x10002,	"LLC-misses-loads", NULL, 0 },
	{ "bpu-access",		PERF_TYPE_HW_CACHE, 0x5,	"bpu-access", NULL, 0 },
	{ "l1i-Reference",	PERF_TYPE_HW_CACHE, 0x1,	"l1i-Reference", NULL, 0 },
	{ "branch-loads:u",	PERF_TYPE_HW_CACHE, 0x5,	"branch-loads", "khG", 0 },
	/* the hardware event, not the cache: symbolic names come first */
	{ "branch-misses",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "branch-misses", NULL, 0 },

	/* the software PMU from the real sysfs (there on every kernel with perf events) */
	{ "software/config=0x3/", 1, 3,		"software/config=0x3/", NULL, 0 },
	{ "software/period=1,name=cs,config=0x3/Duk", 1, 3, "cs", "hG", 0 },
	{ "software/config=2/:u", 1, 2,		"software/config=2/:u", "khG", 0 },
	/* the generic terms after a symbolic or cache event, as perf takes them */
	{ "cpu-clock/period=1000/", PERF_TYPE_SOFTWARE, 0, "cpu-clock/period=1000/", NULL, 0 },
	{ "cs/name=sw/u",	PERF_TYPE_SOFTWARE, 3,	"sw", "khG", 0 },
	{ "cycles/config=1/",	PERF_TYPE_HARDWARE, 1,	"cycles/config=1/", NULL, 0 },
	{ "LLC-loads/name=llc/", PERF_TYPE_HW_CACHE, 2,	"llc", NULL, 0 },
};

/*
 * Every modifier, with the bits perf 6.1 writes for cpu-clock:MODS
 * (perf record -e cpu-clock:MODS; perf evlist -v).
 */
struct mod_case {
	const char *mods;
	const char *excl;	/* exclude_ bits as "ukhGH" letters */
	int precise, idle, pinned, exclusive, sample_read, precise_max, weak;
};

static const struct mod_case mod_cases[] = {
	{ "u",   "khG", 0, 0, 0, 0, 0, 0, 0 },
	{ "k",   "uh",  0, 0, 0, 0, 0, 0, 0 },
	{ "h",   "uk",  0, 0, 0, 0, 0, 0, 0 },
	{ "G",   "H",   0, 0, 0, 0, 0, 0, 0 },
	{ "H",   "G",   0, 0, 0, 0, 0, 0, 0 },
	{ "I",   "",    0, 1, 0, 0, 0, 0, 0 },
	{ "D",   "",    0, 0, 1, 0, 0, 0, 0 },
	{ "e",   "",    0, 0, 0, 1, 0, 0, 0 },
	{ "W",   "",    0, 0, 0, 0, 0, 0, 1 },
	{ "S",   "",    0, 0, 0, 0, 1, 0, 0 },
	{ "P",   "",    0, 0, 0, 0, 0, 1, 0 },
	{ "p",   "G",   1, 0, 0, 0, 0, 0, 0 },
	{ "pp",  "G",   2, 0, 0, 0, 0, 0, 0 },
	{ "ppp", "G",   3, 0, 0, 0, 0, 0, 0 },
	{ "uk",  "hG",  0, 0, 0, 0, 0, 0, 0 },
	{ "ku",  "hG",  0, 0, 0, 0, 0, 0, 0 },
	{ "uI",  "khG", 0, 1, 0, 0, 0, 0, 0 },
	{ "DW",  "",    0, 0, 1, 0, 0, 0, 1 },
	{ "Duk", "hG",  0, 0, 1, 0, 0, 0, 0 },
	{ "SDe", "",    0, 0, 1, 1, 1, 0, 0 },
	{ "b",   "",    0, 0, 0, 0, 0, 0, 0 },
};

/* An error: the message must be exactly this (prefix '=') or contain it. */
struct bad_case {
	const char *str;
	const char *msg;
};

static const struct bad_case bad_cases[] = {
	{ "foo",		"=unknown event 'foo' " HINT },
	{ "cpu-clock,foo",	"=unknown event 'foo' " HINT },
	{ "foo:u",		"=unknown event 'foo' " HINT },
	{ ":u",			"=unknown event ':u' " HINT },
	{ "Cycles",		"=unknown event 'Cycles' " HINT },
	{ "cpu-clock-",		"unknown event 'cpu-clock-'" },
	{ "r",			"unknown event 'r'" },
	{ "r1g",		"unknown event 'r1g'" },
	{ "r12345678901234567",	"unknown event 'r12345678901234567'" },
	{ "cs:x",		"=invalid modifier ':x' in event 'cs:x' " MODS },
	{ "cs:uu",		"invalid modifier ':uu'" },
	{ "cs:DD",		"invalid modifier ':DD'" },
	{ "cs:b!",		"invalid modifier ':b!'" },
	{ "cs:",		"invalid modifier ':' in event 'cs:'" },
	{ "cs:pppp",		"invalid modifier ':pppp'" },
	{ "cycles:u:k",		"invalid modifier ':u:k'" },
	{ "",			"=empty event list" },
	{ "cs,,faults",		"=empty event in list 'cs,,faults'" },
	{ "cs,",		"empty event in list 'cs,'" },
	{ ",cs",		"empty event in list ',cs'" },
	{ "nopmu/event=1,umask=2/", "=unknown event 'nopmu/event=1,umask=2/': no PMU 'nopmu' in "
				"/sys/bus/event_source/devices " HINT },
	{ "software/config=1",	"unknown event 'software/config=1': a PMU's terms end with '/'" },
	{ "software/config=1/x", "invalid modifier ':x' in event 'software/config=1/x'" },
	{ "software/config=1/:", "invalid modifier ':' in event 'software/config=1/:'" },
	{ "software/bogus=1/",	"unknown term 'bogus' for PMU 'software' in event 'software/bogus=1/' "
				"(valid terms: config, config1, config2, name, period, freq, call-graph, stack-size)" },
	{ "software/config=zz/", "invalid value 'zz' for term 'config'" },
	{ "software/config=-1/", "invalid value '-1' for term 'config'" },
	{ "software/period/",	"term 'period' of event 'software/period/' needs a value" },
	{ "software/name=/",	"term 'name' of event 'software/name=/' needs a value" },
	{ "software/call-graph=foo/", "invalid call-graph 'foo'" },
	{ "cpu-clock/event=1/",	"unknown term 'event' for PMU 'cpu-clock' in event 'cpu-clock/event=1/' "
				"(valid terms: config, config1" },
	{ "software/stack-size=0/", "invalid stack-size 0" },
	{ "software/stack-size=65536/", "invalid stack-size 65536" },
	/* groups */
	{ "{cs,{faults}}",	"=groups do not nest: '{cs,{faults}}'" },
	{ "{cs,faults",		"=a group's '{' has no '}' in '{cs,faults'" },
	{ "{}",			"=empty event in list '{}'" },
	{ "{cs}:x",		"=invalid group modifier ':x' in '{cs}:x' " MODS },
	{ "{cs}x",		"=unexpected 'x' in event list '{cs}x'" },
	{ "{cs,foo}",		"unknown event 'foo'" },
	/* cache events: operations a cache does not have, words that are not cache words */
	{ "L1-icache-stores",	"=invalid cache event 'L1-icache-stores': the L1-icache cache has no store operation" },
	{ "iTLB-prefetches",	"the iTLB cache has no prefetch operation" },
	{ "branch-stores",	"the branch cache has no store operation" },
	{ "LLC-foo",		"=unknown event 'LLC-foo' " HINT },
	{ "LLC-loads-misses-refs", "unknown event 'LLC-loads-misses-refs'" },
	{ "LLC-loads:x",	"invalid modifier ':x' in event 'LLC-loads:x'" },
	{ "..:x",		"unknown event '..:x'" },
	{ "a/b:c",		"unknown event 'a/b:c'" },
};

static void check_excludes(const struct perf_event_attr *a, const char *excl)
{
	if (!excl)
		excl = "G";
	assert_int_equal(a->exclude_user, !!strchr(excl, 'u'));
	assert_int_equal(a->exclude_kernel, !!strchr(excl, 'k'));
	assert_int_equal(a->exclude_hv, !!strchr(excl, 'h'));
	assert_int_equal(a->exclude_guest, !!strchr(excl, 'G'));
	assert_int_equal(a->exclude_host, !!strchr(excl, 'H'));
}

static void test_modifier(void **state)
{
	const struct mod_case *c = *state;
	struct event_list list;
	char str[64], err[256];
	const struct perf_event_attr *a;

	snprintf(str, sizeof(str), "cpu-clock:%s", c->mods);
	assert_int_equal(parse_events(&list, str, err, sizeof(err)), 0);
	assert_int_equal(list.nr, 1);
	a = &list.ev[0].attr;
	assert_string_equal(list.ev[0].name, str);
	check_excludes(a, c->excl);
	assert_int_equal(a->precise_ip, c->precise);
	assert_int_equal(a->exclude_idle, c->idle);
	assert_int_equal(a->pinned, c->pinned);
	assert_int_equal(a->exclusive, c->exclusive);
	assert_int_equal(list.ev[0].sample_read, c->sample_read);
	assert_int_equal(list.ev[0].precise_max, c->precise_max);
	assert_int_equal(list.ev[0].weak_group, c->weak);
	assert_int_equal(list.ev[0].leader, 0);
	assert_int_equal(list.ev[0].nr_members, 1);
	event_list__exit(&list);
}

static void test_good(void **state)
{
	const struct good_case *c = *state;
	struct event_list list;
	char err[256];

	assert_int_equal(parse_events(&list, c->str, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_int_equal(list.nr, 1);
	assert_int_equal(list.ev[0].attr.type, c->type);
	assert_int_equal(list.ev[0].attr.config, c->config);
	assert_string_equal(list.ev[0].name, c->name);
	assert_false(list.ev[0].tracepoint);
	assert_null(list.ev[0].tp_system);
	check_excludes(&list.ev[0].attr, c->excl);
	assert_int_equal(list.ev[0].attr.precise_ip, c->precise);
	/* The record code owns the rest of the attr. */
	assert_int_equal(list.ev[0].attr.sample_period, 0);
	assert_int_equal(list.ev[0].attr.sample_type, 0);
	event_list__exit(&list);
	assert_int_equal(list.nr, 0);
	assert_null(list.ev);
}

static void test_bad(void **state)
{
	const struct bad_case *c = *state;
	struct event_list list = { .nr = 42 };
	char err[512];

	assert_int_equal(parse_events(&list, c->str, err, sizeof(err)), -EINVAL);
	if (c->msg[0] == '=')
		assert_string_equal(err, c->msg + 1);
	else if (!strstr(err, c->msg))
		fail_msg("error '%s' does not contain '%s'", err, c->msg);
	assert_null(strchr(err, '\n'));
	/* Nothing half-built is left behind. */
	assert_int_equal(list.nr, 0);
	assert_null(list.ev);
}

static void test_list_order(void **state)
{
	struct event_list list;
	char err[256];

	assert_int_equal(parse_events(&list, "cpu-clock,cs:u,faults,r10", err, sizeof(err)), 0);
	assert_int_equal(list.nr, 4);
	assert_string_equal(list.ev[0].name, "cpu-clock");
	assert_string_equal(list.ev[1].name, "cs:u");
	assert_int_equal(list.ev[1].attr.config, PERF_COUNT_SW_CONTEXT_SWITCHES);
	assert_int_equal(list.ev[1].attr.exclude_kernel, 1);
	assert_string_equal(list.ev[2].name, "faults");
	assert_int_equal(list.ev[2].attr.exclude_kernel, 0);
	assert_int_equal(list.ev[3].attr.type, PERF_TYPE_RAW);
	assert_int_equal(list.ev[3].attr.config, 0x10);
	event_list__exit(&list);
	event_list__exit(&list);	/* twice is harmless */
	event_list__exit(NULL);
}

static void test_small_err_buffer(void **state)
{
	struct event_list list;
	char err[8];

	memset(err, 'X', sizeof(err));
	assert_int_equal(parse_events(&list, "foo", err, 5), -EINVAL);
	assert_string_equal(err, "unkn");
	assert_int_equal(err[5], 'X');
}

/* A fake tracefs: DIR/events/SYS/EVENT/id, as the kernel lays it out. */
static char fake_dir[64];

static void fake_tp(const char *sys, const char *event, const char *id)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/events/%s", fake_dir, sys);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/events/%s/%s", fake_dir, sys, event);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", fake_dir, sys, event);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(id, f);
	fclose(f);
}

static int fake_tracefs_setup(void **state)
{
	char path[256];

	strcpy(fake_dir, "/tmp/test_parse_events.XXXXXX");
	if (!mkdtemp(fake_dir))
		return -1;
	snprintf(path, sizeof(path), "%s/events", fake_dir);
	mkdir(path, 0755);
	fake_tp("fake_sys", "fake_ev", "1234\n");
	fake_tp("fake_sys", "bad_id", "garbage\n");
	fake_tp("r1a", "x", "77\n");
	fake_tp("globsys", "ev_a", "10\n");
	fake_tp("globsys", "ev_b", "11\n");
	fake_tp("globsys", "other", "12\n");
	fake_tp("globsys2", "ev_a", "20\n");
	/* an event without an id (ftrace:function and friends) is no perf event */
	snprintf(path, sizeof(path), "%s/events/globsys/noid", fake_dir);
	mkdir(path, 0755);
	/* the files tracefs keeps beside the events are no events */
	snprintf(path, sizeof(path), "%s/events/globsys/enable", fake_dir);
	fclose(fopen(path, "w"));
	snprintf(path, sizeof(path), "%s/events/globsys/filter", fake_dir);
	fclose(fopen(path, "w"));
	snprintf(path, sizeof(path), "%s/events/header_page", fake_dir);
	fclose(fopen(path, "w"));
	return tracefs_set_tracing_dir(fake_dir);
}

static int fake_tracefs_teardown(void **state)
{
	char cmd[128];

	tracefs_set_tracing_dir(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fake_dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_fake_tracepoint(void **state)
{
	struct event_list list;
	char err[512];

	assert_string_equal(tracefs_path(), fake_dir);
	assert_int_equal(parse_events(&list, "fake_sys:fake_ev", err, sizeof(err)), 0);
	assert_int_equal(list.nr, 1);
	assert_true(list.ev[0].tracepoint);
	assert_int_equal(list.ev[0].attr.type, PERF_TYPE_TRACEPOINT);
	assert_int_equal(list.ev[0].attr.config, 1234);
	assert_string_equal(list.ev[0].name, "fake_sys:fake_ev");
	assert_string_equal(list.ev[0].tp_system, "fake_sys");
	assert_string_equal(list.ev[0].tp_event, "fake_ev");
	check_excludes(&list.ev[0].attr, NULL);
	event_list__exit(&list);
}

/* perf keeps a tracepoint's name without its modifiers; so do we. */
static void test_fake_tracepoint_modifier(void **state)
{
	struct event_list list;
	char err[512];

	assert_int_equal(parse_events(&list, "cs,fake_sys:fake_ev:k", err, sizeof(err)), 0);
	assert_int_equal(list.nr, 2);
	assert_string_equal(list.ev[1].name, "fake_sys:fake_ev");
	assert_int_equal(list.ev[1].attr.config, 1234);
	check_excludes(&list.ev[1].attr, "uh");
	event_list__exit(&list);

	assert_int_equal(parse_events(&list, "fake_sys:fake_ev:q", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "invalid modifier ':q'"));
}

/* r1a looks like a raw event, but "x" is no modifier: a tracepoint. */
static void test_fake_tracepoint_rawlike(void **state)
{
	struct event_list list;
	char err[512];

	assert_int_equal(parse_events(&list, "r1a:x", err, sizeof(err)), 0);
	assert_int_equal(list.ev[0].attr.type, PERF_TYPE_TRACEPOINT);
	assert_int_equal(list.ev[0].attr.config, 77);
	event_list__exit(&list);
}

static void test_fake_tracepoint_missing(void **state)
{
	struct event_list list;
	char err[512], want[512];

	assert_int_equal(parse_events(&list, "fake_sys:nope", err, sizeof(err)), -ENOENT);
	snprintf(want, sizeof(want), "tracepoint 'fake_sys:nope' not found in %s/events "
		 "(see %s/available_events)", fake_dir, fake_dir);
	assert_string_equal(err, want);
	assert_int_equal(list.nr, 0);

	assert_int_equal(parse_events(&list, "nosys:fake_ev", err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "tracepoint 'nosys:fake_ev' not found in"));

	assert_int_equal(parse_events(&list, "fake_sys:bad_id", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "cannot read tracepoint id"));
	assert_non_null(strstr(err, "fake_sys/bad_id/id"));
}

static void test_real_sched_switch(void **state)
{
	const char *dir = tracefs_path();
	struct event_list list;
	char err[512], path[512];
	long long id;
	FILE *f;

	if (!dir) {
		print_message("# tracefs is not available (not mounted; mounting needs root)\n");
		skip();
	}
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/id", dir);
	f = fopen(path, "r");
	if (!f) {
		print_message("# cannot read %s: %s\n", path, strerror(errno));
		skip();
	}
	assert_int_equal(fscanf(f, "%lld", &id), 1);
	fclose(f);

	assert_int_equal(parse_events(&list, "sched:sched_switch", err, sizeof(err)), 0);
	assert_int_equal(list.nr, 1);
	assert_int_equal(list.ev[0].attr.type, PERF_TYPE_TRACEPOINT);
	assert_int_equal(list.ev[0].attr.config, id);
	assert_string_equal(list.ev[0].name, "sched:sched_switch");
	assert_true(list.ev[0].tracepoint);
	event_list__exit(&list);

	assert_int_equal(parse_events(&list, "sched:no_such_tracepoint", err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "not found in"));
	assert_non_null(strstr(err, dir));
}

/* Groups: leaders, sizes, and group modifiers on top of the events' own (perf 6.1's attrs). */
static void test_groups(void **state)
{
	struct event_list list;
	char err[256];

	assert_int_equal(parse_events(&list, "cs,{cpu-clock,task-clock}:S,faults", err,
				      sizeof(err)), 0);
	assert_int_equal(list.nr, 4);
	assert_int_equal(list.ev[0].leader, 0);
	assert_int_equal(list.ev[0].nr_members, 1);
	assert_false(list.ev[0].sample_read);
	assert_int_equal(list.ev[1].leader, 1);
	assert_int_equal(list.ev[1].nr_members, 2);
	assert_int_equal(list.ev[2].leader, 1);
	assert_true(list.ev[1].sample_read);
	assert_true(list.ev[2].sample_read);
	assert_string_equal(list.ev[1].name, "cpu-clock");
	assert_string_equal(list.ev[2].name, "task-clock");
	assert_int_equal(list.ev[3].leader, 3);
	assert_true(list.ev[3].cmdline_end);
	assert_false(list.ev[2].cmdline_end);
	event_list__exit(&list);

	/* {cs:u,faults}:k: perf writes cs with exclude_hv, faults with exclude_user|hv (both guest excluded) */
	assert_int_equal(parse_events(&list, "{cs:u,faults}:k", err, sizeof(err)), 0);
	check_excludes(&list.ev[0].attr, "hG");
	check_excludes(&list.ev[1].attr, "uhG");
	event_list__exit(&list);
	/* {cs:k,faults}:H */
	assert_int_equal(parse_events(&list, "{cs:k,faults}:H", err, sizeof(err)), 0);
	check_excludes(&list.ev[0].attr, "uhG");
	check_excludes(&list.ev[1].attr, "G");
	event_list__exit(&list);
	/* pinned and exclusive are the leader's only */
	assert_int_equal(parse_events(&list, "{cpu-clock,task-clock}:De", err, sizeof(err)), 0);
	assert_int_equal(list.ev[0].attr.pinned, 1);
	assert_int_equal(list.ev[0].attr.exclusive, 1);
	assert_int_equal(list.ev[1].attr.pinned, 0);
	assert_int_equal(list.ev[1].attr.exclusive, 0);
	event_list__exit(&list);
	/* a one-event group is no group */
	assert_int_equal(parse_events(&list, "{cs}", err, sizeof(err)), 0);
	assert_int_equal(list.ev[0].nr_members, 1);
	event_list__exit(&list);
}

/* Several -e: each appended; --group makes one group of them all, as perf 6.1. */
static void test_add_and_group_all(void **state)
{
	struct event_list list = { 0 };
	char err[256];

	assert_int_equal(parse_events__add(&list, "cs,faults", NULL, err, sizeof(err)), 0);
	assert_int_equal(parse_events__add(&list, "{cpu-clock,task-clock}", NULL, err,
					   sizeof(err)), 0);
	assert_int_equal(list.nr, 4);
	assert_true(list.ev[1].cmdline_end);
	assert_true(list.ev[3].cmdline_end);
	assert_int_equal(list.ev[3].leader, 2);
	/* A failed -e leaves the list as it was. */
	assert_int_equal(parse_events__add(&list, "cs,bogus", NULL, err, sizeof(err)), -EINVAL);
	assert_int_equal(list.nr, 4);
	parse_events__group_all(&list);
	for (int i = 0; i < 4; i++)
		assert_int_equal(list.ev[i].leader, 0);
	assert_int_equal(list.ev[0].nr_members, 4);
	event_list__exit(&list);
}

/* Terms that win over the command line, and the name perf gives a fallen-back cycles. */
static void test_terms_and_names(void **state)
{
	struct event_list list;
	struct perf_event_attr a = { 0 };
	char err[256], buf[16];

	assert_int_equal(parse_events(&list, "software/config=0,period=1000,freq=0,"
				      "call-graph=dwarf,stack-size=4096/", err, sizeof(err)), 0);
	assert_true(list.ev[0].terms.has_period);
	assert_int_equal(list.ev[0].terms.period, 1000);
	assert_true(list.ev[0].terms.has_freq);
	assert_int_equal(list.ev[0].terms.freq, 0);
	assert_string_equal(list.ev[0].terms.callgraph, "dwarf");
	assert_int_equal(list.ev[0].terms.stack_size, 4096);
	assert_int_equal(list.ev[0].attr.sample_period, 0);	/* evlist applies it */
	event_list__exit(&list);

	assert_int_equal(parse_events(&list, "software/freq=99,name='my ev'/", err,
				      sizeof(err)), 0);
	assert_string_equal(list.ev[0].name, "my ev");
	assert_false(list.ev[0].terms.has_period);
	assert_int_equal(list.ev[0].terms.freq, 99);
	assert_string_equal(list.ev[0].terms.callgraph, "");
	event_list__exit(&list);

	/* perf's evsel__add_modifiers: cycles:u becomes cpu-clock:uH, cycles stays bare */
	a.exclude_guest = 1;
	event_attr__modifiers(&a, buf, sizeof(buf));
	assert_string_equal(buf, "");
	a.exclude_kernel = a.exclude_hv = 1;
	event_attr__modifiers(&a, buf, sizeof(buf));
	assert_string_equal(buf, ":uH");
	a.exclude_kernel = 0;
	a.exclude_user = 1;
	a.exclude_guest = 0;
	event_attr__modifiers(&a, buf, sizeof(buf));
	assert_string_equal(buf, ":k");
	a = (struct perf_event_attr){ .precise_ip = 2, .exclude_guest = 1 };
	event_attr__modifiers(&a, buf, sizeof(buf));
	assert_string_equal(buf, ":ppH");
}

/* --filter: every event of its -e, tracepoints only. */
static void test_filter(void **state)
{
	struct event_list list = { 0 };
	char err[512];

	assert_int_equal(parse_events__add(&list, "cs", NULL, err, sizeof(err)), 0);
	assert_int_equal(parse_events__add(&list, "fake_sys:fake_ev,r1a:x", "prev_pid == 0",
					   err, sizeof(err)), 0);
	assert_int_equal(list.nr, 3);
	assert_null(list.ev[0].filter);
	assert_string_equal(list.ev[1].filter, "prev_pid == 0");
	assert_string_equal(list.ev[2].filter, "prev_pid == 0");
	assert_int_equal(parse_events__add(&list, "fake_sys:fake_ev,cs", "x == 1", err,
					   sizeof(err)), -EINVAL);
	assert_string_equal(err, "--filter 'x == 1' needs tracepoints, but event 'cs' of -e "
			    "'fake_sys:fake_ev,cs' is none (perf: \"This CPU does not support "
			    "address filtering\")");
	assert_int_equal(list.nr, 3);
	event_list__exit(&list);
}

/* Globs: readdir order within the tree, every matching system, modifiers on each. */
static int names_match(const struct event_list *l, const char *const *want, int nr)
{
	if (l->nr != nr)
		return 0;
	for (int i = 0; i < nr; i++) {
		int found = 0;

		for (int j = 0; j < l->nr; j++)
			found += !strcmp(l->ev[j].name, want[i]);
		if (found != 1)
			return 0;
	}
	return 1;
}

static void test_tracepoint_globs(void **state)
{
	static const char *const sched_star[] = { "globsys:ev_a", "globsys:ev_b" };
	static const char *const all_a[] = { "globsys:ev_a", "globsys2:ev_a" };
	static const char *const q[] = { "globsys:ev_a", "globsys:ev_b", "globsys:other" };
	struct event_list list;
	char err[512], want[512];

	assert_int_equal(parse_events(&list, "globsys:ev_*", err, sizeof(err)), 0);
	assert_true(names_match(&list, sched_star, 2));
	for (int i = 0; i < list.nr; i++) {
		assert_true(list.ev[i].tracepoint);
		assert_int_equal(list.ev[i].attr.config, strcmp(list.ev[i].tp_event, "ev_a") ? 11 : 10);
	}
	event_list__exit(&list);

	assert_int_equal(parse_events(&list, "*:ev_a", err, sizeof(err)), 0);
	assert_true(names_match(&list, all_a, 2));
	event_list__exit(&list);

	assert_int_equal(parse_events(&list, "globsys:*:k", err, sizeof(err)), 0);
	assert_true(names_match(&list, q, 3));
	for (int i = 0; i < list.nr; i++)
		check_excludes(&list.ev[i].attr, "uh");
	event_list__exit(&list);

	assert_int_equal(parse_events(&list, "glob?ys2:ev_[a-z]", err, sizeof(err)), 0);
	assert_int_equal(list.nr, 1);
	assert_string_equal(list.ev[0].name, "globsys2:ev_a");
	event_list__exit(&list);

	assert_int_equal(parse_events(&list, "globsys:nomatch*", err, sizeof(err)), -ENOENT);
	snprintf(want, sizeof(want), "no tracepoint matches 'globsys:nomatch*' in %s/events "
		 "(see %s/available_events)", fake_dir, fake_dir);
	assert_string_equal(err, want);
	assert_int_equal(list.nr, 0);
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_list_order),
		cmocka_unit_test(test_small_err_buffer),
		cmocka_unit_test_setup_teardown(test_fake_tracepoint,
						fake_tracefs_setup, fake_tracefs_teardown),
		cmocka_unit_test_setup_teardown(test_fake_tracepoint_modifier,
						fake_tracefs_setup, fake_tracefs_teardown),
		cmocka_unit_test_setup_teardown(test_fake_tracepoint_rawlike,
						fake_tracefs_setup, fake_tracefs_teardown),
		cmocka_unit_test_setup_teardown(test_fake_tracepoint_missing,
						fake_tracefs_setup, fake_tracefs_teardown),
		cmocka_unit_test(test_real_sched_switch),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_add_and_group_all),
		cmocka_unit_test(test_terms_and_names),
		cmocka_unit_test_setup_teardown(test_filter,
						fake_tracefs_setup, fake_tracefs_teardown),
		cmocka_unit_test_setup_teardown(test_tracepoint_globs,
						fake_tracefs_setup, fake_tracefs_teardown),
	};
	size_t nr = ARRAY_SIZE(fixed) + ARRAY_SIZE(good_cases) + ARRAY_SIZE(bad_cases) +
		    ARRAY_SIZE(mod_cases);
	struct CMUnitTest *tests = calloc(nr, sizeof(*tests));
	char **names = calloc(nr, sizeof(*names));
	size_t i, n = 0;
	int ret;

	if (!tests || !names)
		return 1;
	for (i = 0; i < ARRAY_SIZE(fixed); i++)
		tests[n++] = fixed[i];
	for (i = 0; i < ARRAY_SIZE(good_cases); i++, n++) {
		if (asprintf(&names[n], "event '%s'", good_cases[i].str) < 0)
			return 1;
		tests[n].name = names[n];
		tests[n].test_func = test_good;
		tests[n].initial_state = (void *)&good_cases[i];
	}
	for (i = 0; i < ARRAY_SIZE(mod_cases); i++, n++) {
		if (asprintf(&names[n], "modifier ':%s'", mod_cases[i].mods) < 0)
			return 1;
		tests[n].name = names[n];
		tests[n].test_func = test_modifier;
		tests[n].initial_state = (void *)&mod_cases[i];
	}
	for (i = 0; i < ARRAY_SIZE(bad_cases); i++, n++) {
		if (asprintf(&names[n], "reject '%s'", bad_cases[i].str) < 0)
			return 1;
		tests[n].name = names[n];
		tests[n].test_func = test_bad;
		tests[n].initial_state = (void *)&bad_cases[i];
	}
	ret = _cmocka_run_group_tests("parse_events", tests, n, NULL, NULL);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(tests);
	return ret;
}
