// SPDX-License-Identifier: GPL-2.0
/*
 * Feature payloads parse back with perf 6.1's layouts: a small reader
 * here walks every payload to its exact end and checks the values
 * against what the machine says (uname, sysconf, /proc, /sys).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "cursor.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "format/build-id.h"
#include "format/features.h"
#include "version.h"
#include "perf-file.h"

/* ---- a reader for payloads -------------------------------------------- */

static struct cur cur_of(const struct strbuf *sb)
{
	struct cur c = { sb->data, sb->len };
	return c;
}

/* A perf_header_string: len padded to 64, NUL inside, zeros after it. */
static const char *get_str(struct cur *c)
{
	uint32_t len = get_u32(c);
	const char *s = c->p;
	size_t n, i;

	assert_true(len > 0);
	assert_int_equal(len % 64, 0);
	assert_true(len <= c->left);
	n = strnlen(s, len);
	assert_true(n < len);
	for (i = n; i < len; i++)
		assert_int_equal(s[i], 0);
	take(c, NULL, len);
	return s;
}


static struct feature_env empty_env;

/* Write feature feat for env into a fresh buffer; returns the error. */
static int write_feat(int feat, const struct feature_env *env, struct strbuf *sb)
{
	strbuf__init(sb);
	return feature__write(feat, env, sb);
}

/* A one-string payload, exactly one string and nothing after it. */
static char *one_string(int feat, const struct feature_env *env)
{
	struct strbuf sb;
	struct cur c;
	char *s;

	assert_int_equal(write_feat(feat, env, &sb), 0);
	c = cur_of(&sb);
	s = strdup(get_str(&c));
	at_end(&c);
	strbuf__exit(&sb);
	return s;
}

/* ---- tests ------------------------------------------------------------ */

static void test_feature_list(void **state)
{
	int i, last = 0;

	for (i = 0; perfcap_features[i] != -1; i++) {
		assert_true(perfcap_features[i] > last);
		assert_true(perfcap_features[i] < HEADER_LAST_FEATURE);
		last = perfcap_features[i];
	}
	assert_true(i >= 12);
}

static void test_uname_strings(void **state)
{
	struct utsname uts;
	char *s;

	assert_int_equal(uname(&uts), 0);
	s = one_string(HEADER_HOSTNAME, &empty_env);
	assert_string_equal(s, uts.nodename);
	free(s);
	s = one_string(HEADER_OSRELEASE, &empty_env);
	assert_string_equal(s, uts.release);
	free(s);
	s = one_string(HEADER_ARCH, &empty_env);
	assert_string_equal(s, uts.machine);
	free(s);
}

static void test_version(void **state)
{
	struct feature_env env = { .version = "perfcap 9.9" };
	char *s;

	s = one_string(HEADER_VERSION, &env);
	assert_string_equal(s, "perfcap 9.9");
	free(s);
	s = one_string(HEADER_VERSION, &empty_env);
	assert_string_equal(s, "perfcap " PERFCAP_VERSION);
	free(s);
}

static void test_nrcpus(void **state)
{
	struct strbuf sb;
	struct cur c;
	uint32_t avail, online;

	assert_int_equal(write_feat(HEADER_NRCPUS, &empty_env, &sb), 0);
	c = cur_of(&sb);
	avail = get_u32(&c);
	online = get_u32(&c);
	at_end(&c);
	assert_true(online >= 1);
	assert_true(online <= avail);
	assert_int_equal(online, sysconf(_SC_NPROCESSORS_ONLN));
	strbuf__exit(&sb);
}

static void test_cpudesc(void **state)
{
	struct strbuf sb;
	struct cur c;
	const char *s;
	int err = write_feat(HEADER_CPUDESC, &empty_env, &sb);

	if (err == -ENOENT) {
		strbuf__exit(&sb);
		skip(); /* no "model name" in this arch's /proc/cpuinfo */
	}
	assert_int_equal(err, 0);
	c = cur_of(&sb);
	s = get_str(&c);
	at_end(&c);
	assert_true(strlen(s) > 0);
	assert_null(strstr(s, "  "));	/* runs of blanks squashed */
	assert_null(strchr(s, '\t'));
	assert_null(strchr(s, '\n'));
	strbuf__exit(&sb);
}

#if defined(__x86_64__) || defined(__i386__)
/* A "key\t: value" field of the first CPU in /proc/cpuinfo (x86's keys). */
static int cpuinfo_field(const char *key, char *val, size_t size)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[1024];
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		size_t klen = strlen(key);

		if (!colon || strncmp(line, key, klen) ||
		    (line[klen] != ' ' && line[klen] != '\t'))
			continue;
		snprintf(val, size, "%s", colon + 2);
		val[strcspn(val, "\n")] = 0;
		err = 0;
		break;
	}
	fclose(f);
	return err;
}
#endif

static void test_cpuid(void **state)
{
	struct strbuf sb;
	int err = write_feat(HEADER_CPUID, &empty_env, &sb);
#if defined(__x86_64__) || defined(__i386__)
	char vendor[64], family[16], model[16], stepping[16], want[128];
	struct cur c;

	assert_int_equal(err, 0);
	c = cur_of(&sb);
	if (cpuinfo_field("vendor_id", vendor, sizeof(vendor)) ||
	    cpuinfo_field("cpu family", family, sizeof(family)) ||
	    cpuinfo_field("model", model, sizeof(model)) ||
	    cpuinfo_field("stepping", stepping, sizeof(stepping))) {
		strbuf__exit(&sb);
		skip();
	}
	/* the kernel computes family/model the way perf does */
	snprintf(want, sizeof(want), "%s,%s,%s,%s", vendor, family, model, stepping);
	assert_string_equal(get_str(&c), want);
	at_end(&c);
#else
	assert_int_equal(err, -ENOENT);
	assert_int_equal(sb.len, 0);
#endif
	strbuf__exit(&sb);
}

static void test_total_mem(void **state)
{
	struct strbuf sb;
	struct cur c;

	{
		FILE *f = fopen("/proc/meminfo", "r");
		unsigned long long kb = 0;
		char line[256];

		assert_non_null(f);
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
				break;
		fclose(f);
		assert_true(kb > 0);
		assert_int_equal(write_feat(HEADER_TOTAL_MEM, &empty_env, &sb), 0);
		c = cur_of(&sb);
		assert_int_equal(get_u64(&c), kb);
		at_end(&c);
	}
	strbuf__exit(&sb);
}

static void test_cmdline(void **state)
{
	char *argv[] = { "perfcap", "record", "-e", "cpu-clock", "--", "sleep 1", NULL };
	struct feature_env env = { .argc = 6, .argv = argv };
	char exe[4096];
	ssize_t n;
	struct strbuf sb;
	struct cur c;
	int i;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = 0;
	assert_int_equal(write_feat(HEADER_CMDLINE, &env, &sb), 0);
	c = cur_of(&sb);
	assert_int_equal(get_u32(&c), 6);
	assert_string_equal(get_str(&c), exe);
	for (i = 1; i < 6; i++)
		assert_string_equal(get_str(&c), argv[i]);
	at_end(&c);
	strbuf__exit(&sb);
}

static void test_event_desc_round_trip(void **state)
{
	struct perf_event_attr a1, a2, got;
	uint64_t ids1[] = { 7, 8, 9 }, ids2[] = { 1234567890123ULL };
	struct feature_event ev[2] = {
		{ &a1, "cpu-clock", ids1, 3 },
		{ &a2, "sched:sched_switch", ids2, 1 },
	};
	struct feature_env env = { .nr_events = 2, .events = ev };
	struct strbuf sb;
	struct cur c;
	int i, j;

	memset(&a1, 0, sizeof(a1));
	a1.type = PERF_TYPE_SOFTWARE;
	a1.config = PERF_COUNT_SW_CPU_CLOCK;
	a1.size = sizeof(a1);
	a1.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	a1.sample_id_all = 1;
	memset(&a2, 0, sizeof(a2));
	a2.type = PERF_TYPE_TRACEPOINT;
	a2.config = 372;
	a2.size = sizeof(a2);
	a2.sample_type = PERF_SAMPLE_RAW;

	assert_int_equal(write_feat(HEADER_EVENT_DESC, &env, &sb), 0);
	c = cur_of(&sb);
	assert_int_equal(get_u32(&c), 2);
	assert_int_equal(get_u32(&c), PERFCAP_ATTR_SIZE);
	for (i = 0; i < 2; i++) {
		memset(&got, 0, sizeof(got));
		take(&c, &got, PERFCAP_ATTR_SIZE);
		assert_int_equal(got.size, PERFCAP_ATTR_SIZE);
		assert_int_equal(got.type, ev[i].attr->type);
		assert_int_equal(got.config, ev[i].attr->config);
		assert_int_equal(got.sample_type, ev[i].attr->sample_type);
		assert_int_equal(got.sample_id_all, ev[i].attr->sample_id_all);
		assert_int_equal(get_u32(&c), ev[i].nr_ids);
		assert_string_equal(get_str(&c), ev[i].name);
		for (j = 0; j < ev[i].nr_ids; j++)
			assert_int_equal(get_u64(&c), ev[i].ids[j]);
	}
	at_end(&c);
	strbuf__exit(&sb);
}

static void test_event_desc_errors(void **state)
{
	struct perf_event_attr a;
	uint64_t id = 1;
	struct feature_event ev = { &a, NULL, &id, 1 };
	struct feature_env env = { .nr_events = 1, .events = &ev };
	struct strbuf sb;

	memset(&a, 0, sizeof(a));
	assert_int_equal(write_feat(HEADER_EVENT_DESC, &empty_env, &sb), -ENOENT);
	assert_int_equal(sb.len, 0);
	strbuf__exit(&sb);

	/* an error leaves what was in the buffer untouched */
	strbuf__init(&sb);
	strbuf__add(&sb, "keep", 4);
	assert_int_equal(feature__write(HEADER_EVENT_DESC, &env, &sb), -EINVAL);
	assert_int_equal(sb.len, 4);
	assert_memory_equal(sb.data, "keep", 5);
	strbuf__exit(&sb);
}

static uint32_t nrcpus_avail(void)
{
	struct strbuf sb;
	struct cur c;
	uint32_t avail;

	assert_int_equal(write_feat(HEADER_NRCPUS, &empty_env, &sb), 0);
	c = cur_of(&sb);
	avail = get_u32(&c);
	strbuf__exit(&sb);
	return avail;
}

static void test_cpu_topology(void **state)
{
	uint32_t avail = nrcpus_avail(), n, i;
	struct strbuf sb;
	struct cur c;
	int err = write_feat(HEADER_CPU_TOPOLOGY, &empty_env, &sb);

	if (err == -ENOENT) {
		strbuf__exit(&sb);
		skip(); /* no topology in sysfs */
	}
	assert_int_equal(err, 0);
	c = cur_of(&sb);
	n = get_u32(&c);		/* package lists */
	assert_true(n >= 1);
	for (i = 0; i < n; i++)
		assert_true(strlen(get_str(&c)) > 0);
	n = get_u32(&c);		/* core lists */
	assert_true(n >= 1);
	for (i = 0; i < n; i++)
		assert_true(strlen(get_str(&c)) > 0);
	for (i = 0; i < avail; i++) {	/* one {core, socket} per CPU */
		uint32_t core = get_u32(&c), socket = get_u32(&c);
		char path[128];
		long long v;

		/* perf 6.1 drops the topology if a socket id exceeds this */
		assert_true(socket == (uint32_t)-1 || socket <= avail);
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%u/topology/core_id", i);
		assert_int_equal(core, read_int(path, &v) ? (uint32_t)-1 : (uint32_t)v);
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%u/topology/physical_package_id", i);
		assert_int_equal(socket, read_int(path, &v) ? (uint32_t)-1 : (uint32_t)v);
	}
	if (c.left) {			/* the die section */
		n = get_u32(&c);
		assert_true(n >= 1);
		for (i = 0; i < n; i++)
			get_str(&c);
		for (i = 0; i < avail; i++)
			get_u32(&c);
	}
	at_end(&c);
	strbuf__exit(&sb);
}

static void test_numa_topology(void **state)
{
	struct strbuf sb;
	struct cur c;
	uint32_t n, i;
	int err = write_feat(HEADER_NUMA_TOPOLOGY, &empty_env, &sb);

	if (err == -ENOENT) {
		strbuf__exit(&sb);
		skip(); /* no NUMA information in sysfs */
	}
	assert_int_equal(err, 0);
	c = cur_of(&sb);
	n = get_u32(&c);
	assert_true(n >= 1);
	for (i = 0; i < n; i++) {
		uint64_t total, mfree;

		get_u32(&c);
		total = get_u64(&c);
		mfree = get_u64(&c);
		assert_true(total > 0);
		assert_true(mfree <= total);
		get_str(&c);
	}
	at_end(&c);
	strbuf__exit(&sb);
}

static void test_pmu_mappings(void **state)
{
	struct strbuf sb;
	struct cur c;
	uint32_t n, i;
	bool software = false;

	assert_int_equal(write_feat(HEADER_PMU_MAPPINGS, &empty_env, &sb), 0);
	c = cur_of(&sb);
	n = get_u32(&c);
	for (i = 0; i < n; i++) {
		uint32_t type = get_u32(&c);
		const char *name = get_str(&c);

		if (!strcmp(name, "software")) {
			assert_int_equal(type, PERF_TYPE_SOFTWARE);
			software = true;
		}
	}
	at_end(&c);
	if (!access("/sys/bus/event_source/devices/software", F_OK))
		assert_true(software);
	strbuf__exit(&sb);
}

static void test_cache(void **state)
{
	struct strbuf sb;
	struct cur c;
	uint32_t n, i, level, prev = 0;
	int err = write_feat(HEADER_CACHE, &empty_env, &sb);

	assert_int_equal(err, 0);
	c = cur_of(&sb);
	assert_int_equal(get_u32(&c), 1);
	n = get_u32(&c);
	/* Without cache/ in sysfs (some VMs) perf writes nr = 0, and so do we. */
	if (access("/sys/devices/system/cpu/cpu0/cache/index0", F_OK))
		assert_int_equal(n, 0);
	else
		assert_true(n >= 1);
	for (i = 0; i < n; i++) {
		level = get_u32(&c);
		assert_true(level >= prev); /* sorted by level */
		prev = level;
		get_u32(&c);
		get_u32(&c);
		get_u32(&c);
		assert_true(strlen(get_str(&c)) > 0); /* type */
		assert_true(strlen(get_str(&c)) > 0); /* size */
		get_str(&c);			      /* shared cpus */
	}
	at_end(&c);
	strbuf__exit(&sb);
}

static void test_sample_time(void **state)
{
	struct feature_env env = { .first_sample_time = 11, .last_sample_time = 22 };
	struct strbuf sb;
	struct cur c;

	assert_int_equal(write_feat(HEADER_SAMPLE_TIME, &env, &sb), 0);
	c = cur_of(&sb);
	assert_int_equal(get_u64(&c), 11);
	assert_int_equal(get_u64(&c), 22);
	at_end(&c);
	strbuf__exit(&sb);
}

static void test_mem_topology(void **state)
{
	struct strbuf sb;
	struct cur c;
	uint64_t n, i, prev = 0;
	int err = write_feat(HEADER_MEM_TOPOLOGY, &empty_env, &sb);

	if (err == -ENOENT) {
		strbuf__exit(&sb);
		skip(); /* no memory blocks in sysfs */
	}
	assert_int_equal(err, 0);
	c = cur_of(&sb);
	assert_int_equal(get_u64(&c), 1);
	assert_true(get_u64(&c) > 0); /* block size */
	n = get_u64(&c);
	for (i = 0; i < n; i++) {
		uint64_t node = get_u64(&c), size = get_u64(&c), nbits = get_u64(&c);

		assert_true(i == 0 || node > prev);
		prev = node;
		assert_int_equal(nbits, size);
		take(&c, NULL, (nbits + 63) / 64 * 8);
	}
	at_end(&c);
	strbuf__exit(&sb);
}

/* The running kernel's build id as perf sees it, or "" if perf is absent. */
static void perf_kernel_build_id(char *hex, size_t size)
{
	FILE *p = popen("perf buildid-list -k 2>/dev/null", "r");

	hex[0] = 0;
	if (!p)
		return;
	if (fgets(hex, size, p))
		hex[strcspn(hex, "\n")] = 0;
	pclose(p);
}

static void test_build_id_kernel(void **state)
{
	struct build_id kbid;
	char want[2 * BUILD_ID_MAX + 1], got[2 * BUILD_ID_MAX + 1], perf_hex[128];
	struct perf_build_id_entry e;
	bool kernel = false;
	struct strbuf sb;
	struct cur c;
	int err;

	if (build_id__kernel(&kbid) || !kbid.size) {
		/* nothing to write: never a made-up id */
		assert_int_equal(write_feat(HEADER_BUILD_ID, &empty_env, &sb), -ENOENT);
		strbuf__exit(&sb);
		skip();
	}
	build_id__hex(&kbid, want);
	perf_kernel_build_id(perf_hex, sizeof(perf_hex));
	if (perf_hex[0])
		assert_string_equal(want, perf_hex);

	err = write_feat(HEADER_BUILD_ID, &empty_env, &sb);
	assert_int_equal(err, 0);
	c = cur_of(&sb);
	while (c.left) {
		struct build_id bid;
		const char *name;
		size_t namelen;

		take(&c, &e, sizeof(e));
		assert_int_equal(e.header.type, 0);
		assert_true(e.header.misc & PERF_RECORD_MISC_BUILD_ID_SIZE);
		assert_int_equal(e.pid, -1);
		assert_true(e.header.size > sizeof(e));
		namelen = e.header.size - sizeof(e);
		assert_int_equal(namelen % NAME_ALIGN, 0);
		assert_true(namelen <= c.left);
		name = c.p;
		assert_true(strnlen(name, namelen) < namelen);
		take(&c, NULL, namelen);
		if (strcmp(name, "[kernel.kallsyms]"))
			continue;
		kernel = true;
		assert_int_equal(e.header.misc, PERF_RECORD_MISC_KERNEL |
						PERF_RECORD_MISC_BUILD_ID_SIZE);
		assert_int_equal(e.header.size, 100);
		bid.size = e.build_id[BUILD_ID_ENTRY_SIZE_BYTE];
		memcpy(bid.data, e.build_id, BUILD_ID_SIZE);
		assert_int_equal(bid.size, kbid.size);
		build_id__hex(&bid, got);
		assert_string_equal(got, want);
	}
	assert_true(kernel);
	strbuf__exit(&sb);
}

static void test_build_id_user_dso(void **state)
{
	struct feature_dso dso = { .filename = "/usr/lib/libfoo.so" };
	struct feature_env env = { .nr_dsos = 1, .dsos = &dso };
	struct perf_build_id_entry e;
	struct strbuf sb;
	struct cur c;
	bool found = false;
	int i;

	dso.bid.size = 20;
	for (i = 0; i < 20; i++)
		dso.bid.data[i] = i + 1;
	assert_int_equal(write_feat(HEADER_BUILD_ID, &env, &sb), 0);
	c = cur_of(&sb);
	while (c.left) {
		size_t namelen;

		take(&c, &e, sizeof(e));
		namelen = e.header.size - sizeof(e);
		if (!strcmp(c.p, dso.filename)) {
			found = true;
			assert_int_equal(e.header.misc, PERF_RECORD_MISC_USER |
							PERF_RECORD_MISC_BUILD_ID_SIZE);
			assert_int_equal(e.build_id[BUILD_ID_ENTRY_SIZE_BYTE], 20);
			assert_memory_equal(e.build_id, dso.bid.data, 20);
			assert_int_equal(namelen, 64);
		}
		take(&c, NULL, namelen);
	}
	assert_true(found);
	strbuf__exit(&sb);
}

/* dsos_only: the recorder's list is the whole section, kernel entries with their cpumode. */
static void test_build_id_dsos_only(void **state)
{
	struct feature_dso dsos[2] = {
		{ .filename = "[kernel.kallsyms]", .cpumode = PERF_RECORD_MISC_KERNEL },
		{ .filename = "/bin/x" },
	};
	struct feature_env env = { .nr_dsos = 2, .dsos = dsos, .dsos_only = true };
	struct perf_build_id_entry e;
	struct strbuf sb;
	struct cur c;
	int n = 0;

	dsos[0].bid.size = dsos[1].bid.size = 20;
	memset(dsos[0].bid.data, 0x11, 20);
	memset(dsos[1].bid.data, 0x22, 20);
	assert_int_equal(write_feat(HEADER_BUILD_ID, &env, &sb), 0);
	c = cur_of(&sb);
	while (c.left) {
		take(&c, &e, sizeof(e));
		assert_true(n < 2);
		assert_string_equal(c.p, dsos[n].filename);
		assert_int_equal(e.header.misc, (n ? PERF_RECORD_MISC_USER : PERF_RECORD_MISC_KERNEL) |
						PERF_RECORD_MISC_BUILD_ID_SIZE);
		assert_memory_equal(e.build_id, dsos[n].bid.data, 20);
		take(&c, NULL, e.header.size - sizeof(e));
		n++;
	}
	assert_int_equal(n, 2);
	strbuf__exit(&sb);
	/* Nothing hit: no section, as perf leaves it out. */
	env.nr_dsos = 0;
	assert_int_equal(write_feat(HEADER_BUILD_ID, &env, &sb), -ENOENT);
	strbuf__exit(&sb);
}

static void test_not_applicable(void **state)
{
	struct feature_env env = { .no_buildid = true };
	struct strbuf sb;

	assert_int_equal(write_feat(HEADER_BUILD_ID, &env, &sb), -ENOENT);
	assert_int_equal(sb.len, 0);
	strbuf__exit(&sb);
	assert_int_equal(write_feat(HEADER_TRACING_DATA, &empty_env, &sb), -ENOENT);
	assert_int_equal(sb.len, 0);
	strbuf__exit(&sb);
	assert_int_equal(write_feat(HEADER_BRANCH_STACK, &empty_env, &sb), -ENOENT);
	assert_int_equal(write_feat(HEADER_LAST_FEATURE + 5, &empty_env, &sb), -ENOENT);
	assert_int_equal(sb.len, 0);
	strbuf__exit(&sb);
}

/* Every listed feature either applies or says -ENOENT; none half-writes. */
static void test_every_feature(void **state)
{
	const char *systems[] = { "sched" }, *events[] = { "sched_switch" };
	struct perf_event_attr a;
	uint64_t id = 5;
	struct feature_event ev = { &a, "cpu-clock", &id, 1 };
	char *argv[] = { "perfcap", "record", NULL };
	struct feature_env env = {
		.argc = 2, .argv = argv, .nr_events = 1, .events = &ev,
		.nr_tracepoints = 1, .tp_system = systems, .tp_event = events,
	};
	int i;

	memset(&a, 0, sizeof(a));
	for (i = 0; perfcap_features[i] != -1; i++) {
		struct strbuf sb;
		int err = write_feat(perfcap_features[i], &env, &sb);

		if (err)
			assert_int_equal(sb.len, 0);
		else
			assert_true(sb.len > 0);
		strbuf__exit(&sb);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_feature_list),
		cmocka_unit_test(test_uname_strings),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_nrcpus),
		cmocka_unit_test(test_cpudesc),
		cmocka_unit_test(test_cpuid),
		cmocka_unit_test(test_total_mem),
		cmocka_unit_test(test_cmdline),
		cmocka_unit_test(test_event_desc_round_trip),
		cmocka_unit_test(test_event_desc_errors),
		cmocka_unit_test(test_cpu_topology),
		cmocka_unit_test(test_numa_topology),
		cmocka_unit_test(test_pmu_mappings),
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_sample_time),
		cmocka_unit_test(test_mem_topology),
		cmocka_unit_test(test_build_id_kernel),
		cmocka_unit_test(test_build_id_user_dso),
		cmocka_unit_test(test_build_id_dsos_only),
		cmocka_unit_test(test_not_applicable),
		cmocka_unit_test(test_every_feature),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
