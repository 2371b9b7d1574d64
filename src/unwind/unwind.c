// SPDX-License-Identifier: GPL-2.0
/*
 * The frame walk (unwind.h): per frame, the map and DSO of the address,
 * its CFI row (dso.c), the CFA and the caller's registers from the row's
 * DWARF expressions, evaluated here over the sample's registers and its
 * stack copy. Registers are recovered eagerly, but a register whose
 * saved slot lies outside the stack copy is only marked unknown: the
 * walk fails only when the CFA or the return address needs one, which
 * is where a lazy unwinder (libunwind's) would fail too.
 */
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/dso.h"
#include "unwind/unwind.h"
#include "util.h"

/* x86_64: perf's PERF_REG_X86_* bits to the psABI's DWARF numbers (RA column 16). */
static const struct unwind_arch arch_x86_64 = {
	.machine = "x86_64",
	.nregs = 17,
	.sp_col = 7,
	.pc_col = 16,	/* RIP: the PLT's CFA expression reads it */
	.perf_ip = 8,
	.perf_to_dwarf = {
		[0] = 0,	/* AX */
		[1] = 3,	/* BX */
		[2] = 2,	/* CX */
		[3] = 1,	/* DX */
		[4] = 4,	/* SI */
		[5] = 5,	/* DI */
		[6] = 6,	/* BP */
		[7] = 7,	/* SP */
		[8] = -1,	/* IP: the walk's pc, not a column */
		[9 ... 15] = -1,	/* FLAGS, segment registers */
		[16] = 8, [17] = 9, [18] = 10, [19] = 11,
		[20] = 12, [21] = 13, [22] = 14, [23] = 15,
		[24 ... 63] = -1,
	},
};

/* aarch64: PERF_REG_ARM64_X0..X30, SP (31), PC (32); DWARF x0-x30, sp 31 (RA column 30). */
static const struct unwind_arch arch_aarch64 = {
	.machine = "aarch64",
	.nregs = 32,
	.sp_col = 31,
	.pc_col = -1,
	.perf_ip = 32,
	.perf_to_dwarf = {
		[0] = 0, [1] = 1, [2] = 2, [3] = 3, [4] = 4, [5] = 5, [6] = 6, [7] = 7,
		[8] = 8, [9] = 9, [10] = 10, [11] = 11, [12] = 12, [13] = 13, [14] = 14,
		[15] = 15, [16] = 16, [17] = 17, [18] = 18, [19] = 19, [20] = 20, [21] = 21,
		[22] = 22, [23] = 23, [24] = 24, [25] = 25, [26] = 26, [27] = 27, [28] = 28,
		[29] = 29, [30] = 30, [31] = 31,
		[32 ... 63] = -1,
	},
};

const struct unwind_arch *unwind_arch__find(const char *machine)
{
	if (!machine)
		return NULL;
	if (!strcmp(machine, "x86_64"))
		return &arch_x86_64;
	if (!strcmp(machine, "aarch64") || !strcmp(machine, "arm64"))
		return &arch_aarch64;
	return NULL;
}

const char *unwind_stop__str(enum unwind_stop why)
{
	switch (why) {
	case UNWIND_END: return "whole";
	case UNWIND_NO_STACK: return "no user stack";
	case UNWIND_MAX_DEPTH: return "frame limit";
	case UNWIND_NO_MAP: return "address in no map";
	case UNWIND_NO_FILE: return "DSO file not found";
	case UNWIND_BUILD_ID: return "DSO file is another build";
	case UNWIND_NO_CFI: return "no CFI for the address";
	case UNWIND_STACK_CUT: return "stack copy too short";
	case UNWIND_BAD_CFI: return "CFI not usable";
	case UNWIND_NO_REGS: return "no IP or SP in the sample";
	case UNWIND__NR: break;
	}
	return "?";
}

struct unwinder {
	const struct maps *maps;
	const struct unwind_arch *arch;
	char *buildid_dir;
	struct maps_cursor cursor;
	struct unwind_dso **dsos;	/* by map_dso.idx */
	size_t nr_dsos;
	struct unwind_stats stats;
};

struct unwinder *unwinder__new(const struct maps *maps, const struct unwind_arch *arch,
			       const char *buildid_dir)
{
	struct unwinder *u;

	if (!arch)
		return NULL;
	u = xzalloc(sizeof(*u));
	u->maps = maps;
	u->arch = arch;
	u->buildid_dir = buildid_dir ? xstrdup(buildid_dir) : NULL;
	return u;
}

void unwinder__delete(struct unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nr_dsos; i++)
		unwind_dso__delete(u->dsos[i]);
	free(u->dsos);
	free(u->buildid_dir);
	free(u);
}

const struct unwind_stats *unwinder__stats(const struct unwinder *u)
{
	return &u->stats;
}

int unwinder__dso_state(const struct unwinder *u, size_t idx, const char **path)
{
	if (idx >= u->nr_dsos || !u->dsos[idx]) {
		*path = NULL;
		return DSO_UNKNOWN;
	}
	*path = unwind_dso__path(u->dsos[idx]);
	return unwind_dso__state(u->dsos[idx]);
}

static struct unwind_dso *dso_of(struct unwinder *u, const struct map_dso *d)
{
	if (d->idx >= u->nr_dsos) {
		size_t n = maps__nr_dsos(u->maps);

		if (n <= d->idx)
			n = d->idx + 1;
		u->dsos = xrealloc(u->dsos, n * sizeof(*u->dsos));
		memset(u->dsos + u->nr_dsos, 0, (n - u->nr_dsos) * sizeof(*u->dsos));
		u->nr_dsos = n;
	}
	if (!u->dsos[d->idx])
		u->dsos[d->idx] = unwind_dso__new(d, u->buildid_dir, u->arch->nregs);
	return u->dsos[d->idx];
}

/* ---- one frame's state and the expressions over it ------------------------ */

struct frame {
	uint64_t pc;
	uint64_t reg[UNWIND_MAX_REGS];
	uint64_t valid;		/* bit per DWARF column */
};

struct stack_mem {
	uint64_t start, end;	/* the copy's addresses */
	const unsigned char *data;
};

/* A u64 of the stack copy. perf refuses the last 8 bytes too (addr + 8 >= end), and so do we. */
static bool mem_read(const struct stack_mem *m, uint64_t addr, uint64_t *val)
{
	if (addr < m->start || addr + 8 >= m->end || addr + 8 < addr)
		return false;
	memcpy(val, m->data + (addr - m->start), 8);
	return true;
}

static bool mem_read_size(const struct stack_mem *m, uint64_t addr, unsigned size, uint64_t *val)
{
	uint64_t v;

	if (size == 8 || size == 0)
		return mem_read(m, addr, val);
	/* As a word read: libunwind reads whole words. */
	if (size > 8 || addr < m->start || addr + 8 >= m->end || addr + 8 < addr)
		return false;
	v = 0;
	memcpy(&v, m->data + (addr - m->start), size);	/* little-endian hosts and targets */
	*val = v;
	return true;
}

enum eval_err { EVAL_OK = 0, EVAL_NEED_REG, EVAL_MEM, EVAL_BAD };

#define EVAL_STACK 64

/*
 * Evaluate ops (a location description when loc, else an expression)
 * with the frame f and the CFA cfa. *val is the value; *is_loc says it
 * is an address to read (a memory location), not the value itself.
 */
static enum eval_err eval(const struct cfi_rule *r, const struct frame *f, int nregs, uint64_t cfa,
			  bool have_cfa, const struct stack_mem *m, uint64_t *val, bool *is_loc)
{
	uint64_t st[EVAL_STACK];
	int sp = 0;
	bool loc = true;
	size_t steps = 0;

#define PUSH(v) do { uint64_t v_ = (v); if (sp >= EVAL_STACK) return EVAL_BAD; st[sp++] = v_; } while (0)
#define NEED(n) do { if (sp < (n)) return EVAL_BAD; } while (0)
#define REG(n, out) do { int rn_ = (n); \
		if (rn_ < 0 || rn_ >= nregs) return EVAL_BAD; \
		if (!(f->valid & (1ULL << rn_))) return EVAL_NEED_REG; \
		(out) = f->reg[rn_]; } while (0)

	/* The forms nearly every rule takes, as the loop below would compute them. */
	if (r->fast == CFI_FAST_BREG) {
		REG(r->freg, *val);
		*val += (uint64_t)r->foff;
		*is_loc = true;
		return EVAL_OK;
	}
	if (r->fast == CFI_FAST_CFA) {
		if (!have_cfa)
			return EVAL_BAD;
		*val = cfa + (uint64_t)r->foff;
		*is_loc = true;
		return EVAL_OK;
	}
	for (size_t i = 0; i < r->nops; i++) {
		const Dwarf_Op *op = &r->ops[i];
		uint8_t a = op->atom;
		uint64_t x, y;

		if (++steps > 1000)
			return EVAL_BAD;
		if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
			PUSH(a - DW_OP_lit0);
			continue;
		}
		if (a >= DW_OP_reg0 && a <= DW_OP_reg31) {
			REG(a - DW_OP_reg0, x);
			*val = x;
			*is_loc = false;
			return EVAL_OK;
		}
		if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
			REG(a - DW_OP_breg0, x);
			PUSH(x + op->number);
			continue;
		}
		switch (a) {
		case DW_OP_regx:
			REG((int)op->number, x);
			*val = x;
			*is_loc = false;
			return EVAL_OK;
		case DW_OP_bregx:
			REG((int)op->number, x);
			PUSH(x + op->number2);
			break;
		case DW_OP_call_frame_cfa:
			if (!have_cfa)
				return EVAL_BAD;
			PUSH(cfa);
			break;
		case DW_OP_addr: case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u:
		case DW_OP_const2s: case DW_OP_const4u: case DW_OP_const4s: case DW_OP_const8u:
		case DW_OP_const8s: case DW_OP_constu: case DW_OP_consts:
			PUSH(op->number);
			break;
		case DW_OP_dup: NEED(1); PUSH(st[sp - 1]); break;
		case DW_OP_drop: NEED(1); sp--; break;
		case DW_OP_over: NEED(2); PUSH(st[sp - 2]); break;
		case DW_OP_pick:
			if (op->number >= (uint64_t)sp)
				return EVAL_BAD;
			PUSH(st[sp - 1 - op->number]);
			break;
		case DW_OP_swap: NEED(2); x = st[sp - 1]; st[sp - 1] = st[sp - 2]; st[sp - 2] = x; break;
		case DW_OP_rot:
			NEED(3);
			x = st[sp - 1]; st[sp - 1] = st[sp - 2]; st[sp - 2] = st[sp - 3]; st[sp - 3] = x;
			break;
		case DW_OP_deref:
		case DW_OP_deref_size:
			NEED(1);
			if (!mem_read_size(m, st[sp - 1], a == DW_OP_deref ? 8 : (unsigned)op->number, &x))
				return EVAL_MEM;
			st[sp - 1] = x;
			break;
		case DW_OP_abs: NEED(1); if ((int64_t)st[sp - 1] < 0) st[sp - 1] = -st[sp - 1]; break;
		case DW_OP_neg: NEED(1); st[sp - 1] = -st[sp - 1]; break;
		case DW_OP_not: NEED(1); st[sp - 1] = ~st[sp - 1]; break;
		case DW_OP_plus_uconst: NEED(1); st[sp - 1] += op->number; break;
		case DW_OP_and: case DW_OP_div: case DW_OP_minus: case DW_OP_mod: case DW_OP_mul:
		case DW_OP_or: case DW_OP_plus: case DW_OP_shl: case DW_OP_shr: case DW_OP_shra:
		case DW_OP_xor: case DW_OP_le: case DW_OP_ge: case DW_OP_eq: case DW_OP_lt:
		case DW_OP_gt: case DW_OP_ne:
			NEED(2);
			y = st[--sp];
			x = st[sp - 1];
			switch (a) {
			case DW_OP_and: x &= y; break;
			case DW_OP_div: if (!y) return EVAL_BAD; x = (uint64_t)((int64_t)x / (int64_t)y); break;
			case DW_OP_minus: x -= y; break;
			case DW_OP_mod: if (!y) return EVAL_BAD; x %= y; break;
			case DW_OP_mul: x *= y; break;
			case DW_OP_or: x |= y; break;
			case DW_OP_plus: x += y; break;
			case DW_OP_shl: x = y >= 64 ? 0 : x << y; break;
			case DW_OP_shr: x = y >= 64 ? 0 : x >> y; break;
			case DW_OP_shra: x = (uint64_t)((int64_t)x >> (y >= 64 ? 63 : y)); break;
			case DW_OP_xor: x ^= y; break;
			case DW_OP_le: x = (int64_t)x <= (int64_t)y; break;
			case DW_OP_ge: x = (int64_t)x >= (int64_t)y; break;
			case DW_OP_eq: x = x == y; break;
			case DW_OP_lt: x = (int64_t)x < (int64_t)y; break;
			case DW_OP_gt: x = (int64_t)x > (int64_t)y; break;
			case DW_OP_ne: x = x != y; break;
			}
			st[sp - 1] = x;
			break;
		case DW_OP_skip:
		case DW_OP_bra: {
			uint64_t target;
			size_t j;

			if (a == DW_OP_bra) {
				NEED(1);
				if (!st[--sp])
					break;
			}
			/* The 2-byte operand is relative to the end of this 3-byte op. */
			target = op->offset + 3 + (uint64_t)(int64_t)(int16_t)op->number;
			for (j = 0; j < r->nops && r->ops[j].offset != target; j++)
				;
			if (j == r->nops && target != (r->nops ? r->ops[r->nops - 1].offset + 1 : 0))
				return EVAL_BAD;
			i = j - 1;	/* the loop's i++ lands on j */
			break;
		}
		case DW_OP_nop:
			break;
		case DW_OP_stack_value:
			loc = false;
			i = r->nops;	/* the last op */
			break;
		default:
			return EVAL_BAD;
		}
	}
#undef PUSH
#undef NEED
#undef REG
	if (!sp)
		return EVAL_BAD;
	*val = st[sp - 1];
	*is_loc = loc;
	return EVAL_OK;
}

/* Step from frame f to its caller through row; UNWIND_END (go on, or *end) or why not. */
static enum unwind_stop step(const struct cfi_row *row, const struct frame *f, int nregs, int sp_col,
			     const struct stack_mem *m, struct frame *caller, bool *end,
			     const char **detail)
{
	uint64_t cfa, v;
	bool is_loc;
	enum eval_err e;

	*end = false;
	e = eval(&row->cfa, f, nregs, 0, false, m, &cfa, &is_loc);
	if (e) {
		*detail = e == EVAL_MEM ? "the CFA reads past the stack copy" :
			  e == EVAL_NEED_REG ? "the CFA needs a register that was not recovered" :
			  "the CFA expression";
		return e == EVAL_BAD ? UNWIND_BAD_CFI : UNWIND_STACK_CUT;
	}
	caller->valid = 0;
	for (int r = 0; r < nregs; r++) {
		const struct cfi_rule *rule = &row->reg[r];

		switch (rule->kind) {
		case CFI_UNDEFINED:
			break;
		case CFI_SAME:
			if (f->valid & (1ULL << r)) {
				caller->reg[r] = f->reg[r];
				caller->valid |= 1ULL << r;
			}
			break;
		case CFI_EXPR:
			e = eval(rule, f, nregs, cfa, true, m, &v, &is_loc);
			if (e == EVAL_BAD && r == row->ra) {
				*detail = "the return address's expression";
				return UNWIND_BAD_CFI;
			}
			if (e)
				break;	/* unknown in the caller, which may never need it */
			if (is_loc && !mem_read(m, v, &v))
				break;
			caller->reg[r] = v;
			caller->valid |= 1ULL << r;
			break;
		}
	}
	/* The caller's stack pointer is the CFA, unless the CFI says otherwise. */
	if (row->reg[sp_col].kind != CFI_EXPR) {
		caller->reg[sp_col] = cfa;
		caller->valid |= 1ULL << sp_col;
	}
	if (row->ra < 0 || row->ra >= nregs) {
		*detail = "no return-address column";
		return UNWIND_BAD_CFI;
	}
	if (row->reg[row->ra].kind == CFI_UNDEFINED) {
		*end = true;	/* the outermost frame says so */
		return UNWIND_END;
	}
	if (!(caller->valid & (1ULL << row->ra))) {
		*detail = "the return address lies past the stack copy";
		return UNWIND_STACK_CUT;
	}
	caller->pc = caller->reg[row->ra];
	if (!caller->pc)
		*end = true;
	return UNWIND_END;
}

/*
 * x86_64 without CFI at f->pc: what libunwind does there (its x86_64
 * unw_step, read for facts), so that perf's chains and ours agree. A
 * lazy-binding PLT entry (jmp *x(%rip); push $n; jmp ...), which
 * Debian's libc has no CFI for: the return address is at the stack
 * pointer. Else the frame-pointer chain, if the frame pointer lies at
 * most 16 KiB above the stack pointer: the caller's frame pointer at
 * [rbp], its return address at [rbp + 8], its stack pointer rbp + 16.
 * false: no guess (the chain ends there).
 */
static bool x86_64_guess(const struct unwind_dso *ud, const struct map *mp, const struct frame *f,
			 const struct stack_mem *m, struct frame *caller)
{
	uint64_t code[2], sp = f->reg[7], rbp = f->reg[6], v;

	if (!(f->valid & (1ULL << 7)))
		return false;
	*caller = *f;
	if (f->pc >= mp->start && f->pc - mp->start <= mp->end - mp->start - 16 &&
	    !unwind_dso__read(ud, f->pc - mp->start + mp->pgoff, code, sizeof(code)) &&
	    (code[0] & 0xffff) == 0x25ff && ((code[0] >> 48) & 0xff) == 0x68 &&
	    ((code[1] >> 24) & 0xff) == 0xe9) {
		if (!mem_read(m, sp, &v))
			return false;
		caller->pc = v;
		caller->reg[7] = sp + 8;
		return true;
	}
	if (!(f->valid & (1ULL << 6)) || !rbp || rbp < sp || rbp - sp > 0x4000)
		return false;
	if (!mem_read(m, rbp + 8, &v))
		return false;
	caller->pc = v;
	caller->reg[7] = rbp + 16;
	if (mem_read(m, rbp, &v))
		caller->reg[6] = v;
	else
		caller->valid &= ~(1ULL << 6);
	return true;
}

int unwinder__unwind(struct unwinder *u, const struct unwind_sample *s, uint64_t *ips, int max,
		     enum unwind_stop *why, int *dso_idx)
{
	const struct unwind_arch *arch = u->arch;
	struct frame f = { 0 }, caller;
	struct stack_mem m = { .data = s->stack };
	const unsigned char *rp = s->regs;
	bool have_pc = false, first = true, prev_signal = false;
	const char *detail = NULL;
	uint64_t look = 0;
	int n = 0;

	*dso_idx = -1;
	u->stats.samples++;
	for (int bit = 0; bit < 64; bit++) {
		uint64_t v;

		if (!(s->regs_mask & (1ULL << bit)))
			continue;
		memcpy(&v, rp, 8);
		rp += 8;
		if (bit == arch->perf_ip) {
			f.pc = v;
			have_pc = true;
		}
		if (arch->perf_to_dwarf[bit] >= 0) {
			f.reg[arch->perf_to_dwarf[bit]] = v;
			f.valid |= 1ULL << arch->perf_to_dwarf[bit];
		}
	}
	/* perf unwinds nothing without registers or stack bytes (util/machine.c). */
	if (!s->regs_mask || !s->stack_size) {
		*why = UNWIND_NO_STACK;
		goto out;
	}
	if (!have_pc || !(f.valid & (1ULL << arch->sp_col)) || max <= 0) {
		*why = have_pc && max <= 0 ? UNWIND_MAX_DEPTH : UNWIND_NO_REGS;
		if (have_pc && max > 0)
			ips[n++] = f.pc;
		goto out;
	}
	m.start = f.reg[arch->sp_col];
	m.end = m.start + s->stack_size;
	ips[n++] = f.pc;
	for (;;) {
		const struct map *mp;
		struct unwind_dso *ud;
		const struct cfi_row *row;
		uint64_t vaddr;
		enum unwind_stop st;
		bool end;

		if (n >= max) {
			*why = UNWIND_MAX_DEPTH;
			break;
		}
		/* A caller's pc is a return address: its call is the byte before. */
		look = first || prev_signal ? f.pc : f.pc - 1;
		mp = maps__find(u->maps, &u->cursor, s->pid, look, s->time);
		if (!mp) {
			*why = UNWIND_NO_MAP;
			break;
		}
		ud = dso_of(u, mp->dso);
		switch (unwind_dso__state(ud)) {
		case DSO_OK:
			break;
		case DSO_BUILD_ID:
			*why = UNWIND_BUILD_ID;
			*dso_idx = mp->dso->idx;
			goto out;
		default:
			*why = UNWIND_NO_FILE;
			*dso_idx = mp->dso->idx;
			goto out;
		}
		if (unwind_dso__vaddr(ud, look - mp->start + mp->pgoff, &vaddr)) {
			*why = UNWIND_NO_CFI;
			*dso_idx = mp->dso->idx;
			break;
		}
		row = unwind_dso__row(ud, vaddr);
		if (!row->found) {
			/* x86_64's guesses where there is no CFI, as libunwind's. */
			if (arch == &arch_x86_64 && x86_64_guess(ud, mp, &f, &m, &caller) &&
			    caller.pc && !(caller.pc == f.pc && caller.reg[7] == f.reg[7])) {
				prev_signal = false;
				first = false;
				f = caller;
				ips[n++] = f.pc - 1;
				continue;
			}
			*why = UNWIND_NO_CFI;
			*dso_idx = mp->dso->idx;
			break;
		}
		if (arch->pc_col >= 0) {
			f.reg[arch->pc_col] = f.pc;
			f.valid |= 1ULL << arch->pc_col;
		}
		st = step(row, &f, arch->nregs, arch->sp_col, &m, &caller, &end, &detail);
		if (st != UNWIND_END) {
			*why = st;
			break;
		}
		if (end) {
			*why = UNWIND_END;
			break;
		}
		if (caller.pc == f.pc && caller.reg[arch->sp_col] == f.reg[arch->sp_col]) {
			*why = UNWIND_BAD_CFI;
			detail = "no progress: a loop";
			break;
		}
		/*
		 * Stepping out of a signal trampoline ('S' in its CIE) lands
		 * on the interrupted instruction itself, not on a return
		 * address: that frame keeps its pc, as in libunwind (perf).
		 */
		prev_signal = row->signal;
		first = false;
		f = caller;
		ips[n++] = prev_signal ? f.pc : f.pc - 1;
	}
out:
	/* perfcap inject -vv: where each early stop happened, to find out why. */
	if (verbose >= 1 && *why != UNWIND_END && *why != UNWIND_NO_STACK && *why != UNWIND_MAX_DEPTH)
		pr_debug("unwind: pid %u time %" PRIu64 ": stopped after %d frames at %#" PRIx64
			 " (stack %#" PRIx64 "-%#" PRIx64 "): %s%s%s\n", s->pid, s->time, n, look,
			 m.start, m.end, unwind_stop__str(*why), detail ? ": " : "", detail ? detail : "");
	u->stats.frames += n;
	u->stats.stop[*why]++;
	return n;
}
