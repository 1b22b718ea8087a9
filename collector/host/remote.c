// SPDX-License-Identifier: GPL-2.0
#include "remote.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "exec.h"
#include "journal.h"
#include "log.h"
#include "wait.h"

static bool has_bad_char(const char *s, bool allow_space)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f || (!allow_space && *s == ' '))
			return true;
	return false;
}

int remote_check_dest(const char *dest, char *why, size_t len)
{
	if (!dest || !*dest) {
		snprintf(why, len, "the peer is empty; give [user@]host");
		return -1;
	}
	if (dest[0] == '-') {
		snprintf(why, len, "'%s' is not a host: it starts with '-'", dest);
		return -1;
	}
	if (has_bad_char(dest, false)) {
		snprintf(why, len, "'%s' is not a host: it has blanks or control characters", dest);
		return -1;
	}
	return 0;
}

int remote_check_opt(const char *opt, char *why, size_t len)
{
	size_t n = strcspn(opt, "= ");

	if (!n || !opt[n] || has_bad_char(opt, true)) {
		snprintf(why, len, "--ssh-option '%s' is not Name=value (as ssh -o takes it)", opt);
		return -1;
	}
	return 0;
}

/* The options every ssh gets, before the user's: ssh takes the first value it sees. */
static const char *const fixed_opts[] = {
	"BatchMode=yes",          /* never a password or passphrase prompt */
	"ConnectTimeout=10",      /* an unreachable peer fails, not hangs */
	"ServerAliveInterval=2",  /* a dead connection is noticed within ~6 s */
	"ServerAliveCountMax=3",
	"LogLevel=ERROR",         /* no banners in what we parse */
};

char **remote_ssh_argv(const struct host *h, char *const argv[])
{
	size_t nfixed = sizeof(fixed_opts) / sizeof(fixed_opts[0]);
	size_t n = 0, max = 1 + 2 * (nfixed + h->nopts) + 4;
	char **a = calloc(max, sizeof(*a));
	char *cmd = shell_join(argv);

	if (!a || !cmd) {
		free(a);
		free(cmd);
		return NULL;
	}
	a[n++] = strdup("ssh");
	/* BatchMode first: ssh keeps the first value of an option, so the user cannot turn prompts back on */
	for (size_t i = 0; i < nfixed; i++) {
		a[n++] = strdup("-o");
		a[n++] = strdup(fixed_opts[i]);
	}
	for (int i = 0; i < h->nopts; i++) {
		a[n++] = strdup("-o");
		a[n++] = strdup(h->ssh_opts[i]);
	}
	a[n++] = strdup("--");
	a[n++] = strdup(h->ssh_dest);
	a[n++] = cmd;
	a[n] = NULL;
	return a;
}

int remote_run_within(const struct host *h, char *const argv[], const struct exec_limits *l, char **out,
		      char **err)
{
	char **a = remote_ssh_argv(h, argv);
	struct exec_result r;
	char why[160] = "";
	int st;

	if (!a)
		return -1;
	if (log_verbose > 1) {
		fputs("ipsecperf: + ", stderr);
		exec_print(stderr, NULL, a);
	}
	st = exec_run_limited(NULL, a, l, &r);
	remote_argv_free(a);
	if (r.too_long)
		snprintf(why, sizeof(why), "the peer sent more than %zu KiB; ssh was stopped", l->max_out >> 10);
	else if (r.timed_out)
		snprintf(why, sizeof(why), "ssh did not end within %d s; it was stopped", l->deadline_ms / 1000);
	if (why[0]) { /* nothing of it is taken: a part may read as a whole */
		free(r.out);
		free(r.err);
		r.out = strdup("");
		r.err = strdup(why);
		st = -1;
	}
	/* the peer's text: it reaches the terminal and the results */
	msg_clean(r.out, false);
	msg_clean(r.err, false);
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

int remote_run(const struct host *h, char *const argv[], char **out, char **err)
{
	const struct exec_limits l = { .max_out = REMOTE_OUTPUT_MAX, .deadline_ms = REMOTE_RUN_DEADLINE_MS };

	return remote_run_within(h, argv, &l, out, err);
}

pid_t remote_spawn(const struct host *h, char *const argv[], const struct spawn_opts *o)
{
	char **a = remote_ssh_argv(h, argv);
	struct spawn_opts capped = *o;
	pid_t pid;

	if (!a)
		return -1;
	capped.file_max = REMOTE_OUTPUT_MAX; /* the raw/ files it writes */
	pid = exec_spawn(a, &capped);
	remote_argv_free(a);
	return pid;
}

void remote_print(FILE *f, const struct host *h, char *const argv[])
{
	char **a = remote_ssh_argv(h, argv);

	if (a)
		exec_print(f, NULL, a);
	remote_argv_free(a);
}

static json_t *host_json(const struct host *h)
{
	json_t *o = json_array();

	for (int i = 0; i < h->nopts; i++)
		json_array_append_new(o, json_string(h->ssh_opts[i]));
	return json_pack("{s:s, s:o}", "ssh_dest", h->ssh_dest, "ssh_opts", o);
}

json_t *remote_undo_record(const struct host *h, char *const undo_argv[])
{
	json_t *r = host_json(h), *a = json_array();

	for (int i = 0; undo_argv[i]; i++)
		json_array_append_new(a, json_string(undo_argv[i]));
	json_object_set_new(r, "kind", json_string("remote-argv"));
	json_object_set_new(r, "argv", a);
	return r;
}

int remote_do(const struct host *h, char *const do_argv[], char *const undo_argv[], char **err)
{
	char *errout = NULL;
	int st;

	if (journal_dry_run() && do_argv)
		remote_print(stdout, h, do_argv);
	if (undo_argv && journal_add(remote_undo_record(h, undo_argv)) < 0)
		return -1;
	if (journal_dry_run() || !do_argv)
		return 0;
	if (log_verbose) {
		fprintf(stderr, "ipsecperf: + on %s: ", h->ssh_dest);
		exec_print(stderr, NULL, do_argv);
	}
	st = remote_run(h, do_argv, NULL, &errout);
	return exec_status(st, errout, err);
}

int remote_undo_argv(json_t *r)
{
	json_t *a = json_object_get(r, "argv"), *o = json_object_get(r, "ssh_opts");
	struct host h = { .ssh_dest = json_string_value(json_object_get(r, "ssh_dest")) };
	size_t n = json_array_size(a);
	char why[256], **argv, *err = NULL;
	int st;

	if (!n || remote_check_dest(h.ssh_dest, why, sizeof(why)) < 0) {
		pr_warn("undo: a remote-argv record without a usable host or command");
		return -1;
	}
	for (size_t i = 0; i < json_array_size(o) && h.nopts < REMOTE_MAX_OPTS; i++)
		h.ssh_opts[h.nopts++] = json_string_value(json_array_get(o, i));
	argv = calloc(n + 1, sizeof(*argv));
	if (!argv)
		return -1;
	for (size_t i = 0; i < n; i++)
		argv[i] = (char *)json_string_value(json_array_get(a, i));
	st = remote_run(&h, argv, NULL, &err);
	msg_trim(err);
	if (st == JOURNAL_LEFT_EXIT && n >= 3 && argv[1] && argv[2] && !strcmp(argv[1], "peer-agent") &&
	    !strcmp(argv[2], "--undo")) {
		/* the agent's undo could not be done safely and says why: never retried */
		const char *msg = err && *err ? err : "left as it is";

		pr_warn("undo on %s: %s", h.ssh_dest, strncmp(msg, "ipsecperf: ", 11) ? msg : msg + 11);
		free(err);
		free(argv);
		return JOURNAL_LEFT;
	}
	if (st != 0) {
		/* say which change on which host is left, as a command a person can run */
		char *cmd = shell_join(argv);

		pr_warn("undo on %s: `%s` failed%s: %s", h.ssh_dest, cmd ? cmd : argv[0],
			st == 255 ? " (ssh could not reach the peer)" : "", err && *err ? err : "no message");
		free(cmd);
	}
	free(err);
	free(argv);
	return st == 0 ? 0 : -1;
}

/* ---- sessions ---- */

/*
 * The memfd that takes ssh's stderr: REMOTE_OUTPUT_MAX long and sealed
 * against growing, so that what ssh writes past it fails; what was written
 * ends at the file offset ssh shares with us. -1 when it cannot be made.
 */
static int stderr_memfd(void)
{
	int fd = memfd_create("ipsecperf-ssh-stderr", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd >= 0 && (ftruncate(fd, REMOTE_OUTPUT_MAX) < 0 ||
			fcntl(fd, F_ADD_SEALS, F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) < 0)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

int remote_session_open(struct remote_session *s, const struct host *h, char *const argv[])
{
	int in[2], out[2];
	char **a = remote_ssh_argv(h, argv);

	memset(s, 0, sizeof(*s));
	s->pid = -1;
	s->to_fd = s->from_fd = s->err_fd = -1;
	if (!a)
		return -1;
	if (pipe2(in, O_CLOEXEC) < 0) {
		remote_argv_free(a);
		return -1;
	}
	if (pipe2(out, O_CLOEXEC) < 0) {
		close(in[0]);
		close(in[1]);
		remote_argv_free(a);
		return -1;
	}
	s->err_fd = stderr_memfd();
	s->pid = exec_fork(NULL, -1, NULL, 0);
	if (s->pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		dup2(in[0], 0);
		dup2(out[1], 1);
		/* the peer's stderr never reaches the terminal as it is */
		dup2(s->err_fd >= 0 ? s->err_fd : open("/dev/null", O_WRONLY), 2);
		execvp(a[0], a);
		dprintf(2, "ipsecperf: cannot run ssh: %s\n", strerror(errno));
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	remote_argv_free(a);
	if (s->pid < 0) {
		close(in[1]);
		close(out[0]);
		return -1;
	}
	s->to_fd = in[1];
	s->from_fd = out[0];
	if (!journal_dry_run()) /* a dry run changes nothing, and has no undo to print for it */
		journal_add_process(s->pid);
	return 0;
}

/* Mark the session lost; the reason is ssh's last stderr line, when it said one. */
static void session_lost(struct remote_session *s, const char *what)
{
	char tail[300] = "";

	if (s->lost)
		return;
	s->lost = true;
	if (s->err_fd >= 0) {
		off_t end = lseek(s->err_fd, 0, SEEK_CUR); /* where ssh's writes are */
		off_t from = end > (off_t)sizeof(tail) - 1 ? end - (off_t)sizeof(tail) + 1 : 0;
		ssize_t n = pread(s->err_fd, tail, sizeof(tail) - 1, from);

		tail[n > 0 ? n : 0] = '\0';
		msg_clean(tail, false); /* ssh's stderr holds the remote shell's too */
		msg_trim(tail);
	}
	char *last = strrchr(tail, '\n');
	size_t n = strlen(tail);

	if (n && tail[n - 1] == '.')
		tail[n - 1] = '\0'; /* ssh's sentences end in '.'; ours go on */
	snprintf(s->lost_why, sizeof(s->lost_why), "the ssh connection to the peer was lost (%s)%s%s",
		 what, tail[0] ? ": " : "", last ? last + 1 : tail);
}

int remote_session_send(struct remote_session *s, const char *line)
{
	size_t n = strlen(line);

	if (s->lost || s->to_fd < 0)
		return -1;
	/* one write for the line and its newline, so a key never sits in two places */
	struct part {
		const void *b;
		size_t l;
	} parts[2] = { { line, n }, { "\n", 1 } };

	for (int i = 0; i < 2; i++) {
		const char *p = parts[i].b;
		size_t left = parts[i].l;

		while (left) {
			ssize_t w = write(s->to_fd, p, left);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				session_lost(s, "ssh is gone");
				return -1;
			}
			p += w;
			left -= w;
		}
	}
	return 0;
}

/* Every string of an answer, cleaned (msg_clean) in place: the peer's text is data. */
static void answer_clean(json_t *v, int depth)
{
	const char *key;
	json_t *m;
	size_t i;

	if (depth > 32)
		return;
	if (json_is_string(v))
		msg_clean((char *)json_string_value(v), false);
	json_object_foreach(v, key, m)
		answer_clean(m, depth + 1);
	json_array_foreach(v, i, m)
		answer_clean(m, depth + 1);
}

json_t *remote_session_recv(struct remote_session *s, int timeout_ms)
{
	double deadline = mono_s() + timeout_ms / 1000.0;

	if (s->lost || s->from_fd < 0)
		return NULL;
	for (;;) {
		char *nl = memchr(s->buf, '\n', s->len);

		if (nl) {
			json_t *r;

			*nl = '\0';
			r = json_loads(s->buf, 0, NULL);
			s->len -= nl + 1 - s->buf;
			memmove(s->buf, nl + 1, s->len);
			if (!r) {
				session_lost(s, "the agent answered something that is not JSON");
				return NULL;
			}
			answer_clean(r, 0);
			if (s->ahead > 0) { /* the answer to a request sent ahead */
				s->ahead--;
				json_decref(r);
				continue;
			}
			return r;
		}
		int left_ms = (int)((deadline - mono_s()) * 1000);

		if (left_ms <= 0) {
			session_lost(s, "no answer within the time allowed");
			return NULL;
		}
		struct pollfd pfd = { s->from_fd, POLLIN, 0 };
		int pr = poll(&pfd, 1, left_ms > 200 ? 200 : left_ms);

		if (pr < 0 && errno != EINTR) {
			session_lost(s, strerror(errno));
			return NULL;
		}
		if (pr <= 0)
			continue;
		if (s->len + 1 >= sizeof(s->buf)) {
			session_lost(s, "an answer longer than 64 KiB");
			return NULL;
		}
		ssize_t r = read(s->from_fd, s->buf + s->len, sizeof(s->buf) - 1 - s->len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			session_lost(s, "ssh closed the connection");
			return NULL;
		}
		s->len += r;
	}
}

int remote_session_send_ahead(struct remote_session *s, const char *line)
{
	if (remote_session_send(s, line) < 0)
		return -1;
	s->ahead++;
	return 0;
}

json_t *remote_session_call(struct remote_session *s, const char *line, int timeout_ms)
{
	return remote_session_send(s, line) < 0 ? NULL : remote_session_recv(s, timeout_ms);
}

void remote_session_close(struct remote_session *s)
{
	if (s->to_fd >= 0)
		close(s->to_fd);
	s->to_fd = -1;
	if (s->pid > 0) {
		/* the agent reads EOF, stops its children and exits; ssh follows (no signal for 3 s) */
		wait_stop(s->pid, &(struct wait_stop){ .quiet_ms = 3000, .grace_ms = 1000 });
		s->pid = -1;
	}
	if (s->from_fd >= 0)
		close(s->from_fd);
	if (s->err_fd >= 0)
		close(s->err_fd);
	s->from_fd = s->err_fd = -1;
	explicit_bzero(s->buf, sizeof(s->buf));
}
