// SPDX-License-Identifier: GPL-2.0
/*
 * The output's single offset allocator: reservations, the durable prefix
 * when writes complete out of order, gathered small records, short
 * writes and errors through the common writer code, and the sync, aio
 * and uring backends writing byte-identical files from the same stream.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "record/mmap.h"
#include "record/record-thread.h"
#include "io/output.h"
#include "perf-file.h"
#include "sys.h"

/* A writer that completes requests only when told, in any order. */
static struct write_req *held[16];
static int nr_held;

static int hold_init(struct writer *w, int max) { return 0; }
static int hold_submit(struct writer *w, struct write_req *req)
{
	held[nr_held++] = req;
	return 0;
}
static int hold_reap(struct writer *w, bool wait) { return 0; }
static const struct writer_ops hold_ops = {
	.name = "hold", .init = hold_init, .submit = hold_submit, .reap = hold_reap,
};

static void finish_held(struct writer *w, int i, ssize_t res)
{
	struct write_req *req = held[i];

	held[i] = NULL;
	writer__io_done(w, req, res);
}

static int done_calls, last_err;
static void on_done(struct write_req *req, int err)
{
	done_calls++;
	last_err = err;
}

static void test_reserve_is_contiguous(void **state)
{
	struct writer w;
	struct output o;

	writer__init(&w, &hold_ops, -1, 16);
	output__init_fd(&o, -1, &w);
	assert_int_equal(output__reserve(&o, 104), 0);
	assert_int_equal(output__reserve(&o, 16), 104);
	assert_int_equal(output__reserve(&o, 0), 120);
	assert_int_equal(output__reserve(&o, 8), 120);
	assert_int_equal(output__head(&o), 128);
	output__close(&o);
}

static void test_durable_prefix_out_of_order(void **state)
{
	struct writer w;
	struct output o;
	struct write_req r[3];
	char buf[100];

	nr_held = 0;
	done_calls = 0;
	writer__init(&w, &hold_ops, -1, 16);
	output__init_fd(&o, -1, &w);
	for (int i = 0; i < 3; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		r[i].buf = buf;
		r[i].len = 10 * (i + 1); /* [0,10) [10,30) [30,60) */
		r[i].on_complete = on_done;
		assert_int_equal(output__submit(&o, &r[i]), 0);
	}
	assert_int_equal(r[2].off, 30);
	finish_held(&w, 2, 30);
	assert_int_equal(output__durable(&o), 0); /* [0,30) still missing */
	finish_held(&w, 0, 10);
	assert_int_equal(output__durable(&o), 10);
	finish_held(&w, 1, 20);
	assert_int_equal(output__durable(&o), 60);
	assert_int_equal(done_calls, 3);
	assert_int_equal(o.bytes_written, 60);
	output__close(&o);
}

static void test_short_write_resubmits_rest(void **state)
{
	struct writer w;
	struct output o;
	struct write_req r = { 0 };
	char buf[64];

	nr_held = 0;
	done_calls = 0;
	writer__init(&w, &hold_ops, -1, 16);
	output__init_fd(&o, -1, &w);
	output__reserve(&o, 100);
	r.buf = buf;
	r.len = 64;
	r.on_complete = on_done;
	output__submit(&o, &r);
	finish_held(&w, 0, 24);
	/* Resubmitted for the rest, at the right place. */
	assert_int_equal(nr_held, 2);
	assert_ptr_equal(held[1], &r);
	assert_int_equal(r.done, 24);
	assert_int_equal(done_calls, 0);
	assert_int_equal(w.nr_short, 1);
	finish_held(&w, 1, 40);
	assert_int_equal(done_calls, 1);
	assert_int_equal(last_err, 0);
	assert_int_equal(w.inflight, 0);
	output__close(&o);
}

static void test_error_is_sticky_and_not_durable(void **state)
{
	struct writer w;
	struct output o;
	struct write_req r[2] = { { 0 } };
	char buf[64];

	nr_held = 0;
	done_calls = 0;
	writer__init(&w, &hold_ops, -1, 16);
	output__init_fd(&o, -1, &w);
	for (int i = 0; i < 2; i++) {
		r[i].buf = buf;
		r[i].len = 32;
		r[i].on_complete = on_done;
		output__submit(&o, &r[i]);
	}
	finish_held(&w, 0, 32);
	finish_held(&w, 1, -EIO);
	assert_int_equal(last_err, -EIO);
	assert_int_equal(o.err, -EIO);
	assert_int_equal(output__durable(&o), 32);
	/* After an error nothing more is submitted. */
	assert_int_equal(output__append(&o, buf, 8), 0);
	assert_int_equal(output__flush(&o), -EIO);
	output__close(&o);
}

static void test_append_gathers_small_records(void **state)
{
	struct writer w;
	struct output o;
	char rec[24] = { 1 };

	nr_held = 0;
	writer__init(&w, &hold_ops, -1, 16);
	output__init_fd(&o, -1, &w);
	for (int i = 0; i < 100; i++)
		assert_int_equal(output__append(&o, rec, sizeof(rec)), 0);
	assert_int_equal(nr_held, 0);
	assert_int_equal(output__flush(&o), 0);
	assert_int_equal(nr_held, 1); /* one write for all of them */
	assert_int_equal(held[0]->len, 2400);
	assert_int_equal(held[0]->off, 0);
	finish_held(&w, 0, 2400);
	assert_int_equal(output__durable(&o), 2400);
	output__close(&o);
}

/*
 * The same input stream through a backend: a header, gathered records,
 * chunks from two fake rings that wrap, FINISHED_ROUNDs; returns the file.
 */
#define RING 4096
static unsigned long last_nr_short;
static char *write_stream(const char *backend, size_t *size)
{
	char path[] = "/tmp/perfcap-test-XXXXXX";
	int fd = mkstemp(path);
	struct writer w;
	struct output o;
	struct stage *os;	/* for the copies' back-pressure */
	struct mmap m[2];
	void *mem[2];
	char *data;
	struct stat st;
	int err;

	assert_true(fd >= 0);
	err = writer__init(&w, writer__find(backend), fd, 64);
	if (err == -ENOSYS && !strcmp(backend, "uring")) {
		/* no io_uring syscalls: qemu-user (the aarch64 tests) has none */
		close(fd);
		unlink(path);
		skip();
	}
	assert_int_equal(err, 0);
	output__init_fd(&o, fd, &w);
	os = output_stage__new_on(&o, &w, NULL, 0);
	{
		char hdr[104] = "PERFILE2";

		output__write_copy(&o, hdr, sizeof(hdr));
	}
	for (int i = 0; i < 2; i++) {
		mem[i] = calloc(1, 4096 + RING);
		mmap__init_fake(&m[i], mem[i], 4096, RING, 4);
	}
	for (int round = 0; round < 50; round++) {
		struct mmap_buf *b[2];
		int nr = 0;
		char small[32];

		memset(small, round, sizeof(small));
		((struct perf_event_header *)small)->size = sizeof(small);
		output__append(&o, small, sizeof(small));
		for (int i = 0; i < 2; i++) {
			struct perf_event_mmap_page *pc = mem[i];
			unsigned char *d = (unsigned char *)mem[i] + 4096;
			uint64_t head = pc->data_head;
			int len = 200 + 37 * ((round + i) % 13);

			len &= ~7;
			for (int k = 0; k < len; k++)
				d[(head + k) & (RING - 1)] = (unsigned char)(round * 7 + i + k);
			pc->data_head = head + len;
			/* Waits, through the stage, when all four buffers are in flight. */
			if (pass__copy_ring(&m[i], os, false, &b[nr]) > 0)
				nr++;
		}
		if (nr) {
			struct perf_event_header fr = { PERF_RECORD_FINISHED_ROUND, 0, 8 };

			memcpy(b[nr - 1]->data + b[nr - 1]->len, &fr, 8);
			b[nr - 1]->len += 8;
		}
		/* Straight to the output: the records appended above go first. */
		for (int i = 0; i < nr; i++)
			assert_int_equal(output__submit(&o, &mmap__hand_over(b[i])->req), 0);
		output__reap(&o, false);
	}
	assert_int_equal(output__drain(&o), 0);
	assert_int_equal(output__durable(&o), output__head(&o));
	for (int i = 0; i < 2; i++) {
		mmap__close(&m[i]);
		free(mem[i]);
	}
	fstat(fd, &st);
	*size = st.st_size;
	data = malloc(st.st_size);
	assert_int_equal(pread(fd, data, st.st_size, 0), st.st_size);
	last_nr_short = w.nr_short;
	os->ops->destroy(os);
	output__close(&o);
	writer__exit(&w);
	unlink(path);
	return data;
}

static void test_backends_write_identical_files(void **state)
{
	size_t s_sync, s_aio;
	char *f_sync = write_stream("sync", &s_sync);
	char *f_aio = write_stream("aio", &s_aio);

	assert_true(s_sync > 20000);
	assert_int_equal(s_sync, s_aio);
	assert_memory_equal(f_sync, f_aio, s_sync);
	free(f_sync);
	free(f_aio);
}

/* The same with io_uring; where the kernel (or an emulator) has none, a skip. */
static void test_uring_writes_the_same_file(void **state)
{
	size_t s_sync, s_uring;
	char *f_uring = write_stream("uring", &s_uring);
	char *f_sync = write_stream("sync", &s_sync);

	assert_true(s_sync > 20000);
	assert_int_equal(s_sync, s_uring);
	assert_memory_equal(f_sync, f_uring, s_sync);
	free(f_sync);
	free(f_uring);
}

static void test_injected_short_writes_keep_file_identical(void **state)
{
	size_t s_ref, s_short;
	char *ref = write_stream("aio", &s_ref);
	char *f;

	sys_fault__init("short@3,short@7");
	f = write_stream("aio", &s_short);
	sys_fault__init(NULL);
	assert_int_equal(last_nr_short, 2);
	assert_int_equal(s_ref, s_short);
	assert_memory_equal(ref, f, s_ref);
	free(ref);
	free(f);
}

/* ---- pipe mode --------------------------------------------------------- */

#define PT_THREADS 4
#define PT_CHUNKS 150

struct pt_chunk {
	struct write_req req;
	uint32_t len;
	uint16_t thread, seq;
	char data[];
};

static uint64_t pt_off[PT_THREADS][PT_CHUNKS];
static int pt_done[PT_THREADS][PT_CHUNKS];

static void pt_complete(struct write_req *req, int err)
{
	struct pt_chunk *c = req->owner;

	assert_int_equal(err, 0);
	pt_off[c->thread][c->seq] = req->off;
	pt_done[c->thread][c->seq]++;
	free(c);
}

static uint8_t pt_fill(int thread, int seq) { return (uint8_t)(thread * 31 + seq); }

struct pt_arg {
	struct output *o;
	int thread;
};

/* A submitter: chunks of 12 to ~9000 bytes, some larger than the FIFO. */
static void *pt_submit(void *p)
{
	struct pt_arg *a = p;
	struct writer w;

	writer__init(&w, &writer_sync_ops, -1, 4);
	for (int seq = 0; seq < PT_CHUNKS; seq++) {
		uint32_t len = 12 + (uint32_t)((seq * 7919 + a->thread * 104729) % 9000);
		struct pt_chunk *c = calloc(1, sizeof(*c) + len);

		c->len = len;
		c->thread = a->thread;
		c->seq = seq;
		memcpy(c->data, &len, 4);
		memcpy(c->data + 4, &c->thread, 2);
		memcpy(c->data + 6, &c->seq, 2);
		memset(c->data + 8, pt_fill(a->thread, seq), len - 8);
		c->req.buf = c->data;
		c->req.len = len;
		c->req.owner = c;
		c->req.on_complete = pt_complete;
		if (output__submit_via(a->o, &w, &c->req))
			free(c);
	}
	writer__exit(&w);
	return NULL;
}

struct pt_sink {
	int fd;
	char *buf;
	size_t len, cap;
};

static void *pt_read(void *p)
{
	struct pt_sink *s = p;

	for (;;) {
		ssize_t n;

		if (s->cap - s->len < 65536) {
			s->cap = s->cap * 2 + 65536;
			s->buf = realloc(s->buf, s->cap);
		}
		n = read(s->fd, s->buf + s->len, s->cap - s->len);
		if (n <= 0)
			break;
		s->len += n;
	}
	return NULL;
}

/*
 * Several threads submit through their own writers into a pipe through a
 * FIFO smaller than some chunks: every chunk comes out whole, at the
 * offset it was given, each thread's in the order it submitted; then
 * what the main thread appends and writes follows.
 */
static void run_pipe_order(const char *fault)
{
	struct writer w;
	struct output o;
	struct pt_sink sink = { 0 };
	struct pt_arg args[PT_THREADS];
	pthread_t th[PT_THREADS], rd;
	int pfd[2], next_seq[PT_THREADS] = { 0 };
	size_t pos = 0;
	int64_t tail_off;

	memset(pt_done, 0, sizeof(pt_done));
	assert_int_equal(pipe(pfd), 0);
	sink.fd = pfd[0];
	writer__init(&w, &writer_sync_ops, -1, 16);
	sys_fault__init(fault);
	assert_int_equal(output__open_pipe(&o, pfd[1], &w, 4096), 0);
	assert_true(output__is_pipe(&o));
	pthread_create(&rd, NULL, pt_read, &sink);
	for (int i = 0; i < PT_THREADS; i++) {
		args[i] = (struct pt_arg){ &o, i };
		pthread_create(&th[i], NULL, pt_submit, &args[i]);
	}
	for (int i = 0; i < PT_THREADS; i++)
		pthread_join(th[i], NULL);
	/* Appended records are reserved only when flushed: they follow. */
	assert_int_equal(output__append(&o, "APPENDED", 8), 0);
	tail_off = output__write_copy(&o, "COPY", 4);
	assert_true(tail_off > 0);
	assert_int_equal(output__drain(&o), 0);
	assert_int_equal(output__durable(&o), output__head(&o));
	output__close(&o); /* closes the pipe: the reader sees its end */
	pthread_join(rd, NULL);
	close(pfd[0]);
	sys_fault__init(NULL);

	assert_int_equal(sink.len, output__head(&o));
	while (pos + 8 <= (size_t)tail_off - 8) {
		uint32_t len;
		uint16_t t, seq;

		memcpy(&len, sink.buf + pos, 4);
		memcpy(&t, sink.buf + pos + 4, 2);
		memcpy(&seq, sink.buf + pos + 6, 2);
		assert_true(t < PT_THREADS);
		assert_int_equal(seq, next_seq[t]);
		next_seq[t]++;
		assert_int_equal(pt_off[t][seq], pos);
		assert_int_equal(pt_done[t][seq], 1);
		for (uint32_t k = 8; k < len; k++)
			if ((uint8_t)sink.buf[pos + k] != pt_fill(t, seq))
				fail_msg("chunk %u of thread %u is not whole at byte %u", seq, t, k);
		pos += len;
	}
	for (int i = 0; i < PT_THREADS; i++)
		assert_int_equal(next_seq[i], PT_CHUNKS);
	assert_int_equal(pos, (size_t)tail_off - 8);
	assert_memory_equal(sink.buf + pos, "APPENDEDCOPY", 12);
	free(sink.buf);
	writer__exit(&w);
}

static void test_pipe_keeps_offset_order(void **state)
{
	run_pipe_order(NULL);
}

static void test_pipe_short_writes(void **state)
{
	run_pipe_order("short@2,short@5");
}

/*
 * The pipe's reader exits: the write fails with EPIPE (no SIGPIPE: this
 * test would die of it), the error sticks, and a later submit is refused
 * with the request still the caller's. A reader that exits while nothing
 * is written is noticed too.
 */
static void test_pipe_reader_gone(void **state)
{
	struct writer w;
	struct output o;
	struct write_req req = { 0 };
	char buf[256] = { 0 };
	int pfd[2], err = 0;

	writer__init(&w, &writer_sync_ops, -1, 16);
	assert_int_equal(pipe(pfd), 0);
	assert_int_equal(output__open_pipe(&o, pfd[1], &w, 0), 0);
	close(pfd[0]);
	done_calls = 0;
	req.buf = buf;
	req.len = sizeof(buf);
	req.on_complete = on_done;
	/* Copied into the FIFO (complete), then the thread's write fails. */
	assert_int_equal(output__submit(&o, &req), 0);
	assert_int_equal(done_calls, 1);
	assert_int_equal(output__drain(&o), -EPIPE);
	memset(&req, 0, sizeof(req));
	req.buf = buf;
	req.len = sizeof(buf);
	req.on_complete = on_done;
	assert_int_equal(output__submit(&o, &req), -EPIPE);
	assert_int_equal(done_calls, 1);
	output__close(&o);

	assert_int_equal(pipe(pfd), 0);
	assert_int_equal(output__open_pipe(&o, pfd[1], &w, 0), 0);
	close(pfd[0]);
	for (int i = 0; i < 100 && !err; i++) {
		struct timespec ts = { 0, 20 * 1000000L };

		nanosleep(&ts, NULL);
		err = output__reap(&o, false);
	}
	assert_int_equal(err, -EPIPE);
	output__close(&o);
	writer__exit(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reserve_is_contiguous),
		cmocka_unit_test(test_durable_prefix_out_of_order),
		cmocka_unit_test(test_short_write_resubmits_rest),
		cmocka_unit_test(test_error_is_sticky_and_not_durable),
		cmocka_unit_test(test_append_gathers_small_records),
		cmocka_unit_test(test_backends_write_identical_files),
		cmocka_unit_test(test_uring_writes_the_same_file),
		cmocka_unit_test(test_injected_short_writes_keep_file_identical),
		cmocka_unit_test(test_pipe_keeps_offset_order),
		cmocka_unit_test(test_pipe_short_writes),
		cmocka_unit_test(test_pipe_reader_gone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
