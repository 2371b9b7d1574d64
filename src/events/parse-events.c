// SPDX-License-Identifier: GPL-2.0
/*
 * perf 6.1's event syntax -> perf_event_attr. What an event means, how
 * its modifiers set the attr and what perf names it follow perf 6.1
 * (parse-events.y and get_event_modifier), checked against the attrs
 * perf writes for the same -e string. Whether a PMU can count a hardware
 * event is not decided here: perf_event_open says so later (evlist.c,
 * with perf's cycles -> cpu-clock fallback).
 *
 * The grammar, as a recursive descent over the string:
 *   list  := item (',' item)*
 *   item  := '{' event (',' event)* '}' [':' mods] | event
 *   event := PMU '/' terms '/' [':'] [mods]
 *          | NAME [':' mods]                  symbolic, cache, raw, PMU alias
 *          | SYS ':' EVENT [':' mods]         tracepoint; globs in SYS and EVENT
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <tracefs.h>

#include "events/parse-events.h"
#include "events/pmu.h"
#include "util.h"

struct sym_event {
	const char *name;
	__u32 type;
	__u64 config;
};

/* Names and aliases as "perf list sw" and "perf list hw" print them. */
static const struct sym_event sym_events[] = {
	{ "cpu-clock",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs",				PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
	{ "bpf-output",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT },
	{ "cgroup-switches",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CGROUP_SWITCHES },

	{ "cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
};

/*
 * The generic cache events, as perf names them: TYPE[-OP][-RESULT], every
 * spelling perf accepts, the first of each row being perf's own.
 */
#define MAX_ALIASES 5
static const char *const cache_types[PERF_COUNT_HW_CACHE_MAX][MAX_ALIASES] = {
	{ "L1-dcache",	"l1-d",		"l1d",		"L1-data" },
	{ "L1-icache",	"l1-i",		"l1i",		"L1-instruction" },
	{ "LLC",	"L2" },
	{ "dTLB",	"d-tlb",	"Data-TLB" },
	{ "iTLB",	"i-tlb",	"Instruction-TLB" },
	{ "branch",	"branches",	"bpu",		"btb",		"bpc" },
	{ "node" },
};

static const char *const cache_ops[PERF_COUNT_HW_CACHE_OP_MAX][MAX_ALIASES] = {
	{ "load",	"loads",	"read" },
	{ "store",	"stores",	"write" },
	{ "prefetch",	"prefetches",	"speculative-read", "speculative-load" },
};

static const char *const cache_results[PERF_COUNT_HW_CACHE_RESULT_MAX][MAX_ALIASES] = {
	{ "refs",	"Reference",	"ops",		"access" },
	{ "misses",	"miss" },
};

/* Which operations each cache has (perf's hw_cache_stat). */
#define OPS(r, w, p) ((r) << PERF_COUNT_HW_CACHE_OP_READ | (w) << PERF_COUNT_HW_CACHE_OP_WRITE | \
		      (p) << PERF_COUNT_HW_CACHE_OP_PREFETCH)
static const unsigned int cache_valid_ops[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D]  = OPS(1, 1, 1),
	[PERF_COUNT_HW_CACHE_L1I]  = OPS(1, 0, 1),
	[PERF_COUNT_HW_CACHE_LL]   = OPS(1, 1, 1),
	[PERF_COUNT_HW_CACHE_DTLB] = OPS(1, 1, 1),
	[PERF_COUNT_HW_CACHE_ITLB] = OPS(1, 0, 0),
	[PERF_COUNT_HW_CACHE_BPU]  = OPS(1, 0, 0),
	[PERF_COUNT_HW_CACHE_NODE] = OPS(1, 1, 1),
};

#define UNKNOWN_EVENT_HINT \
	"(perfcap supports software events (cpu-clock, task-clock, ...), " \
	"hardware and cache events by name, rNNNN, PMU/terms/ and tracepoints SUBSYS:NAME)"

#define MODIFIER_HINT "u, k, h, G, H, I, D, p, pp, ppp, P, S, W, e"

#define GENERIC_TERMS "config, config1, config2, name, period, freq, call-graph, stack-size"

const char *tracefs_path(void)
{
	/*
	 * libtracefs finds tracefs in /proc/mounts and, when it is not
	 * mounted, mounts it at /sys/kernel/tracing (which needs root). It
	 * also honours tracefs_set_tracing_dir(), the unit tests' seam.
	 */
	return tracefs_tracing_dir();
}

struct parser {
	struct event_list *list;
	char *err;
	int errlen;
};

static struct event_spec *new_event(struct parser *p)
{
	struct event_list *l = p->list;
	struct event_spec *ev;

	l->ev = xrealloc(l->ev, (l->nr + 1) * sizeof(*l->ev));
	ev = &l->ev[l->nr];
	memset(ev, 0, sizeof(*ev));
	ev->leader = l->nr;
	ev->nr_members = 1;
	/*
	 * perf leaves the guest out unless told otherwise (it is not running
	 * as a hypervisor's profiler); modifiers may change that.
	 */
	ev->attr.exclude_guest = 1;
	l->nr++;
	return ev;
}

static void event_spec__exit(struct event_spec *ev)
{
	free(ev->name);
	free(ev->tp_system);
	free(ev->tp_event);
	free(ev->filter);
	memset(ev, 0, sizeof(*ev));
}

/* Drop the events from index nr on: what a failed parse added. */
static void event_list__truncate(struct event_list *list, int nr)
{
	while (list->nr > nr)
		event_spec__exit(&list->ev[--list->nr]);
	if (!list->nr) {
		free(list->ev);
		list->ev = NULL;
	}
}

void event_list__exit(struct event_list *list)
{
	if (!list)
		return;
	event_list__truncate(list, 0);
}

/* ---- modifiers ---------------------------------------------------------- */

struct modifier {
	int eu, ek, eh, eH, eG, eI;
	int precise, precise_max, sample_read, pinned, exclusive, weak, exclude_GH;
};

/*
 * perf's check: only known letters, none twice but p, and not more than
 * perf's longest string.
 */
static bool modifier_string_ok(const char *s)
{
	if (!*s || strlen(s) > strlen("ukhGHpppPSDIWeb"))
		return false;
	for (const char *c = s; *c; c++) {
		if (!strchr("ukhGHIpPSDWeb", *c))
			return false;
		if (*c != 'p' && strchr(c + 1, *c))
			return false;
	}
	return true;
}

/*
 * Modifiers as perf 6.1 applies them: the first of u/k/h excludes all
 * three levels and each letter then re-includes its own ("uk" counts
 * user and kernel but not the hypervisor); G and H likewise for guest
 * and host. An event's own modifiers start from nothing excluded
 * (ev NULL): exclude_guest is then set only by u or p, or by H. A
 * group's modifiers start from each event's attr as it stands (ev).
 * Returns false if mods is not a modifier string.
 */
static bool get_modifier(struct modifier *m, const char *mods, const struct event_spec *ev)
{
	const struct perf_event_attr *a = ev ? &ev->attr : NULL;
	int exclude;

	memset(m, 0, sizeof(*m));
	if (a) {
		m->eu = a->exclude_user;
		m->ek = a->exclude_kernel;
		m->eh = a->exclude_hv;
		m->eH = a->exclude_host;
		m->eG = a->exclude_guest;
		m->eI = a->exclude_idle;
		m->precise = a->precise_ip;
		m->pinned = a->pinned;
		m->exclusive = a->exclusive;
		m->exclude_GH = ev->exclude_GH;
	}
	exclude = m->eu | m->ek | m->eh;
	if (!modifier_string_ok(mods))
		return false;
	for (const char *s = mods; *s; s++) {
		switch (*s) {
		case 'u':
			if (!exclude)
				exclude = m->eu = m->ek = m->eh = 1;
			if (!m->exclude_GH)
				m->eG = 1;
			m->eu = 0;
			break;
		case 'k':
			if (!exclude)
				exclude = m->eu = m->ek = m->eh = 1;
			m->ek = 0;
			break;
		case 'h':
			if (!exclude)
				exclude = m->eu = m->ek = m->eh = 1;
			m->eh = 0;
			break;
		case 'G':
			if (!m->exclude_GH)
				m->exclude_GH = m->eG = m->eH = 1;
			m->eG = 0;
			break;
		case 'H':
			if (!m->exclude_GH)
				m->exclude_GH = m->eG = m->eH = 1;
			m->eH = 0;
			break;
		case 'I':
			m->eI = 1;
			break;
		case 'p':
			m->precise++;
			/* precise sampling of a guest is meaningless */
			if (!m->exclude_GH)
				m->eG = 1;
			break;
		case 'P':
			m->precise_max = 1;
			break;
		case 'S':
			m->sample_read = 1;
			break;
		case 'D':
			m->pinned = 1;
			break;
		case 'e':
			m->exclusive = 1;
			break;
		case 'W':
			m->weak = 1;
			break;
		case 'b':
			/* perf stat's BPF counters: nothing for a recording */
			break;
		}
	}
	/* precise_ip is a 2-bit field: 3 is "must have 0 skid". */
	return m->precise <= 3;
}

/* pinned and exclusive are the group's: perf sets them on leaders only. */
static void apply_modifier(struct event_spec *ev, const struct modifier *m, bool leader)
{
	ev->attr.exclude_user = m->eu;
	ev->attr.exclude_kernel = m->ek;
	ev->attr.exclude_hv = m->eh;
	ev->attr.exclude_host = m->eH;
	ev->attr.exclude_guest = m->eG;
	ev->attr.exclude_idle = m->eI;
	ev->attr.precise_ip = m->precise;
	ev->exclude_GH = m->exclude_GH;
	ev->sample_read = m->sample_read;
	ev->precise_max = m->precise_max;
	ev->weak_group = m->weak;
	if (leader) {
		ev->attr.pinned = m->pinned;
		ev->attr.exclusive = m->exclusive;
	}
}

static int bad_modifier(struct parser *p, const char *mods, const char *event)
{
	snprintf(p->err, p->errlen, "invalid modifier ':%s' in event '%s' (modifiers: "
		 MODIFIER_HINT ")", mods, event);
	return -EINVAL;
}

/* An event's own modifiers; mods NULL: none. */
static int event_modifier(struct parser *p, struct event_spec *ev, const char *mods,
			  const char *event)
{
	struct modifier m;

	if (!mods)
		return 0;
	if (!get_modifier(&m, mods, NULL))
		return bad_modifier(p, mods, event);
	apply_modifier(ev, &m, true);
	return 0;
}

void event_attr__modifiers(const struct perf_event_attr *a, char *buf, size_t size)
{
	bool exclude_guest_default = false;
	size_t n = 0;
	char mods[16];

#define MOD(excluded, c) do { if (!(excluded)) mods[n++] = (c); } while (0)
	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		MOD(a->exclude_kernel, 'k');
		MOD(a->exclude_user, 'u');
		MOD(a->exclude_hv, 'h');
		exclude_guest_default = true;
	}
	if (a->precise_ip) {
		for (unsigned int i = 0; i < a->precise_ip; i++)
			mods[n++] = 'p';
		exclude_guest_default = true;
	}
	if (a->exclude_host || a->exclude_guest == exclude_guest_default) {
		MOD(a->exclude_host, 'H');
		MOD(a->exclude_guest, 'G');
	}
#undef MOD
	mods[n] = '\0';
	snprintf(buf, size, "%s%s", n ? ":" : "", mods);
}

/* ---- names: symbolic, raw, cache ---------------------------------------- */

static bool lookup_symbolic(const char *name, struct perf_event_attr *attr)
{
	for (size_t i = 0; i < ARRAY_SIZE(sym_events); i++) {
		if (!strcmp(sym_events[i].name, name)) {
			attr->type = sym_events[i].type;
			attr->config = sym_events[i].config;
			return true;
		}
	}
	return false;
}

/* perf's raw syntax: 'r' and 1..16 hex digits, nothing else. */
static bool lookup_raw(const char *name, struct perf_event_attr *attr)
{
	size_t i, len = strlen(name);
	__u64 config = 0;

	if (len < 2 || len > 17 || name[0] != 'r')
		return false;
	for (i = 1; i < len; i++) {
		char c = name[i];
		int digit;

		if (c >= '0' && c <= '9')
			digit = c - '0';
		else if (c >= 'a' && c <= 'f')
			digit = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			digit = c - 'A' + 10;
		else
			return false;
		config = config << 4 | (__u64)digit;
	}
	attr->type = PERF_TYPE_RAW;
	attr->config = config;
	return true;
}

/*
 * The longest spelling in table that s starts with as a whole word (the
 * next character is '-' or the end); its row, or -1. *len: its length.
 */
static int match_word(const char *s, const char *const table[][MAX_ALIASES], int rows,
		      size_t *len)
{
	int best = -1;

	*len = 0;
	for (int r = 0; r < rows; r++) {
		for (int j = 0; j < MAX_ALIASES && table[r][j]; j++) {
			size_t n = strlen(table[r][j]);

			if (n > *len && !strncmp(s, table[r][j], n) && (s[n] == '-' || !s[n])) {
				best = r;
				*len = n;
			}
		}
	}
	return best;
}

/*
 * TYPE[-OP_OR_RESULT[-OP_OR_RESULT]]: 1 if name is a cache event, 0 if
 * not, -EINVAL (message in err) if the cache has no such operation.
 * The defaults, as perf's: a load, counting accesses.
 */
static int lookup_cache(struct parser *p, const char *name, struct perf_event_attr *attr)
{
	int type, op = -1, result = -1;
	const char *s = name;
	size_t len;

	type = match_word(s, cache_types, PERF_COUNT_HW_CACHE_MAX, &len);
	if (type < 0)
		return 0;
	s += len;
	for (int i = 0; i < 2 && *s; i++) {
		int r;

		s++;	/* the '-' */
		if (op < 0) {
			r = match_word(s, cache_ops, PERF_COUNT_HW_CACHE_OP_MAX, &len);
			if (r >= 0) {
				if (!(cache_valid_ops[type] & (1U << r))) {
					snprintf(p->err, p->errlen, "invalid cache event '%s': "
						 "the %s cache has no %s operation", name,
						 cache_types[type][0], cache_ops[r][0]);
					return -EINVAL;
				}
				op = r;
				s += len;
				continue;
			}
		}
		if (result < 0) {
			r = match_word(s, cache_results, PERF_COUNT_HW_CACHE_RESULT_MAX, &len);
			if (r >= 0) {
				result = r;
				s += len;
				continue;
			}
		}
		return 0;
	}
	if (*s)
		return 0;
	if (op < 0)
		op = PERF_COUNT_HW_CACHE_OP_READ;
	if (result < 0)
		result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	attr->type = PERF_TYPE_HW_CACHE;
	attr->config = (__u64)type | (__u64)op << 8 | (__u64)result << 16;
	return 1;
}

/* ---- PMU terms ------------------------------------------------------------ */

static char *unquote(char *v)
{
	size_t n = strlen(v);

	if (n >= 2 && (v[0] == '\'' || v[0] == '"') && v[n - 1] == v[0]) {
		v[n - 1] = '\0';
		return v + 1;
	}
	return v;
}

static int term_number(struct parser *p, const char *event, const char *key, const char *val,
		       uint64_t *out)
{
	char *end;

	if (!val || !*val) {
		snprintf(p->err, p->errlen, "term '%s' of event '%s' needs a value (%s=N)",
			 key, event, key);
		return -EINVAL;
	}
	errno = 0;
	*out = strtoull(val, &end, 0);
	if (errno || *end || val[0] == '-') {
		snprintf(p->err, p->errlen, "invalid value '%s' for term '%s' in event '%s' "
			 "(a number: decimal, 0x hex or 0 octal)", val, key, event);
		return -EINVAL;
	}
	return 0;
}

/*
 * The generic terms (perf's config_attr): 1 if key was one, 0 if not,
 * or -errno. config[] receives config= config1= config2=.
 */
static int generic_term(struct parser *p, struct event_spec *ev, const char *event,
			const char *key, char *val, uint64_t config[3], char **name)
{
	uint64_t n;
	int word = -1, ret;

	if (!strcmp(key, "config"))
		word = 0;
	else if (!strcmp(key, "config1"))
		word = 1;
	else if (!strcmp(key, "config2"))
		word = 2;
	if (word >= 0) {
		ret = term_number(p, event, key, val, &n);
		if (ret)
			return ret;
		config[word] = n;
		return 1;
	}
	if (!strcmp(key, "name")) {
		if (!val || !*val) {
			snprintf(p->err, p->errlen, "term 'name' of event '%s' needs a value "
				 "(name=NAME)", event);
			return -EINVAL;
		}
		free(*name);
		*name = xstrdup(unquote(val));
		return 1;
	}
	if (!strcmp(key, "period")) {
		ret = term_number(p, event, key, val, &n);
		if (ret)
			return ret;
		ev->terms.has_period = true;
		ev->terms.period = n;
		return 1;
	}
	if (!strcmp(key, "freq")) {
		ret = term_number(p, event, key, val, &n);
		if (ret)
			return ret;
		ev->terms.has_freq = true;
		ev->terms.freq = n;
		return 1;
	}
	if (!strcmp(key, "call-graph")) {
		if (!val || (strcmp(val, "fp") && strcmp(val, "dwarf") && strcmp(val, "lbr") &&
			     strcmp(val, "no"))) {
			snprintf(p->err, p->errlen, "invalid call-graph '%s' in event '%s' "
				 "(call-graph=fp, dwarf, lbr or no)", val ? val : "", event);
			return -EINVAL;
		}
		snprintf(ev->terms.callgraph, sizeof(ev->terms.callgraph), "%s", val);
		return 1;
	}
	if (!strcmp(key, "stack-size")) {
		ret = term_number(p, event, key, val, &n);
		if (ret)
			return ret;
		if (n == 0 || n > UINT16_MAX) {
			snprintf(p->err, p->errlen, "invalid stack-size %s in event '%s' "
				 "(1..65535 bytes; the kernel caps it below 64 KiB)", val, event);
			return -EINVAL;
		}
		ev->terms.stack_size = (uint32_t)n;
		return 1;
	}
	return 0;
}

static bool is_generic(const char *key)
{
	static const char *const generic[] = {
		"config", "config1", "config2", "name", "period", "freq", "call-graph", "stack-size",
	};

	for (size_t i = 0; i < ARRAY_SIZE(generic); i++)
		if (!strcmp(key, generic[i]))
			return true;
	return false;
}

static void valid_terms(const struct pmu *pmu, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < pmu->nr_formats && n < size; i++)
		n += snprintf(buf + n, size - n, "%s, ", pmu->formats[i].name);
	if (n < size)
		snprintf(buf + n, size - n, "%s", GENERIC_TERMS);
}

/*
 * One term of a PMU event. As perf, the generic terms go first (pass 0:
 * config= sets the word), then the format fields and aliases (pass 1:
 * they set their bits in it). depth guards an alias that names itself.
 */
static int pmu_term(struct parser *p, struct event_spec *ev, const struct pmu *pmu,
		    const char *event, char *term, uint64_t config[3], char **name, int pass,
		    int depth);

static int pmu_terms(struct parser *p, struct event_spec *ev, const struct pmu *pmu,
		     const char *event, const char *terms, uint64_t config[3], char **name,
		     int pass, int depth)
{
	char *copy = xstrdup(terms), *save = NULL, *t;
	int ret = 0;

	for (t = strtok_r(copy, ",", &save); t && !ret; t = strtok_r(NULL, ",", &save))
		ret = pmu_term(p, ev, pmu, event, t, config, name, pass, depth);
	free(copy);
	return ret;
}

static int pmu_term(struct parser *p, struct event_spec *ev, const struct pmu *pmu,
		    const char *event, char *term, uint64_t config[3], char **name, int pass,
		    int depth)
{
	char *eq = strchr(term, '='), *key = term, *val = NULL, valid[512];
	const struct pmu_format *f;
	const struct pmu_alias *a;
	uint64_t n = 1, max;
	int ret;

	if (eq) {
		*eq = '\0';
		val = eq + 1;
	}
	if (pass == 0) {
		ret = generic_term(p, ev, event, key, val, config, name);
		return ret < 0 ? ret : 0;
	}
	/* In pass 1 the generic terms are done; an alias's own ones count now. */
	if (depth == 0 && is_generic(key))
		return 0;
	if (depth > 0) {
		ret = generic_term(p, ev, event, key, val, config, name);
		if (ret)
			return ret < 0 ? ret : 0;
	}
	f = pmu__format(pmu, key);
	if (f) {
		/* A format term without a value means 1, as in perf. */
		if (val && (ret = term_number(p, event, key, val, &n)))
			return ret;
		if (pmu_format__apply(f, n, config, &max)) {
			snprintf(p->err, p->errlen, "value %s too big for format '%s' of PMU '%s' "
				 "in event '%s' (maximum is 0x%llx)", val, key, pmu->name, event,
				 (unsigned long long)max);
			return -EINVAL;
		}
		return 0;
	}
	a = val ? NULL : pmu__alias(pmu, key);
	if (a && depth < 4)
		return pmu_terms(p, ev, pmu, event, a->terms, config, name, 1, depth + 1);
	valid_terms(pmu, valid, sizeof(valid));
	snprintf(p->err, p->errlen, "unknown term '%s' for PMU '%s' in event '%s' (valid terms: "
		 "%s%s)", key, pmu->name, event, valid, pmu->nr_aliases ?
		 ", or an event of its events/ directory" : "");
	return -EINVAL;
}

/*
 * PMU/terms/: the PMU's type, the config words its format files lay out
 * and the generic terms. name: the event's name unless name= gives one.
 */
static int add_pmu_event(struct parser *p, const char *pmu_name, const char *terms,
			 const char *mods, const char *name)
{
	struct pmu pmu = { 0 };
	struct perf_event_attr sym = { 0 };
	struct event_spec *ev;
	uint64_t config[3] = { 0 };
	char *ev_name = NULL;
	bool is_sym;
	int ret;

	/*
	 * perf also takes the generic terms after a symbolic or cache event
	 * ("cpu-clock/period=1000/"): a PMU of its own type with no fields.
	 */
	ret = lookup_symbolic(pmu_name, &sym) ? 1 : lookup_cache(p, pmu_name, &sym);
	if (ret < 0)
		return ret;
	is_sym = ret > 0;
	if (is_sym) {
		pmu.name = (char *)pmu_name;
		pmu.type = sym.type;
		config[0] = sym.config;
	} else {
		ret = pmu__load(&pmu, pmu_name, p->err, p->errlen);
		if (ret == -ENOENT) {
			snprintf(p->err, p->errlen, "unknown event '%s': no PMU '%s' in "
				 "%s/bus/event_source/devices " UNKNOWN_EVENT_HINT, name, pmu_name,
				 pmu__sysfs_root());
			return -EINVAL;
		}
		if (ret)
			return ret;
	}
	ev = new_event(p);
	ev->attr.type = pmu.type;
	ret = pmu_terms(p, ev, &pmu, name, terms, config, &ev_name, 0, 0);
	if (!ret)
		ret = pmu_terms(p, ev, &pmu, name, terms, config, &ev_name, 1, 0);
	if (!ret)
		ret = event_modifier(p, ev, mods, name);
	if (!is_sym)
		pmu__exit(&pmu);
	if (ret) {
		free(ev_name);
		return ret;
	}
	ev->attr.config = config[0];
	ev->attr.config1 = config[1];
	ev->attr.config2 = config[2];
	ev->name = ev_name ? ev_name : xstrdup(name);
	return 0;
}

struct alias_hit {
	char *pmu;
	char *terms;
};

static int first_alias(const char *pmu, const char *terms, void *arg)
{
	struct alias_hit *hit = arg;

	hit->pmu = xstrdup(pmu);
	hit->terms = xstrdup(terms);
	return 1;
}

/* ---- tracepoints -------------------------------------------------------- */

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* Tracefs directory names (globs allowed): no way out of events/. */
static bool valid_tp_name(const char *s)
{
	if (!*s || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++) {
		char c = *s;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.' ||
		      c == '*' || c == '?' || c == '[' || c == ']' || c == '!'))
			return false;
	}
	return true;
}

/* Read DIR/events/SYS/EVENT/id: 0, -ENOENT, or -errno with a message. */
static int tp_id(struct parser *p, const char *dir, const char *sys, const char *event,
		 long long *id)
{
	char *path = NULL;
	int ret;

	if (asprintf(&path, "%s/events/%s/%s/id", dir, sys, event) < 0)
		return -ENOMEM;
	ret = read_int(path, id);
	if (ret == -ENOENT || ret == -ENOTDIR) {
		ret = -ENOENT;
	} else if (ret == -EACCES || ret == -EPERM) {
		snprintf(p->err, p->errlen, "cannot read tracepoint id %s: %s (tracefs "
			 "needs root)", path, strerror(-ret));
	} else if (ret < 0 || *id < 0) {
		ret = ret < 0 ? ret : -EINVAL;
		snprintf(p->err, p->errlen, "cannot read tracepoint id %s: %s", path,
			 strerror(-ret));
	}
	free(path);
	return ret;
}

static int add_tracepoint(struct parser *p, const char *dir, const char *sys,
			  const char *event, const char *mods, const char *item)
{
	struct event_spec *ev;
	long long id;
	int ret = tp_id(p, dir, sys, event, &id);

	if (ret == -ENOENT)
		snprintf(p->err, p->errlen, "tracepoint '%s:%s' not found in %s/events "
			 "(see %s/available_events)", sys, event, dir, dir);
	if (ret)
		return ret;
	ev = new_event(p);
	ev->attr.type = PERF_TYPE_TRACEPOINT;
	ev->attr.config = (__u64)id;
	ev->tracepoint = true;
	ev->tp_system = xstrdup(sys);
	ev->tp_event = xstrdup(event);
	/* perf names a tracepoint SUBSYS:NAME even when modifiers follow. */
	if (asprintf(&ev->name, "%s:%s", sys, event) < 0)
		return -ENOMEM;
	return event_modifier(p, ev, mods, item);
}

/*
 * The entries of a directory in the order readdir gives them, which is
 * the order perf 6.1 adds a glob's tracepoints in (so that
 * "perf evlist" of both files lists them alike).
 */
static int list_dir(const char *path, char ***names, int *nr)
{
	DIR *d = opendir(path);
	struct dirent *de;

	*names = NULL;
	*nr = 0;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		*names = xrealloc(*names, (*nr + 1) * sizeof(**names));
		(*names)[(*nr)++] = xstrdup(de->d_name);
	}
	closedir(d);
	return 0;
}

static void free_names(char **names, int nr)
{
	for (int i = 0; i < nr; i++)
		free(names[i]);
	free(names);
}

static bool is_dir(const char *dir, const char *a, const char *b)
{
	char *path;
	struct stat st;
	bool ret;

	if (asprintf(&path, "%s/events/%s%s%s", dir, a, b ? "/" : "", b ? b : "") < 0)
		return false;
	ret = !stat(path, &st) && S_ISDIR(st.st_mode);
	free(path);
	return ret;
}

/*
 * SYS:EVENT with globs in either. perf 6.1 gives up on "*:sched_switch"
 * at the first system without a sched_switch; perfcap takes the systems
 * that have one.
 */
static int add_tracepoint_glob(struct parser *p, const char *dir, const char *sys,
			       const char *event, const char *mods, const char *item)
{
	char **systems = NULL, *path = NULL;
	int nr_sys = 0, added = 0, ret;

	if (asprintf(&path, "%s/events", dir) < 0)
		return -ENOMEM;
	ret = list_dir(path, &systems, &nr_sys);
	free(path);
	if (ret) {
		snprintf(p->err, p->errlen, "cannot list the tracepoints in %s/events: %s", dir,
			 strerror(-ret));
		return ret;
	}
	for (int s = 0; s < nr_sys && !ret; s++) {
		char **events = NULL;
		int nr_ev = 0;

		if (fnmatch(sys, systems[s], 0) || !is_dir(dir, systems[s], NULL))
			continue;
		if (!has_glob(event)) {
			if (is_dir(dir, systems[s], event)) {
				ret = add_tracepoint(p, dir, systems[s], event, mods, item);
				added++;
			}
			continue;
		}
		if (asprintf(&path, "%s/events/%s", dir, systems[s]) < 0) {
			ret = -ENOMEM;
			break;
		}
		list_dir(path, &events, &nr_ev);
		free(path);
		for (int e = 0; e < nr_ev && !ret; e++) {
			long long id;

			if (fnmatch(event, events[e], 0) || !is_dir(dir, systems[s], events[e]))
				continue;
			/* ftrace's own events (ftrace:function ...) have no id: not for perf */
			if (tp_id(p, dir, systems[s], events[e], &id) == -ENOENT)
				continue;
			ret = add_tracepoint(p, dir, systems[s], events[e], mods, item);
			added++;
		}
		free_names(events, nr_ev);
	}
	free_names(systems, nr_sys);
	if (!ret && !added) {
		snprintf(p->err, p->errlen, "no tracepoint matches '%s:%s' in %s/events "
			 "(see %s/available_events)", sys, event, dir, dir);
		ret = -ENOENT;
	}
	return ret;
}

static int parse_tracepoint(struct parser *p, const char *sys, const char *event,
			    const char *mods, const char *item)
{
	const char *dir;

	if (!valid_tp_name(sys) || !valid_tp_name(event)) {
		snprintf(p->err, p->errlen, "unknown event '%s' " UNKNOWN_EVENT_HINT, item);
		return -EINVAL;
	}
	if (mods && !modifier_string_ok(mods))
		return bad_modifier(p, mods, item);
	dir = tracefs_path();
	if (!dir) {
		snprintf(p->err, p->errlen, "cannot look up tracepoint '%s:%s': tracefs is not "
			 "available (not mounted, and mounting it at /sys/kernel/tracing "
			 "needs root)", sys, event);
		return -ENOENT;
	}
	if (has_glob(sys) || has_glob(event))
		return add_tracepoint_glob(p, dir, sys, event, mods, item);
	return add_tracepoint(p, dir, sys, event, mods, item);
}

/* ---- one event ----------------------------------------------------------- */

static int unknown_event(struct parser *p, const char *name)
{
	snprintf(p->err, p->errlen, "unknown event '%s' " UNKNOWN_EVENT_HINT, name);
	return -EINVAL;
}

/* PMU/terms/[:]mods */
static int parse_pmu_item(struct parser *p, char *item)
{
	char *slash = strchr(item, '/'), *terms, *close, *mods, *pmu_name;
	int ret;

	close = strchr(slash + 1, '/');
	if (!close) {
		snprintf(p->err, p->errlen, "unknown event '%s': a PMU's terms end with '/' "
			 "(PMU/term=value,.../)", item);
		return -EINVAL;
	}
	mods = close + 1;
	if (*mods == ':')
		mods++;
	if ((*mods || mods > close + 1) && !modifier_string_ok(mods))
		return bad_modifier(p, mods, item);
	pmu_name = strndup(item, slash - item);
	terms = strndup(slash + 1, close - slash - 1);
	ret = add_pmu_event(p, pmu_name, terms, *mods ? mods : NULL, item);
	free(pmu_name);
	free(terms);
	return ret;
}

static int parse_item(struct parser *p, char *item)
{
	char *colon, *mods = NULL;
	struct perf_event_attr attr = { 0 };
	struct alias_hit hit = { 0 };
	bool symbolic, cache_name = false;
	int ret;

	if (!*item)
		return -EINVAL;	/* the caller says where */
	if (strchr(item, '/'))
		return parse_pmu_item(p, item);

	colon = strchr(item, ':');
	if (colon)
		*colon = '\0';
	symbolic = lookup_symbolic(item, &attr) || lookup_raw(item, &attr);
	if (!symbolic) {
		ret = lookup_cache(p, item, &attr);
		if (ret < 0)
			goto out_restore;
		cache_name = symbolic = ret > 0;
	}
	if (colon) {
		*colon = ':';
		mods = colon + 1;
	}
	if (symbolic && (!mods || modifier_string_ok(mods))) {
		struct event_spec *ev = new_event(p);
		char *base;

		ev->attr.type = attr.type;
		ev->attr.config = attr.config;
		/*
		 * Named as the user wrote it, modifiers included, as perf does;
		 * but perf names a cache event before its modifiers are seen.
		 */
		base = xstrdup(item);
		if (cache_name && colon)
			base[colon - item] = '\0';
		ev->name = base;
		return event_modifier(p, ev, mods, item);
	}
	/* "r1a:foo" could still be a tracepoint; "cs:x" cannot. */
	if (symbolic) {
		bool raw = item[0] == 'r' && !cache_name &&
			   !lookup_symbolic(strndupa(item, colon - item), &attr);

		if (!raw || strchr(mods, ':'))
			return bad_modifier(p, mods, item);
	}
	if (!colon || colon == item) {
		/* A PMU's alias named alone: "tsc" is msr/tsc/. */
		if (!colon && pmu__for_each_alias_named(item, first_alias, &hit) > 0) {
			ret = add_pmu_event(p, hit.pmu, hit.terms, NULL, item);
			free(hit.pmu);
			free(hit.terms);
			return ret;
		}
		return unknown_event(p, item);
	}
	/*
	 * "foo:u" is an unknown event with a modifier, not a tracepoint:
	 * "sched:sched_switch" is a tracepoint because "sched_switch" is not
	 * a modifier string.
	 */
	if (!strchr(mods, ':') && modifier_string_ok(mods)) {
		*colon = '\0';
		if (pmu__for_each_alias_named(item, first_alias, &hit) > 0) {
			ret = add_pmu_event(p, hit.pmu, hit.terms, mods, item);
			free(hit.pmu);
			free(hit.terms);
			*colon = ':';
			/* named as written, modifiers included */
			if (!ret) {
				free(p->list->ev[p->list->nr - 1].name);
				p->list->ev[p->list->nr - 1].name = xstrdup(item);
			}
			return ret;
		}
		ret = unknown_event(p, item);
		*colon = ':';
		return ret;
	}
	{
		/* SUBSYS:NAME or SUBSYS:NAME:MODS */
		char *copy = xstrdup(item), *sys = copy, *event, *tp_mods;

		event = copy + (colon - item) + 1;
		copy[colon - item] = '\0';
		tp_mods = strchr(event, ':');
		if (tp_mods)
			*tp_mods++ = '\0';
		ret = parse_tracepoint(p, sys, event, tp_mods, item);
		free(copy);
		return ret;
	}

out_restore:
	if (colon)
		*colon = ':';
	return ret;
}

/* ---- lists and groups ----------------------------------------------------- */

/*
 * The end of the event that starts at s: a ',' '{' or '}' outside a PMU's
 * /terms/ ("cpu/event=1,umask=2/" is one event).
 */
static const char *event_end(const char *s)
{
	bool in_slash = false;

	for (; *s; s++) {
		if (*s == '/')
			in_slash = !in_slash;
		else if (!in_slash && (*s == ',' || *s == '{' || *s == '}'))
			break;
	}
	return s;
}

static int empty_event(struct parser *p, const char *whole)
{
	snprintf(p->err, p->errlen, "empty event in list '%s'", whole);
	return -EINVAL;
}

static int parse_one_event(struct parser *p, const char **sp, const char *whole)
{
	const char *s = *sp, *end = event_end(s);
	char *item;
	int ret;

	if (end == s)
		return empty_event(p, whole);
	item = strndup(s, end - s);
	ret = parse_item(p, item);
	free(item);
	*sp = end;
	return ret;
}

/* {a,b}[:mods]: *sp is at the '{'. */
static int parse_group(struct parser *p, const char **sp, const char *whole)
{
	const char *s = *sp + 1;
	int first = p->list->nr, ret;

	for (;;) {
		if (*s == '{') {
			snprintf(p->err, p->errlen, "groups do not nest: '%s'", whole);
			return -EINVAL;
		}
		ret = parse_one_event(p, &s, whole);
		if (ret)
			return ret;
		if (*s == ',') {
			s++;
			continue;
		}
		if (*s == '}')
			break;
		snprintf(p->err, p->errlen, "a group's '{' has no '}' in '%s'", whole);
		return -EINVAL;
	}
	s++;
	for (int i = first; i < p->list->nr; i++)
		p->list->ev[i].leader = first;
	p->list->ev[first].nr_members = p->list->nr - first;
	if (*s == ':') {
		const char *end = event_end(s);
		char *mods = strndup(s + 1, end - s - 1);
		struct modifier m;

		for (int i = first; i < p->list->nr; i++) {
			if (!get_modifier(&m, mods, &p->list->ev[i])) {
				snprintf(p->err, p->errlen, "invalid group modifier ':%s' in '%s' "
					 "(modifiers: " MODIFIER_HINT ")", mods, whole);
				free(mods);
				return -EINVAL;
			}
			apply_modifier(&p->list->ev[i], &m, i == first);
		}
		free(mods);
		s = end;
	}
	*sp = s;
	return 0;
}

static int parse_list(struct parser *p, const char *str)
{
	const char *s = str;
	int ret;

	if (!str || !*str) {
		snprintf(p->err, p->errlen, "empty event list");
		return -EINVAL;
	}
	for (;;) {
		ret = *s == '{' ? parse_group(p, &s, str) : parse_one_event(p, &s, str);
		if (ret)
			return ret;
		if (!*s)
			return 0;
		if (*s != ',') {
			snprintf(p->err, p->errlen, "unexpected '%c' in event list '%s'", *s, str);
			return -EINVAL;
		}
		s++;
		if (!*s)
			return empty_event(p, str);
	}
}

int parse_events__add(struct event_list *list, const char *str, const char *filter,
		      char *err, int errlen)
{
	struct parser p = { list, err, errlen };
	int first = list->nr, ret;

	if (errlen > 0)
		err[0] = '\0';
	ret = parse_list(&p, str);
	if (!ret && filter) {
		/*
		 * perf's --filter goes to every event of the -e before it,
		 * and only tracepoints take one (perf's address filters are for
		 * PMUs that have nr_addr_filters, which perfcap does not do).
		 */
		for (int i = first; i < list->nr && !ret; i++) {
			if (!list->ev[i].tracepoint) {
				snprintf(err, errlen, "--filter '%s' needs tracepoints, but event "
					 "'%s' of -e '%s' is none (perf: \"This CPU does not "
					 "support address filtering\")", filter, list->ev[i].name, str);
				ret = -EINVAL;
			}
		}
		for (int i = first; i < list->nr && !ret; i++)
			list->ev[i].filter = xstrdup(filter);
	}
	if (ret) {
		if (errlen > 0 && !err[0])
			snprintf(err, errlen, "cannot parse the event list '%s'", str);
		event_list__truncate(list, first);
		return ret;
	}
	if (list->nr > first)
		list->ev[list->nr - 1].cmdline_end = true;
	return 0;
}

int parse_events(struct event_list *list, const char *str, char *err, int errlen)
{
	list->nr = 0;
	list->ev = NULL;
	return parse_events__add(list, str, NULL, err, errlen);
}

void parse_events__group_all(struct event_list *list)
{
	for (int i = 0; i < list->nr; i++) {
		list->ev[i].leader = 0;
		list->ev[i].nr_members = i ? 1 : list->nr;
	}
}
