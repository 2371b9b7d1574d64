// SPDX-License-Identifier: GPL-2.0
/*
 * unwind/unwind.c and dso.c: the test unwinds its own stack. A thread on
 * a stack of the test's own calls level1 -> level2 -> level3 -> capture,
 * which takes its registers and a copy of its stack as the kernel would
 * for a DWARF sample; the maps are /proc/self/maps. The frames must be
 * the return addresses each level saw (less one), from this binary's
 * real .eh_frame; a stack copy cut short, an address in no map and a
 * sample without registers stop where they must.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unwind/maps.h"
#include "unwind/unwind.h"

#define STACK_COPY 8192

struct capture {
	uint64_t regs[16];
	uint64_t mask;
	unsigned char stack[STACK_COPY];
	uint64_t size;
	uint64_t ra[4];		/* what capture, level3, level2, level1 return to */
	unsigned char *stack_top;
};

static struct capture cap;

#if defined(__x86_64__)
#define MACHINE "x86_64"
/* perf's bits BX, BP, SP, IP, R12-R15: what x86_64 CFI needs (the callee-saved). */
#define CAPTURE_MASK ((1ULL << 1) | (1ULL << 6) | (1ULL << 7) | (1ULL << 8) | (0xfULL << 20))
#define SP_INDEX 2
static __attribute__((noinline)) void capture_here(void)
{
	uint64_t *r = cap.regs;

	asm volatile("movq %%rbx, 0(%0)\n\t"
		     "movq %%rbp, 8(%0)\n\t"
		     "movq %%rsp, 16(%0)\n\t"
		     "leaq 1f(%%rip), %%rax\n\t"
		     "movq %%rax, 24(%0)\n\t"
		     "movq %%r12, 32(%0)\n\t"
		     "movq %%r13, 40(%0)\n\t"
		     "movq %%r14, 48(%0)\n\t"
		     "movq %%r15, 56(%0)\n\t"
		     "1:\n\t"
		     : : "r"(r) : "rax", "memory");
	cap.mask = CAPTURE_MASK;
	cap.ra[0] = (uint64_t)__builtin_return_address(0);
	cap.size = (uint64_t)(cap.stack_top - (unsigned char *)cap.regs[SP_INDEX]);
	if (cap.size > STACK_COPY)
		cap.size = STACK_COPY;
	memcpy(cap.stack, (void *)cap.regs[SP_INDEX], cap.size);
}
#elif defined(__aarch64__)
#define MACHINE "aarch64"
/* perf's bits X19-X30, SP (31), PC (32). */
#define CAPTURE_MASK ((0xfffULL << 19) | (1ULL << 31) | (1ULL << 32))
#define SP_INDEX 12
static __attribute__((noinline)) void capture_here(void)
{
	uint64_t *r = cap.regs;

	asm volatile("stp x19, x20, [%0, #0]\n\t"
		     "stp x21, x22, [%0, #16]\n\t"
		     "stp x23, x24, [%0, #32]\n\t"
		     "stp x25, x26, [%0, #48]\n\t"
		     "stp x27, x28, [%0, #64]\n\t"
		     "stp x29, x30, [%0, #80]\n\t"
		     "mov x9, sp\n\t"
		     "str x9, [%0, #96]\n\t"
		     "adr x9, 1f\n\t"
		     "str x9, [%0, #104]\n\t"
		     "1:\n\t"
		     : : "r"(r) : "x9", "memory");
	cap.mask = CAPTURE_MASK;
	cap.ra[0] = (uint64_t)__builtin_return_address(0);
	cap.size = (uint64_t)(cap.stack_top - (unsigned char *)cap.regs[SP_INDEX]);
	if (cap.size > STACK_COPY)
		cap.size = STACK_COPY;
	memcpy(cap.stack, (void *)cap.regs[SP_INDEX], cap.size);
}
#endif

#ifdef MACHINE
/* Each level keeps something live across the call, so that its frame is a real one. */
static __attribute__((noinline)) int level3(int x)
{
	capture_here();
	cap.ra[1] = (uint64_t)__builtin_return_address(0);
	return x * 3 + 1;
}

static __attribute__((noinline)) int level2(int x)
{
	int y = level3(x + 1);

	cap.ra[2] = (uint64_t)__builtin_return_address(0);
	return y * 2 + x;
}

static __attribute__((noinline)) int level1(int x)
{
	int y = level2(x + 2);

	cap.ra[3] = (uint64_t)__builtin_return_address(0);
	return y + x;
}

static void *thread_main(void *arg)
{
	volatile int r = level1(*(int *)arg);

	(void)r;
	return NULL;
}

/* Run the levels on a thread whose stack is ours, so the copy never reads past it. */
static void take_sample(void)
{
	static unsigned char stack[256 * 1024] __attribute__((aligned(64)));
	pthread_attr_t attr;
	pthread_t t;
	int arg = 5;

	memset(&cap, 0, sizeof(cap));
	cap.stack_top = stack + sizeof(stack);
	pthread_attr_init(&attr);
	pthread_attr_setstack(&attr, stack, sizeof(stack));
	assert_int_equal(pthread_create(&t, &attr, thread_main, &arg), 0);
	pthread_join(t, NULL);
	pthread_attr_destroy(&attr);
}

/* Every file mapping of this process, as MMAP2 records would say it. */
static struct maps *self_maps(uint32_t pid)
{
	struct maps *m = maps__new();
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off;
		char perms[8], path[4096] = "";

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &start, &end, perms, &off,
			   path) < 4 || !path[0])
			continue;
		maps__add_mmap(m, pid, 0, start, end - start, off, path, NULL, 0, 0);
	}
	fclose(f);
	maps__seal(m);
	return m;
}

static int unwind(struct maps *m, uint32_t pid, uint64_t mask, uint64_t stack_size, uint64_t *ips,
		  int max, enum unwind_stop *why)
{
	struct unwinder *u = unwinder__new(m, unwind_arch__find(MACHINE), NULL);
	struct unwind_sample s = {
		.pid = pid, .time = 1, .regs_mask = mask, .regs = cap.regs,
		.stack = cap.stack, .stack_size = stack_size,
	};
	int dso, n;

	assert_non_null(u);
	n = unwinder__unwind(u, &s, ips, max, why, &dso);
	unwinder__delete(u);
	return n;
}

static void test_the_frames_are_the_return_addresses_less_one(void **state)
{
	uint32_t pid = (uint32_t)getpid();
	struct maps *m;
	uint64_t ips[64];
	enum unwind_stop why;
	int n;

	take_sample();
	m = self_maps(pid);
	n = unwind(m, pid, cap.mask, cap.size, ips, 64, &why);
	printf("# %d frames, stopped: %s\n", n, unwind_stop__str(why));
	assert_true(n >= 5);	/* capture, level3, level2, level1, thread_main, ... */
	assert_int_equal(ips[0], cap.regs[SP_INDEX + 1]);
	assert_int_equal(ips[1], cap.ra[0] - 1);
	assert_int_equal(ips[2], cap.ra[1] - 1);
	assert_int_equal(ips[3], cap.ra[2] - 1);
	assert_int_equal(ips[4], cap.ra[3] - 1);
	/* On through libc's thread start to where its CFI ends the chain. */
	assert_int_equal(why, UNWIND_END);
	maps__delete(m);
}

static void test_a_short_stack_copy_stops_early_keeping_what_it_found(void **state)
{
	uint32_t pid = (uint32_t)getpid();
	struct maps *m;
	uint64_t ips[64];
	enum unwind_stop why;
	int n;

	take_sample();
	m = self_maps(pid);
	n = unwind(m, pid, cap.mask, 16, ips, 64, &why);
	assert_int_equal(why, UNWIND_STACK_CUT);
	assert_true(n >= 1 && n < 5);
	assert_int_equal(ips[0], cap.regs[SP_INDEX + 1]);
	/* A frame limit is a stop of its own. */
	n = unwind(m, pid, cap.mask, cap.size, ips, 3, &why);
	assert_int_equal(n, 3);
	assert_int_equal(why, UNWIND_MAX_DEPTH);
	maps__delete(m);
}

static void test_no_maps_no_registers_no_stack(void **state)
{
	uint32_t pid = (uint32_t)getpid();
	struct maps *m;
	uint64_t ips[64];
	enum unwind_stop why;
	int n;

	take_sample();
	m = self_maps(pid);
	/* Another pid has no maps: the sampled IP only. */
	n = unwind(m, pid + 1, cap.mask, cap.size, ips, 64, &why);
	assert_int_equal(n, 1);
	assert_int_equal(why, UNWIND_NO_MAP);
	/* No stack pointer among the registers. */
	n = unwind(m, pid, cap.mask & ~(1ULL << (SP_INDEX == 2 ? 7 : 31)), cap.size, ips, 64, &why);
	assert_int_equal(why, UNWIND_NO_REGS);
	/* No stack bytes: nothing, as perf. */
	n = unwind(m, pid, cap.mask, 0, ips, 64, &why);
	assert_int_equal(n, 0);
	assert_int_equal(why, UNWIND_NO_STACK);
	maps__delete(m);
}
#endif

static void test_arch_tables(void **state)
{
	const struct unwind_arch *x = unwind_arch__find("x86_64");
	const struct unwind_arch *a = unwind_arch__find("aarch64");

	assert_non_null(x);
	assert_non_null(a);
	assert_null(unwind_arch__find("riscv64"));
	/* perf's DX (bit 3) is DWARF 1, BX (bit 1) is DWARF 3, R8 (bit 16) is 8. */
	assert_int_equal(x->perf_to_dwarf[3], 1);
	assert_int_equal(x->perf_to_dwarf[1], 3);
	assert_int_equal(x->perf_to_dwarf[16], 8);
	assert_int_equal(x->perf_to_dwarf[x->perf_ip], -1);
	assert_int_equal(a->perf_to_dwarf[31], 31);
	assert_int_equal(a->perf_ip, 32);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arch_tables),
#ifdef MACHINE
		cmocka_unit_test(test_the_frames_are_the_return_addresses_less_one),
		cmocka_unit_test(test_a_short_stack_copy_stops_early_keeping_what_it_found),
		cmocka_unit_test(test_no_maps_no_registers_no_stack),
#endif
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
