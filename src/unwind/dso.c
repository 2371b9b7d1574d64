// SPDX-License-Identifier: GPL-2.0
/*
 * A DSO's ELF and CFI for one unwinder (dso.h). The file is looked for
 * where perf looks: the path in the map record, the same path under
 * /proc/PID/root (a container's file), perf's build-id cache; a file
 * whose build id is not the recording's is never used (a rebuilt library
 * would give wrong frames, which is worse than none). [vdso] comes from
 * the cache or, when the build id is this kernel's, from perfcap's own.
 *
 * Rows are compiled once per address into cfi_row (copies of libdw's
 * expressions) and kept in an open-addressing table by address.
 */
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/build-id.h"
#include "unwind/dso.h"
#include "util.h"

struct load {
	uint64_t off, filesz, vaddr;
};

struct unwind_dso {
	enum unwind_dso_state state;
	int nregs;
	char *path;
	int fd;
	void *image;		/* the vdso's bytes, when it came from memory */
	Elf *elf;
	Dwarf_CFI *eh;		/* .eh_frame, dwarf_getcfi_elf's: ended with dwarf_cfi_end */
	/* .debug_frame: from the file itself or its debug file, looked for once */
	bool dbg_tried;
	int dbg_fd;
	Elf *dbg_elf;
	Dwarf *dbg;
	Dwarf_CFI *dbg_cfi;	/* dwarf_getcfi's: lives with dbg */
	struct build_id bid;
	struct load *loads;
	size_t nr_loads;

	struct cfi_row **rows;	/* open addressing by vaddr, a power of two */
	size_t rows_size, nr_rows;
};

const char *unwind_dso_state__str(enum unwind_dso_state s)
{
	switch (s) {
	case DSO_UNKNOWN: return "not looked at";
	case DSO_OK: return "ok";
	case DSO_NO_FILE: return "file not found";
	case DSO_BUILD_ID: return "build id differs";
	case DSO_NOT_ELF: return "not ELF";
	case DSO_NO_CFI: return "no CFI";
	}
	return "?";
}

static bool bid_eq(const struct build_id *a, const struct build_id *b)
{
	return a->size == b->size && !memcmp(a->data, b->data, a->size);
}

/* Open path if it is the DSO's file: 0, -ENOENT, or -ESTALE (another build). */
static int try_path(struct unwind_dso *ud, const struct map_dso *d, const char *path)
{
	struct build_id bid = { .size = 0 };
	struct stat st;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ENOENT;
	if (d->bid.size) {
		err = build_id__from_file(path, &bid);
		if (err || !bid_eq(&bid, &d->bid)) {
			close(fd);
			return -ESTALE;
		}
	} else if (d->ino && (fstat(fd, &st) || st.st_ino != d->ino)) {
		/* No build id to check: the inode of the MMAP2 record must be the file's. */
		close(fd);
		return -ESTALE;
	}
	ud->fd = fd;
	ud->path = xstrdup(path);
	ud->bid = d->bid;
	return 0;
}

static int open_vdso(struct unwind_dso *ud, const struct map_dso *d, const char *buildid_dir)
{
	struct build_id bid;
	void *image;
	size_t size;
	char hex[2 * BUILD_ID_MAX + 1], path[4096];

	if (d->bid.size && buildid_dir) {
		snprintf(path, sizeof(path), "%s/[vdso]/%s/vdso", buildid_dir, build_id__hex(&d->bid, hex));
		if (!try_path(ud, d, path))
			return 0;
	}
	/* This kernel's vdso, when the recording's is this one (or says no id). */
	if (build_id__vdso(&bid, &image, &size))
		return -ENOENT;
	if (d->bid.size && !bid_eq(&bid, &d->bid)) {
		free(image);
		return -ESTALE;
	}
	ud->image = image;
	ud->elf = elf_memory(image, size);
	ud->path = xstrdup("[vdso] (perfcap's own)");
	return ud->elf ? 0 : -ENOEXEC;
}

static int open_file(struct unwind_dso *ud, const struct map_dso *d, const char *buildid_dir)
{
	char path[4096], hex[2 * BUILD_ID_MAX + 1];
	int err, stale = 0;

	if (!strcmp(d->name, "[vdso]"))
		return open_vdso(ud, d, buildid_dir);
	if (d->name[0] != '/')
		return -ENOENT;	/* [heap], [stack], //anon, a JIT's memfd: no file */
	err = try_path(ud, d, d->name);
	if (!err)
		return 0;
	stale |= err == -ESTALE;
	if (d->first_pid) {
		snprintf(path, sizeof(path), "/proc/%u/root%s", d->first_pid, d->name);
		err = try_path(ud, d, path);
		if (!err)
			return 0;
		stale |= err == -ESTALE;
	}
	if (d->bid.size && buildid_dir) {
		build_id__hex(&d->bid, hex);
		snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s/elf", buildid_dir, hex, hex + 2);
		if (!try_path(ud, d, path))
			return 0;
	}
	return stale ? -ESTALE : -ENOENT;
}

static void read_loads(struct unwind_dso *ud)
{
	size_t n;

	if (elf_getphdrnum(ud->elf, &n))
		return;
	ud->loads = xzalloc((n + 1) * sizeof(*ud->loads));
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(ud->elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		ud->loads[ud->nr_loads++] = (struct load) {
			.off = ph.p_offset, .filesz = ph.p_filesz, .vaddr = ph.p_vaddr,
		};
	}
}

struct unwind_dso *unwind_dso__new(const struct map_dso *d, const char *buildid_dir, int nregs)
{
	struct unwind_dso *ud = xzalloc(sizeof(*ud));
	int err;

	ud->fd = -1;
	ud->dbg_fd = -1;
	ud->nregs = nregs;
	elf_version(EV_CURRENT);
	err = open_file(ud, d, buildid_dir);
	if (err) {
		ud->state = err == -ESTALE ? DSO_BUILD_ID : err == -ENOEXEC ? DSO_NOT_ELF : DSO_NO_FILE;
		return ud;
	}
	if (!ud->elf)
		ud->elf = elf_begin(ud->fd, ELF_C_READ_MMAP, NULL);
	if (!ud->elf || elf_kind(ud->elf) != ELF_K_ELF) {
		ud->state = DSO_NOT_ELF;
		return ud;
	}
	read_loads(ud);
	ud->eh = dwarf_getcfi_elf(ud->elf);
	ud->state = DSO_OK;
	return ud;
}

static void row_free(struct cfi_row *row)
{
	if (!row)
		return;
	free(row->cfa.ops);
	for (int i = 0; i < UNWIND_MAX_REGS; i++)
		free(row->reg[i].ops);
	free(row);
}

void unwind_dso__delete(struct unwind_dso *ud)
{
	if (!ud)
		return;
	for (size_t i = 0; i < ud->rows_size; i++)
		row_free(ud->rows[i]);
	free(ud->rows);
	if (ud->eh)
		dwarf_cfi_end(ud->eh);
	if (ud->dbg)
		dwarf_end(ud->dbg);
	if (ud->dbg_elf)
		elf_end(ud->dbg_elf);
	if (ud->dbg_fd >= 0)
		close(ud->dbg_fd);
	if (ud->elf)
		elf_end(ud->elf);
	if (ud->fd >= 0)
		close(ud->fd);
	free(ud->image);
	free(ud->loads);
	free(ud->path);
	free(ud);
}

enum unwind_dso_state unwind_dso__state(const struct unwind_dso *ud)
{
	return ud->state;
}

const char *unwind_dso__path(const struct unwind_dso *ud)
{
	return ud->path;
}

Elf *unwind_dso__elf(const struct unwind_dso *ud)
{
	return ud->state == DSO_OK ? ud->elf : NULL;
}

const struct build_id *unwind_dso__build_id(const struct unwind_dso *ud)
{
	return &ud->bid;
}

int unwind_dso__vaddr(const struct unwind_dso *ud, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < ud->nr_loads; i++) {
		const struct load *l = &ud->loads[i];

		if (off >= l->off && off < l->off + l->filesz) {
			*vaddr = off - l->off + l->vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

int unwind_dso__read(const struct unwind_dso *ud, uint64_t off, void *buf, size_t len)
{
	if (ud->image) {
		size_t size;
		const char *img = elf_rawfile(ud->elf, &size);

		if (!img || off > size || len > size - off)
			return -EIO;
		memcpy(buf, img + off, len);
		return 0;
	}
	if (ud->fd < 0 || pread(ud->fd, buf, len, (off_t)off) != (ssize_t)len)
		return -EIO;
	return 0;
}

/* .debug_frame: in the file itself, else in its debug file (by build id). */
static void open_debug_frame(struct unwind_dso *ud)
{
	char path[4096], hex[2 * BUILD_ID_MAX + 1];

	ud->dbg_tried = true;
	ud->dbg = dwarf_begin_elf(ud->elf, DWARF_C_READ, NULL);
	if (ud->dbg) {
		ud->dbg_cfi = dwarf_getcfi(ud->dbg);
		if (ud->dbg_cfi)
			return;
		dwarf_end(ud->dbg);
		ud->dbg = NULL;
	}
	if (!ud->bid.size)
		return;
	build_id__hex(&ud->bid, hex);
	snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	ud->dbg_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ud->dbg_fd < 0)
		return;
	ud->dbg_elf = elf_begin(ud->dbg_fd, ELF_C_READ_MMAP, NULL);
	if (!ud->dbg_elf)
		return;
	ud->dbg = dwarf_begin_elf(ud->dbg_elf, DWARF_C_READ, NULL);
	if (ud->dbg)
		ud->dbg_cfi = dwarf_getcfi(ud->dbg);
}

/* A constant op's value (lit, const, constu, consts), or false. */
static bool op_const(const Dwarf_Op *op, int64_t *v)
{
	if (op->atom >= DW_OP_lit0 && op->atom <= DW_OP_lit31) {
		*v = op->atom - DW_OP_lit0;
		return true;
	}
	switch (op->atom) {
	case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u: case DW_OP_const2s:
	case DW_OP_const4u: case DW_OP_const4s: case DW_OP_const8u: case DW_OP_const8s:
	case DW_OP_constu: case DW_OP_consts:
		*v = (int64_t)op->number;
		return true;
	}
	return false;
}

/* The rule's fast form (dso.h), if its ops are one. */
static void rule_fast(struct cfi_rule *r, const Dwarf_Op *ops, size_t nops)
{
	int64_t c;

	if (nops == 1 && ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		r->fast = CFI_FAST_BREG;
		r->freg = ops[0].atom - DW_OP_breg0;
		r->foff = (int64_t)ops[0].number;
	} else if (nops == 1 && ops[0].atom == DW_OP_bregx && ops[0].number < 64) {
		r->fast = CFI_FAST_BREG;
		r->freg = (uint8_t)ops[0].number;
		r->foff = (int64_t)ops[0].number2;
	} else if (nops >= 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		if (nops == 1) {
			r->fast = CFI_FAST_CFA;
			r->foff = 0;
		} else if (nops == 2 && ops[1].atom == DW_OP_plus_uconst) {
			r->fast = CFI_FAST_CFA;
			r->foff = (int64_t)ops[1].number;
		} else if (nops == 3 && op_const(&ops[1], &c) &&
			   (ops[2].atom == DW_OP_plus || ops[2].atom == DW_OP_minus)) {
			r->fast = CFI_FAST_CFA;
			r->foff = ops[2].atom == DW_OP_plus ? c : -c;
		}
	}
}

static void rule_copy(struct cfi_rule *r, const Dwarf_Op *ops, size_t nops)
{
	r->kind = CFI_EXPR;
	r->nops = nops > 255 ? 255 : nops;
	r->ops = xzalloc(r->nops * sizeof(*ops) + 1);
	memcpy(r->ops, ops, r->nops * sizeof(*ops));
	if (r->nops == nops)
		rule_fast(r, ops, nops);
}

/* Compile libdw's frame at vaddr into row; false when no FDE covers it. */
static bool compile_row(struct unwind_dso *ud, Dwarf_CFI *cfi, uint64_t vaddr, struct cfi_row *row)
{
	Dwarf_Frame *frame = NULL;
	Dwarf_Addr start, end;
	Dwarf_Op *ops, ops_mem[3];
	size_t nops;
	bool signal = false;

	if (!cfi || dwarf_cfi_addrframe(cfi, vaddr, &frame) || !frame)
		return false;
	row->ra = dwarf_frame_info(frame, &start, &end, &signal);
	row->signal = signal;
	if (row->ra < 0 || dwarf_frame_cfa(frame, &ops, &nops) || !nops) {
		free(frame);
		return false;
	}
	rule_copy(&row->cfa, ops, nops);
	for (int r = 0; r < ud->nregs; r++) {
		if (dwarf_frame_register(frame, r, ops_mem, &ops, &nops)) {
			row->reg[r].kind = CFI_UNDEFINED;
			continue;
		}
		if (!nops)
			row->reg[r].kind = ops ? CFI_UNDEFINED : CFI_SAME;
		else
			rule_copy(&row->reg[r], ops, nops);
	}
	free(frame);
	row->found = true;
	return true;
}

static void rows_insert(struct unwind_dso *ud, struct cfi_row *row)
{
	size_t mask = ud->rows_size - 1;
	size_t i = (row->vaddr * 0x9e3779b97f4a7c15ULL >> 20) & mask;

	while (ud->rows[i])
		i = (i + 1) & mask;
	ud->rows[i] = row;
}

const struct cfi_row *unwind_dso__row(struct unwind_dso *ud, uint64_t vaddr)
{
	struct cfi_row *row;
	size_t mask, i;

	if (ud->rows_size) {
		mask = ud->rows_size - 1;
		for (i = (vaddr * 0x9e3779b97f4a7c15ULL >> 20) & mask; ud->rows[i]; i = (i + 1) & mask)
			if (ud->rows[i]->vaddr == vaddr)
				return ud->rows[i];
	}
	row = xzalloc(sizeof(*row));
	row->vaddr = vaddr;
	if (!compile_row(ud, ud->eh, vaddr, row)) {
		if (!ud->dbg_tried)
			open_debug_frame(ud);
		compile_row(ud, ud->dbg_cfi, vaddr, row);
	}
	if ((ud->nr_rows + 1) * 2 > ud->rows_size) {
		struct cfi_row **old = ud->rows;
		size_t old_size = ud->rows_size;

		ud->rows_size = old_size ? old_size * 2 : 1024;
		ud->rows = xzalloc(ud->rows_size * sizeof(*ud->rows));
		for (i = 0; i < old_size; i++)
			if (old[i])
				rows_insert(ud, old[i]);
		free(old);
	}
	rows_insert(ud, row);
	ud->nr_rows++;
	return row;
}
