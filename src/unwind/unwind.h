/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The DWARF unwinder: a sample's user registers and stack copy
 * (PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER) turned into user
 * frames, with the maps of the sample's time (maps.h) and each DSO's CFI
 * (dso.h, libdw).
 *
 * The frames are the ones perf 6.1 gives for the same sample (its
 * libunwind unwinding, util/unwind-libunwind-local.c, read for facts):
 * the sampled IP first, then each caller's return address less one (so
 * that it falls in the call instruction, as perf's and libdw's
 * dwfl_frame_pc() do), except for the frame a signal interrupted, whose
 * pc is the interrupted instruction (the trampoline's own frame, reached
 * by the handler's return address, is less one as any other);
 * the walk ends where the return address is undefined (the outermost
 * frame's CFI says so) or 0, and stops early, keeping what it found,
 * where a map, a file, its CFI or the stack copy runs out. A read of the
 * stack copy's last 8 bytes is refused as perf refuses it.
 *
 * One unwinder per thread: it keeps its own open DSOs and CFI rows (libdw
 * objects are not shared); the maps are shared and read-only.
 */
#ifndef PERFCAP_UNWIND_H
#define PERFCAP_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#include "unwind/maps.h"

/* What DWARF needs of an architecture's registers. */
struct unwind_arch {
	const char *machine;		/* uname -m, as the ARCH feature says it */
	int nregs;			/* DWARF columns the unwinder follows */
	int sp_col;			/* DWARF register of the stack pointer */
	int pc_col;			/* DWARF register that reads as the pc in CFI expressions, or -1 */
	int perf_ip;			/* perf's sample register bit of the IP */
	int8_t perf_to_dwarf[64];	/* by perf's register bit: DWARF column, or -1 */
};

/* The table for machine ("x86_64", "aarch64"), or NULL. */
const struct unwind_arch *unwind_arch__find(const char *machine);

/* Where an unwinding ended. */
enum unwind_stop {
	UNWIND_END,		/* at the outermost frame: the whole chain */
	UNWIND_NO_STACK,	/* no user stack in the sample (a kernel thread; in execve): no frames, as perf */
	UNWIND_MAX_DEPTH,	/* the limit of frames */
	UNWIND_NO_MAP,		/* an address in no map of the process */
	UNWIND_NO_FILE,		/* a DSO whose file was not found (or not ELF) */
	UNWIND_BUILD_ID,	/* a DSO whose file is another build */
	UNWIND_NO_CFI,		/* an address that no CFI of its DSO covers */
	UNWIND_STACK_CUT,	/* a read past the stack copy: the copy was too short */
	UNWIND_BAD_CFI,		/* an expression that could not be evaluated, or a loop */
	UNWIND_NO_REGS,		/* no IP or stack pointer in the sample */
	UNWIND__NR,
};

const char *unwind_stop__str(enum unwind_stop why);

/* One sample's input. regs: popcount(regs_mask) u64s in bit order (may be unaligned). */
struct unwind_sample {
	uint32_t pid;
	uint64_t time;
	uint64_t regs_mask;
	const void *regs;
	const void *stack;
	uint64_t stack_size;	/* the bytes the kernel filled (dyn_size) */
};

struct unwind_stats {
	uint64_t samples;
	uint64_t frames;		/* user frames given, the sampled IP included */
	uint64_t stop[UNWIND__NR];	/* samples by where they stopped */
};

struct unwinder;

/*
 * maps must be sealed. buildid_dir: perf's build-id cache, or NULL.
 * Returns NULL only for an architecture with no table.
 */
struct unwinder *unwinder__new(const struct maps *maps, const struct unwind_arch *arch,
			       const char *buildid_dir);
void unwinder__delete(struct unwinder *u);

/*
 * Unwind s into ips (at most max): returns the number of user frames
 * (0 when there is not even an IP), and where it stopped in *why. The
 * DSO it stopped in, when it stopped for a DSO's sake, in *dso_idx (else
 * -1).
 */
int unwinder__unwind(struct unwinder *u, const struct unwind_sample *s, uint64_t *ips, int max,
		     enum unwind_stop *why, int *dso_idx);

const struct unwind_stats *unwinder__stats(const struct unwinder *u);

/* The state of DSO idx for this unwinder (dso.h's enum), and the file it read. */
int unwinder__dso_state(const struct unwinder *u, size_t idx, const char **path);

#endif
