// SPDX-License-Identifier: GPL-2.0
/*
 * Feature section payloads, each exactly as perf 6.1 writes it and reads
 * it back (util/header.c there). Strings are perf_header_strings: u32
 * length (NUL included, padded to 64) and the zero-padded bytes. See
 * shared/PERFDATA.md B.3 for the layouts.
 *
 * Everything here describes the recording machine as perf would see it:
 * when perf reads a file it trusts these over the analysing host.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "format/features.h"
#include "format/synthesize.h"
#include "version.h"
#include "perf-file.h"
#include "format/tracing-data.h"

#define SYS_CPU "/sys/devices/system/cpu"
#define SYS_NODE "/sys/devices/system/node"
#define MAX_CACHE_LEVEL 4 /* cache/index0..3, as perf looks */

/* ---- small helpers ---------------------------------------------------- */

/* A growable array of ints (CPU or node numbers, ids). */
struct intv {
	int *v;
	int nr, cap;
};

static void intv__push(struct intv *iv, int x)
{
	if (iv->nr == iv->cap) {
		iv->cap = iv->cap ? 2 * iv->cap : 16;
		iv->v = xrealloc(iv->v, iv->cap * sizeof(*iv->v));
	}
	iv->v[iv->nr++] = x;
}

static bool intv__has(const struct intv *iv, int x)
{
	int i;

	for (i = 0; i < iv->nr; i++)
		if (iv->v[i] == x)
			return true;
	return false;
}

/* Parse a kernel list ("0-3,7") into iv. 0 or -EINVAL. */
static int parse_list(const char *s, struct intv *iv)
{
	while (*s && *s != '\n') {
		char *end;
		long lo, hi;

		lo = strtol(s, &end, 10);
		if (end == s || lo < 0)
			return -EINVAL;
		hi = lo;
		s = end;
		if (*s == '-') {
			s++;
			hi = strtol(s, &end, 10);
			if (end == s || hi < lo)
				return -EINVAL;
			s = end;
		}
		for (; lo <= hi; lo++)
			intv__push(iv, (int)lo);
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -EINVAL;
	}
	return 0;
}

static int read_list(const char *path, struct intv *iv)
{
	char buf[4096];
	int err = read_line(path, buf, sizeof(buf));

	if (err)
		return err;
	return parse_list(buf, iv);
}

/* One more than the highest CPU in a list file (present, possible). */
static int max_cpu_of(const char *path)
{
	struct intv iv = { 0 };
	int i, max = -1, err;

	err = read_list(path, &iv);
	for (i = 0; !err && i < iv.nr; i++)
		max = MAX(max, iv.v[i]);
	free(iv.v);
	if (err)
		return err;
	return max < 0 ? -ENOENT : max + 1;
}

/* perf's cpu__max_present_cpu(): NRCPUS "avail", CPU_TOPOLOGY's count. */
static int nr_cpus_avail(void)
{
	return max_cpu_of(SYS_CPU "/present");
}

/* An int from sysfs, -1 when unreadable (as perf stores it). */
static int sysfs_int(const char *fmt, int a)
{
	char path[256];
	long long v;

	snprintf(path, sizeof(path), fmt, a);
	if (read_int(path, &v))
		return -1;
	return (int)v;
}

/* Add s to a list of distinct strings (topology sibling lists). */
static void strv_add_unique(char ***v, int *nr, const char *s)
{
	int i;

	for (i = 0; i < *nr; i++)
		if (!strcmp((*v)[i], s))
			return;
	*v = xrealloc(*v, (*nr + 1) * sizeof(**v));
	(*v)[(*nr)++] = xstrdup(s);
}

static void strv_free(char **v, int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		free(v[i]);
	free(v);
}

/* ---- uname strings ---------------------------------------------------- */

static int write_uname(struct strbuf *sb, int which)
{
	struct utsname uts;

	if (uname(&uts) < 0)
		return -errno;
	switch (which) {
	case HEADER_HOSTNAME:
		strbuf__add_perf_string(sb, uts.nodename);
		break;
	case HEADER_OSRELEASE:
		strbuf__add_perf_string(sb, uts.release);
		break;
	default:
		strbuf__add_perf_string(sb, uts.machine);
		break;
	}
	return 0;
}

static int write_version(const struct feature_env *env, struct strbuf *sb)
{
	/* Only printed ("# perf version : ..."); no reader parses it. */
	strbuf__add_perf_string(sb, env->version ? env->version : "perfcap " PERFCAP_VERSION);
	return 0;
}

/* ---- CPUs and memory -------------------------------------------------- */

static int write_nrcpus(struct strbuf *sb)
{
	int avail = nr_cpus_avail();
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	if (avail < 0)
		return avail;
	if (online < 0)
		return -errno;
	strbuf__add_u32(sb, (uint32_t)avail);
	strbuf__add_u32(sb, (uint32_t)online);
	return 0;
}

/* The /proc/cpuinfo keys perf takes the CPU description from, per arch. */
#if defined(__powerpc__) || defined(__hppa__) || defined(__sparc__)
#define CPUDESC_KEYS { "cpu" }
#elif defined(__s390__)
#define CPUDESC_KEYS { "vendor_id" }
#elif defined(__sh__)
#define CPUDESC_KEYS { "cpu type" }
#elif defined(__alpha__) || defined(__mips__)
#define CPUDESC_KEYS { "cpu model" }
#elif defined(__arm__)
#define CPUDESC_KEYS { "model name", "Processor" }
#elif defined(__arc__)
#define CPUDESC_KEYS { "Processor" }
#elif defined(__xtensa__)
#define CPUDESC_KEYS { "core ID" }
#else
#define CPUDESC_KEYS { "model name" }
#endif

/*
 * The value of the first cpuinfo line starting with key, every run of
 * white space squashed to one blank (branding strings are padded).
 */
static int cpuinfo_value(const char *cpuinfo, const char *key, struct strbuf *out)
{
	const char *line = cpuinfo, *s, *eol;
	bool space = false;

	while (strncmp(line, key, strlen(key))) {
		line = strchr(line, '\n');
		if (!line || !line[1])
			return -ENOENT;
		line++;
	}
	eol = strchrnul(line, '\n');
	s = memchr(line, ':', eol - line);
	/* perf takes what follows ": ", or the whole line if there is none */
	if (s && s[1] == ' ' && s + 2 < eol)
		s += 2;
	else
		s = line;
	for (; s < eol; s++) {
		if (isspace((unsigned char)*s)) {
			if (!space)
				strbuf__add(out, " ", 1);
			space = true;
		} else {
			strbuf__add(out, s, 1);
			space = false;
		}
	}
	return 0;
}

static int write_cpudesc(struct strbuf *sb)
{
	static const char *const keys[] = CPUDESC_KEYS;
	struct strbuf val;
	char *cpuinfo;
	ssize_t n;
	size_t i;
	int err = -ENOENT;

	n = read_file("/proc/cpuinfo", &cpuinfo);
	if (n < 0)
		return (int)n;
	strbuf__init(&val);
	for (i = 0; i < ARRAY_SIZE(keys) && err; i++) {
		strbuf__reset(&val);
		err = cpuinfo_value(cpuinfo, keys[i], &val);
	}
	if (!err)
		strbuf__add_perf_string(sb, val.data ? val.data : "");
	strbuf__exit(&val);
	free(cpuinfo);
	return err;
}

static int write_cpuid(struct strbuf *sb)
{
#if defined(__x86_64__) || defined(__i386__)
	/*
	 * "vendor,family,model,stepping" from the cpuid instruction, as
	 * perf's x86 get_cpuid(); perf matches it against its event tables.
	 */
	unsigned int lvl, a, b, c, d, family = 0, model = 0, step = 0;
	char vendor[13], buf[64];

	__cpuid(0, lvl, b, c, d);
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = 0;
	if (lvl >= 1) {
		__cpuid(1, a, b, c, d);
		family = (a >> 8) & 0xf;
		model = (a >> 4) & 0xf;
		step = a & 0xf;
		if (family == 0xf)
			family += (a >> 20) & 0xff;
		if (family >= 0x6)
			model += ((a >> 16) & 0xf) << 4;
	}
	snprintf(buf, sizeof(buf), "%s,%u,%u,%u", vendor, family, model, step);
	strbuf__add_perf_string(sb, buf);
	return 0;
#else
	/* Other architectures have their own formats; we write none. */
	(void)sb;
	return -ENOENT;
#endif
}

/* A "Key:   value kB" line of a meminfo-style file. */
static int meminfo_kb(const char *text, const char *key, uint64_t *kb)
{
	const char *p = text;
	size_t klen = strlen(key);

	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, key, klen) && sscanf(p + klen, "%" SCNu64, kb) == 1)
			return 0;
	}
	return -ENOENT;
}

static int write_total_mem(struct strbuf *sb)
{
	uint64_t kb;
	char *text;
	ssize_t n;
	int err;

	n = read_file("/proc/meminfo", &text);
	if (n < 0)
		return (int)n;
	/* kB, although perf's format document says bytes: perf prints kB */
	err = meminfo_kb(text, "MemTotal:", &kb);
	free(text);
	if (err)
		return err;
	strbuf__add_u64(sb, kb);
	return 0;
}

/*
 * u32 + package (socket) cpu lists, u32 + core (thread sibling) lists,
 * {u32 core_id, u32 socket_id} for each of NRCPUS' avail CPUs, then, where
 * the machine has dies (x86_64, s390x), u32 + die lists and a u32 die_id
 * per CPU. Lists come from online CPUs only, ids from every CPU (-1 when
 * sysfs has none, e.g. offline).
 */
static int write_cpu_topology(struct strbuf *sb)
{
	char **pkg = NULL, **die = NULL, **core = NULL, path[256], buf[4096];
	int nr_pkg = 0, nr_die = 0, nr_core = 0, nr, cpu, i, err;
	struct intv online = { 0 };
	struct utsname uts;
	bool has_die = false;

	nr = nr_cpus_avail();
	if (nr < 0)
		return nr;
	err = read_list(SYS_CPU "/online", &online);
	if (err)
		goto out;
	if (!uname(&uts) && (!strncmp(uts.machine, "x86_64", 6) ||
			     !strncmp(uts.machine, "s390x", 5)))
		has_die = !access(SYS_CPU "/cpu0/topology/die_cpus_list", F_OK);

	for (cpu = 0; cpu < nr; cpu++) {
		if (!intv__has(&online, cpu))
			continue;
		snprintf(path, sizeof(path), SYS_CPU "/cpu%d/topology/package_cpus_list", cpu);
		if (access(path, F_OK))
			snprintf(path, sizeof(path), SYS_CPU "/cpu%d/topology/core_siblings_list", cpu);
		if (!read_line(path, buf, sizeof(buf)))
			strv_add_unique(&pkg, &nr_pkg, buf);
		if (has_die) {
			snprintf(path, sizeof(path), SYS_CPU "/cpu%d/topology/die_cpus_list", cpu);
			if (!read_line(path, buf, sizeof(buf)))
				strv_add_unique(&die, &nr_die, buf);
		}
		snprintf(path, sizeof(path), SYS_CPU "/cpu%d/topology/core_cpus_list", cpu);
		if (access(path, F_OK))
			snprintf(path, sizeof(path), SYS_CPU "/cpu%d/topology/thread_siblings_list", cpu);
		if (!read_line(path, buf, sizeof(buf)))
			strv_add_unique(&core, &nr_core, buf);
	}
	if (!nr_pkg || !nr_core) {
		err = -ENOENT;
		goto out;
	}

	strbuf__add_u32(sb, nr_pkg);
	for (i = 0; i < nr_pkg; i++)
		strbuf__add_perf_string(sb, pkg[i]);
	strbuf__add_u32(sb, nr_core);
	for (i = 0; i < nr_core; i++)
		strbuf__add_perf_string(sb, core[i]);
	for (cpu = 0; cpu < nr; cpu++) {
		strbuf__add_u32(sb, sysfs_int(SYS_CPU "/cpu%d/topology/core_id", cpu));
		strbuf__add_u32(sb, sysfs_int(SYS_CPU "/cpu%d/topology/physical_package_id", cpu));
	}
	if (nr_die) {
		strbuf__add_u32(sb, nr_die);
		for (i = 0; i < nr_die; i++)
			strbuf__add_perf_string(sb, die[i]);
		for (cpu = 0; cpu < nr; cpu++)
			strbuf__add_u32(sb, sysfs_int(SYS_CPU "/cpu%d/topology/die_id", cpu));
	}
out:
	strv_free(pkg, nr_pkg);
	strv_free(die, nr_die);
	strv_free(core, nr_core);
	free(online.v);
	return err;
}

/* u32 nr; per online node {u32 node, u64 total kB, u64 free kB, cpulist}. */
static int write_numa_topology(struct strbuf *sb)
{
	struct intv nodes = { 0 };
	char path[256], cpus[4096];
	int i, err;

	err = read_list(SYS_NODE "/online", &nodes);
	if (err)
		goto out;
	if (!nodes.nr) {
		err = -ENOENT;
		goto out;
	}
	strbuf__add_u32(sb, nodes.nr);
	for (i = 0; i < nodes.nr; i++) {
		uint64_t total = 0, mfree = 0;
		char *text;
		ssize_t n;

		/* lines read "Node 0 MemTotal:   4155168 kB" */
		snprintf(path, sizeof(path), SYS_NODE "/node%d/meminfo", nodes.v[i]);
		n = read_file(path, &text);
		if (n < 0) {
			err = (int)n;
			goto out;
		}
		snprintf(path, sizeof(path), "Node %d MemTotal:", nodes.v[i]);
		err = meminfo_kb(text, path, &total);
		snprintf(path, sizeof(path), "Node %d MemFree:", nodes.v[i]);
		if (!err)
			err = meminfo_kb(text, path, &mfree);
		free(text);
		if (err)
			goto out;
		snprintf(path, sizeof(path), SYS_NODE "/node%d/cpulist", nodes.v[i]);
		err = read_line(path, cpus, sizeof(cpus));
		if (err == -EIO) {
			cpus[0] = 0; /* a memory-only node has an empty list */
			err = 0;
		}
		if (err)
			goto out;
		strbuf__add_u32(sb, nodes.v[i]);
		strbuf__add_u64(sb, total);
		strbuf__add_u64(sb, mfree);
		strbuf__add_perf_string(sb, cpus);
	}
out:
	free(nodes.v);
	return err;
}

/* ---- the recording ---------------------------------------------------- */

/* The executable's path, as perf's perf_exe(); argv[0] as a fallback. */
static void exe_path(const struct feature_env *env, char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	if (n > 0) {
		buf[n] = 0;
		return;
	}
	snprintf(buf, size, "%s", env->argc > 0 && env->argv[0] ? env->argv[0] : "perfcap");
}

static int write_cmdline(const struct feature_env *env, struct strbuf *sb)
{
	char exe[4096];
	int i, nr = env->argc > 0 ? env->argc : 1;

	exe_path(env, exe, sizeof(exe));
	strbuf__add_u32(sb, nr);
	strbuf__add_perf_string(sb, exe);
	for (i = 1; i < env->argc; i++)
		strbuf__add_perf_string(sb, env->argv[i] ? env->argv[i] : "");
	return 0;
}

/*
 * u32 nr_events, u32 attr size; per event the attr, u32 nr_ids, the name,
 * u64 ids[]. The attr goes out at the size of the attrs section
 * (PERFCAP_ATTR_SIZE), the size we tell perf 6.1.
 */
static int write_event_desc(const struct feature_env *env, struct strbuf *sb)
{
	int i;

	if (env->nr_events <= 0 || !env->events)
		return -ENOENT;
	for (i = 0; i < env->nr_events; i++)
		if (!env->events[i].attr || !env->events[i].name ||
		    env->events[i].nr_ids < 0 ||
		    (env->events[i].nr_ids && !env->events[i].ids))
			return -EINVAL;

	strbuf__add_u32(sb, env->nr_events);
	strbuf__add_u32(sb, PERFCAP_ATTR_SIZE);
	for (i = 0; i < env->nr_events; i++) {
		const struct feature_event *ev = &env->events[i];
		struct perf_event_attr attr;
		char raw[PERFCAP_ATTR_SIZE] = { 0 };

		memcpy(&attr, ev->attr, sizeof(attr));
		attr.size = PERFCAP_ATTR_SIZE;
		memcpy(raw, &attr, MIN(sizeof(attr), sizeof(raw)));
		strbuf__add(sb, raw, sizeof(raw));
		strbuf__add_u32(sb, ev->nr_ids);
		strbuf__add_perf_string(sb, ev->name);
		if (ev->nr_ids)
			strbuf__add(sb, ev->ids, ev->nr_ids * sizeof(uint64_t));
	}
	return 0;
}

/*
 * u32 nr_groups; per group of more than one event its name (perf's
 * "{anon_group}"), u32 the leader's index, u32 nr_members. perf writes
 * the section only when there are groups; so do we.
 */
static int write_group_desc(const struct feature_env *env, struct strbuf *sb)
{
	if (env->nr_groups <= 0 || !env->groups)
		return -ENOENT;
	strbuf__add_u32(sb, env->nr_groups);
	for (int i = 0; i < env->nr_groups; i++) {
		strbuf__add_perf_string(sb, "{anon_group}");
		strbuf__add_u32(sb, env->groups[i].leader_idx);
		strbuf__add_u32(sb, env->groups[i].nr_members);
	}
	return 0;
}

static int write_sample_time(const struct feature_env *env, struct strbuf *sb)
{
	strbuf__add_u64(sb, env->first_sample_time);
	strbuf__add_u64(sb, env->last_sample_time);
	return 0;
}

/* ---- build ids -------------------------------------------------------- */

/*
 * One entry: header (type 0 here; 67 only as a pipe-mode event), pid,
 * 20 id bytes, the id's size (valid because misc has
 * PERF_RECORD_MISC_BUILD_ID_SIZE), 3 pad bytes, then the name padded to
 * NAME_ALIGN. pid -1 is the host machine.
 */
static void add_build_id(struct strbuf *sb, uint16_t cpumode,
			 const struct build_id *bid, const char *name)
{
	struct perf_build_id_entry e;
	size_t len = strlen(name) + 1, padded = ALIGN_UP(len, NAME_ALIGN);

	memset(&e, 0, sizeof(e));
	e.header.type = 0;
	e.header.misc = cpumode | PERF_RECORD_MISC_BUILD_ID_SIZE;
	e.header.size = sizeof(e) + padded;
	e.pid = -1;
	memcpy(e.build_id, bid->data, MIN(bid->size, (size_t)BUILD_ID_SIZE));
	e.build_id[BUILD_ID_ENTRY_SIZE_BYTE] = (uint8_t)MIN(bid->size, (size_t)BUILD_ID_SIZE);
	strbuf__add(sb, &e, sizeof(e));
	strbuf__add(sb, name, len);
	strbuf__addz(sb, padded - len);
}

/*
 * A module's entry must name the same dso as its kernel MMAP record, or
 * perf attaches the id to a dso that gets no samples: both take the name
 * from modpaths (synthesize.h), "[name]" when there is no file.
 */
static void add_module_build_ids(struct strbuf *sb)
{
	char *text = NULL, *line, *save = NULL;
	struct modpaths paths;
	bool have_paths = false;

	if (read_file("/proc/modules", &text) < 0)
		return; /* no module support: nothing to add */
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[256], bracketed[260];
		struct build_id bid;
		const char *path;

		if (sscanf(line, "%255s", name) != 1)
			continue;
		if (build_id__module(name, &bid) || !bid.size)
			continue; /* no id: leave it out rather than guess */
		if (!have_paths) {
			modpaths__init(&paths);
			have_paths = true;
		}
		path = modpaths__find(&paths, name);
		if (!path) {
			snprintf(bracketed, sizeof(bracketed), "[%s]", name);
			path = bracketed;
		}
		add_build_id(sb, PERF_RECORD_MISC_KERNEL, &bid, path);
	}
	if (have_paths)
		modpaths__exit(&paths);
	free(text);
}

static int write_build_id(const struct feature_env *env, struct strbuf *sb)
{
	struct build_id bid;
	size_t start = sb->len;
	int i;

	if (env->no_buildid)
		return -ENOENT;
	if (!env->dsos_only) {
		if (!build_id__kernel(&bid) && bid.size)
			add_build_id(sb, PERF_RECORD_MISC_KERNEL, &bid, "[kernel.kallsyms]");
		add_module_build_ids(sb);
	}
	for (i = 0; i < env->nr_dsos; i++)
		if (env->dsos[i].bid.size && env->dsos[i].filename)
			add_build_id(sb, env->dsos[i].cpumode ? env->dsos[i].cpumode :
				     PERF_RECORD_MISC_USER, &env->dsos[i].bid,
				     env->dsos[i].filename);
	return sb->len > start ? 0 : -ENOENT;
}

static int write_tracing_data(const struct feature_env *env, struct strbuf *sb)
{
	if (env->nr_tracepoints <= 0)
		return -ENOENT;
	return tracing_data__write(sb, env->nr_tracepoints, env->tp_system, env->tp_event);
}

/* ---- PMUs, caches, memory blocks -------------------------------------- */

/* u32 nr; per PMU {u32 type, name}, in directory order like perf. */
static int write_pmu_mappings(struct strbuf *sb)
{
	const char *dirname = "/sys/bus/event_source/devices";
	size_t count_at = sb->len;
	uint32_t nr = 0;
	struct dirent *de;
	DIR *dir;

	dir = opendir(dirname);
	if (!dir)
		return -errno;
	strbuf__add_u32(sb, 0);
	while ((de = readdir(dir))) {
		char path[512];
		long long type;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/type", dirname, de->d_name);
		if (read_int(path, &type))
			continue;
		strbuf__add_u32(sb, (uint32_t)type);
		strbuf__add_perf_string(sb, de->d_name);
		nr++;
	}
	closedir(dir);
	memcpy(sb->data + count_at, &nr, sizeof(nr));
	return 0;
}

struct cache_level {
	uint32_t level, line_size, sets, ways;
	char *type, *size, *map;
};

static void cache_level__exit(struct cache_level *c)
{
	free(c->type);
	free(c->size);
	free(c->map);
}

static bool cache_level__equal(const struct cache_level *a, const struct cache_level *b)
{
	return a->level == b->level && a->line_size == b->line_size &&
	       a->sets == b->sets && a->ways == b->ways &&
	       !strcmp(a->type, b->type) && !strcmp(a->size, b->size) &&
	       !strcmp(a->map, b->map);
}

static int cache_str(const char *dir, const char *name, char **out)
{
	char path[512], *buf;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	n = read_file(path, &buf);
	if (n < 0)
		return (int)n;
	*out = xstrdup(strim(buf));
	free(buf);
	return 0;
}

/* 1 when cpuN has no cache/indexI (end of its levels), 0, or -errno. */
static int cache_level__read(struct cache_level *c, int cpu, int idx)
{
	char dir[256], path[512];
	long long v[4];
	static const char *const names[] = {
		"level", "coherency_line_size", "number_of_sets", "ways_of_associativity",
	};
	size_t i;
	int err;

	memset(c, 0, sizeof(*c));
	snprintf(dir, sizeof(dir), SYS_CPU "/cpu%d/cache/index%d", cpu, idx);
	if (access(dir, F_OK))
		return 1;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		err = read_int(path, &v[i]);
		if (err)
			return err;
	}
	c->level = v[0];
	c->line_size = v[1];
	c->sets = v[2];
	c->ways = v[3];
	err = cache_str(dir, "type", &c->type);
	if (!err)
		err = cache_str(dir, "size", &c->size);
	if (!err)
		err = cache_str(dir, "shared_cpu_list", &c->map);
	if (err)
		cache_level__exit(c);
	return err;
}

/*
 * u32 version 1, u32 nr; per distinct cache {u32 level, line_size, sets,
 * ways; type, size, shared cpu list}, ordered by level and otherwise in
 * the order found (CPU by CPU), as perf's sort leaves them.
 */
static int write_cache(struct strbuf *sb)
{
	struct cache_level *caches = NULL, c;
	int nr = 0, cap = 0, max_cpu, cpu, idx, i, j, err = 0;

	max_cpu = max_cpu_of(SYS_CPU "/possible");
	if (max_cpu < 0)
		return max_cpu;
	for (cpu = 0; cpu < max_cpu && !err; cpu++) {
		for (idx = 0; idx < MAX_CACHE_LEVEL; idx++) {
			err = cache_level__read(&c, cpu, idx);
			if (err == 1) {
				err = 0;
				break;
			}
			if (err)
				break;
			for (i = 0; i < nr; i++)
				if (cache_level__equal(&c, &caches[i]))
					break;
			if (i < nr) {
				cache_level__exit(&c);
				continue;
			}
			if (nr == cap) {
				cap = cap ? 2 * cap : 16;
				caches = xrealloc(caches, cap * sizeof(*caches));
			}
			caches[nr++] = c;
		}
	}
	/* No cache in sysfs (some VMs): perf writes the section with nr = 0, and so do we. */
	if (err)
		goto out;

	/* stable insertion sort by level */
	for (i = 1; i < nr; i++) {
		c = caches[i];
		for (j = i; j > 0 && caches[j - 1].level > c.level; j--)
			caches[j] = caches[j - 1];
		caches[j] = c;
	}
	strbuf__add_u32(sb, 1);
	strbuf__add_u32(sb, nr);
	for (i = 0; i < nr; i++) {
		strbuf__add_u32(sb, caches[i].level);
		strbuf__add_u32(sb, caches[i].line_size);
		strbuf__add_u32(sb, caches[i].sets);
		strbuf__add_u32(sb, caches[i].ways);
		strbuf__add_perf_string(sb, caches[i].type);
		strbuf__add_perf_string(sb, caches[i].size);
		strbuf__add_perf_string(sb, caches[i].map);
	}
out:
	for (i = 0; i < nr; i++)
		cache_level__exit(&caches[i]);
	free(caches);
	return err;
}

/* The memoryN blocks of one node, as a bitmap of nbits = max + 1. */
static int node_memory_bitmap(int node, struct strbuf *sb)
{
	char path[256];
	struct intv blocks = { 0 };
	struct dirent *de;
	uint64_t nbits, *words;
	unsigned int n;
	int i, max = 0;
	DIR *dir;

	snprintf(path, sizeof(path), SYS_NODE "/node%d", node);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		if (sscanf(de->d_name, "memory%u", &n) == 1) {
			intv__push(&blocks, (int)n);
			max = MAX(max, (int)n);
		}
	}
	closedir(dir);
	nbits = (uint64_t)max + 1;
	words = xzalloc(((nbits + 63) / 64) * sizeof(*words));
	for (i = 0; i < blocks.nr; i++)
		words[blocks.v[i] / 64] |= 1ULL << (blocks.v[i] % 64);
	strbuf__add_u64(sb, node);
	strbuf__add_u64(sb, nbits);
	strbuf__add_u64(sb, nbits);
	strbuf__add(sb, words, ((nbits + 63) / 64) * sizeof(*words));
	free(words);
	free(blocks.v);
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/*
 * u64 version 1, u64 block size, u64 nr; per node (ascending) {u64 node,
 * u64 nbits, then the bitmap again as u64 nbits + its u64 words}.
 */
static int write_mem_topology(struct strbuf *sb)
{
	char buf[64];
	struct intv nodes = { 0 };
	unsigned long long bsize;
	struct dirent *de;
	unsigned int n;
	DIR *dir;
	int i, err;

	err = read_line("/sys/devices/system/memory/block_size_bytes", buf, sizeof(buf));
	if (err)
		return err;
	if (sscanf(buf, "%llx", &bsize) != 1)
		return -EINVAL;
	dir = opendir(SYS_NODE);
	if (!dir)
		return -errno;
	while ((de = readdir(dir)))
		if (sscanf(de->d_name, "node%u", &n) == 1)
			intv__push(&nodes, (int)n);
	closedir(dir);
	if (!nodes.nr) {
		free(nodes.v);
		return -ENOENT;
	}
	qsort(nodes.v, nodes.nr, sizeof(int), cmp_int);
	strbuf__add_u64(sb, 1);
	strbuf__add_u64(sb, bsize);
	strbuf__add_u64(sb, nodes.nr);
	for (i = 0; i < nodes.nr && !err; i++)
		err = node_memory_bitmap(nodes.v[i], sb);
	free(nodes.v);
	return err;
}

/*
 * COMPRESSED (perf record -z): u32 version (0, as perf 6.1 writes), type
 * (1: zstd), level, ratio (bytes in over bytes out, rounded), mmap_len:
 * perf report decompresses each COMPRESSED record into a buffer of
 * mmap_len bytes, so it must be at least what one record inflates to.
 */
static int write_compressed(const struct feature_env *env, struct strbuf *sb)
{
	if (!env->comp_level)
		return -ENOENT;
	strbuf__add_u32(sb, 0);
	strbuf__add_u32(sb, 1);
	strbuf__add_u32(sb, env->comp_level);
	strbuf__add_u32(sb, env->comp_ratio);
	strbuf__add_u32(sb, env->comp_mmap_len);
	return 0;
}

/* ---- dispatch --------------------------------------------------------- */

const int perfcap_features[] = {
	HEADER_TRACING_DATA,
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
	HEADER_PMU_MAPPINGS,
	HEADER_GROUP_DESC,
	HEADER_CACHE,
	HEADER_SAMPLE_TIME,
	HEADER_MEM_TOPOLOGY,
	HEADER_BPF_PROG_INFO,
	HEADER_BPF_BTF,
	HEADER_COMPRESSED,
	HEADER_PMU_CAPS,
	-1,
};

void features__each(const struct feature_env *env, bool (*skip)(int feat),
		    void (*fn)(void *arg, int feat, const void *payload, size_t len), void *arg)
{
	struct strbuf one;

	strbuf__init(&one);
	for (int i = 0; perfcap_features[i] >= 0; i++) {
		int feat = perfcap_features[i], err;

		if (skip && skip(feat))
			continue;
		strbuf__reset(&one);
		err = feature__write(feat, env, &one);
		if (err == -ENOENT)
			continue;
		if (err) {
			pr_warn("feature %d not written: %s\n", feat, strerror(-err));
			continue;
		}
		fn(arg, feat, one.data, one.len);
	}
	strbuf__exit(&one);
}

int feature__write(int feat, const struct feature_env *env, struct strbuf *sb)
{
	size_t start = sb->len;
	int err;

	switch (feat) {
	case HEADER_TRACING_DATA:
		err = write_tracing_data(env, sb);
		break;
	case HEADER_BUILD_ID:
		err = write_build_id(env, sb);
		break;
	case HEADER_HOSTNAME:
	case HEADER_OSRELEASE:
	case HEADER_ARCH:
		err = write_uname(sb, feat);
		break;
	case HEADER_VERSION:
		err = write_version(env, sb);
		break;
	case HEADER_NRCPUS:
		err = write_nrcpus(sb);
		break;
	case HEADER_CPUDESC:
		err = write_cpudesc(sb);
		break;
	case HEADER_CPUID:
		err = write_cpuid(sb);
		break;
	case HEADER_TOTAL_MEM:
		err = write_total_mem(sb);
		break;
	case HEADER_CMDLINE:
		err = write_cmdline(env, sb);
		break;
	case HEADER_EVENT_DESC:
		err = write_event_desc(env, sb);
		break;
	case HEADER_CPU_TOPOLOGY:
		err = write_cpu_topology(sb);
		break;
	case HEADER_NUMA_TOPOLOGY:
		err = write_numa_topology(sb);
		break;
	case HEADER_PMU_MAPPINGS:
		err = write_pmu_mappings(sb);
		break;
	case HEADER_GROUP_DESC:
		err = write_group_desc(env, sb);
		break;
	case HEADER_CACHE:
		err = write_cache(sb);
		break;
	case HEADER_SAMPLE_TIME:
		err = write_sample_time(env, sb);
		break;
	case HEADER_MEM_TOPOLOGY:
		err = write_mem_topology(sb);
		break;
	case HEADER_COMPRESSED:
		err = write_compressed(env, sb);
		break;
	case HEADER_BPF_PROG_INFO:
	case HEADER_BPF_BTF:
	case HEADER_PMU_CAPS:
		/*
		 * perf record writes these with a count of 0 when there is
		 * nothing to say (no BPF programs recorded, no PMU with caps);
		 * so do we, so that both files list the same features.
		 */
		strbuf__add_u32(sb, 0);
		err = 0;
		break;
	default:
		err = -ENOENT;
		break;
	}
	if (err) {
		sb->len = start;
		if (sb->data)
			sb->data[start] = 0;
	}
	return err;
}
