/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For unit tests that parse back a payload we wrote: a cursor over a
 * byte buffer whose reads fail the test when they run past the end.
 * Include after <cmocka.h>.
 */
#ifndef PERFCAP_TEST_CURSOR_H
#define PERFCAP_TEST_CURSOR_H

#include <stdint.h>
#include <string.h>

struct cur {
	const char *p;
	size_t left;
};

static inline void take(struct cur *c, void *out, size_t n)
{
	assert_true(n <= c->left);
	if (out)
		memcpy(out, c->p, n);
	c->p += n;
	c->left -= n;
}

static inline uint32_t get_u32(struct cur *c)
{
	uint32_t v;

	take(c, &v, sizeof(v));
	return v;
}

static inline uint64_t get_u64(struct cur *c)
{
	uint64_t v;

	take(c, &v, sizeof(v));
	return v;
}

/* A NUL-terminated string. */
static inline const char *get_cstr(struct cur *c)
{
	const char *s = c->p;
	size_t n = strnlen(s, c->left);

	assert_true(n < c->left);
	take(c, NULL, n + 1);
	return s;
}

static inline void at_end(const struct cur *c)
{
	assert_int_equal(c->left, 0);
}

#endif
