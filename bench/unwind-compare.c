// SPDX-License-Identifier: GPL-2.0
/*
 * DWARF unwinders side by side on the same samples of a perf.data
 * recording (perf record --call-graph dwarf), for issue 31's choice:
 *
 *   a  perfcap's own (src/unwind/: libdw's CFI rows, its own frame walk)
 *   b  libunwind's remote API, with accessors that answer as perf 6.1's
 *      util/unwind-libunwind-local.c does (what perf uses here)
 *   c  libdw's Dwfl frame API (dwfl_attach_state, dwfl_getthread_frames)
 *      as perf's util/unwind-libdw.c uses it, with one Dwfl per process
 *   d  the same with one Dwfl per sample, as perf 6.1 has it (-m abcd)
 *
 *   build/bench/unwind-compare [-v] [-n MAX_SAMPLES] [-m METHODS] [-d METHOD] FILE
 *
 * The maps come from the recording as `perfcap inject --convert-callchain`
 * builds them (src/inject/recording-maps.c). Each method finds a DSO's
 * file the way perfcap does (unwind_dso__new: the path, /proc/PID/root,
 * the build-id cache, the vdso), with its own open files, opened lazily
 * inside its timed loop. b and c keep their caches per process and exec
 * (perf flushes libunwind's on exec). The samples are read in batches;
 * each method unwinds a whole batch under CLOCK_PROCESS_CPUTIME_ID (its
 * system part from getrusage), so reading, copying and comparing are not
 * counted. Single-threaded.
 *
 * Per method: samples, frames, CPU seconds, frames per second, and the
 * share of samples whose ip list is exactly a's; the others are shorter
 * (a prefix of a's), longer (a's a prefix of theirs) or different. -v
 * prints the first 5 disagreeing samples of each method and where the
 * walks stopped, to stderr. a always runs, as the reference.
 *
 * -d METHOD prints that method's frames, a sample a line, as perf script
 * prints user frames (map offsets), to compare with perf itself:
 *
 *   perf script -i FILE -F tid,time,ip,dso --no-inline | awk '
 *     /^ *[0-9]+ +[0-9]+\.[0-9]+: *$/ { if (h != "") print h ips; h = $1 " " $2; ips = ""; next }
 *     /^\t/ { if ($2 !~ /^\(\[kernel/) ips = ips " " $1 }
 *     END { if (h != "") print h ips }' | sort >perf.txt
 *   build/bench/unwind-compare -d b FILE 2>/dev/null | sort | diff perf.txt -
 *
 * Conventions, perf 6.1's (facts read from perf, not its code): a sample
 * without user registers or stack bytes has no frames; the first frame
 * is the sampled IP, a caller's its return address less one unless the
 * unwinder says signal frame; at most 127 frames; a zero ip is dropped.
 * perf's two memory readers differ, and b and c follow each: libunwind's
 * refuses the stack copy's last 8 bytes (addr + 8 >= end), libdw's takes
 * them; past the copy, inside a mapping with no file behind it (the rest
 * of [stack]), perf's libunwind reader answers 1 with the word set to 0,
 * which libunwind takes for success: perf then shows one more frame,
 * ffffffffffffffff, where a stack copy was too short. b does the same.
 *
 * x86_64 recordings only for b, c and d (libunwind-x86_64, the registers).
 * Not a test: numbers go to bench/results/.
 */
#include <elf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libunwind.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "format/build-id.h"
#include "format/buildid-cache.h"
#include "format/sample-layout.h"
#include "unwind/callchain.h"
#include "inject/recording-maps.h"
#include "perf-file.h"
#include "read/reader.h"
#include "unwind/dso.h"
#include "unwind/maps.h"
#include "unwind/unwind.h"
#include "util.h"

/* libunwind exports it but ships no header for it (perf declares it the same way). */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					      unw_dyn_info_t *di, unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);

#define MAX_FRAMES 127		/* perf's default max_stack (kernel.perf_event_max_stack) */
#define BATCH_SAMPLES 4096
#define BATCH_BYTES (64u << 20)
#define SHOW_DIFFS 5

/* perf's x86_64 sample register bits (PERF_REG_X86_*). */
enum {
	PREG_AX = 0, PREG_BX = 1, PREG_CX = 2, PREG_DX = 3, PREG_SI = 4, PREG_DI = 5,
	PREG_BP = 6, PREG_SP = 7, PREG_IP = 8, PREG_R8 = 16,
};

/* DWARF (and libunwind's UNW_X86_64_*) register numbers 0-16 to perf's bits. */
static const int dwarf_to_perf_x86_64[17] = {
	PREG_AX, PREG_DX, PREG_CX, PREG_BX, PREG_SI, PREG_DI, PREG_BP, PREG_SP,
	PREG_R8, PREG_R8 + 1, PREG_R8 + 2, PREG_R8 + 3, PREG_R8 + 4, PREG_R8 + 5,
	PREG_R8 + 6, PREG_R8 + 7, PREG_IP,
};

enum { M_PERFCAP, M_LIBUNWIND, M_LIBDW, M_LIBDW_SAMPLE, NR_METHODS };

static const char *const method_name[NR_METHODS] = {
	"a perfcap", "b libunwind", "c libdw Dwfl", "d libdw/smpl",
};

/* One DWARF sample of a batch; its registers and stack bytes are in the batch's arena. */
struct bsample {
	uint32_t pid, tid;
	uint64_t time;		/* for the maps: the sample's, or its record index */
	uint64_t gen;		/* execs of pid up to time: which address space */
	uint64_t regs_mask;	/* 0: no registers */
	size_t regs_off;	/* popcount(regs_mask) u64s */
	size_t stack_off;
	uint64_t stack_size;	/* the bytes the kernel filled */
};

/* A sample as the callbacks of b and c see it. */
struct cur {
	const struct bsample *s;
	uint64_t regs[64];	/* by perf's bit */
	uint64_t regs_mask;
	const unsigned char *stack;
	uint64_t sp;		/* the stack copy's first address */
};

/* Each method's own view of the DSOs' files (so that none warms another's). */
struct files {
	struct unwind_dso **ud;
	size_t nr;
};

/* A DSO's bytes for the memory readers, and what b's find_proc_info needs of it. */
struct dso_img {
	bool tried, ok;
	const unsigned char *img;	/* the whole file */
	size_t size;
	bool mapped;			/* munmap, else free */
	uint64_t hdr_vaddr;		/* .eh_frame_hdr */
	uint64_t table_off;		/* its binary search table, from hdr_vaddr */
	uint64_t fde_count;
};

/* Each method's images, by DSO index. */
struct dso_imgs {
	struct dso_img *d;
	size_t nr;
};

/* An address space (b) or a Dwfl (c) per process and exec: key pid << 32 | gen. */
struct proc_slot {
	uint64_t key;
	bool used;
	void *p;
};

struct proc_table {
	struct proc_slot *s;
	size_t size, nr;
};

struct dw_proc {
	Dwfl *dwfl;
	bool attached;
	uint32_t pid;
};

/* c (a Dwfl per process) or d (a Dwfl per sample, as perf): the Dwfl's arg. */
struct dw_method {
	struct bench *b;
	int m;
	bool per_sample;
	struct files files;
	struct dso_imgs imgs;
	struct maps_cursor cursor;
	struct proc_table procs;	/* c */
};

/* One dwfl_getthread_frames walk. */
struct dw_walk {
	struct dw_method *dm;
	struct dw_proc *dp;
	uint64_t *ips;
	int n, left;
	bool reset;		/* a module of another base at an address: start this process's Dwfl again */
};

struct method_stats {
	uint64_t samples, frames;
	double cpu, sys;
	uint64_t same, shorter, longer, differ;
	int shown;
	/* b: how the walks ended (unw_step's last return, or the frame limit) */
	uint64_t lu_end, lu_max, lu_init_fail, lu_err[16];
	/* c, d */
	uint64_t dw_ok, dw_max, dw_resets, dw_no_first;
	char *dw_errs[16];
	uint64_t dw_err_count[16];
};

struct exec_ev {
	uint32_t pid;
	uint64_t time;
};

struct bench {
	struct perf_reader r;
	struct maps *maps;
	const struct unwind_arch *arch;
	char bdir[4096];
	bool have_bdir;
	struct sample_layout *layouts;
	bool *converts;
	bool use_seq;
	uint64_t idx;
	bool run[NR_METHODS];
	uint64_t max_samples;
	int dump;			/* -d: the method whose frames go to stdout, or -1 */
	struct maps_cursor dump_cursor;

	struct exec_ev *execs;
	size_t nr_execs, cap_execs;

	/* the batch */
	struct bsample *bs;
	size_t nr_bs;
	struct strbuf arena;
	int *nr[NR_METHODS];		/* per sample: frames */
	uint64_t *ips[NR_METHODS];	/* per sample: MAX_FRAMES slots */
	uint64_t total;			/* DWARF samples taken */
	uint64_t with_stack;
	bool stop;

	/* a */
	struct unwinder *u;
	/* b */
	struct files lu_files;
	struct dso_imgs lu_imgs;
	struct maps_cursor lu_cursor;
	struct proc_table lu_as;
	unw_accessors_t lu_acc;
	/* c, d */
	struct dw_method dw[2];
	int vdso_memfd;			/* the vdso's image for dwfl_report_elf, when it came from memory */
	char vdso_path[64];

	struct cur cur;
	struct method_stats st[NR_METHODS];
};

static int opt_verbose;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The system part of it (libunwind's global cache blocks signals around each lookup). */
static double sys_now(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* ---- the maps (src/inject/recording-maps.c), and the execs --------------- */

/* The execs, for b and c, which keep a cache per process: a new one after each. */
static int execs_cb(struct perf_reader *r, const struct perf_reader_record *rec, void *priv)
{
	struct bench *b = priv;
	const struct perf_event_header *h = rec->header;
	struct perf_reader_sample s;
	uint32_t pid;
	uint64_t time = 0;

	b->idx++;
	if (h->type != PERF_RECORD_COMM || !(h->misc & PERF_RECORD_MISC_COMM_EXEC) || h->size < 16)
		return 0;
	memcpy(&pid, (const unsigned char *)h + 8, 4);
	if (b->use_seq)
		time = b->idx;
	else if (!perf_reader__parse_id_sample(r, h, &s) && perf_reader__time_valid(s.time))
		time = s.time;
	if (b->nr_execs == b->cap_execs) {
		b->cap_execs = b->cap_execs ? 2 * b->cap_execs : 64;
		b->execs = xrealloc(b->execs, b->cap_execs * sizeof(*b->execs));
	}
	b->execs[b->nr_execs++] = (struct exec_ev) { .pid = pid, .time = time };
	return 0;
}

static int exec_cmp(const void *x, const void *y)
{
	const struct exec_ev *a = x, *b = y;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->time < b->time ? -1 : a->time > b->time;
}

/* How many execs pid did up to time: a new address space for each. */
static uint64_t exec_gen(const struct bench *b, uint32_t pid, uint64_t time)
{
	size_t lo = 0, hi = b->nr_execs, n = 0;

	while (lo < hi) {	/* the first of pid */
		size_t mid = (lo + hi) / 2;

		if (b->execs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < b->nr_execs && b->execs[lo].pid == pid && b->execs[lo].time <= time; lo++)
		n++;
	return n;
}

/* ---- a process's cache: an open-addressing table ------------------------ */

static void **proc_table__slot(struct proc_table *t, uint64_t key)
{
	size_t mask, i;

	if ((t->nr + 1) * 2 > t->size) {
		struct proc_slot *old = t->s;
		size_t old_size = t->size;

		t->size = old_size ? old_size * 2 : 64;
		t->s = xzalloc(t->size * sizeof(*t->s));
		for (size_t k = 0; k < old_size; k++) {
			if (!old[k].used)
				continue;
			for (i = (old[k].key * 0x9e3779b97f4a7c15ULL >> 32) & (t->size - 1); t->s[i].used;
			     i = (i + 1) & (t->size - 1))
				;
			t->s[i] = old[k];
		}
		free(old);
	}
	mask = t->size - 1;
	for (i = (key * 0x9e3779b97f4a7c15ULL >> 32) & mask; t->s[i].used; i = (i + 1) & mask)
		if (t->s[i].key == key)
			return &t->s[i].p;
	t->s[i].used = true;
	t->s[i].key = key;
	t->nr++;
	return &t->s[i].p;
}

/* ---- each method's files ---------------------------------------------- */

static struct unwind_dso *files__get(struct bench *b, struct files *f, const struct map_dso *d)
{
	if (d->idx >= f->nr) {
		size_t n = MAX(maps__nr_dsos(b->maps), (size_t)d->idx + 1);

		f->ud = xrealloc(f->ud, n * sizeof(*f->ud));
		memset(f->ud + f->nr, 0, (n - f->nr) * sizeof(*f->ud));
		f->nr = n;
	}
	if (!f->ud[d->idx])
		f->ud[d->idx] = unwind_dso__new(d, b->have_bdir ? b->bdir : NULL, b->arch->nregs);
	return f->ud[d->idx];
}

static void files__exit(struct files *f)
{
	for (size_t i = 0; i < f->nr; i++)
		unwind_dso__delete(f->ud[i]);
	free(f->ud);
}

/* Whether the file unwind_dso__new found is perfcap's copy of this kernel's vdso (no file). */
static bool is_own_vdso(const char *path)
{
	return path && !strncmp(path, "[vdso]", 6);
}

static void set_cur(struct bench *b, const struct bsample *s)
{
	const unsigned char *rp = (const unsigned char *)b->arena.data + s->regs_off;

	b->cur.s = s;
	b->cur.regs_mask = s->regs_mask;
	b->cur.stack = (const unsigned char *)b->arena.data + s->stack_off;
	for (int bit = 0; bit < 64; bit++) {
		if (!(s->regs_mask & (1ULL << bit)))
			continue;
		memcpy(&b->cur.regs[bit], rp, 8);
		rp += 8;
	}
	b->cur.sp = s->regs_mask & (1ULL << PREG_SP) ? b->cur.regs[PREG_SP] : 0;
}

/* perf's perf_reg_value(): the sample's register by perf's bit. */
static int cur_reg(const struct cur *c, int bit, uint64_t *v)
{
	if (!(c->regs_mask & (1ULL << bit)))
		return -ENOENT;
	*v = c->regs[bit];
	return 0;
}

/* ---- b: libunwind --------------------------------------------------------- */

/* An .eh_frame_hdr encoded value (LSB's DW_EH_PE_*): pcrel and datarel from the header at vaddr. */
static int eh_read(const unsigned char **p, const unsigned char *end, uint8_t enc,
		   uint64_t here_vaddr, uint64_t hdr_vaddr, uint64_t *val)
{
	uint64_t v = 0, base = 0;
	size_t n;

	if (enc == 0xff)	/* DW_EH_PE_omit */
		return -EINVAL;
	switch (enc & 0x70) {
	case 0x00: break;			/* absptr */
	case 0x10: base = here_vaddr; break;	/* pcrel */
	case 0x30: base = hdr_vaddr; break;	/* datarel */
	default: return -EINVAL;
	}
	switch (enc & 0x0f) {
	case 0x00: case 0x04: case 0x0c: n = 8; break;	/* ptr, udata8, sdata8 */
	case 0x03: case 0x0b: n = 4; break;		/* udata4, sdata4 */
	case 0x02: case 0x0a: n = 2; break;		/* udata2, sdata2 */
	default: return -EINVAL;
	}
	if ((size_t)(end - *p) < n)
		return -EINVAL;
	memcpy(&v, *p, n);
	if (n == 4 && (enc & 0x08))
		v = (uint64_t)(int64_t)(int32_t)v;
	else if (n == 2 && (enc & 0x08))
		v = (uint64_t)(int64_t)(int16_t)v;
	*p += n;
	*val = base + v;
	return 0;
}

/* The DSO's bytes and its .eh_frame_hdr (PT_GNU_EH_FRAME), read once per method. */
static struct dso_img *dso_img_get(struct bench *b, struct files *f, struct dso_imgs *imgs,
				   const struct map_dso *d)
{
	struct dso_img *ld;
	struct unwind_dso *ud;
	const char *path;
	Elf *elf = NULL;
	size_t n;

	if (d->idx >= imgs->nr) {
		size_t nn = MAX(maps__nr_dsos(b->maps), (size_t)d->idx + 1);

		imgs->d = xrealloc(imgs->d, nn * sizeof(*imgs->d));
		memset(imgs->d + imgs->nr, 0, (nn - imgs->nr) * sizeof(*imgs->d));
		imgs->nr = nn;
	}
	ld = &imgs->d[d->idx];
	if (ld->tried)
		return ld->img ? ld : NULL;
	ld->tried = true;
	ud = files__get(b, f, d);
	if (unwind_dso__state(ud) != DSO_OK)
		return NULL;
	path = unwind_dso__path(ud);
	if (is_own_vdso(path)) {
		struct build_id bid;
		void *image;

		if (build_id__vdso(&bid, &image, &ld->size))
			return NULL;
		ld->img = image;
	} else {
		struct stat st;
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		void *m;

		if (fd < 0)
			return NULL;
		if (fstat(fd, &st) || !st.st_size) {
			close(fd);
			return NULL;
		}
		m = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		close(fd);
		if (m == MAP_FAILED)
			return NULL;
		ld->img = m;
		ld->size = st.st_size;
		ld->mapped = true;
	}
	/* The bytes for the memory readers; then .eh_frame_hdr for b's find_proc_info (ok). */
	elf = elf_memory((char *)ld->img, ld->size);
	if (!elf || elf_getphdrnum(elf, &n))
		goto out;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		const unsigned char *p, *q, *end;
		uint64_t eh_frame;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_GNU_EH_FRAME)
			continue;
		if (ph.p_offset > ld->size || ph.p_filesz > ld->size - ph.p_offset || ph.p_filesz < 4)
			break;
		p = ld->img + ph.p_offset;
		end = p + ph.p_filesz;
		/* version 1; eh_frame_ptr_enc, fde_count_enc, table_enc */
		if (p[0] != 1 || p[3] != 0x3b)	/* libunwind's search wants datarel|sdata4 */
			break;
		q = p + 4;
		if (eh_read(&q, end, p[1], ph.p_vaddr + (q - p), ph.p_vaddr, &eh_frame) ||
		    eh_read(&q, end, p[2], ph.p_vaddr + (q - p), ph.p_vaddr, &ld->fde_count) ||
		    ld->fde_count > (uint64_t)(end - q) / 8)
			break;
		ld->hdr_vaddr = ph.p_vaddr;
		ld->table_off = q - p;
		ld->ok = true;
		break;
	}
out:
	if (elf)
		elf_end(elf);
	return ld;
}

static void dso_imgs__exit(struct dso_imgs *imgs)
{
	for (size_t i = 0; i < imgs->nr; i++) {
		struct dso_img *ld = &imgs->d[i];

		if (ld->mapped)
			munmap((void *)ld->img, ld->size);
		else
			free((void *)ld->img);
	}
	free(imgs->d);
}

static int lu_find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			     int need_unwind_info, void *arg)
{
	struct bench *b = arg;
	const struct bsample *s = b->cur.s;
	const struct map *m = maps__find(b->maps, &b->lu_cursor, s->pid, ip, s->time);
	struct unwind_dso *ud;
	struct dso_img *ld;
	unw_dyn_info_t di;
	uint64_t vaddr, bias;

	if (!m)
		return -EINVAL;	/* perf's answer: not -UNW_ENOINFO, so no frame-pointer guess */
	ld = dso_img_get(b, &b->lu_files, &b->lu_imgs, m->dso);
	if (!ld || !ld->ok)
		return -EINVAL;
	ud = files__get(b, &b->lu_files, m->dso);
	if (unwind_dso__vaddr(ud, ip - m->start + m->pgoff, &vaddr))
		return -EINVAL;
	bias = ip - vaddr;
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = m->start;
	di.end_ip = m->end;
	di.u.rti.segbase = bias + ld->hdr_vaddr;
	di.u.rti.table_data = bias + ld->hdr_vaddr + ld->table_off;
	/* in words; each entry is two 4-byte fields */
	di.u.rti.table_len = ld->fde_count * 8 / sizeof(unw_word_t);
	return UNW_OBJ(dwarf_search_unwind_table)(as, ip, &di, pi, need_unwind_info, arg);
}

static void lu_put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
}

static int lu_get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *dil, void *arg)
{
	return -UNW_ENOINFO;
}

/*
 * A word of a DSO's file at a mapped address, as perf's access_dso_mem()
 * answers: 0; -1 for an address in no map; 1 for one in a map whose file
 * has no such bytes (the [stack] past the copy, [heap], anon). libunwind
 * takes that 1 for success (and perf has set the word to 0): a read past
 * the stack copy gives 0 in perf 6.1, not an error.
 */
static int dso_word(struct bench *b, struct files *f, struct dso_imgs *imgs,
		    struct maps_cursor *c, uint64_t addr, uint64_t *val)
{
	const struct bsample *s = b->cur.s;
	const struct map *m = maps__find(b->maps, c, s->pid, addr, s->time);
	struct dso_img *ld;
	uint64_t off;

	if (!m)
		return -1;
	ld = dso_img_get(b, f, imgs, m->dso);
	if (!ld)
		return 1;
	off = addr - m->start + m->pgoff;
	if (off > ld->size || ld->size - off < 8)
		return 1;
	memcpy(val, ld->img + off, 8);
	return 0;
}

static int lu_access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp, int write,
			 void *arg)
{
	struct bench *b = arg;
	uint64_t start = b->cur.sp, end = start + b->cur.s->stack_size, v;
	int ret;

	if (write || !b->cur.regs_mask) {
		*valp = 0;
		return 0;
	}
	if (!(b->cur.regs_mask & (1ULL << PREG_SP)))
		return -UNW_EBADREG;
	if (addr + 8 < addr)
		return -EINVAL;
	/* perf's libunwind reader refuses the copy's last 8 bytes: >= */
	if (addr < start || addr + 8 >= end) {
		ret = dso_word(b, &b->lu_files, &b->lu_imgs, &b->lu_cursor, addr, &v);
		if (ret) {
			*valp = 0;
			return ret;
		}
		*valp = v;
		return 0;
	}
	memcpy(valp, b->cur.stack + (addr - start), 8);
	return 0;
}

static int lu_access_reg(unw_addr_space_t as, unw_regnum_t regnum, unw_word_t *valp, int write,
			 void *arg)
{
	struct bench *b = arg;
	uint64_t v;

	if (write)
		return 0;
	if (!b->cur.regs_mask) {
		*valp = 0;
		return 0;
	}
	if (regnum < 0 || regnum > UNW_X86_64_RIP)
		return -EINVAL;
	if (cur_reg(&b->cur, dwarf_to_perf_x86_64[regnum], &v))
		return -EINVAL;
	*valp = v;
	return 0;
}

static int lu_access_fpreg(unw_addr_space_t as, unw_regnum_t num, unw_fpreg_t *val, int write,
			   void *arg)
{
	return -UNW_EINVAL;
}

static int lu_resume(unw_addr_space_t as, unw_cursor_t *cu, void *arg)
{
	return -UNW_EINVAL;
}

static int lu_get_proc_name(unw_addr_space_t as, unw_word_t addr, char *bufp, size_t buf_len,
			    unw_word_t *offp, void *arg)
{
	return -UNW_EINVAL;
}

static unw_addr_space_t lu_as_of(struct bench *b, const struct bsample *s)
{
	void **slot = proc_table__slot(&b->lu_as, (uint64_t)s->pid << 32 | s->gen);

	if (!*slot) {
		unw_addr_space_t as = unw_create_addr_space(&b->lu_acc, 0);

		if (!as) {
			pr_err("unwind-compare: libunwind cannot create an address space\n");
			exit(1);
		}
		/* perf's choice: the per-IP register-state cache, one per process. */
		unw_set_caching_policy(as, UNW_CACHE_GLOBAL);
		*slot = as;
	}
	return *slot;
}

static int unwind_libunwind(struct bench *b, const struct bsample *s, uint64_t *ips)
{
	struct method_stats *st = &b->st[M_LIBUNWIND];
	unw_cursor_t c;
	uint64_t ip;
	int n = 0, ret, k = 0;

	set_cur(b, s);
	if (!s->regs_mask || !s->stack_size)
		return 0;
	if (cur_reg(&b->cur, PREG_IP, &ip))
		return 0;
	ips[n++] = ip;
	ret = unw_init_remote(&c, lu_as_of(b, s), b);
	if (ret) {
		st->lu_init_fail++;
	} else {
		for (;;) {
			unw_word_t w;

			ret = unw_step(&c);
			if (ret <= 0)
				break;
			if (n >= MAX_FRAMES) {
				ret = 1;
				break;
			}
			unw_get_reg(&c, UNW_REG_IP, &w);
			/*
			 * A return address: its call is the byte before. libunwind
			 * 1.6 answers for the frame the step left: the frame a
			 * signal interrupted keeps its pc, the trampoline's gets -1.
			 */
			if (unw_is_signal_frame(&c) <= 0)
				w--;
			ips[n++] = w;
		}
		if (ret > 0)
			st->lu_max++;
		else if (!ret)
			st->lu_end++;
		else
			st->lu_err[MIN(-ret, 15)]++;
	}
	/* perf drops zero ips when it hands the frames on */
	for (int i = 0; i < n; i++)
		if (ips[i])
			ips[k++] = ips[i];
	return k;
}

/* ---- c and d: libdw's Dwfl frames ------------------------------------------ */

static char *dw_debuginfo_path;

static const Dwfl_Callbacks dw_offline_callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &dw_debuginfo_path,
	.section_address = dwfl_offline_section_address,
};

static pid_t dw_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	/* One thread: the sample's registers stand for it. */
	if (*thread_argp)
		return 0;
	*thread_argp = arg;
	return dwfl_pid(dwfl);
}

static bool dw_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct dw_method *dm = arg;
	struct bench *b = dm->b;
	uint64_t start = b->cur.sp, end = start + b->cur.s->stack_size, v;

	if (!(b->cur.regs_mask & (1ULL << PREG_SP)))
		return false;
	if (addr + 8 < addr)
		return false;
	/* perf's libdw reader takes the copy's last 8 bytes: > */
	if (addr < start || addr + 8 > end) {
		if (dso_word(b, &dm->files, &dm->imgs, &dm->cursor, addr, &v))
			return false;
		*result = v;
		return true;
	}
	memcpy(result, b->cur.stack + (addr - start), 8);
	return true;
}

static bool dw_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct dw_method *dm = arg;
	struct bench *b = dm->b;
	Dwarf_Word regs[17];

	for (int i = 0; i < 17; i++) {
		uint64_t v;

		if (cur_reg(&b->cur, dwarf_to_perf_x86_64[i], &v))
			return false;
		regs[i] = v;
	}
	/* Column 16 is the return address: libdw takes the first pc from it. */
	return dwfl_thread_state_registers(thread, 0, 17, regs);
}

static const Dwfl_Thread_Callbacks dw_thread_callbacks = {
	.next_thread = dw_next_thread,
	.memory_read = dw_memory_read,
	.set_initial_registers = dw_set_initial_registers,
};

static const char *dw_vdso_file(struct bench *b)
{
	struct build_id bid;
	void *image;
	size_t size;

	if (b->vdso_memfd >= 0)
		return b->vdso_path;
	if (build_id__vdso(&bid, &image, &size))
		return NULL;
	b->vdso_memfd = memfd_create("vdso", MFD_CLOEXEC);
	if (b->vdso_memfd < 0 || write(b->vdso_memfd, image, size) != (ssize_t)size) {
		free(image);
		return NULL;
	}
	free(image);
	snprintf(b->vdso_path, sizeof(b->vdso_path), "/proc/self/fd/%d", b->vdso_memfd);
	return b->vdso_path;
}

/*
 * perf's report_module(): the module of the map at ip, reported at the
 * map's start less its offset unless one of that base is there already.
 * 0, or -1 when the map's DSO cannot be reported (no file) or the
 * address lands in another module; an address in no map is no error.
 */
static int dw_report(struct dw_walk *w, uint64_t ip)
{
	struct dw_method *dm = w->dm;
	struct bench *b = dm->b;
	const struct bsample *s = b->cur.s;
	const struct map *m = maps__find(b->maps, &dm->cursor, s->pid, ip, s->time);
	Dwfl_Module *mod;
	struct unwind_dso *ud;
	const char *path, *name;
	uint64_t base;

	if (!m)
		return 0;
	base = m->start - m->pgoff;
	mod = dwfl_addrmodule(w->dp->dwfl, ip);
	if (mod) {
		Dwarf_Addr start;

		dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
		if (start == base)
			return 0;
		/*
		 * perf's Dwfl lives for one sample; ours for a process, which
		 * may have mapped something else here since (dlclose, dlopen).
		 */
		w->reset = true;
		return -1;
	}
	ud = files__get(b, &dm->files, m->dso);
	if (unwind_dso__state(ud) != DSO_OK)
		return -1;
	path = unwind_dso__path(ud);
	if (is_own_vdso(path))
		path = dw_vdso_file(b);
	if (!path)
		return -1;
	name = strrchr(m->dso->name, '/');
	name = name ? name + 1 : m->dso->name;
	mod = dwfl_report_elf(w->dp->dwfl, name, path, -1, base, false);
	return mod && dwfl_addrmodule(w->dp->dwfl, ip) == mod ? 0 : -1;
}

static int dw_frame_cb(Dwfl_Frame *state, void *arg)
{
	struct dw_walk *w = arg;
	Dwarf_Addr pc;
	bool activation;
	int i;

	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	/* Its module first: whether it is an activation takes unwinding it. */
	dw_report(w, pc);
	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	if (!activation)
		pc--;
	i = w->n++;
	if (dw_report(w, pc)) {
		w->ips[i] = 0;
		return DWARF_CB_ABORT;
	}
	w->ips[i] = pc;
	return --w->left ? DWARF_CB_OK : DWARF_CB_ABORT;
}

static void dw_proc_free(struct dw_proc *dp)
{
	if (dp && dp->dwfl)
		dwfl_end(dp->dwfl);
	free(dp);
}

static struct dw_proc *dw_proc_new(uint32_t pid)
{
	struct dw_proc *dp = xzalloc(sizeof(*dp));

	dp->pid = pid;
	dp->dwfl = dwfl_begin(&dw_offline_callbacks);
	if (!dp->dwfl) {
		pr_err("unwind-compare: dwfl_begin: %s\n", dwfl_errmsg(-1));
		exit(1);
	}
	return dp;
}

static struct dw_proc *dw_proc_of(struct dw_method *dm, const struct bsample *s, bool fresh)
{
	void **slot;
	struct dw_proc *dp;

	if (dm->per_sample)
		return dw_proc_new(s->pid);
	slot = proc_table__slot(&dm->procs, (uint64_t)s->pid << 32 | s->gen);
	dp = *slot;

	if (dp && fresh) {
		dw_proc_free(dp);
		dp = NULL;
	}
	if (!dp) {
		dp = dw_proc_new(s->pid);
		*slot = dp;
	}
	return dp;
}

static void dw_note_err(struct method_stats *st, const char *msg)
{
	int i;

	for (i = 0; i < 16 && st->dw_errs[i]; i++)
		if (!strcmp(st->dw_errs[i], msg))
			break;
	if (i == 16)
		i = 15;
	else if (!st->dw_errs[i])
		st->dw_errs[i] = xstrdup(msg);
	st->dw_err_count[i]++;
}

static int dw_unwind(struct dw_method *dm, const struct bsample *s, uint64_t *ips)
{
	struct bench *b = dm->b;
	struct method_stats *st = &b->st[dm->m];
	struct dw_walk w = { .dm = dm, .ips = ips };
	uint64_t ip;
	int k = 0, err;

	set_cur(b, s);
	if (!s->regs_mask || !s->stack_size)
		return 0;
	if (cur_reg(&b->cur, PREG_IP, &ip))
		return 0;
	for (int attempt = 0; attempt < 2; attempt++) {
		if (dm->per_sample && w.dp)
			dw_proc_free(w.dp);
		w.dp = dw_proc_of(dm, s, attempt > 0);
		w.n = 0;
		w.left = MAX_FRAMES;
		w.reset = false;
		/*
		 * perf's fresh Dwfl has no module when the first ip is in no
		 * map, and attaching then fails: no frames.
		 */
		if (!maps__find(b->maps, &dm->cursor, s->pid, ip, s->time)) {
			st->dw_no_first++;
			goto out;
		}
		if (dw_report(&w, ip)) {
			if (w.reset && !attempt) {
				st->dw_resets++;
				continue;
			}
			st->dw_no_first++;
			goto out;
		}
		if (!w.dp->attached) {
			if (!dwfl_attach_state(w.dp->dwfl, NULL, s->pid, &dw_thread_callbacks, dm)) {
				dw_note_err(st, dwfl_errmsg(-1));
				goto out;
			}
			w.dp->attached = true;
		}
		err = dwfl_getthread_frames(w.dp->dwfl, s->pid, dw_frame_cb, &w);
		if (w.reset && !attempt) {
			st->dw_resets++;
			continue;
		}
		if (!w.left)
			st->dw_max++;
		else if (!err)
			st->dw_ok++;
		else {
			int e = dwfl_errno();

			dw_note_err(st, e ? dwfl_errmsg(e) : "stopped by the frame callback");
		}
		break;
	}
	for (int i = 0; i < w.n; i++)
		if (ips[i])
			ips[k++] = ips[i];
out:
	if (dm->per_sample)
		dw_proc_free(w.dp);
	return k;
}

static int unwind_libdw(struct bench *b, const struct bsample *s, uint64_t *ips)
{
	return dw_unwind(&b->dw[0], s, ips);
}

static int unwind_libdw_sample(struct bench *b, const struct bsample *s, uint64_t *ips)
{
	return dw_unwind(&b->dw[1], s, ips);
}

/* ---- a: perfcap ------------------------------------------------------------ */

static int unwind_perfcap(struct bench *b, const struct bsample *s, uint64_t *ips)
{
	struct unwind_sample us = {
		.pid = s->pid,
		.time = s->time,
		.regs_mask = s->regs_mask,
		.regs = b->arena.data + s->regs_off,
		.stack = b->arena.data + s->stack_off,
		.stack_size = s->stack_size,
	};
	enum unwind_stop why;
	int dso_idx;

	return unwinder__unwind(b->u, &us, ips, MAX_FRAMES, &why, &dso_idx);
}

/* ---- the batches ----------------------------------------------------------- */

typedef int (*unwind_fn)(struct bench *b, const struct bsample *s, uint64_t *ips);

static const unwind_fn method_fn[NR_METHODS] = {
	unwind_perfcap, unwind_libunwind, unwind_libdw, unwind_libdw_sample,
};

static void print_ips(const char *label, const uint64_t *ips, int n)
{
	fprintf(stderr, "    %-13s %3d:", label, n);
	for (int i = 0; i < n; i++)
		fprintf(stderr, " %" PRIx64, ips[i]);
	fputc('\n', stderr);
}

static void compare(struct bench *b, int m, size_t i)
{
	struct method_stats *st = &b->st[m];
	const uint64_t *ia = b->ips[M_PERFCAP] + i * MAX_FRAMES, *im = b->ips[m] + i * MAX_FRAMES;
	int na = b->nr[M_PERFCAP][i], nm = b->nr[m][i], common = MIN(na, nm);
	bool prefix = !memcmp(ia, im, common * sizeof(*ia));

	if (prefix && na == nm) {
		st->same++;
		return;
	}
	if (prefix && nm < na)
		st->shorter++;
	else if (prefix)
		st->longer++;
	else
		st->differ++;
	if (opt_verbose && st->shown < SHOW_DIFFS) {
		const struct bsample *s = &b->bs[i];

		st->shown++;
		fprintf(stderr, "%s differs: pid %u tid %u time %" PRIu64 " (sample %" PRIu64
			", stack %" PRIu64 " bytes)\n", method_name[m], s->pid, s->tid, s->time,
			b->total - b->nr_bs + i, s->stack_size);
		print_ips(method_name[M_PERFCAP], ia, na);
		print_ips(method_name[m], im, nm);
	}
}

/*
 * -d: one line per sample, the method's user frames as perf script prints
 * them (an address in a file's map as an offset into it, map__map_ip), to
 * diff against perf script -F tid,time,ip,dso --no-inline less its kernel
 * frames (bench/unwind-compare.c's header says how).
 */
static void dump_batch(struct bench *b)
{
	for (size_t i = 0; i < b->nr_bs; i++) {
		const struct bsample *s = &b->bs[i];
		const uint64_t *ips = b->ips[b->dump] + i * MAX_FRAMES;

		if (b->use_seq)
			printf("%u %" PRIu64 ":", s->tid, s->time);
		else
			printf("%u %" PRIu64 ".%06" PRIu64 ":", s->tid, s->time / 1000000000,
			       s->time % 1000000000 / 1000);
		for (int k = 0; k < b->nr[b->dump][i]; k++) {
			const struct map *m = maps__find(b->maps, &b->dump_cursor, s->pid, ips[k], s->time);
			uint64_t v = ips[k];

			/* perf maps anon memory ([stack], //anon, [heap]) one to one */
			if (m && (m->dso->name[0] == '/' || !strcmp(m->dso->name, "[vdso]")))
				v = v - m->start + m->pgoff;
			printf(" %" PRIx64, v);
		}
		putchar('\n');
	}
}

static void run_batch(struct bench *b)
{
	for (int m = 0; m < NR_METHODS; m++) {
		struct method_stats *st = &b->st[m];
		double t0, s0;

		if (!b->run[m])
			continue;
		s0 = sys_now();
		t0 = cpu_now();
		for (size_t i = 0; i < b->nr_bs; i++)
			b->nr[m][i] = method_fn[m](b, &b->bs[i], b->ips[m] + i * MAX_FRAMES);
		st->cpu += cpu_now() - t0;
		st->sys += sys_now() - s0;
		st->samples += b->nr_bs;
		for (size_t i = 0; i < b->nr_bs; i++)
			st->frames += b->nr[m][i];
	}
	for (int m = 1; m < NR_METHODS; m++)
		if (b->run[m])
			for (size_t i = 0; i < b->nr_bs; i++)
				compare(b, m, i);
	if (b->dump >= 0)
		dump_batch(b);
	b->nr_bs = 0;
	strbuf__reset(&b->arena);
}

static int pass2_cb(struct perf_reader *r, const struct perf_reader_record *rec, void *priv)
{
	struct bench *b = priv;
	const struct perf_event_header *h = rec->header;
	const unsigned char *p = (const unsigned char *)h;
	struct perf_reader_sample s;
	struct sample_fields f;
	const struct sample_layout *l;
	struct bsample *bs;
	uint64_t stack_size = 0, dyn = 0, abi = 0;

	b->idx++;
	if (h->type != PERF_RECORD_SAMPLE)
		return 0;
	if (perf_reader__parse_sample(&b->r, h, &s) || s.attr < 0 || !b->converts[s.attr])
		return 0;
	l = &b->layouts[s.attr];
	if (sample_layout__parse(l, h, h->size, &f) || !f.after_stack)
		return 0;
	memcpy(&stack_size, p + f.stack, 8);
	if (stack_size)
		memcpy(&dyn, p + f.stack + 8 + stack_size, 8);
	if (l->sample_type & PERF_SAMPLE_REGS_USER)
		memcpy(&abi, p + f.regs_user, 8);
	bs = &b->bs[b->nr_bs++];
	bs->pid = s.pid;
	bs->tid = s.tid;
	bs->time = b->use_seq ? b->idx : s.time;
	bs->gen = exec_gen(b, s.pid, bs->time);
	bs->regs_mask = abi ? l->regs_user : 0;
	bs->stack_size = MIN(dyn, stack_size);
	bs->regs_off = b->arena.len;
	strbuf__add(&b->arena, p + f.regs_user + 8, 8 * (size_t)__builtin_popcountll(bs->regs_mask));
	/* 8-aligned for the unwinders' word reads */
	strbuf__addz(&b->arena, ALIGN_UP(b->arena.len, 8) - b->arena.len);
	bs->stack_off = b->arena.len;
	strbuf__add(&b->arena, p + f.stack + 8, bs->stack_size);
	strbuf__addz(&b->arena, ALIGN_UP(b->arena.len, 8) - b->arena.len);
	b->total++;
	b->with_stack += bs->regs_mask && bs->stack_size;
	if (b->nr_bs == BATCH_SAMPLES || b->arena.len >= BATCH_BYTES)
		run_batch(b);
	if (b->max_samples && b->total >= b->max_samples) {
		b->stop = true;
		return 1;
	}
	return 0;
}

/* ---- the whole ------------------------------------------------------------- */

static int setup(struct bench *b)
{
	void *arch = NULL;
	size_t size, nr_conv = 0;
	int err;

	b->layouts = xzalloc((b->r.nr_attrs + 1) * sizeof(*b->layouts));
	b->converts = xzalloc((b->r.nr_attrs + 1) * sizeof(*b->converts));
	for (size_t i = 0; i < b->r.nr_attrs; i++) {
		const struct perf_event_attr *a = &b->r.attrs[i].attr;

		sample_layout__init(&b->layouts[i], a);
		b->converts[i] = callchain__attr_converts(a);
		nr_conv += b->converts[i];
	}
	b->use_seq = recording_maps__by_index(&b->r);
	if (!nr_conv) {
		pr_err("unwind-compare: %s has no DWARF stacks (record with --call-graph dwarf)\n",
		       b->r.path);
		return -EINVAL;
	}
	err = perf_reader__read_feature(&b->r, HEADER_ARCH, &arch, &size);
	if (!err && size > 4)
		b->arch = unwind_arch__find((char *)arch + 4);
	if (!b->arch) {
		pr_err("unwind-compare: %s: no unwinder for its architecture\n", b->r.path);
		free(arch);
		return -EINVAL;
	}
	if (strcmp(b->arch->machine, "x86_64") &&
	    (b->run[M_LIBUNWIND] || b->run[M_LIBDW] || b->run[M_LIBDW_SAMPLE])) {
		pr_err("unwind-compare: %s is %s: b, c and d unwind x86_64 only here; -m a\n",
		       b->r.path, b->arch->machine);
		free(arch);
		return -EINVAL;
	}
	free(arch);
	b->have_bdir = !buildid_cache__dir(b->bdir, sizeof(b->bdir));
	return 0;
}

static const char *human(double v, char *buf, size_t size)
{
	if (v >= 1e6)
		snprintf(buf, size, "%.2fM", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, size, "%.1fk", v / 1e3);
	else
		snprintf(buf, size, "%.0f", v);
	return buf;
}

static void report(struct bench *b)
{
	const struct unwind_stats *us = unwinder__stats(b->u);
	/* With -d the frames hold stdout. */
	FILE *out = b->dump >= 0 ? stderr : stdout;

	fprintf(out, "%s: %" PRIu64 " DWARF samples (%" PRIu64 " with a user stack), %zu processes, "
	       "%zu maps, %zu DSOs\n", b->r.path, b->total, b->with_stack, maps__nr_procs(b->maps),
	       maps__nr_maps(b->maps), maps__nr_dsos(b->maps));
	fprintf(out, "%-14s %9s %10s %8s %7s %10s %8s %8s %8s %8s %8s\n", "method", "samples", "frames",
	       "cpu_s", "sys_s", "frames/s", "us/smpl", "same_a%", "shorter", "longer", "differ");
	for (int m = 0; m < NR_METHODS; m++) {
		const struct method_stats *st = &b->st[m];
		char fps[32];

		if (!b->run[m])
			continue;
		fprintf(out, "%-14s %9" PRIu64 " %10" PRIu64 " %8.3f %7.3f %10s %8.2f", method_name[m],
		       st->samples, st->frames, st->cpu, st->sys,
		       human(st->cpu > 0 ? st->frames / st->cpu : 0, fps, sizeof(fps)),
		       st->samples ? st->cpu * 1e6 / st->samples : 0);
		if (m == M_PERFCAP)
			fprintf(out, " %8s %8s %8s %8s\n", "ref", "-", "-", "-");
		else
			fprintf(out, " %8.3f %8" PRIu64 " %8" PRIu64 " %8" PRIu64 "\n",
			       st->samples ? 100.0 * st->same / st->samples : 0, st->shorter, st->longer,
			       st->differ);
	}
	if (!opt_verbose)
		return;
	fflush(stdout);
	fprintf(stderr, "a stops:");
	for (int k = 0; k < UNWIND__NR; k++)
		if (us->stop[k])
			fprintf(stderr, " %s %" PRIu64 ";", unwind_stop__str(k), us->stop[k]);
	fputc('\n', stderr);
	if (b->run[M_LIBUNWIND]) {
		const struct method_stats *st = &b->st[M_LIBUNWIND];

		fprintf(stderr, "b stops: unw_step 0 (end) %" PRIu64 "; frame limit %" PRIu64
			"; unw_init_remote failed %" PRIu64 ";", st->lu_end, st->lu_max, st->lu_init_fail);
		for (int k = 0; k < 16; k++)
			if (st->lu_err[k])
				fprintf(stderr, " unw_step -%d%s %" PRIu64 ";", k, k == 15 ? "+" : "",
					st->lu_err[k]);
		fputc('\n', stderr);
	}
	for (int m = M_LIBDW; m <= M_LIBDW_SAMPLE; m++) {
		const struct method_stats *st = &b->st[m];

		if (!b->run[m])
			continue;
		fprintf(stderr, "%c stops: end %" PRIu64 "; frame limit %" PRIu64
			"; first ip unreportable %" PRIu64 "; Dwfl restarts %" PRIu64 ";",
			"abcd"[m], st->dw_ok, st->dw_max, st->dw_no_first, st->dw_resets);
		for (int k = 0; k < 16 && st->dw_errs[k]; k++)
			fprintf(stderr, " '%s' %" PRIu64 ";", st->dw_errs[k], st->dw_err_count[k]);
		fputc('\n', stderr);
	}
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [-v] [-n MAX_SAMPLES] [-m METHODS] [-d METHOD] FILE\n"
		"  METHODS: letters of a (perfcap), b (libunwind), c (libdw, a Dwfl per process),\n"
		"  d (libdw, a Dwfl per sample as perf 6.1); default abc; a always runs\n"
		"  -d METHOD: print its frames per sample to stdout (the table goes to stderr)\n",
		argv0);
}

int main(int argc, char **argv)
{
	struct bench b = { .vdso_memfd = -1, .dump = -1 };
	const char *methods = "abc", *dump = NULL;
	int opt, err, ret = 1;

	while ((opt = getopt(argc, argv, "vn:m:d:")) != -1) {
		switch (opt) {
		case 'v': opt_verbose++; break;
		case 'n': b.max_samples = strtoull(optarg, NULL, 0); break;
		case 'm': methods = optarg; break;
		case 'd': dump = optarg; break;
		default: usage(argv[0]); return 2;
		}
	}
	if (optind != argc - 1 || strspn(methods, "abcd") != strlen(methods) ||
	    (dump && (strlen(dump) != 1 || !strchr("abcd", dump[0]) ||
		      (dump[0] != 'a' && !strchr(methods, dump[0]))))) {
		usage(argv[0]);
		return 2;
	}
	if (dump)
		b.dump = dump[0] - 'a';
	b.run[M_PERFCAP] = true;
	b.run[M_LIBUNWIND] = strchr(methods, 'b');
	b.run[M_LIBDW] = strchr(methods, 'c');
	b.run[M_LIBDW_SAMPLE] = strchr(methods, 'd');
	for (int k = 0; k < 2; k++) {
		b.dw[k].b = &b;
		b.dw[k].m = k ? M_LIBDW_SAMPLE : M_LIBDW;
		b.dw[k].per_sample = k;
	}
	elf_version(EV_CURRENT);

	err = perf_reader__open(&b.r, argv[optind]);
	if (err)
		return 1;
	if (setup(&b))
		goto out;
	err = recording_maps__read(&b.r, &b.maps);
	if (!err)
		err = perf_reader__for_each_record(&b.r, execs_cb, &b);
	if (err)
		goto out;
	qsort(b.execs, b.nr_execs, sizeof(*b.execs), exec_cmp);

	b.u = unwinder__new(b.maps, b.arch, b.have_bdir ? b.bdir : NULL);
	b.lu_acc = (unw_accessors_t) {
		.find_proc_info = lu_find_proc_info,
		.put_unwind_info = lu_put_unwind_info,
		.get_dyn_info_list_addr = lu_get_dyn_info_list_addr,
		.access_mem = lu_access_mem,
		.access_reg = lu_access_reg,
		.access_fpreg = lu_access_fpreg,
		.resume = lu_resume,
		.get_proc_name = lu_get_proc_name,
	};
	b.bs = xzalloc(BATCH_SAMPLES * sizeof(*b.bs));
	for (int m = 0; m < NR_METHODS; m++) {
		b.nr[m] = xzalloc(BATCH_SAMPLES * sizeof(*b.nr[m]));
		b.ips[m] = xzalloc((size_t)BATCH_SAMPLES * MAX_FRAMES * sizeof(*b.ips[m]));
	}
	strbuf__init(&b.arena);
	b.idx = 0;
	err = perf_reader__for_each_record(&b.r, pass2_cb, &b);
	if (err && !(b.stop && err == 1))
		goto out;
	if (b.nr_bs)
		run_batch(&b);
	report(&b);
	ret = 0;
out:
	for (size_t i = 0; i < b.lu_as.size; i++)
		if (b.lu_as.s[i].used)
			unw_destroy_addr_space(b.lu_as.s[i].p);
	free(b.lu_as.s);
	for (int k = 0; k < 2; k++) {
		struct dw_method *dm = &b.dw[k];

		for (size_t i = 0; i < dm->procs.size; i++)
			if (dm->procs.s[i].used)
				dw_proc_free(dm->procs.s[i].p);
		free(dm->procs.s);
		dso_imgs__exit(&dm->imgs);
		files__exit(&dm->files);
	}
	for (int m = 0; m < NR_METHODS; m++)
		for (int k = 0; k < 16; k++)
			free(b.st[m].dw_errs[k]);
	dso_imgs__exit(&b.lu_imgs);
	files__exit(&b.lu_files);
	if (b.vdso_memfd >= 0)
		close(b.vdso_memfd);
	unwinder__delete(b.u);
	strbuf__exit(&b.arena);
	free(b.bs);
	for (int m = 0; m < NR_METHODS; m++) {
		free(b.nr[m]);
		free(b.ips[m]);
	}
	free(b.execs);
	free(b.layouts);
	free(b.converts);
	maps__delete(b.maps);
	perf_reader__close(&b.r);
	return ret;
}
