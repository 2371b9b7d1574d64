// SPDX-License-Identifier: GPL-2.0
/* Function names for addresses: ELF symbol tables and kallsyms (symtab.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libiberty/demangle.h>
/* libiberty.h comes with demangle.h, with an ARRAY_SIZE of its own: util.h's is used here. */
#undef ARRAY_SIZE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/symtab.h"
#include "util.h"


struct sym {
	struct symbol s;
	uint64_t seq;		/* order of reading: perf keeps that order among equals */
	uint8_t bind, type;
	bool module;		/* kallsyms: a module's */
};

#define NAME_BLOCK (64 * 1024)

struct symtab {
	struct sym *syms;
	size_t nr, cap;
	/*
	 * Names live in blocks of the table's own, freed with it: a kallsyms
	 * of 120,000 names is a few blocks, not 120,000 allocations.
	 */
	char **blocks;
	size_t nr_blocks, used;	/* used: bytes of the last block */
};

static const char *keep(struct symtab *st, const char *name)
{
	size_t len = strlen(name) + 1;
	char *copy;

	if (len > NAME_BLOCK / 4) {
		/* A long name (C++ templates) gets a block of its own, before the last. */
		copy = xstrdup(name);
		st->blocks = xrealloc(st->blocks, (st->nr_blocks + 1) * sizeof(*st->blocks));
		if (st->nr_blocks) {
			st->blocks[st->nr_blocks] = st->blocks[st->nr_blocks - 1];
			st->blocks[st->nr_blocks - 1] = copy;
		} else {
			st->blocks[0] = copy;
			st->used = NAME_BLOCK;	/* full: the next short name opens a block */
		}
		st->nr_blocks++;
		return copy;
	}
	if (!st->nr_blocks || st->used + len > NAME_BLOCK) {
		st->blocks = xrealloc(st->blocks, (st->nr_blocks + 1) * sizeof(*st->blocks));
		st->blocks[st->nr_blocks++] = xzalloc(NAME_BLOCK);
		st->used = 0;
	}
	copy = st->blocks[st->nr_blocks - 1] + st->used;
	memcpy(copy, name, len);
	st->used += len;
	return copy;
}

static struct sym *add(struct symtab *st, uint64_t start, uint64_t size, const char *name,
		       uint8_t bind, uint8_t type)
{
	struct sym *y;
	char *dem = NULL;

	if (st->nr == st->cap) {
		st->cap = st->cap ? 2 * st->cap : 256;
		st->syms = xrealloc(st->syms, st->cap * sizeof(*st->syms));
	}
	y = &st->syms[st->nr++];
	y->s.start = start;
	y->s.end = start + size;
	y->s.raw = keep(st, name);
	if (name[0] == '_' && name[1] == 'Z')
		/*
		 * As perf 6.1 prints them (libiberty, no options): no parameters.
		 * cplus_demangle_v3 only, which allocates with malloc: the rest of
		 * libiberty brings an xmalloc and an xrealloc that util.c has too.
		 */
		dem = cplus_demangle_v3(name, DMGL_NO_OPTS);
	y->s.name = dem ? keep(st, dem) : y->s.raw;
	free(dem);
	y->bind = bind;
	y->type = type;
	y->seq = st->nr - 1;
	y->module = false;
	return y;
}

static size_t underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/*
 * Of two symbols at one address, the one perf report names (its
 * symbols__fixup_duplicate, after sizeless symbols were ended at the
 * next address): one that still has a size, then a typed one over a
 * label, then not weak, then global, then fewer leading underscores,
 * then the longer name, then the one read first. True when a wins; a
 * was read before b.
 */
static bool better(const struct sym *a, const struct sym *b)
{
	size_t ua, ub, la, lb;
	bool sa = a->s.end > a->s.start, sb = b->s.end > b->s.start;

	if (sa != sb)
		return sa;
	if (a->type != b->type && (a->type == STT_NOTYPE || b->type == STT_NOTYPE))
		return b->type == STT_NOTYPE;
	if ((a->bind == STB_WEAK) != (b->bind == STB_WEAK))
		return b->bind == STB_WEAK;
	if ((a->bind == STB_GLOBAL) != (b->bind == STB_GLOBAL))
		return a->bind == STB_GLOBAL;
	ua = underscores(a->s.raw);
	ub = underscores(b->s.raw);
	if (ua != ub)
		return ua < ub;
	la = strlen(a->s.raw);
	lb = strlen(b->s.raw);
	return la >= lb;
}

static int by_start(const void *pa, const void *pb)
{
	const struct sym *a = pa, *b = pb;

	if (a->s.start != b->s.start)
		return a->s.start < b->s.start ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/*
 * As perf: sort (equals in the order read), end each sizeless symbol at
 * the next one's start (so of several at one address only the last keeps
 * a size; kallsyms' last before a module's, at the next page), then keep
 * one symbol an address.
 */
static void finish(struct symtab *st)
{
	size_t n = 0;

	if (!st->nr)
		return;
	qsort(st->syms, st->nr, sizeof(*st->syms), by_start);
	for (size_t i = 0; i < st->nr; i++) {
		struct sym *y = &st->syms[i];

		if (y->s.end != y->s.start)
			continue;
		if (i + 1 == st->nr || y->module != st->syms[i + 1].module)
			y->s.end = (y->s.start + 4096 + 4095) & ~4095ULL;
		else
			y->s.end = st->syms[i + 1].s.start;
	}
	for (size_t i = 0; i < st->nr; i++) {
		if (n && st->syms[i].s.start == st->syms[n - 1].s.start) {
			if (!better(&st->syms[n - 1], &st->syms[i]))
				st->syms[n - 1] = st->syms[i];
			continue;
		}
		st->syms[n++] = st->syms[i];
	}
	st->nr = n;
}

/* Whether section i is code as perf sees it: its name says "text". */
static bool in_text(Elf *elf, size_t shstrndx, size_t i)
{
	Elf_Scn *scn = elf_getscn(elf, i);
	GElf_Shdr sh;
	const char *name;

	if (!scn || !gelf_getshdr(scn, &sh))
		return false;
	name = elf_strptr(elf, shstrndx, sh.sh_name);
	return name && strstr(name, "text");
}

/*
 * The function symbols (and code labels, as perf takes them) of elf's
 * section of type type, in code sections; how many.
 */
static size_t read_table(struct symtab *st, Elf *elf, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	size_t before = st->nr, shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;
			int t;

			if (!gelf_getsym(data, (int)i, &sym))
				break;
			t = GELF_ST_TYPE(sym.st_info);
			if ((t != STT_FUNC && t != STT_GNU_IFUNC && t != STT_NOTYPE) ||
			    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE ||
			    !sym.st_value || !in_text(elf, shstrndx, sym.st_shndx))
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name && *name)
				add(st, sym.st_value, sym.st_size, name, GELF_ST_BIND(sym.st_info), t);
		}
	}
	return st->nr - before;
}

/* A stripped file's symbols from its debug file (Debian's -dbgsym packages put them here). */
static size_t read_debug_file(struct symtab *st, const struct build_id *bid)
{
	char path[4096], hex[2 * BUILD_ID_MAX + 1];
	size_t n = 0;
	Elf *elf;
	int fd;

	if (!bid || !bid->size)
		return 0;
	build_id__hex(bid, hex);
	snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf)
		n = read_table(st, elf, SHT_SYMTAB);
	elf_end(elf);
	close(fd);
	return n;
}

static Elf_Scn *section_named(Elf *elf, size_t shstrndx, const char *want, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh->sh_name);
		if (name && !strcmp(name, want))
			return scn;
	}
	return NULL;
}

/*
 * Names for the PLT's entries, as perf 6.1 makes them: after a header of
 * one entry, an entry of .plt's sh_entsize for each .rela.plt relocation in
 * turn, named after the relocation's dynamic symbol with "@plt" (an
 * IRELATIVE one, which has none, is plain "@plt"). x86_64's layout only:
 * perf 6.1 sizes other machines' differently.
 */
static void add_plt(struct symtab *st, Elf *elf)
{
	GElf_Ehdr eh;
	GElf_Shdr plt, rela, dynsym;
	Elf_Scn *s_plt, *s_rela, *s_dyn;
	Elf_Data *rd, *sd;
	size_t shstrndx;
	uint64_t at;

	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 || elf_getshdrstrndx(elf, &shstrndx))
		return;
	s_plt = section_named(elf, shstrndx, ".plt", &plt);
	s_rela = section_named(elf, shstrndx, ".rela.plt", &rela);
	if (!s_plt || !s_rela || rela.sh_type != SHT_RELA || !plt.sh_entsize || !rela.sh_entsize)
		return;
	s_dyn = elf_getscn(elf, rela.sh_link);
	if (!s_dyn || !gelf_getshdr(s_dyn, &dynsym))
		return;
	rd = elf_getdata(s_rela, NULL);
	sd = elf_getdata(s_dyn, NULL);
	if (!rd || !sd)
		return;
	at = plt.sh_addr + plt.sh_entsize;
	for (size_t i = 0; i < rela.sh_size / rela.sh_entsize; i++, at += plt.sh_entsize) {
		GElf_Rela r;
		GElf_Sym sym;
		const char *name = "";
		char *dem = NULL, buf[512];

		if (!gelf_getrela(rd, (int)i, &r))
			break;
		if (gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &sym)) {
			name = elf_strptr(elf, dynsym.sh_link, sym.st_name);
			if (!name)
				name = "";
		}
		if (name[0] == '_' && name[1] == 'Z')
			dem = cplus_demangle_v3(name, DMGL_NO_OPTS);
		snprintf(buf, sizeof(buf), "%s@plt", dem ? dem : name);
		free(dem);
		add(st, at, plt.sh_entsize, buf, STB_GLOBAL, STT_FUNC);
	}
}

struct symtab *symtab__from_elf(Elf *elf, const struct build_id *bid)
{
	struct symtab *st = xzalloc(sizeof(*st));

	if (!read_debug_file(st, bid) && elf && !read_table(st, elf, SHT_SYMTAB))
		read_table(st, elf, SHT_DYNSYM);
	if (elf)
		add_plt(st, elf);
	finish(st);
	return st;
}

struct symtab *symtab__from_kallsyms(const char *path)
{
	FILE *f = fopen(path, "re");
	struct symtab *st;
	char line[1024];

	if (!f)
		return NULL;
	st = xzalloc(sizeof(*st));
	while (fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type, name[512];

		/* "ADDR TYPE NAME\t[module]": text symbols only, the module left out. */
		if (sscanf(line, "%llx %c %511s", &addr, &type, name) != 3)
			continue;
		if (toupper((unsigned char)type) != 'T' && toupper((unsigned char)type) != 'W')
			continue;
		if (!addr)
			continue;
		add(st, addr, 0, name, isupper((unsigned char)type) ? STB_GLOBAL : STB_LOCAL,
		    STT_FUNC)->module = strchr(line, '[') != NULL;
	}
	fclose(f);
	finish(st);
	return st;
}

void symtab__delete(struct symtab *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->nr_blocks; i++)
		free(st->blocks[i]);
	free(st->blocks);
	free(st->syms);
	free(st);
}

const struct symbol *symtab__find(const struct symtab *st, uint64_t addr)
{
	size_t lo = 0, hi = st->nr;

	/* The last symbol starting at or below addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->syms[mid].s.start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	return addr < st->syms[lo - 1].s.end ? &st->syms[lo - 1].s : NULL;
}

size_t symtab__nr(const struct symtab *st)
{
	return st->nr;
}
