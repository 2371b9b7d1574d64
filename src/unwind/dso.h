/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One unwinder's view of a DSO: its ELF file found (by path, by build id
 * in perf's build-id cache, under /proc/PID/root, or this kernel's vdso),
 * its load segments, its CFI (.eh_frame, then .debug_frame from the file
 * or its debug file) and the CFI rows already asked for, compiled: a
 * profile asks for the same few thousand addresses again and again.
 *
 * libdw (elfutils) reads the CFI. Its objects are not shared between
 * threads: each unwinder has its own set (unwind.h).
 */
#ifndef PERFCAP_UNWIND_DSO_H
#define PERFCAP_UNWIND_DSO_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdint.h>

#include "unwind/maps.h"

/* The most DWARF registers an architecture here unwinds with (aarch64: x0-x30, sp). */
#define UNWIND_MAX_REGS 33

/* Why a DSO has no CFI for the unwinder. */
enum unwind_dso_state {
	DSO_UNKNOWN = 0,	/* not looked at yet */
	DSO_OK,
	DSO_NO_FILE,		/* not found: gone, never a file ([anon], JIT), or a container's that exited */
	DSO_BUILD_ID,		/* found, but its build id is not the recording's */
	DSO_NOT_ELF,
	DSO_NO_CFI,		/* neither .eh_frame nor .debug_frame */
};

/* One register's rule in a CFI row. */
enum cfi_rule_kind {
	CFI_UNDEFINED,		/* not recoverable (an end, when it is the return address) */
	CFI_SAME,		/* unchanged in the caller */
	CFI_EXPR,		/* a DWARF location description: ops */
};

/*
 * The two forms nearly every rule takes, found once when the row is
 * compiled: the unwinder computes them without the expression evaluator
 * (the same value: a location at register + offset, or at CFA + offset).
 */
enum cfi_fast {
	CFI_FAST_NONE,
	CFI_FAST_BREG,		/* DW_OP_bregN / DW_OP_bregx: reg + off */
	CFI_FAST_CFA,		/* DW_OP_call_frame_cfa, then + off (or none) */
};

struct cfi_rule {
	uint8_t kind;
	uint8_t nops;
	uint8_t fast;		/* enum cfi_fast */
	uint8_t freg;		/* CFI_FAST_BREG's register */
	int64_t foff;		/* ... and the offset */
	Dwarf_Op *ops;
};

/* The CFI row of one address, as the unwinder uses it. */
struct cfi_row {
	uint64_t vaddr;
	bool found;		/* false: no FDE covers vaddr */
	bool signal;		/* a signal frame (its FDE's 'S') */
	int ra;			/* the return-address column */
	struct cfi_rule cfa;	/* a DWARF expression for the CFA */
	struct cfi_rule reg[UNWIND_MAX_REGS];
};

struct unwind_dso;

/*
 * The state of d for this unwinder, opened on first use (pid: the process
 * the address came from, for /proc/PID/root). buildid_dir may be NULL.
 */
struct unwind_dso *unwind_dso__new(const struct map_dso *d, const char *buildid_dir, int nregs);
void unwind_dso__delete(struct unwind_dso *ud);
enum unwind_dso_state unwind_dso__state(const struct unwind_dso *ud);
/* The file it reads, for -v; NULL when none. */
const char *unwind_dso__path(const struct unwind_dso *ud);

/* Its ELF (libelf; the vdso's from memory), NULL when none was found: for its symbols. */
Elf *unwind_dso__elf(const struct unwind_dso *ud);
/* The build id of the file found (size 0: none). */
const struct build_id *unwind_dso__build_id(const struct unwind_dso *ud);

/* The ELF virtual address of file offset off, or -ENOENT when no PT_LOAD holds it. */
int unwind_dso__vaddr(const struct unwind_dso *ud, uint64_t off, uint64_t *vaddr);

/* len bytes of the file at offset off into buf (the code, for the heuristics): 0 or -EIO. */
int unwind_dso__read(const struct unwind_dso *ud, uint64_t off, void *buf, size_t len);

/* The CFI row at vaddr (cached); never NULL, row->found says whether CFI covers it. */
const struct cfi_row *unwind_dso__row(struct unwind_dso *ud, uint64_t vaddr);

const char *unwind_dso_state__str(enum unwind_dso_state s);

#endif
