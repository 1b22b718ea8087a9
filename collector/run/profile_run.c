// SPDX-License-Identifier: GPL-2.0
/* `ipsecperf run --profile`: perf record over the measured window, then folded. */
#include "profile_run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "profile.h" /* analyze/profile.h: folding and reduction */
#include "exec.h"
#include "journal.h"
#include "log.h"
#include "signals.h"
#include "wait.h"

/* perf starts slowly under TCG (it synthesizes every process's maps): be patient */
#define PROFILE_READY_MS 60000
#define PROFILE_ACK_MS 10000
#define PROFILE_STOP_MS 120000

struct profiler {
	pid_t pid;
	int hz;
	int ctl_fd, ack_fd;
	char fifodir[64];
	char data[PATH_MAX], log[PATH_MAX], folded[PATH_MAX];
	const char *folded_rel; /* folded, relative to the results directory */
	bool enabled;
	double t_on, t_off;     /* CLOCK_MONOTONIC seconds at enable and disable */
	char why[512];          /* the first failure; empty while all is well */
};

int profile_check(char *why, size_t len)
{
	if (!exec_have("perf")) {
		snprintf(why, len, "run: --profile needs perf, which is not in PATH: install the linux-perf package (apt-get install linux-perf)");
		return -1;
	}
	return 0;
}

static void fail(struct profiler *p, const char *fmt, const char *arg)
{
	if (!p->why[0])
		snprintf(p->why, sizeof(p->why), fmt, arg);
}

/* The last line perf printed, for a failure's reason. */
static void why_from_log(struct profiler *p, const char *what)
{
	char buf[4096] = "", *line;
	int fd = open(p->log, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	while (*buf && strchr("\n ", buf[strlen(buf) - 1]))
		buf[strlen(buf) - 1] = '\0';
	line = strrchr(buf, '\n');
	line = line ? line + 1 : buf;
	if (!p->why[0])
		snprintf(p->why, sizeof(p->why), "%s%s%s", what, *line ? ": perf: " : "", line);
}

/* Send a control command and wait for perf's "ack". */
static int control(struct profiler *p, const char *cmd, int timeout_ms)
{
	char buf[64];
	size_t got = 0;
	double end = mono_s() + timeout_ms / 1000.0;

	if (p->ctl_fd < 0 || p->pid <= 0) /* never waitpid(-1): that would reap the load's processes */
		return -1;
	if (write(p->ctl_fd, cmd, strlen(cmd)) != (ssize_t)strlen(cmd))
		return -1;
	/* perf writes "ack\n" and its terminating NUL; NULs are skipped */
	while (got < 4) {
		struct pollfd pfd = { p->ack_fd, POLLIN, 0 };
		int left = (int)((end - mono_s()) * 1000);
		ssize_t n, k = 0;

		/* a look while polling perf's ack pipe */
		if (left <= 0 || waitpid(p->pid, NULL, WNOHANG) == p->pid) {
			if (left > 0)
				p->pid = -1; /* perf exited: reaped above */
			return -1;
		}
		if (poll(&pfd, 1, left < 100 ? left : 100) <= 0)
			continue;
		n = read(p->ack_fd, buf + got, sizeof(buf) - 1 - got);
		if (n <= 0)
			return -1;
		for (ssize_t i = 0; i < n; i++)
			if (buf[got + i])
				buf[got + k++] = buf[got + i];
		got += k;
	}
	return strncmp(buf, "ack\n", 4) ? -1 : 0;
}

static void close_fifos(struct profiler *p)
{
	char path[PATH_MAX];

	if (p->ctl_fd >= 0)
		close(p->ctl_fd);
	if (p->ack_fd >= 0)
		close(p->ack_fd);
	p->ctl_fd = p->ack_fd = -1;
	if (!p->fifodir[0])
		return;
	snprintf(path, sizeof(path), "%s/ctl", p->fifodir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/ack", p->fifodir);
	unlink(path);
	rmdir(p->fifodir);
	p->fifodir[0] = '\0';
}

struct profiler *profile_begin(int hz, const char *resdir, const char *raw_prefix)
{
	struct profiler *p = calloc(1, sizeof(*p));
	char hzs[16], ctl[PATH_MAX], ack[PATH_MAX], control_arg[2 * PATH_MAX + 16];
	size_t rl = strlen(resdir);
	int logfd;

	if (!p)
		return NULL;
	p->pid = -1;
	p->hz = hz;
	p->ctl_fd = p->ack_fd = -1;
	snprintf(p->data, sizeof(p->data), "%sperf.data", raw_prefix);
	snprintf(p->log, sizeof(p->log), "%sperf.log", raw_prefix);
	snprintf(p->folded, sizeof(p->folded), "%sprofile.folded", raw_prefix);
	p->folded_rel = p->folded;
	if (!strncmp(p->folded, resdir, rl) && p->folded[rl] == '/')
		p->folded_rel = p->folded + rl + 1;

	snprintf(p->fifodir, sizeof(p->fifodir), "/tmp/ipsecperf-profile-XXXXXX");
	if (!mkdtemp(p->fifodir)) {
		p->fifodir[0] = '\0';
		fail(p, "cannot make a directory for perf's control FIFOs: %s", strerror(errno));
		return p;
	}
	/* after a SIGKILL, `ipsecperf cleanup` removes the FIFOs */
	journal_add(json_pack("{s:s, s:[s,s,s]}", "kind", "argv", "argv", "rm", "-rf", p->fifodir));
	snprintf(ctl, sizeof(ctl), "%s/ctl", p->fifodir);
	snprintf(ack, sizeof(ack), "%s/ack", p->fifodir);
	if (mkfifo(ctl, 0600) < 0 || mkfifo(ack, 0600) < 0) {
		fail(p, "mkfifo: %s", strerror(errno));
		return p;
	}
	/* read-write on both ends: neither open blocks, and a dead perf gives no SIGPIPE */
	p->ctl_fd = open(ctl, O_RDWR | O_CLOEXEC);
	p->ack_fd = open(ack, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (p->ctl_fd < 0 || p->ack_fd < 0) {
		fail(p, "cannot open perf's control FIFOs: %s", strerror(errno));
		return p;
	}
	snprintf(hzs, sizeof(hzs), "%d", hz);
	snprintf(control_arg, sizeof(control_arg), "fifo:%s,%s", ctl, ack);
	char *const argv[] = {
		"perf", "record", "-a", "-g", "-e", "cpu-clock", "-F", hzs,
		"-D", "-1",             /* start with the events disabled */
		"--control", control_arg,
		"-B", "-N",             /* no build-ids: perf's exit stays quick */
		"-o", p->data, NULL,
	};
	logfd = open(p->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (log_verbose) {
		fprintf(stderr, "ipsecperf: profile: ");
		exec_print(stderr, NULL, argv);
		fputc('\n', stderr);
	}
	p->pid = exec_spawn(argv, &(struct spawn_opts){ .cpu = -1, .stdout_fd = logfd, .stderr_fd = logfd });
	if (logfd >= 0)
		close(logfd);
	if (p->pid < 0) {
		fail(p, "cannot start perf: %s", strerror(errno));
		return p;
	}
	journal_add_process(p->pid);
	/* perf answers "ping" once its events are open (and still disabled) */
	if (control(p, "ping\n", PROFILE_READY_MS) < 0)
		why_from_log(p, "perf record did not start");
	return p;
}

void profile_window(struct profiler *p, int open)
{
	if (!p || p->why[0])
		return;
	if (open) {
		if (control(p, "enable\n", PROFILE_ACK_MS) < 0) {
			why_from_log(p, "perf did not enable its events");
			return;
		}
		p->enabled = true;
		p->t_on = mono_s();
	} else if (p->enabled) {
		p->t_off = mono_s();
		if (control(p, "disable\n", PROFILE_ACK_MS) < 0)
			why_from_log(p, "perf did not disable its events");
		p->enabled = false;
	}
}

/* SIGINT, as a terminal would: perf writes its file and exits 0. */
static int stop_perf(struct profiler *p)
{
	int rc;

	if (p->pid <= 0)
		return -1;
	kill(p->pid, SIGINT);
	/* perf stops on SIGINT (writing its file), not SIGTERM: that only after the deadline */
	rc = wait_stop(p->pid, &(struct wait_stop){ .quiet_ms = PROFILE_STOP_MS, .grace_ms = 1000 });
	p->pid = -1;
	/* perf record re-raises the SIGINT once its file is written */
	return rc == 0 || rc == 128 + SIGINT ? 0 : -1;
}

static double record_cpb(json_t *rec)
{
	json_t *v = json_object_get(rec, "cycles_per_byte");

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* perf script, folded, written, reduced: the record's "profile". */
static json_t *reduce(struct profiler *p, json_t *rec)
{
	char *const argv[] = { "perf", "script", "-i", p->data, "-F", "comm,tid,ip,sym,dso",
			       "--no-inline", NULL };
	struct prof_folded folded = { 0 };
	struct prof_summary sum;
	char *out = NULL, *err = NULL, why[512];
	json_t *prof = NULL;
	long samples;
	int rc;
	FILE *f;

	rc = exec_run(NULL, argv, &out, &err);
	if (rc != 0) {
		char *nl = err ? strchr(err, '\n') : NULL;

		if (nl)
			*nl = '\0';
		snprintf(why, sizeof(why), "perf script exited %d: %s", rc, err ? err : "");
		fail(p, "%s", why);
		goto out;
	}
	samples = prof_fold_perf_script(out, &folded, why, sizeof(why));
	if (samples < 0) {
		fail(p, "%s", why);
		goto out;
	}
	f = fopen(p->folded, "w");
	if (!f || prof_folded_write(f, &folded) < 0 || fclose(f) != 0) {
		fail(p, "cannot write the folded stacks: %s", strerror(errno));
		goto out;
	}
	if (prof_reduce(&folded, record_cpb(rec), &sum) < 0) {
		fail(p, "%s", "out of memory");
		goto out;
	}
	prof = prof_summary_json(&sum, PROFILE_TOP);
	json_object_set_new(prof, "status", json_string("ok"));
	json_object_set_new(prof, "event", json_string("cpu-clock"));
	json_object_set_new(prof, "hz", json_integer(p->hz));
	json_object_set_new(prof, "window_s", json_real(p->t_off - p->t_on));
	/* busy CPU seconds as the samples saw them, to set beside cpu_busy_s.total */
	json_object_set_new(prof, "busy_s_sampled", json_real((double)(sum.samples - sum.idle) / p->hz));
	json_object_set_new(prof, "folded", json_string(p->folded_rel));
	{
		/* what ran besides the load: on a shared host, the first thing to look at */
		struct prof_func *cmds;
		size_t ncmds;

		if (prof_commands(&folded, &cmds, &ncmds) == 0) {
			json_t *cj = json_object();

			for (size_t i = 0; i < ncmds && i < 8; i++)
				json_object_set_new(cj, cmds[i].name, json_real(cmds[i].share));
			json_object_set_new(prof, "commands", cj);
			prof_funcs_free(cmds, ncmds);
		}
	}
	prof_summary_free(&sum);
	/* the folded stacks hold all the report uses; perf.data is large (and slow out of a VM) */
	unlink(p->data);
out:
	prof_folded_free(&folded);
	free(out);
	free(err);
	return prof;
}

void profile_end(struct profiler *p, json_t *rec)
{
	json_t *prof = NULL;

	if (!p)
		return;
	if (p->enabled)
		profile_window(p, 0); /* a load that failed before its window closed */
	close_fifos(p);
	if (p->pid > 0 && stop_perf(p) < 0)
		why_from_log(p, "perf record did not end cleanly");
	if (!p->why[0] && p->t_off <= 0)
		fail(p, "%s", "the load ended before its measured window opened");
	if (!p->why[0] && stop_requested())
		fail(p, "%s", "interrupted; not reduced"); /* exit promptly */
	if (!p->why[0])
		prof = reduce(p, rec);
	if (!prof) {
		prof = json_pack("{s:s, s:s}", "status", "failed", "reason", p->why);
		pr_warn("run: --profile: %s (see %s)", p->why, p->log);
	}
	json_object_set_new(rec, "profile", prof);
	free(p);
}
