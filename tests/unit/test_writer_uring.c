// SPDX-License-Identifier: GPL-2.0
/*
 * writer-uring.c: what a failed io_uring_submit leaves behind. The
 * writer interface says a request whose submit failed is the caller's
 * again (writer.h), so nothing queued in the ring may still point at it:
 * the next submission of any request would start the old write from a
 * buffer the caller has reused, and complete a request twice.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <liburing.h>

#include "sys.h"
#include "io/writer.h"

#include "tmpdir.h"

struct done {
	int calls[2];
	int err[2];
};

static struct done done;
static struct write_req reqs[2];

static void on_done(struct write_req *req, int err)
{
	int i = req == &reqs[1];

	done.calls[i]++;
	done.err[i] = err;
}

/*
 * A kernel (or qemu-user) without io_uring, or one that turned it off, is
 * what this machine lacks: a skip. Where it has io_uring, whatever
 * writer__init then says is the writer's failure.
 */
static bool kernel_has_io_uring(void)
{
	struct io_uring r;
	int err = io_uring_queue_init(4, &r, 0);

	if (!err) {
		io_uring_queue_exit(&r);
		return true;
	}
	print_message("# io_uring_queue_init: %s\n", strerror(-err));
	return err != -ENOSYS && err != -EPERM;
}

static void test_failed_submit_leaves_nothing_queued(void **state)
{
	char a[4096], b[4096], back[8192];
	struct writer w;
	int fd = open(tpath("uring.data"), O_RDWR | O_CREAT | O_TRUNC, 0644);
	struct stat st;
	int err;

	assert_true(fd >= 0);
	if (!kernel_has_io_uring()) {
		close(fd);
		skip();
	}
	err = writer__init(&w, &writer_uring_ops, fd, 4);
	assert_int_equal(err, 0);
	memset(&done, 0, sizeof(done));
	memset(reqs, 0, sizeof(reqs));
	memset(a, 'A', sizeof(a));
	memset(b, 'B', sizeof(b));

	/* The first submission fails: A is the caller's again. */
	sys_fault__init("submit:ebusy@1");
	reqs[0] = (struct write_req){ .buf = a, .len = sizeof(a), .off = 0, .complete = on_done };
	assert_int_equal(writer__submit(&w, &reqs[0]), -EBUSY);
	assert_int_equal(w.inflight, 0);
	/* The caller reuses A's buffer, as a ring's data buffer would be. */
	memset(a, 'X', sizeof(a));

	/*
	 * The next request is submitted for real, and drained. With A still
	 * queued, the drain waits for a completion that was already taken:
	 * the alarm makes that hang a death by SIGALRM, which tests/run
	 * reports.
	 */
	sys_fault__init(NULL);
	alarm(10);
	reqs[1] = (struct write_req){ .buf = b, .len = sizeof(b), .off = 4096, .complete = on_done };
	assert_int_equal(writer__submit(&w, &reqs[1]), 0);
	assert_int_equal(writer__drain(&w), 0);
	writer__exit(&w);
	alarm(0);

	/* B was written and completed once; A neither. */
	assert_int_equal(done.calls[1], 1);
	assert_int_equal(done.err[1], 0);
	assert_int_equal(done.calls[0], 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 8192);
	assert_int_equal(pread(fd, back, sizeof(back), 0), sizeof(back));
	for (size_t i = 0; i < 4096; i++)
		assert_int_equal(back[i], 0);	/* a hole: no stale write of X */
	assert_memory_equal(back + 4096, b, sizeof(b));
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_failed_submit_leaves_nothing_queued),
	};

	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
