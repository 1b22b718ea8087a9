// SPDX-License-Identifier: GPL-2.0
/*
 * The VM testbed, host side: for one kernel, build the initramfs, boot qemu
 * (KVM when it really runs this kernel, TCG otherwise), follow the console,
 * stop a guest that panics or hangs, and bring its records and raw files
 * into the host's results directory. What the guest sends is data from an
 * untrusted source: read with the host's own tar reader (guest_tar.c) and
 * checked (guest_check.c) before anything of it is kept.
 */
#include "vm.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exec.h"
#include "guest_check.h"
#include "guest_tar.h"
#include "journal.h"
#include "log.h"
#include "signals.h"
#include "vm_guest.h"
#include "clock.h"
#include "files.h"

#define TAIL_LINES 15
/* KVM brings a kernel to its init in a second or two; a hung KVM costs no more */
#define KVM_INIT_TIMEOUT_S 10
#define TCG_INIT_TIMEOUT_S 60
/* what a guest may write on its console and its record port (the tar: GUEST_TAR_MAX_STREAM) */
#define CONSOLE_MAX (64L << 20)
#define LIVE_MAX (64L << 20)

/* ---- the accelerator ---- */

/*
 * Decided once per process, for every kernel and every --interleave round:
 * qemu is asked first (vm_kvm_probe), then the first boot under KVM shows
 * whether it runs a kernel. A KVM boot that ends before the guest's init
 * is booted again under TCG; when TCG reaches the init, KVM is the culprit
 * and every later boot uses TCG.
 */
static int kvm_state = -1; /* -1 not known yet, 0 unusable, 1 usable */
static char kvm_why[256];

static bool want_kvm(const char *workdir, bool dry)
{
	char why[224];

	if (kvm_state >= 0)
		return kvm_state;
	if (!vm_kvm_allowed(why, sizeof(why))) {
		fmt_buf(kvm_why, sizeof(kvm_why), "%s", why);
		kvm_state = 0;
		return false;
	}
	if (dry)
		return true;
	switch (vm_kvm_probe(workdir, why, sizeof(why))) {
	case 1:
		pr_debug("vm: %s", why);
		kvm_state = 1;
		return true;
	case 0:
		fmt_buf(kvm_why, sizeof(kvm_why), "KVM cannot run guests here: %s", why);
		pr_warn("vm: %s; using TCG", kvm_why);
		kvm_state = 0;
		return false;
	default:
		pr_debug("vm: cannot tell whether KVM runs guests here (%s); the first boot will", why);
		return true;
	}
}

/* ---- following the console ---- */

struct console {
	int fd;
	char partial[1024];
	size_t plen;
	char tail[TAIL_LINES][256];
	int ntail, next;
	double t_init, t_start, t_first, t_done; /* host seconds since qemu start; 0 unseen */
	double cpu_init, cpu_first; /* CPU seconds qemu had used by then; 0 unseen */
	bool panic;
	double t_panic;
	char panic_line[256];
};

/* line: printable ASCII only (console_poll), so it may go into messages and records */
static void console_line(struct console *c, const char *line, double t)
{
	if (!*line)
		return;
	if (log_verbose >= 2)
		fprintf(stderr, "ipsecperf: debug: vm console %7.3f: %s\n", t, line);
	fmt_buf(c->tail[c->next], sizeof(c->tail[0]), "%s", line);
	c->next = (c->next + 1) % TAIL_LINES;
	if (c->ntail < TAIL_LINES)
		c->ntail++;
	if (strstr(line, MARK_INIT) && !c->t_init)
		c->t_init = t;
	else if (strstr(line, MARK_START) && !c->t_start)
		c->t_start = t;
	else if (strstr(line, MARK_FIRST_BYTE) && !c->t_first)
		c->t_first = t;
	else if (strstr(line, MARK_DONE) && !c->t_done)
		c->t_done = t;
	if (!c->panic && strstr(line, "Kernel panic")) {
		c->panic = true;
		fmt_buf(c->panic_line, sizeof(c->panic_line), "%s", line);
	}
}

static void console_poll(struct console *c, double t)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(c->fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			char ch = buf[i];

			if (ch == '\n' || c->plen == sizeof(c->partial) - 1) {
				c->partial[c->plen] = '\0';
				console_line(c, c->partial, t);
				c->plen = 0;
			} else if (ch != '\r') {
				/* the guest's bytes reach a terminal and the records: no control characters */
				c->partial[c->plen++] = ch == '\t' ? ' ' : ch >= ' ' && ch < 0x7f ? ch : '?';
			}
		}
	}
}

/* The last console lines, one per line, indented, into a new string. */
static char *console_tail(struct console *c)
{
	size_t cap = TAIL_LINES * 260 + 64, len = 0;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	s[0] = '\0';
	if (c->plen) {
		c->partial[c->plen] = '\0';
		console_line(c, c->partial, 0);
		c->plen = 0;
	}
	for (int i = 0; i < c->ntail; i++) {
		int idx = (c->next - c->ntail + i + TAIL_LINES) % TAIL_LINES;

		len += fmt_buf(s + len, cap - len, "  | %s\n", c->tail[idx]);
	}
	if (!c->ntail)
		fmt_buf(s, cap, "  | (the console stayed empty)\n");
	return s;
}

/* ---- one boot ---- */

struct boot {
	const char *image, *initrd, *console_path, *tar_path, *live_path, *qlog_path;
	bool kvm;
	int boot_timeout_s, total_timeout_s;
	/* results */
	struct console con;
	double total_s;
	int qemu_status;       /* exit status, or -1 when we stopped it */
	char why[512];         /* why it failed; "" when the guest finished */
	bool kvm_broken;       /* a KVM boot that ended before the guest's init: retry with TCG */
	bool flood;            /* the guest sent more than a serial file may hold */
};

static int nr_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 2 ? 2 : n > 4 ? 4 : (int)n;
}

static void build_argv(struct boot *b, char **a, size_t max, char *smp, char *append,
		       char *ser0, char *ser1, char *ser2)
{
	const char *extra = getenv("IPSECPERF_VM_APPEND");
	size_t n = 0;

	fmt_buf(smp, 16, "%d", nr_cpus());
	fmt_buf(append, 1024,
		 "console=ttyS0 quiet panic=-1 oops=panic no_timer_check rdinit=" GUEST_EXE " %s -- guest",
		 extra ? extra : "");
	fmt_buf(ser0, PATH_MAX + 8, "file:%s", b->console_path);
	fmt_buf(ser1, PATH_MAX + 8, "file:%s", b->tar_path);
	fmt_buf(ser2, PATH_MAX + 8, "file:%s", b->live_path);
	a[n++] = "qemu-system-x86_64";
	a[n++] = "-accel";
	a[n++] = b->kvm ? "kvm" : "tcg";
	a[n++] = "-cpu";
	a[n++] = b->kvm ? "host" : "max";
	a[n++] = "-m";
	a[n++] = "1024";
	a[n++] = "-smp";
	a[n++] = smp;
	a[n++] = "-nodefaults";
	a[n++] = "-no-user-config";
	a[n++] = "-display";
	a[n++] = "none";
	a[n++] = "-no-reboot";
	a[n++] = "-kernel";
	a[n++] = (char *)b->image;
	a[n++] = "-initrd";
	a[n++] = (char *)b->initrd;
	a[n++] = "-append";
	a[n++] = append;
	a[n++] = "-serial";
	a[n++] = ser0;
	a[n++] = "-serial";
	a[n++] = ser1;
	a[n++] = "-serial";
	a[n++] = ser2;
	a[n] = NULL;
	(void)max;
}

/*
 * CPU seconds a process has used (user + system). Wall time under TCG
 * grows with the host's load; qemu's own CPU time much less so, which
 * makes boot figures from a busy host comparable with an idle one's.
 */
static double proc_cpu_s(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut = 0, st = 0;
	int field = 2;

	fmt_buf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (file_read_line(path, buf, sizeof(buf)) < 0 || !(p = strrchr(buf, ')')))
		return 0;
	for (char *tok = strtok(p + 1, " "); tok; tok = strtok(NULL, " ")) {
		field++;
		if (field == 14)
			ut = strtoull(tok, NULL, 10);
		else if (field == 15) {
			st = strtoull(tok, NULL, 10);
			break;
		}
	}
	return (double)(ut + st) / sysconf(_SC_CLK_TCK);
}

/* Has the guest written more than its serial files may hold? Then why says so. */
static bool serial_flood(struct boot *b)
{
	struct stat st;
	const char *what = NULL;
	long max = 0;

	if (fstat(b->con.fd, &st) == 0 && st.st_size > CONSOLE_MAX)
		what = "console", max = CONSOLE_MAX;
	else if (stat(b->tar_path, &st) == 0 && st.st_size > GUEST_TAR_MAX_STREAM)
		what = "results port", max = GUEST_TAR_MAX_STREAM;
	else if (stat(b->live_path, &st) == 0 && st.st_size > LIVE_MAX)
		what = "record port", max = LIVE_MAX;
	if (!what)
		return false;
	fmt_buf(b->why, sizeof(b->why), "the guest wrote more than %ld MiB on its %s; stopped it",
	       max >> 20, what);
	b->flood = true;
	return true;
}

static int boot_once(struct boot *b, bool dry)
{
	char *argv[40], smp[16], append[1024], ser0[PATH_MAX + 8], ser1[PATH_MAX + 8],
		ser2[PATH_MAX + 8], qmsg[200] = "";
	struct spawn_opts o = { .cpu = -1, .stdout_fd = -1, .stderr_fd = -1 };
	double t0, t;
	pid_t pid;
	int qfd, st;
	bool stopped = false;

	memset(&b->con, 0, sizeof(b->con));
	b->why[0] = '\0';
	b->kvm_broken = false;
	b->flood = false;
	b->qemu_status = 0;
	build_argv(b, argv, 40, smp, append, ser0, ser1, ser2);
	if (dry) {
		exec_print(stdout, NULL, argv);
		return 0;
	}
	unlink(b->console_path);
	unlink(b->tar_path);
	unlink(b->live_path);
	/* qemu opens the serial files itself; create the console first to follow it */
	b->con.fd = open(b->console_path, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
	qfd = open(b->qlog_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (b->con.fd < 0 || qfd < 0) {
		fmt_buf(b->why, sizeof(b->why), "cannot create %s: %s", b->console_path,
			 strerror(errno));
		goto out_close;
	}
	o.stdout_fd = qfd;
	o.stderr_fd = qfd;
	if (log_verbose) {
		fprintf(stderr, "ipsecperf: debug: ");
		exec_print(stderr, NULL, argv);
	}
	t0 = mono_s();
	pid = exec_spawn(argv, &o);
	if (pid < 0) {
		fmt_buf(b->why, sizeof(b->why), "cannot start qemu-system-x86_64: %s; `make deps` installs it",
			 strerror(errno));
		goto out_close;
	}
	if (journal_add_process(pid) < 0)
		pr_debug("vm: qemu %d is not journaled", (int)pid);

	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		t = mono_s() - t0;
		console_poll(&b->con, t);
		if (b->con.t_init && !b->con.cpu_init)
			b->con.cpu_init = proc_cpu_s(pid);
		if (b->con.t_first && !b->con.cpu_first)
			b->con.cpu_first = proc_cpu_s(pid);
		if (w == pid) {
			b->qemu_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			break;
		}
		if (b->con.panic) {
			/* panic=-1 reboots at once and -no-reboot ends qemu; give it a moment */
			if (!b->con.t_panic)
				b->con.t_panic = t;
			if (t - b->con.t_panic > 3)
				break;
		}
		if (serial_flood(b))
			break;
		if (!b->con.t_init && t > b->boot_timeout_s) {
			fmt_buf(b->why, sizeof(b->why),
				 "the guest did not reach its init within %d s", b->boot_timeout_s);
			break;
		}
		if (t > b->total_timeout_s) {
			fmt_buf(b->why, sizeof(b->why), "timed out after %d s, %s (IPSECPERF_VM_TIMEOUT sets the limit)",
			       b->total_timeout_s,
			       !b->con.t_init ? "before the guest's init ran" :
			       !b->con.t_first ? "before the load began" :
			       !b->con.t_done ? "while the matrix ran" : "while the results were sent");
			break;
		}
		if (stop_requested()) {
			fmt_buf(b->why, sizeof(b->why), "stopped by signal %d", stop_signal());
			break;
		}
		nanosleep(&(struct timespec){ .tv_nsec = 20 * 1000 * 1000 }, NULL);
	}
	/* what qemu said, read before stopping it (it then says that it was stopped) */
	file_first_line(b->qlog_path, qmsg, sizeof(qmsg));
	if (waitpid(pid, &st, WNOHANG) == 0) {
		exec_stop(pid, 2000);
		stopped = true;
		b->qemu_status = -1;
	}
	b->total_s = mono_s() - t0;
	console_poll(&b->con, b->total_s);

	if (b->con.panic) {
		fmt_buf(b->why, sizeof(b->why), "kernel panic: %s", b->con.panic_line);
	} else if (!*b->why && !b->con.t_done) {
		char status[32] = "";

		if (!stopped)
			fmt_buf(status, sizeof(status), " with status %d", b->qemu_status);
		fmt_buf(b->why, sizeof(b->why), "qemu %s%s before the guest %s%s%s",
		       stopped ? "was stopped" : "exited", status,
		       b->con.t_init ? "finished" : "reached its init", *qmsg ? ": " : "", qmsg);
	} else if (b->kvm && !b->con.t_init && *qmsg) {
		fmt_buf(b->why + strlen(b->why), sizeof(b->why) - strlen(b->why), "; qemu said: %s", qmsg);
	}
	/*
	 * Under KVM, whatever ended the boot before the guest's init (qemu
	 * exiting, a time-out, a message never seen before) may be KVM's
	 * doing; a boot under TCG tells. Not when we were asked to stop, or the
	 * guest flooded its ports: that is the guest's doing.
	 */
	if (b->kvm && !b->con.t_init && !stop_requested() && !b->flood)
		b->kvm_broken = true;
out_close:
	if (b->con.fd >= 0)
		close(b->con.fd);
	if (qfd >= 0)
		close(qfd);
	return *b->why ? -1 : 0;
}

/* ---- bringing results home ---- */

static int append_line(const char *path, const char *line)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	size_t len = strlen(line);
	int err = 0;

	if (fd < 0)
		return -1;
	if (write(fd, line, len) != (ssize_t)len || write(fd, "\n", 1) != 1)
		err = -1;
	if (close(fd) < 0)
		err = -1;
	return err;
}

static json_t *vm_info(const struct boot *b, const struct vm_kernel *k)
{
	return json_pack("{s:s, s:s, s:s}", "accel", b->kvm ? "kvm" : "tcg", "spec", k->spec,
			 "image", k->image);
}

/* Did the guest write a record for this scenario? */
static bool has_scenario(json_t *seen, const char *name)
{
	return json_object_get(seen, name) != NULL;
}

static int append_failed(const char *runs, const struct run_config *cfg, const char *release,
			 json_t *seen, const char *reason, json_t *vm)
{
	char start[32];
	time_t now = time(NULL);
	int n = 0;

	strftime(start, sizeof(start), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	for (int i = 0; i < cfg->nscenarios; i++) {
		if (has_scenario(seen, cfg->scenarios[i].name))
			continue;
		for (int r = cfg->repeat_from; r < cfg->repeat_from + (cfg->repeat > 0 ? cfg->repeat : 1); r++) {
			json_t *rec = json_pack("{s:i, s:s, s:s, s:i, s:s, s:s, s:s, s:s, s:O}",
						"version", 1, "kernel", release, "scenario",
						cfg->scenarios[i].name, "repeat", r, "status",
						"failed", "reason", reason, "start", start, "testbed",
						"vm", "vm", vm);
			char *line = json_dumps(rec, JSON_COMPACT);

			if (line && append_line(runs, line) == 0)
				n++;
			free(line);
			json_decref(rec);
		}
	}
	return n;
}

/* Is this a run of cfg's (scenario, repeat), as this boot was asked for? */
static bool run_asked(const struct run_config *cfg, const char *scenario, json_t *repeat)
{
	json_int_t r = json_integer_value(repeat);

	if (!scenario || !json_is_integer(repeat) || r < cfg->repeat_from ||
	    r >= cfg->repeat_from + (cfg->repeat > 0 ? cfg->repeat : 1))
		return false;
	for (int i = 0; i < cfg->nscenarios; i++)
		if (!strcmp(cfg->scenarios[i].name, scenario))
			return true;
	return false;
}

/*
 * Append the guest's records (buf: name's text) as the results reader and
 * guest_records_check pass them, for runs this boot was asked for; count
 * them by status; note their scenarios. The first record refused ends it:
 * -1 with why naming its line.
 */
static int merge_runs(const char *name, const char *buf, size_t len, const struct run_config *cfg,
		      const char *release, const char *runs, json_t *vm, json_t *seen,
		      struct vm_stats *out, char *why, size_t whylen)
{
	const char *last = len ? memrchr(buf, '\n', len) : NULL;
	size_t pos = 0;
	int nok;

	/* a line the guest had not finished when it stopped is no record */
	len = last ? (size_t)(last - buf) + 1 : 0;
	nok = guest_records_check(name, buf, len, release, why, whylen);
	for (int i = 0; i < nok; i++) {
		size_t end = (const char *)memchr(buf + pos, '\n', len - pos) - buf;
		json_t *rec = json_loadb(buf + pos, end - pos, 0, NULL);
		const char *status = json_string_value(json_object_get(rec, "status"));
		const char *scen = json_string_value(json_object_get(rec, "scenario"));
		char *text;

		pos = end + 1;
		if (!run_asked(cfg, scen, json_object_get(rec, "repeat"))) {
			fmt_buf(why, whylen, "%s:%d: scenario %s, repeat %lld is not a run this VM was asked for",
			       name, i + 1, scen ? scen : "?", (long long)json_integer_value(json_object_get(rec, "repeat")));
			json_decref(rec);
			break;
		}
		json_object_set(rec, "vm", vm);
		json_object_set_new(rec, "testbed", json_string("vm"));
		json_object_set_new(seen, scen, json_true());
		text = json_dumps(rec, JSON_COMPACT);
		if (text && append_line(runs, text) == 0) {
			/* a skipped run (the kernel cannot run it) is not a failure */
			if (status && !strcmp(status, "ok"))
				out->runs_ok++;
			else if (status && !strcmp(status, "skipped"))
				out->runs_skipped++;
			else
				out->runs_failed++;
		}
		free(text);
		json_decref(rec);
	}
	return *why ? -1 : 0;
}

/* The kernel entry: the guest's own (from its meta.json, checked), else what we know. */
static json_t *kernel_entry(const struct vm_kernel *k, const char *release, json_t *ginfo,
			    json_t *gkernel, json_t *vm)
{
	char hash[65] = "";
	json_t *entry = gkernel ? json_incref(gkernel) : NULL;

	if (!entry) {
		entry = json_pack("{s:s}", "release", release);
		if (json_string_value(json_object_get(ginfo, "proc_version")))
			json_object_set(entry, "proc_version", json_object_get(ginfo, "proc_version"));
	}
	if (*k->config && vm_sha256_file(k->config, hash) == 0 &&
	    !json_object_get(entry, "config_sha256"))
		json_object_set_new(entry, "config_sha256", json_string(hash));
	json_object_set(entry, "vm", vm);
	return entry;
}

/* The guest's tar, mapped (it may be large); NULL with why. */
static void *map_file(const char *path, size_t *len, char *why, size_t whylen)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	void *p = NULL;

	if (fd < 0) {
		fmt_buf(why, whylen, "%s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
		fmt_buf(why, whylen, "the guest sent nothing");
	else if (st.st_size > GUEST_TAR_MAX_STREAM)
		fmt_buf(why, whylen, "more than %ld MiB", GUEST_TAR_MAX_STREAM >> 20);
	else if ((p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED)
		fmt_buf(why, whylen, "%s", strerror(errno)), p = NULL;
	else
		*len = st.st_size;
	close(fd);
	return p;
}

/* Keep the console (at most CONSOLE_MAX of it) as raw/<release>/name; a warning if it cannot be. */
static void keep_console(int rawfd, const char *src, const char *name)
{
	int fd = open(src, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *buf = NULL, err[300];
	size_t max = 0, n = 0;
	ssize_t got;

	if (fd >= 0 && fstat(fd, &st) == 0) {
		max = st.st_size < CONSOLE_MAX ? (size_t)st.st_size : CONSOLE_MAX;
		buf = malloc(max + 1);
	}
	while (buf && n < max && ((got = read(fd, buf + n, max - n)) > 0 || (got < 0 && errno == EINTR)))
		n += got > 0 ? got : 0;
	if (!buf)
		pr_warn("vm: cannot keep %s: %s", name, strerror(errno));
	else if (guest_write_file(rawfd, name, buf, n, err, sizeof(err)) < 0)
		pr_warn("vm: cannot keep %s: %s", name, err);
	if (fd >= 0)
		close(fd);
	free(buf);
}

/* ---- one kernel ---- */

static int default_total_timeout(const struct run_config *cfg, bool kvm)
{
	const char *env = getenv("IPSECPERF_VM_TIMEOUT");
	int per_run = (cfg->duration_s > 0 ? cfg->duration_s : 10) +
		      (cfg->omit_s > 0 ? cfg->omit_s : 0) + (kvm ? 10 : 30);
	int runs = (cfg->nscenarios ? cfg->nscenarios : 1) * (cfg->repeat > 0 ? cfg->repeat : 1);

	if (env && atoi(env) > 0)
		return atoi(env);
	return 90 + runs * per_run;
}

int vm_run_kernel(const struct run_config *cfg, const char *kernel_spec,
		  const char *resultsdir, struct vm_stats *out)
{
	struct vm_kernel k;
	int ok = vm_kernel_resolve(kernel_spec, &k) == 0;

	return vm_run_resolved(cfg, kernel_spec, ok ? &k : NULL, resultsdir, out);
}

int vm_run_resolved(const struct run_config *cfg, const char *kernel_spec,
		    const struct vm_kernel *kernel, const char *resultsdir, struct vm_stats *out)
{
	const char *tmpdir = getenv("TMPDIR");
	char work[PATH_MAX];
	char initrd[PATH_MAX], con[PATH_MAX], tar[PATH_MAX], qlog[PATH_MAX];
	char live[PATH_MAX], kvm_fail[600] = "", why[512];
	char runs[PATH_MAX], rawrel[GUEST_NAME_MAX + 8], name[64], boot_sfx[24] = "";
	const char *release;
	struct vm_kernel k;
	struct boot b = { 0 };
	struct guest_out g = { 0 };
	json_t *vm = NULL, *seen = json_object(), *ginfo = NULL, *gkernel = NULL;
	char *tail = NULL;
	void *tarmap = NULL;
	size_t tarlen = 0;
	double t_build;
	bool refused = false;
	int err = -1, resfd = -1, rawfd = -1;

	memset(out, 0, sizeof(*out));
	out->boot_to_first_byte_s = -1;
	fmt_buf(out->release, sizeof(out->release), "%s", kernel_spec);
	fmt_buf(runs, sizeof(runs), "%s/runs.jsonl", resultsdir);

	if (kernel && !guest_name_ok(kernel->release)) {
		guest_printable(kernel->release, strlen(kernel->release), out->release, sizeof(out->release));
		pr_warn("vm: %s: its release '%s' is not a plain name ([A-Za-z0-9._+-]); it names the kernel's folder under raw/",
			kernel_spec, out->release);
		kernel = NULL;
	}
	if (!kernel) {
		vm = json_pack("{s:s}", "spec", kernel_spec);
		if (!cfg->dry_run)
			out->runs_failed += append_failed(runs, cfg, out->release, seen,
							  "vm: the kernel could not be prepared", vm);
		goto out_free;
	}
	k = *kernel;
	fmt_buf(out->release, sizeof(out->release), "%s", k.release);
	fmt_buf(work, sizeof(work), "%s/ipsecperf-vm-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(work)) {
		pr_warn("vm: cannot make a scratch folder: %s", strerror(errno));
		goto out_free;
	}
	if (!cfg->dry_run)
		journal_add(json_pack("{s:s, s:[s, s, s]}", "kind", "argv", "argv", "rm", "-rf", work));
	fmt_buf(initrd, sizeof(initrd), "%s/initramfs.cpio", work);
	fmt_buf(con, sizeof(con), "%s/console.log", work);
	fmt_buf(tar, sizeof(tar), "%s/results.tar", work);
	fmt_buf(live, sizeof(live), "%s/live.jsonl", work);
	fmt_buf(qlog, sizeof(qlog), "%s/qemu.log", work);

	t_build = mono_s();
	if (vm_initramfs_build(cfg, &k, work, initrd) < 0) {
		vm = json_pack("{s:s}", "spec", kernel_spec);
		if (!cfg->dry_run)
			out->runs_failed += append_failed(runs, cfg, k.release, seen,
							  "vm: the initramfs could not be built", vm);
		goto out_rm;
	}
	t_build = mono_s() - t_build;
	{
		struct stat st;

		stat(initrd, &st);
		pr_debug("vm: %s: initramfs %.1f MB in %.2f s", k.release, st.st_size / 1e6,
			 t_build);
	}

	b.image = k.image;
	b.initrd = initrd;
	b.console_path = con;
	b.tar_path = tar;
	b.live_path = live;
	b.qlog_path = qlog;
	b.kvm = want_kvm(work, cfg->dry_run);
	for (;;) {
		b.boot_timeout_s = b.kvm ? KVM_INIT_TIMEOUT_S : TCG_INIT_TIMEOUT_S;
		b.total_timeout_s = default_total_timeout(cfg, b.kvm);
		if (cfg->dry_run) {
			boot_once(&b, true);
			err = 0;
			goto out_rm;
		}
		if (!cfg->quiet)
			pr_info("vm: %s: booting under %s%s%s%s", k.release, b.kvm ? "KVM" : "TCG",
				b.kvm ? "" : " (", b.kvm ? "" : *kvm_fail ? "KVM did not bring it to its init" : kvm_why,
				b.kvm ? "" : ")");
		boot_once(&b, false);
		if (!b.kvm_broken)
			break;
		fmt_buf(kvm_fail, sizeof(kvm_fail), "KVM did not bring %s to its init: %s", k.release, b.why);
		pr_warn("vm: %s; booting it again under TCG", kvm_fail);
		b.kvm = false;
	}
	if (b.kvm) {
		kvm_state = 1;
	} else if (*kvm_fail && b.con.t_init) {
		/* TCG brought the kernel KVM did not to its init: KVM it was */
		kvm_state = 0;
		fmt_buf(kvm_why, sizeof(kvm_why), "%.255s", kvm_fail);
	}
	fmt_buf(out->accel, sizeof(out->accel), "%s", b.kvm ? "kvm" : "tcg");
	fmt_buf(out->accel_why, sizeof(out->accel_why), "%s",
		 b.kvm ? "KVM runs this kernel" : *kvm_fail ? kvm_fail : kvm_why);
	out->boot_to_init_s = b.con.t_init;
	/* the first measured byte comes --omit seconds after the load's first */
	out->boot_to_first_byte_s = b.con.t_first ? b.con.t_first + (cfg->omit_s > 0 ? cfg->omit_s : 0) : -1;
	out->total_s = b.total_s;
	out->cpu_to_init_s = b.con.cpu_init;
	out->cpu_to_first_byte_s = b.con.cpu_first;
	vm = vm_info(&b, &k);
	refused = b.flood;

	/* the guest's results, when it sent them: read as data, checked before any is kept */
	if (!*b.why) {
		tarmap = map_file(tar, &tarlen, why, sizeof(why));
		if (!tarmap) {
			fmt_buf(b.why, sizeof(b.why), "the guest's results did not arrive whole: %s", why);
		} else if (guest_out_scan(tarmap, tarlen, &g, why, sizeof(why)) < 0) {
			fmt_buf(b.why, sizeof(b.why), "the guest's results were refused: results.tar: %s", why);
			refused = true;
		}
	}
	if (g.info && !refused) {
		ginfo = json_loadb(g.info, g.info_len, JSON_REJECT_DUPLICATES, NULL);
		if (guest_info_check(ginfo, why, sizeof(why)) < 0) {
			fmt_buf(b.why, sizeof(b.why), "the guest's results were refused: " GUEST_INFO ": %s", why);
			refused = true;
			json_decref(ginfo);
			ginfo = NULL;
		}
	}
	/*
	 * The host names the kernel (uname -r as its image, tree or package
	 * tells it): records and raw/ are keyed by it, and a guest that says
	 * otherwise could write as another kernel of the run.
	 */
	release = k.release;
	if (ginfo && strcmp(json_string_value(json_object_get(ginfo, "release")), release)) {
		fmt_buf(b.why, sizeof(b.why), "the guest's results were refused: " GUEST_INFO ": release %s is not this kernel's own %s",
		       json_string_value(json_object_get(ginfo, "release")), release);
		refused = true;
		json_decref(ginfo);
		ginfo = NULL;
	}
	if (g.meta && !refused && guest_meta_kernel(g.meta, g.meta_len, release, &gkernel, why, sizeof(why)) < 0) {
		fmt_buf(b.why, sizeof(b.why), "the guest's results were refused: %s", why);
		refused = true;
	}

	/* raw/<release>/, opened without following a link */
	fmt_buf(rawrel, sizeof(rawrel), "raw/%s", release);
	resfd = open(resultsdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (resfd < 0)
		fmt_buf(why, sizeof(why), "%s", strerror(errno));
	else
		rawfd = guest_open_dir(resfd, rawrel, why, sizeof(why));
	if (rawfd < 0)
		pr_warn("vm: %s/%s: %s", resultsdir, rawrel, why);
	/* --interleave boots a kernel once per repeat: a console log and guest info each */
	if (cfg->interleave)
		fmt_buf(boot_sfx, sizeof(boot_sfx), "-r%d", cfg->repeat_from);
	fmt_buf(name, sizeof(name), "console%s.log", boot_sfx);
	if (rawfd >= 0)
		keep_console(rawfd, con, name);
	if (tarmap && !refused && rawfd >= 0) {
		if (guest_out_raw(tarmap, tarlen, rawfd, why, sizeof(why)) < 0) {
			fmt_buf(b.why, sizeof(b.why), "the guest's raw files were not kept: %s", why);
			refused = true;
		}
		fmt_buf(name, sizeof(name), "vm-guest%s.json", boot_sfx);
		if (g.info && guest_write_file(rawfd, name, g.info, g.info_len, why, sizeof(why)) < 0)
			pr_warn("vm: %s: %s", rawrel, why);
	}
	if (!refused && g.runs) {
		if (merge_runs(GUEST_RUNDIR "/runs.jsonl", g.runs, g.runs_len, cfg, release, runs, vm,
			       seen, out, why, sizeof(why)) < 0) {
			fmt_buf(b.why, sizeof(b.why), "the guest's record was refused: %s", why);
			refused = true;
		}
	} else if (!refused && !tarmap) {
		/* no tar: the records sent as they were written, if any */
		size_t len = 0;
		char *buf = file_read(live, &len);

		if (buf && merge_runs("live.jsonl", buf, len, cfg, release, runs, vm, seen, out, why,
				      sizeof(why)) < 0) {
			fmt_buf(b.why + strlen(b.why), sizeof(b.why) - strlen(b.why), "%sthe guest's record was refused: %s",
			       *b.why ? "; " : "", why);
			refused = true;
		}
		free(buf);
	}

	if (*b.why) {
		char reason[700];

		/* it may quote the guest or qemu: printable ASCII only, for the terminal and the records */
		guest_printable(b.why, strlen(b.why), b.why, sizeof(b.why));
		tail = console_tail(&b.con);
		pr_warn("vm: %s: %s; the last console lines (all in %s/%s/console%s.log):\n%s", release,
			b.why, resultsdir, rawrel, boot_sfx, tail ? tail : "");
		fmt_buf(reason, sizeof(reason), "vm: %s", b.why);
		out->runs_failed += append_failed(runs, cfg, release, seen, reason, vm);
	} else {
		int grc = (int)json_integer_value(json_object_get(ginfo, "rc"));

		out->runs_failed += append_failed(runs, cfg, release, seen,
						  "vm: the guest's collector wrote no record for it", vm);
		if (grc != 0)
			pr_warn("vm: %s: the collector in the guest exited with status %d; see %s/%s/console%s.log",
				release, grc, resultsdir, rawrel, boot_sfx);
		err = 0;
	}
	/* a guest that broke a rule is not the source of anything in meta.json */
	if (refused) {
		json_decref(ginfo);
		ginfo = NULL;
	}
	if (ginfo || !*b.why)
		out->kernel_meta = kernel_entry(&k, release, ginfo, gkernel, vm);
	if (!cfg->quiet) {
		char fb[128];

		if (out->boot_to_first_byte_s >= 0)
			fmt_buf(fb, sizeof(fb), "%.1f s", out->boot_to_first_byte_s);
		else
			fmt_buf(fb, sizeof(fb), "not reached");
		char ini[32];

		if (out->boot_to_init_s > 0)
			fmt_buf(ini, sizeof(ini), "%.1f s", out->boot_to_init_s);
		else
			fmt_buf(ini, sizeof(ini), "not reached");
		if (out->cpu_to_first_byte_s > 0)
			fmt_buf(fb + strlen(fb), sizeof(fb) - strlen(fb), " (qemu used %.1f s of CPU)",
			       out->cpu_to_first_byte_s);
		pr_info("vm: %s: %s, boot to init %s, boot to first measured byte %s, total %.1f s",
			release, b.kvm ? "KVM" : "TCG", ini, fb, out->total_s);
	}
	if (rawfd >= 0)
		close(rawfd);
	if (resfd >= 0)
		close(resfd);
	if (tarmap)
		munmap(tarmap, tarlen);
out_rm:
	rm_rf(work);
out_free:
	free(tail);
	json_decref(vm);
	json_decref(seen);
	json_decref(ginfo);
	json_decref(gkernel);
	return err;
}
