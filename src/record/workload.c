// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"
#include "record/workload.h"

static int find_command(const char *cmd)
{
	const char *path = getenv("PATH");
	char buf[4096];
	int err = -ENOENT;

	if (strchr(cmd, '/'))
		return access(cmd, X_OK) ? -errno : 0;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		struct stat st;

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)(n ? n : 1), n ? path : ".", cmd);
		if (!stat(buf, &st) && S_ISREG(st.st_mode)) {
			if (!access(buf, X_OK))
				return 0;
			err = -EACCES;
		}
		path += n;
		if (*path == ':')
			path++;
	}
	return err;
}

int workload__prepare(struct workload *w, char **argv)
{
	int go[2], errp[2], err;

	memset(w, 0, sizeof(*w));
	err = find_command(argv[0]);
	if (err) {
		pr_err("cannot run '%s': %s\n", argv[0],
		       err == -ENOENT ? "command not found" : strerror(-err));
		return err;
	}
	if (pipe2(go, O_CLOEXEC) || pipe2(errp, O_CLOEXEC))
		return -errno;
	w->pid = fork();
	if (w->pid < 0) {
		err = -errno;
		pr_err("fork: %s\n", strerror(-err));
		return err;
	}
	if (w->pid == 0) {
		sigset_t none;
		char c;

		/* The recorder blocks signals it reads through fds; not the workload. */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		close(go[1]);
		close(errp[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127); /* the recorder gave up */
		execvp(argv[0], argv);
		err = errno;
		(void)!write(errp[1], &err, sizeof(err));
		_exit(127);
	}
	close(go[0]);
	close(errp[1]);
	w->go_fd = go[1];
	w->err_fd = errp[0];
	return 0;
}

int workload__start(struct workload *w, char **argv)
{
	int child_errno = 0;
	ssize_t n;

	if (write(w->go_fd, "g", 1) != 1)
		return -errno;
	close(w->go_fd);
	w->go_fd = -1;
	/* EOF (exec succeeded, CLOEXEC closed it) or the child's errno. */
	do {
		n = read(w->err_fd, &child_errno, sizeof(child_errno));
	} while (n < 0 && errno == EINTR);
	close(w->err_fd);
	w->err_fd = -1;
	if (n == sizeof(child_errno)) {
		pr_err("cannot run '%s': %s\n", argv[0], strerror(child_errno));
		return -child_errno;
	}
	return 0;
}

bool workload__poll(struct workload *w)
{
	int status;

	if (w->exited || w->pid <= 0)
		return w->exited;
	if (waitpid(w->pid, &status, WNOHANG) == w->pid) {
		w->exited = true;
		w->status = status;
	}
	return w->exited;
}

void workload__abort(struct workload *w)
{
	if (w->pid <= 0)
		return;
	if (w->go_fd >= 0)
		close(w->go_fd); /* the child reads EOF and exits */
	w->go_fd = -1;
	if (!w->exited) {
		kill(w->pid, SIGKILL);
		waitpid(w->pid, &w->status, 0);
		w->exited = true;
	}
}

int workload__exit_code(const struct workload *w)
{
	if (!w->exited)
		return 0;
	if (WIFEXITED(w->status))
		return WEXITSTATUS(w->status);
	if (WIFSIGNALED(w->status))
		return 128 + WTERMSIG(w->status);
	return 1;
}
