// SPDX-License-Identifier: GPL-2.0
#include "exec.h"
#include "clock.h"
#include "log.h"
#include "wait.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void child_fd(int fd, int target)
{
	if (fd < 0)
		fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0 && fd != target)
		dup2(fd, target);
}

pid_t exec_fork(const char *netns, int cpu, char *err, size_t errlen)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(125);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (netns) {
		char path[PATH_MAX];
		int fd;

		snprintf(path, sizeof(path), "/run/netns/%s", netns);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || setns(fd, CLONE_NEWNET) < 0) {
			if (err)
				snprintf(err, errlen, "cannot enter namespace %s: %s", netns, strerror(errno));
			else
				dprintf(2, "ipsecperf: cannot enter namespace %s: %s\n", netns, strerror(errno));
			_exit(126);
		}
		close(fd);
	}
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	return 0;
}

/* In the child: o's pass_fds as 3, 4, ..., moved out of the way first so none overwrites another. */
static void pass_fds(const struct spawn_opts *o)
{
	int tmp[8];

	if (!o || o->npass <= 0 || o->npass > 8)
		return;
	for (int i = 0; i < o->npass; i++)
		tmp[i] = fcntl(o->pass_fds[i], F_DUPFD_CLOEXEC, 64);
	for (int i = 0; i < o->npass; i++)
		if (tmp[i] < 0 || dup2(tmp[i], 3 + i) < 0) /* dup2's copy is not close-on-exec */
			_exit(126);
}

pid_t exec_spawn(char *const argv[], const struct spawn_opts *o)
{
	pid_t pid = exec_fork(o ? o->netns : NULL, o ? o->cpu : -1, NULL, 0);

	if (pid != 0)
		return pid;
	signal(SIGPIPE, SIG_DFL);
	child_fd(o ? o->stdout_fd : -1, 1);
	child_fd(o ? o->stderr_fd : -1, 2);
	child_fd(-1, 0);
	pass_fds(o);
	if (o && o->file_max) {
		struct rlimit rl = { o->file_max, o->file_max };

		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
			_exit(126);
	}
	execvp(argv[0], argv);
	dprintf(2, "ipsecperf: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

int exec_wait(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR)
			return -1;
	}
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

void exec_stop(pid_t pid, int grace_ms)
{
	wait_stop(pid, &(struct wait_stop){ .grace_ms = grace_ms });
}

void exec_stop_group(pid_t pid, int grace_ms)
{
	wait_stop(pid, &(struct wait_stop){ .grace_ms = grace_ms, .group = true });
}

int exec_wait_stoppable(pid_t pid, const struct exec_stopper *s, bool *stopped)
{
	double deadline = 0;
	bool asked = false;
	int st;

	if (stopped)
		*stopped = false;
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		if (r < 0 && errno != EINTR)
			return -1;
		if (!asked && s->stopping(s->arg)) {
			asked = true;
			if (stopped)
				*stopped = true;
			if (s->ask)
				s->ask(s->arg, pid);
			else
				kill(pid, SIGTERM);
			deadline = mono_s() + s->grace_ms / 1000.0;
		}
		if (asked && mono_s() > deadline) {
			pr_warn("%s", s->late);
			kill(s->group ? -pid : pid, SIGKILL);
			return exec_wait(pid);
		}
		wait_ms(50);
	}
}

/*
 * Append what is readable from fd to a growing buffer, keeping at most cap
 * bytes (0: no cap); what is past the cap is read and dropped, and over set.
 * 1 while the stream is open, 0 at its end (or on an error).
 */
static int slurp(int fd, char **buf, size_t *len, size_t *cap, size_t max, bool *over)
{
	char tmp[4096];
	ssize_t n = read(fd, tmp, sizeof(tmp));

	if (n <= 0)
		return n < 0 && errno == EINTR ? 1 : 0;
	if (max && *len + n > max) {
		*over = true;
		n = *len < max ? (ssize_t)(max - *len) : 0;
	}
	if (*len + n + 1 > *cap) {
		size_t ncap = (*cap ? *cap * 2 : 8192) + n;
		char *nb = realloc(*buf, ncap);

		if (!nb)
			return 0;
		*buf = nb;
		*cap = ncap;
	}
	memcpy(*buf + *len, tmp, n);
	*len += n;
	(*buf)[*len] = '\0';
	return 1;
}

/* The child and whatever it started in its process group (exec_fork made one), killed. */
static void kill_group(pid_t pid)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL); /* in case it had not made its group yet */
}

/* Read the child's two pipes until both end, or a cap or the deadline stops it (killed then). */
static void read_both(pid_t pid, int fds[2], const struct exec_limits *l, struct exec_result *r)
{
	struct pollfd pfd[2] = { { fds[0], POLLIN, 0 }, { fds[1], POLLIN, 0 } };
	char **bufs[2] = { &r->out, &r->err };
	size_t *lens[2] = { &r->out_len, &r->err_len }, caps[2] = { 0, 0 };
	double end = l && l->deadline_ms >= 0 ? mono_s() * 1000 + l->deadline_ms : -1;
	int open_fds = 2;

	while (open_fds) {
		int wait_ms = end < 0 ? -1 : (int)(end - mono_s() * 1000);

		if (end >= 0 && wait_ms <= 0) {
			r->timed_out = true;
			break;
		}
		int pr = poll(pfd, 2, wait_ms);

		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0)
			break;
		for (int i = 0; i < 2; i++) {
			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			if (!slurp(pfd[i].fd, bufs[i], lens[i], &caps[i], l ? l->max_out : 0, &r->too_long)) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
				open_fds--;
			}
		}
		if (r->too_long)
			break;
	}
	if (r->timed_out || r->too_long)
		kill_group(pid);
	for (int i = 0; i < 2; i++)
		if (pfd[i].fd >= 0)
			close(pfd[i].fd);
}

int exec_run_limited(const char *netns, char *const argv[], const struct exec_limits *l,
		     struct exec_result *r)
{
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 };
	struct spawn_opts o = { .netns = netns, .cpu = -1, .stdout_fd = -1, .stderr_fd = -1 };
	pid_t pid;

	memset(r, 0, sizeof(*r));
	if (pipe2(po, O_CLOEXEC) < 0)
		return -1;
	if (pipe2(pe, O_CLOEXEC) < 0) {
		close(po[0]);
		close(po[1]);
		return -1;
	}
	o.stdout_fd = po[1];
	o.stderr_fd = pe[1];
	pid = exec_spawn(argv, &o);
	close(po[1]);
	close(pe[1]);
	if (pid < 0) {
		close(po[0]);
		close(pe[0]);
		return -1;
	}
	read_both(pid, (int[]){ po[0], pe[0] }, l, r);

	int status = exec_wait(pid);

	if (!r->out)
		r->out = strdup("");
	if (!r->err)
		r->err = strdup("");
	return status;
}

int exec_run(const char *netns, char *const argv[], char **out, char **err)
{
	struct exec_result r;
	int st = exec_run_limited(netns, argv, NULL, &r);

	if (out)
		*out = r.out;
	else
		free(r.out);
	if (err)
		*err = r.err;
	else
		free(r.err);
	return st;
}

static void print_quoted(FILE *f, const char *s)
{
	if (*s && !s[strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,+@%")]) {
		fputs(s, f);
		return;
	}
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

void exec_print(FILE *f, const char *netns, char *const argv[])
{
	if (netns)
		fprintf(f, "ip netns exec %s ", netns);
	for (int i = 0; argv[i]; i++) {
		if (i)
			fputc(' ', f);
		print_quoted(f, argv[i]);
	}
	fputc('\n', f);
}

int exec_find(const char *prog, char *out, size_t len)
{
	const char *path = getenv("PATH");

	if (strchr(prog, '/')) {
		size_t n = strlen(prog);

		/* copied by hand: snprintf here made GCC's sanitized build warn of a null %s */
		if (n >= len)
			return -1;
		memcpy(out, prog, n + 1);
		return access(prog, X_OK) == 0 ? 0 : -1;
	}
	if (!path)
		path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		snprintf(out, len, "%.*s/%s", (int)n, path, prog);
		if (access(out, X_OK) == 0)
			return 0;
		path += n + (path[n] == ':');
	}
	return -1;
}

int exec_have(const char *prog)
{
	char buf[PATH_MAX];

	return exec_find(prog, buf, sizeof(buf)) == 0;
}

/* exec_in_dir and exec_in_dirfd: the working directory by path (dir) or by descriptor (dfd >= 0). */
static int exec_in(const char *dir, int dfd, char *const argv[], char **out)
{
	int p[2] = { -1, -1 }, st;
	pid_t pid;

	if (out && pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		if ((dfd >= 0 && fchdir(dfd) < 0) || (dfd < 0 && dir && chdir(dir) < 0)) {
			dprintf(2, "ipsecperf: cannot enter %s: %s\n", dir ? dir : "its folder", strerror(errno));
			_exit(126);
		}
		if (out) {
			dup2(p[1], 1);
			dup2(p[1], 2);
		}
		execvp(argv[0], argv);
		dprintf(2, "ipsecperf: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (out) {
		char buf[4096];
		size_t len = *out ? strlen(*out) : 0;
		ssize_t n;

		close(p[1]);
		while ((n = read(p[0], buf, sizeof(buf))) != 0) {
			char *nb;

			if (n < 0) {
				if (errno == EINTR)
					continue;
				break;
			}
			nb = realloc(*out, len + n + 1);
			if (!nb)
				break;
			memcpy(nb + len, buf, n);
			len += n;
			nb[len] = '\0';
			*out = nb;
		}
		close(p[0]);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

int exec_in_dir(const char *dir, char *const argv[], char **out)
{
	return exec_in(dir, -1, argv, out);
}

int exec_in_dirfd(int dfd, char *const argv[], char **out)
{
	return exec_in(NULL, dfd, argv, out);
}

int exec_status(int st, char *errout, char **err)
{
	if (st == 0) {
		free(errout);
		return 0;
	}
	msg_trim(errout);
	if (err)
		*err = errout;
	else
		free(errout);
	return -1;
}
