// SPDX-License-Identifier: GPL-2.0
/*
 * The VM testbed, host side: for one kernel, build the initramfs, boot qemu
 * (KVM when it really runs this kernel, TCG otherwise), follow the console,
 * stop a guest that panics or hangs, and bring its records and raw files
 * into the host's results directory.
 */
#include "vm.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exec.h"
#include "journal.h"
#include "log.h"
#include "signals.h"
#include "vm_guest.h"
#include "vm_util.h"

#define TAIL_LINES 15

/* ---- the accelerator ---- */

/* KVM is tried once per process; after it fails, every kernel uses TCG. */
static int kvm_state = -1; /* -1 untried, 0 unusable, 1 works */
static char kvm_why[160];

static bool want_kvm(void)
{
	const char *force = getenv("IPSECPERF_VM_ACCEL");
	int fd;

	if (force && !strcmp(force, "tcg")) {
		vm_fmt(kvm_why, sizeof(kvm_why), "IPSECPERF_VM_ACCEL=tcg");
		return false;
	}
	if (kvm_state == 0)
		return false;
	/* =kvm: try KVM even without a /dev/kvm we can open (qemu decides) */
	if (force && !strcmp(force, "kvm"))
		return true;
	fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		vm_fmt(kvm_why, sizeof(kvm_why), "/dev/kvm: %s", strerror(errno));
		kvm_state = 0;
		return false;
	}
	close(fd);
	return true;
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

static void console_line(struct console *c, const char *line, double t)
{
	if (!*line)
		return;
	if (log_verbose >= 2)
		fprintf(stderr, "ipsecperf: debug: vm console %7.3f: %s\n", t, line);
	vm_fmt(c->tail[c->next], sizeof(c->tail[0]), "%s", line);
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
		vm_fmt(c->panic_line, sizeof(c->panic_line), "%s", line);
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
			} else if (ch != '\r' && (ch == '\t' || (unsigned char)ch >= ' ')) {
				c->partial[c->plen++] = ch;
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

		len += vm_fmt(s + len, cap - len, "  | %s\n", c->tail[idx]);
	}
	if (!c->ntail)
		vm_fmt(s, cap, "  | (the console stayed empty)\n");
	return s;
}

/* Does the qemu log say KVM cannot run this guest? */
static bool kvm_failed(const char *qlog, char *why, size_t len)
{
	char *text = vm_read_file(qlog, NULL), *p;
	bool bad = false;

	if (!text)
		return false;
	p = strstr(text, "KVM internal error");
	if (!p)
		p = strstr(text, "emulation failure");
	if (!p)
		p = strstr(text, "failed to initialize kvm");
	if (!p)
		p = strstr(text, "Could not access KVM");
	if (p) {
		char *bol = p;

		while (bol > text && bol[-1] != '\n')
			bol--;
		/* "KVM internal error. Suberror: 1" is followed by what it was */
		size_t l1 = strcspn(bol, "\n");
		const char *next = bol[l1] ? bol + l1 + 1 : bol + l1;

		vm_fmt(why, len, "%.*s%s%.*s", (int)l1, bol, *next ? " " : "",
		       (int)strcspn(next, "\n"), next);
		bad = true;
	}
	free(text);
	return bad;
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
	bool kvm_broken;       /* it was KVM that failed, retry with TCG */
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

	vm_fmt(smp, 16, "%d", nr_cpus());
	vm_fmt(append, 1024,
		 "console=ttyS0 quiet panic=-1 oops=panic no_timer_check rdinit=" GUEST_EXE " %s -- guest",
		 extra ? extra : "");
	vm_fmt(ser0, PATH_MAX + 8, "file:%s", b->console_path);
	vm_fmt(ser1, PATH_MAX + 8, "file:%s", b->tar_path);
	vm_fmt(ser2, PATH_MAX + 8, "file:%s", b->live_path);
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

	vm_fmt(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (vm_read_line(path, buf, sizeof(buf)) < 0 || !(p = strrchr(buf, ')')))
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

static int boot_once(struct boot *b, bool dry)
{
	char *argv[40], smp[16], append[1024], ser0[PATH_MAX + 8], ser1[PATH_MAX + 8],
		ser2[PATH_MAX + 8];
	struct spawn_opts o = { .cpu = -1, .stdout_fd = -1, .stderr_fd = -1 };
	double t0, t;
	pid_t pid;
	int qfd, st;
	bool stopped = false;

	memset(&b->con, 0, sizeof(b->con));
	b->why[0] = '\0';
	b->kvm_broken = false;
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
		vm_fmt(b->why, sizeof(b->why), "cannot create %s: %s", b->console_path,
			 strerror(errno));
		goto out_close;
	}
	o.stdout_fd = qfd;
	o.stderr_fd = qfd;
	if (log_verbose) {
		fprintf(stderr, "ipsecperf: debug: ");
		exec_print(stderr, NULL, argv);
	}
	t0 = vm_now();
	pid = exec_spawn(argv, &o);
	if (pid < 0) {
		vm_fmt(b->why, sizeof(b->why), "cannot start qemu-system-x86_64: %s; `make deps` installs it",
			 strerror(errno));
		goto out_close;
	}
	if (journal_add_process(pid) < 0)
		pr_debug("vm: qemu %d is not journaled", (int)pid);

	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		t = vm_now() - t0;
		console_poll(&b->con, t);
		if (b->con.t_init && !b->con.cpu_init)
			b->con.cpu_init = proc_cpu_s(pid);
		if (b->con.t_first && !b->con.cpu_first)
			b->con.cpu_first = proc_cpu_s(pid);
		if (w == pid) {
			b->qemu_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			break;
		}
		if (b->kvm && !b->con.t_init && kvm_failed(b->qlog_path, b->why, sizeof(b->why))) {
			b->kvm_broken = true;
			break;
		}
		if (b->con.panic) {
			/* panic=-1 reboots at once and -no-reboot ends qemu; give it a moment */
			if (!b->con.t_panic)
				b->con.t_panic = t;
			if (t - b->con.t_panic > 3)
				break;
		}
		if (!b->con.t_init && t > b->boot_timeout_s) {
			vm_fmt(b->why, sizeof(b->why),
				 "the guest did not reach its init within %d s", b->boot_timeout_s);
			if (b->kvm)
				b->kvm_broken = true;
			break;
		}
		if (t > b->total_timeout_s) {
			vm_fmt(b->why, sizeof(b->why), "timed out after %d s, %s (IPSECPERF_VM_TIMEOUT sets the limit)",
			       b->total_timeout_s,
			       !b->con.t_init ? "before the guest's init ran" :
			       !b->con.t_first ? "before the load began" :
			       !b->con.t_done ? "while the matrix ran" : "while the results were sent");
			break;
		}
		if (stop_requested()) {
			vm_fmt(b->why, sizeof(b->why), "stopped by signal %d", stop_signal());
			break;
		}
		nanosleep(&(struct timespec){ .tv_nsec = 20 * 1000 * 1000 }, NULL);
	}
	if (waitpid(pid, &st, WNOHANG) == 0) {
		exec_stop(pid, 2000);
		stopped = true;
		b->qemu_status = -1;
	}
	b->total_s = vm_now() - t0;
	console_poll(&b->con, b->total_s);

	if (b->con.panic) {
		vm_fmt(b->why, sizeof(b->why), "kernel panic: %s", b->con.panic_line);
	} else if (!*b->why && !b->con.t_done) {
		char qmsg[256] = "";
		char *qtext = vm_read_file(b->qlog_path, NULL);

		if (qtext) {
			vm_fmt(qmsg, sizeof(qmsg), "%s", qtext);
			qmsg[strcspn(qmsg, "\n")] = '\0';
			free(qtext);
		}
		vm_fmt(b->why, sizeof(b->why), "qemu %s before the guest finished%s%s",
			 stopped ? "was stopped" : "exited", *qmsg ? ": " : "", qmsg);
	}
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
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
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

/* Append the guest's records; count them by status; note their scenarios. */
static int merge_runs(const char *guest_runs, const char *runs, json_t *vm, json_t *seen,
		      struct vm_stats *out)
{
	char *buf = vm_read_file(guest_runs, NULL), *line, *save = NULL;
	int lineno = 0;

	if (!buf)
		return -1;
	/* a line the guest had not finished when it stopped is no record */
	if (strrchr(buf, '\n'))
		strrchr(buf, '\n')[1] = '\0';
	else
		buf[0] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_error_t jerr;
		json_t *rec = json_loads(line, 0, &jerr);
		const char *status, *scen;
		char *text;

		lineno++;
		if (!json_is_object(rec)) {
			pr_warn("vm: %s:%d: %s; line left out", guest_runs, lineno, jerr.text);
			json_decref(rec);
			continue;
		}
		json_object_set(rec, "vm", vm);
		json_object_set_new(rec, "testbed", json_string("vm"));
		status = json_string_value(json_object_get(rec, "status"));
		scen = json_string_value(json_object_get(rec, "scenario"));
		if (scen)
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
	free(buf);
	return 0;
}

/* The kernel entry: the guest's own (its meta.json), else what we know. */
static json_t *kernel_entry(const char *gdir, const struct vm_kernel *k, const char *release,
			    json_t *ginfo, json_t *vm)
{
	char path[PATH_MAX + 32], hash[65] = "";
	json_t *meta, *list, *entry = NULL;

	vm_fmt(path, sizeof(path), "%s/" GUEST_RUNDIR "/meta.json", gdir);
	meta = json_load_file(path, 0, NULL);
	list = json_object_get(meta, "kernels");
	if (json_is_array(list) && json_array_size(list))
		entry = json_deep_copy(json_array_get(list, 0));
	else if (json_is_object(json_object_get(meta, "kernel")))
		entry = json_deep_copy(json_object_get(meta, "kernel"));
	json_decref(meta);
	if (!json_is_object(entry)) {
		json_decref(entry);
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

static int copy_tree(const char *src, const char *dst)
{
	char from[PATH_MAX + 4];
	char *out = NULL;
	int st;

	if (!vm_is_dir(src))
		return 0;
	if (vm_mkdir_p(dst, 0755) < 0)
		return -1;
	vm_fmt(from, sizeof(from), "%s/.", src);
	st = vm_run_in(NULL, (char *[]){ "cp", "-R", from, (char *)dst, NULL }, &out);
	if (st != 0)
		pr_warn("vm: cannot copy %s to %s: %s", src, dst, out ? out : "");
	free(out);
	return st == 0 ? 0 : -1;
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
	char initrd[PATH_MAX], con[PATH_MAX], tar[PATH_MAX], qlog[PATH_MAX], gdir[PATH_MAX];
	char live[PATH_MAX];
	char runs[PATH_MAX], rawdir[PATH_MAX + 160], path[PATH_MAX * 2], boot_sfx[24] = "";
	const char *release;
	struct vm_kernel k;
	struct boot b = { 0 };
	json_t *vm = NULL, *seen = json_object(), *ginfo = NULL;
	char *tail = NULL, *tout = NULL;
	double t_build;
	int err = -1;

	memset(out, 0, sizeof(*out));
	out->boot_to_first_byte_s = -1;
	vm_fmt(out->release, sizeof(out->release), "%s", kernel_spec);
	vm_fmt(runs, sizeof(runs), "%s/runs.jsonl", resultsdir);

	if (!kernel) {
		vm = json_pack("{s:s}", "spec", kernel_spec);
		if (!cfg->dry_run)
			out->runs_failed += append_failed(runs, cfg, kernel_spec, seen,
							  "vm: the kernel could not be prepared", vm);
		goto out_free;
	}
	k = *kernel;
	vm_fmt(out->release, sizeof(out->release), "%s", k.release);
	vm_fmt(work, sizeof(work), "%s/ipsecperf-vm-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(work)) {
		pr_warn("vm: cannot make a scratch folder: %s", strerror(errno));
		goto out_free;
	}
	if (!cfg->dry_run)
		journal_add(json_pack("{s:s, s:[s, s, s]}", "kind", "argv", "argv", "rm", "-rf", work));
	vm_fmt(initrd, sizeof(initrd), "%s/initramfs.cpio", work);
	vm_fmt(con, sizeof(con), "%s/console.log", work);
	vm_fmt(tar, sizeof(tar), "%s/results.tar", work);
	vm_fmt(live, sizeof(live), "%s/live.jsonl", work);
	vm_fmt(qlog, sizeof(qlog), "%s/qemu.log", work);
	vm_fmt(gdir, sizeof(gdir), "%s/guest", work);

	t_build = vm_now();
	if (vm_initramfs_build(cfg, &k, work, initrd) < 0) {
		vm = json_pack("{s:s}", "spec", kernel_spec);
		if (!cfg->dry_run)
			out->runs_failed += append_failed(runs, cfg, k.release, seen,
							  "vm: the initramfs could not be built", vm);
		goto out_rm;
	}
	t_build = vm_now() - t_build;
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
	b.kvm = want_kvm();
	for (;;) {
		b.boot_timeout_s = b.kvm ? 20 : 60;
		b.total_timeout_s = default_total_timeout(cfg, b.kvm);
		if (cfg->dry_run) {
			boot_once(&b, true);
			err = 0;
			goto out_rm;
		}
		if (!cfg->quiet)
			pr_info("vm: %s: booting under %s%s%s%s", k.release, b.kvm ? "KVM" : "TCG",
				b.kvm ? "" : " (", b.kvm ? "" : kvm_why, b.kvm ? "" : ")");
		boot_once(&b, false);
		if (!(b.kvm && b.kvm_broken))
			break;
		kvm_state = 0;
		vm_fmt(kvm_why, sizeof(kvm_why), "KVM cannot run this kernel here: %.120s", b.why);
		pr_warn("vm: %s: %s; falling back to TCG", k.release, kvm_why);
		b.kvm = false;
	}
	if (b.kvm)
		kvm_state = 1;
	vm_fmt(out->accel, sizeof(out->accel), "%s", b.kvm ? "kvm" : "tcg");
	vm_fmt(out->accel_why, sizeof(out->accel_why), "%s",
		 b.kvm ? "/dev/kvm runs this kernel" : kvm_why);
	out->boot_to_init_s = b.con.t_init;
	/* the first measured byte comes --omit seconds after the load's first */
	out->boot_to_first_byte_s = b.con.t_first ? b.con.t_first + (cfg->omit_s > 0 ? cfg->omit_s : 0) : -1;
	out->total_s = b.total_s;
	out->cpu_to_init_s = b.con.cpu_init;
	out->cpu_to_first_byte_s = b.con.cpu_first;
	vm = vm_info(&b, &k);

	/* the guest's results, when it sent them */
	if (!*b.why) {
		if (vm_mkdir_p(gdir, 0755) < 0 ||
		    vm_run_in(NULL, (char *[]){ "tar", "-x", "-f", tar, "-C", gdir, NULL }, &tout) != 0) {
			vm_fmt(b.why, sizeof(b.why), "the guest's results did not arrive whole: %s",
				 tout ? tout : "tar failed");
		}
	}
	vm_fmt(path, sizeof(path), "%s/" GUEST_INFO, gdir);
	ginfo = json_load_file(path, 0, NULL);
	release = json_string_value(json_object_get(ginfo, "release"));
	if (release)
		vm_fmt(out->release, sizeof(out->release), "%s", release);
	if (release && strcmp(release, k.release))
		pr_warn("vm: %s booted as %s", k.release, release);
	release = out->release;

	vm_fmt(rawdir, sizeof(rawdir), "%s/raw/%s", resultsdir, release);
	vm_mkdir_p(rawdir, 0755);
	/* --interleave boots a kernel once per repeat: a console log and guest info each */
	if (cfg->interleave)
		vm_fmt(boot_sfx, sizeof(boot_sfx), "-r%d", cfg->repeat_from);
	vm_fmt(path, sizeof(path), "%s/console%s.log", rawdir, boot_sfx);
	if (vm_copy_file(con, path) < 0)
		pr_warn("vm: cannot keep the console log in %s: %s", path, strerror(errno));
	vm_fmt(path, sizeof(path), "%s/" GUEST_RUNDIR "/raw", gdir);
	copy_tree(path, rawdir);
	vm_fmt(path, sizeof(path), "%s/" GUEST_INFO, gdir);
	if (vm_is_file(path)) {
		char dst[PATH_MAX * 2];

		vm_fmt(dst, sizeof(dst), "%s/vm-guest%s.json", rawdir, boot_sfx);
		vm_copy_file(path, dst);
	}
	vm_fmt(path, sizeof(path), "%s/" GUEST_RUNDIR "/runs.jsonl", gdir);
	if (vm_is_file(path))
		merge_runs(path, runs, vm, seen, out);
	else if (vm_is_file(live))
		/* no tar: the records sent as they were written, if any */
		merge_runs(live, runs, vm, seen, out);

	if (*b.why) {
		char reason[700];

		tail = console_tail(&b.con);
		pr_warn("vm: %s: %s; the last console lines (all in %s/console%s.log):\n%s", release,
			b.why, rawdir, boot_sfx, tail ? tail : "");
		vm_fmt(reason, sizeof(reason), "vm: %s", b.why);
		out->runs_failed += append_failed(runs, cfg, release, seen, reason, vm);
	} else {
		int grc = (int)json_integer_value(json_object_get(ginfo, "rc"));

		out->runs_failed += append_failed(runs, cfg, release, seen,
						  "vm: the guest's collector wrote no record for it", vm);
		if (grc != 0)
			pr_warn("vm: %s: the collector in the guest exited with status %d; see %s/console%s.log",
				release, grc, rawdir, boot_sfx);
		err = 0;
	}
	if (ginfo || !*b.why) {
		out->kernel_meta = kernel_entry(gdir, &k, release, ginfo, vm);
	}
	if (!cfg->quiet) {
		char fb[128];

		if (out->boot_to_first_byte_s >= 0)
			vm_fmt(fb, sizeof(fb), "%.1f s", out->boot_to_first_byte_s);
		else
			vm_fmt(fb, sizeof(fb), "not reached");
		char ini[32];

		if (out->boot_to_init_s > 0)
			vm_fmt(ini, sizeof(ini), "%.1f s", out->boot_to_init_s);
		else
			vm_fmt(ini, sizeof(ini), "not reached");
		if (out->cpu_to_first_byte_s > 0)
			vm_fmt(fb + strlen(fb), sizeof(fb) - strlen(fb), " (qemu used %.1f s of CPU)",
			       out->cpu_to_first_byte_s);
		pr_info("vm: %s: %s, boot to init %s, boot to first measured byte %s, total %.1f s",
			release, b.kvm ? "KVM" : "TCG", ini, fb, out->total_s);
	}
out_rm:
	vm_rm_rf(work);
out_free:
	free(tail);
	free(tout);
	json_decref(vm);
	json_decref(seen);
	json_decref(ginfo);
	return err;
}
