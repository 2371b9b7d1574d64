// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "record/control.h"
#include "record/helper-threads.h"
#include "util.h"

/* perf's tags, matched as prefixes (evlist.h in perf 6.1). */
static const struct {
	const char *tag;
	enum control_cmd cmd;
} tags[] = {
	{ "enable", CONTROL_ENABLE },
	{ "disable", CONTROL_DISABLE },
	{ "snapshot", CONTROL_SNAPSHOT },
	{ "evlist", CONTROL_EVLIST },
	{ "stop", CONTROL_STOP },
	{ "ping", CONTROL_PING },
};

/* What perf writes: the tag and its terminating NUL. */
static const char ack_tag[] = "ack\n";

enum control_cmd control__parse(const char *line, const char **arg)
{
	*arg = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(tags); i++) {
		size_t n = strlen(tags[i].tag);

		if (strncmp(line, tags[i].tag, n))
			continue;
		/* Only enable, disable and evlist take an argument; perf checks it there. */
		if (tags[i].cmd != CONTROL_ENABLE && tags[i].cmd != CONTROL_DISABLE &&
		    tags[i].cmd != CONTROL_EVLIST)
			return tags[i].cmd;
		if (line[n] == ' ' && line[n + 1])
			*arg = line + n + 1;
		else if (line[n])
			return CONTROL_UNSUPPORTED;
		return tags[i].cmd;
	}
	return CONTROL_UNSUPPORTED;
}

const char *control__name(enum control_cmd cmd)
{
	for (size_t i = 0; i < ARRAY_SIZE(tags); i++)
		if (tags[i].cmd == cmd)
			return tags[i].tag;
	return cmd == CONTROL_NONE ? "none" : "unsupported";
}

void control__init(struct control *c)
{
	memset(c, 0, sizeof(*c));
	c->ctl_fd = c->ack_fd = c->stop_fd = c->wake_fd = -1;
	pthread_mutex_init(&c->lock, NULL);
	atomic_init(&c->pending, 0);
	c->ready = true;
}

static int open_fifo(const char *path, int *fd)
{
	/* O_RDWR: the FIFO never hangs up when the controller closes its end. */
	*fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (*fd < 0) {
		int err = -errno;

		pr_err("--control: cannot open '%s': %s\n", path, strerror(-err));
		return err;
	}
	return 0;
}

int control__open(struct control *c, const struct control_spec *spec)
{
	int err;

	control__init(c);
	if (!spec->given)
		return 0;
	if (!spec->fifo) {
		if (fcntl(spec->ctl_fd, F_GETFD) < 0 ||
		    (spec->ack_fd >= 0 && fcntl(spec->ack_fd, F_GETFD) < 0)) {
			pr_err("--control fd:%d,%d: not an open file descriptor\n",
			       spec->ctl_fd, spec->ack_fd);
			return -EBADF;
		}
		c->ctl_fd = spec->ctl_fd;
		c->ack_fd = spec->ack_fd;
		return 0;
	}
	c->close_fds = true;
	err = open_fifo(spec->ctl_path, &c->ctl_fd);
	if (!err && spec->ack_path && spec->ack_path[0])
		err = open_fifo(spec->ack_path, &c->ack_fd);
	if (err)
		control__close(c);
	return err;
}

static void queue_line(struct control *c, const char *line)
{
	pthread_mutex_lock(&c->lock);
	if (c->head - c->tail < CONTROL_QUEUE) {
		snprintf(c->lines[c->head % CONTROL_QUEUE], CONTROL_LINE_MAX, "%s", line);
		c->head++;
		atomic_fetch_add_explicit(&c->pending, 1, memory_order_relaxed);
	} else {
		pr_warn("--control: more than %d commands waiting; '%s' dropped\n",
			CONTROL_QUEUE, line);
	}
	pthread_mutex_unlock(&c->lock);
}

int control__feed(struct control *c, const char *buf, size_t len)
{
	int lines = 0;

	for (size_t i = 0; i < len; i++) {
		char ch = buf[i];

		if (ch == '\n' || ch == '\0') {
			/* An empty line is nothing (perf reads no bytes, no command). */
			if (c->part_len) {
				c->part[c->part_len] = '\0';
				queue_line(c, c->part);
				lines++;
			}
			c->part_len = 0;
			continue;
		}
		/* Cut at perf's length; the rest of the line is dropped. */
		if (c->part_len < CONTROL_LINE_MAX - 1)
			c->part[c->part_len++] = ch;
	}
	return lines;
}

enum control_cmd control__next(struct control *c, char *arg)
{
	char line[CONTROL_LINE_MAX];
	const char *a;
	enum control_cmd cmd;

	arg[0] = '\0';
	pthread_mutex_lock(&c->lock);
	if (c->head == c->tail) {
		pthread_mutex_unlock(&c->lock);
		return CONTROL_NONE;
	}
	memcpy(line, c->lines[c->tail % CONTROL_QUEUE], sizeof(line));
	c->tail++;
	atomic_fetch_sub_explicit(&c->pending, 1, memory_order_relaxed);
	pthread_mutex_unlock(&c->lock);
	cmd = control__parse(line, &a);
	pr_debug("--control: '%s' (%s)\n", line, control__name(cmd));
	if (a)
		snprintf(arg, CONTROL_LINE_MAX, "%s", a);
	return cmd;
}

int control__ack(struct control *c)
{
	ssize_t n;

	if (c->ack_fd < 0)
		return 0;
	n = write(c->ack_fd, ack_tag, sizeof(ack_tag));
	if (n != (ssize_t)sizeof(ack_tag)) {
		int err = n < 0 ? -errno : -EIO;

		pr_err("--control: cannot write the ack to fd %d: %s\n", c->ack_fd,
		       strerror(-err));
		return err;
	}
	return 0;
}

static void *control_main(void *arg)
{
	struct control *c = arg;
	struct pollfd pfd[2] = {
		{ .fd = c->ctl_fd, .events = POLLIN },
		{ .fd = c->stop_fd, .events = POLLIN },
	};

	for (;;) {
		char buf[256];
		ssize_t n;
		int r = poll(pfd, 2, -1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || pfd[1].revents)
			break;
		if (pfd[0].revents & POLLIN) {
			n = read(c->ctl_fd, buf, sizeof(buf));
			if (n > 0) {
				uint64_t one = 1;

				if (control__feed(c, buf, n) && c->wake_fd >= 0)
					(void)!write(c->wake_fd, &one, sizeof(one));
				continue;
			}
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
		}
		/* The controller closed its end (fd:): perf drops it from its poll set too. */
		if (pfd[0].revents) {
			pr_debug("--control: fd %d hung up; no more commands\n", c->ctl_fd);
			pfd[0].fd = -1;
		}
	}
	return NULL;
}

int control__start(struct control *c, int wake_fd)
{
	sigset_t all, old;
	int err;

	if (c->ctl_fd < 0)
		return 0;
	c->wake_fd = wake_fd;
	c->stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (c->stop_fd < 0) {
		err = -errno;
		pr_err("eventfd: %s\n", strerror(-err));
		return err;
	}
	/* Signals are the record loop's. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = own_thread__create(&c->tid, control_main, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pr_err("--control: cannot start its thread: %s\n", strerror(-err));
		return err;
	}
	pthread_setname_np(c->tid, "perfcap-ctl");
	c->started = true;
	return 0;
}

void control__close(struct control *c)
{
	if (!c->ready)
		return;
	if (c->started) {
		uint64_t one = 1;

		(void)!write(c->stop_fd, &one, sizeof(one));
		pthread_join(c->tid, NULL);
		c->started = false;
	}
	if (c->stop_fd >= 0)
		close(c->stop_fd);
	c->stop_fd = -1;
	if (c->close_fds) {
		if (c->ctl_fd >= 0)
			close(c->ctl_fd);
		if (c->ack_fd >= 0)
			close(c->ack_fd);
	}
	c->ctl_fd = c->ack_fd = -1;
	c->close_fds = false;
}
