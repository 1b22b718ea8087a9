// SPDX-License-Identifier: GPL-2.0
/*
 * Running the kernel's make: its output into a log, a progress line on a
 * terminal (a line a minute elsewhere), Ctrl-C stopping every job, and the
 * log's last lines when it fails.
 */
#include "kbuild_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "exec.h"
#include "log.h"
#include "progress.h"
#include "safefile.h"
#include "signals.h"

struct make_watch {
	int log;               /* the log file */
	char line[512];        /* the line being read */
	size_t len;
	long steps;            /* kbuild's "  CC      file" lines so far */
	char last[160];        /* the last of them */
	double start, shown;   /* mono_s() */
	bool tty;
};

static void watch_line(struct make_watch *w, const char *what)
{
	char el[16];
	const char *l = w->line;

	/* kbuild's quiet lines: two spaces, a verb in capitals, the file */
	if (l[0] == ' ' && l[1] == ' ' && l[2] >= 'A' && l[2] <= 'Z') {
		w->steps++;
		snprintf(w->last, sizeof(w->last), "%s", l + 2);
	}
	double now = mono_s();

	if (w->tty ? now - w->shown < 0.25 : now - w->shown < 60)
		return;
	w->shown = now;
	format_duration(el, sizeof(el), now - w->start);
	if (w->tty)
		fprintf(stderr, "\r\033[K%s: %s, %ld steps, %.60s", what, el, w->steps, w->last);
	else
		fprintf(stderr, "%s: %s, %ld steps, now %.60s\n", what, el, w->steps, w->last);
}

static void watch_feed(struct make_watch *w, const char *buf, size_t n, const char *what)
{
	if (write(w->log, buf, n) < 0) {
		/* a full disk shows in make's own errors */
	}
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n' || w->len == sizeof(w->line) - 1) {
			w->line[w->len] = '\0';
			watch_line(w, what);
			w->len = 0;
		} else {
			w->line[w->len++] = buf[i];
		}
	}
}

/*
 * The build's log, in a tree that may be another user's: never through a
 * symbolic link, never a FIFO or a device, never a file that has another
 * name too (a hard link to one of root's files); a new log replaces the
 * name rather than truncating what it points to. The descriptor, or -1
 * with errno.
 */
static int open_log(const char *path, bool append)
{
	if (!append && unlink(path) < 0 && errno != ENOENT)
		return -1;
	return safe_open(path, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0644);
}

int kbuild_make(char *const argv[], const char *log_path, bool append, bool quiet, const char *what)
{
	struct make_watch w = { .start = mono_s(), .tty = !quiet && isatty(2) };
	int pfd[2], st = -1;
	pid_t pid;

	w.shown = w.tty ? 0 : w.start;
	if (quiet)
		w.shown = 1e18;
	w.log = open_log(log_path, append);
	if (w.log < 0) {
		pr_warn("%s: cannot write %s: %s", what, log_path, safe_open_error(errno));
		return -1;
	}
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		close(w.log);
		return -1;
	}
	pid = exec_spawn(argv, &(struct spawn_opts){ .cpu = -1, .stdout_fd = pfd[1], .stderr_fd = pfd[1] });
	close(pfd[1]);
	if (pid < 0) {
		pr_warn("%s: cannot start make: %s", what, strerror(errno));
		close(pfd[0]);
		close(w.log);
		return -1;
	}
	for (;;) {
		char buf[8192];
		ssize_t n;

		if (stop_requested()) {
			exec_stop_group(pid, 3000); /* make and every job it started */
			pid = -1;
			break;
		}
		if (poll(&(struct pollfd){ .fd = pfd[0], .events = POLLIN }, 1, 200) <= 0)
			continue;
		n = read(pfd[0], buf, sizeof(buf));
		if (n > 0)
			watch_feed(&w, buf, n, what);
		else if (n == 0 || errno != EINTR)
			break;
	}
	if (w.tty)
		fprintf(stderr, "\r\033[K");
	close(pfd[0]);
	close(w.log);
	if (pid > 0)
		st = exec_wait(pid);
	return stop_requested() ? 128 + (stop_signal() ? stop_signal() : SIGINT) : st;
}
