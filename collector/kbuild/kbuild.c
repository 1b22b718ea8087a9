// SPDX-License-Identifier: GPL-2.0
/* `kernel config` and `kernel build`: make, driven with what the VM testbed needs. */
#include "kbuild_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "exec.h"
#include "kconfig.h"
#include "log.h"
#include "progress.h"
#include "safefile.h"
#include "signals.h"

#define LOG_TAIL 25

const char *kbuild_dir(const struct kbuild *b)
{
	return b->out ? b->out : b->tree;
}

int kbuild_check(const struct kbuild *b, char *why, size_t wlen)
{
	static const char *const marks[] = { "Makefile", "Kconfig", "scripts/config", "arch/x86/Kconfig" };

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		char p[4096];

		if (fmt_buf(p, sizeof(p), "%s/%s", b->tree, marks[i]) < 0 || !is_file(p)) {
			snprintf(why, wlen, "%s is not an x86 kernel source tree (no %s)", b->tree, marks[i]);
			return -1;
		}
	}
	if (b->out && access(b->out, F_OK) == 0 && !is_dir(b->out)) {
		snprintf(why, wlen, "-O %s: not a folder", b->out);
		return -1;
	}
	if (kbuild_tree_ours(b->tree, why, wlen) < 0 ||
	    (b->out && access(b->out, F_OK) == 0 && kbuild_tree_ours(b->out, why, wlen) < 0))
		return -1;
	if (b->localversion && (strlen(b->localversion) > 64 ||
				strspn(b->localversion, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
							"0123456789-_.+") != strlen(b->localversion))) {
		snprintf(why, wlen, "--localversion '%s': letters, digits and -_.+ only, at most 64", b->localversion);
		return -1;
	}
	if (b->jobs < 0 || b->jobs > 1024) {
		snprintf(why, wlen, "-j %d: between 1 and 1024", b->jobs);
		return -1;
	}
	return 0;
}

int kbuild_tree_ours(const char *dir, char *why, size_t wlen)
{
	char w[PATH_MAX + 128];

	if (safe_dir_ours(dir, w, sizeof(w)) == 0)
		return 0;
	fmt_buf(why, wlen, "%s: %s; a build runs the tree's Makefiles and scripts as root, so a tree and its build folder must be root's alone: review it and make it so (chown -R root:root %s; chmod -R go-w %s) in a folder only root can change",
		 dir, w, dir, dir);
	return -1;
}

/* The programs a kernel build with BTF needs, and the packages that have them. */
static int check_build_tools(const char *what)
{
	static const char *const progs[][2] = { { "make", "make" }, { "gcc", "gcc" }, { "flex", "flex" },
						{ "bison", "bison" }, { "bc", "bc" }, { "pahole", "dwarves" } };
	char missing[256] = "";

	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++)
		if (!exec_have(progs[i][0]))
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing), " %s", progs[i][1]);
	if (!*missing)
		return 0;
	pr_warn("%s: missing programs to build a kernel; install them (`make deps` does): apt-get install%s",
		what, missing);
	return -1;
}

/* make -C TREE [O=OUT] [-jN] [LOCALVERSION=..] targets...: argv in a[], strings in s[] */
struct make_argv {
	char *a[16];
	char s[4][4200];
	int n;
};

static void make_argv(struct make_argv *m, const struct kbuild *b, const char *const *targets)
{
	m->n = 0;
	m->a[m->n++] = "make";
	m->a[m->n++] = "-C";
	m->a[m->n++] = (char *)b->tree;
	if (b->out) {
		fmt_buf(m->s[0], sizeof(m->s[0]), "O=%s", b->out);
		m->a[m->n++] = m->s[0];
	}
	if (b->jobs >= 0) {
		fmt_buf(m->s[1], sizeof(m->s[1]), "-j%ld", b->jobs ? b->jobs : sysconf(_SC_NPROCESSORS_ONLN));
		m->a[m->n++] = m->s[1];
	}
	if (b->localversion) {
		fmt_buf(m->s[2], sizeof(m->s[2]), "LOCALVERSION=%s", b->localversion);
		m->a[m->n++] = m->s[2];
	}
	while (*targets && m->n < 15)
		m->a[m->n++] = (char *)*targets++;
	m->a[m->n] = NULL;
}

/* Run make for targets, logging to LOG; on failure say so with the log's tail. */
static int run_make(const struct kbuild *b, const char *const *targets, const char *log, bool append,
		    const char *what)
{
	struct make_argv m;
	int st;

	make_argv(&m, b, targets);
	if (log_verbose)
		exec_print(stderr, NULL, m.a);
	st = kbuild_make(m.a, log, append, b->quiet, what);
	if (st == 0)
		return 0;
	if (st > 128)
		pr_warn("%s: stopped (signal %d); the log is %s", what, st - 128, log);
	else
		pr_warn("%s: make %s failed (status %d); the last lines of %s:", what, targets[0], st, log);
	if (st <= 128)
		log_tail(log, LOG_TAIL, "");
	return -1;
}

/*
 * The build folder's lock held by an ancestor (a bisect, for the builds
 * of its steps): its descriptor, inherited and named in
 * KBUILD_LOCK_ENV, on the very lock file p. A copy of it (closing the copy
 * keeps the lock), or -1.
 */
static int inherited_lock(const char *p)
{
	const char *e = getenv(KBUILD_LOCK_ENV);
	struct stat a, b;
	int fd = e && *e ? atoi(e) : -1;

	if (fd < 3 || fstat(fd, &a) < 0 || lstat(p, &b) < 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino ||
	    flock(fd, LOCK_EX | LOCK_NB) < 0) /* the same open file: it holds the lock already */
		return -1;
	return fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

int kbuild_lock(const char *dir, const char *what, bool for_children)
{
	char p[4200], num[16];
	int fd;

	fmt_buf(p, sizeof(p), "%s/ipsecperf-build.lock", dir);
	if ((fd = inherited_lock(p)) >= 0)
		return fd;
	/* in a folder others may have written: a regular file, its type checked before it is opened */
	fd = safe_open(p, O_RDWR | O_CREAT, 0644);
	if (fd < 0) {
		pr_warn("%s: cannot open %s: %s", what, p, safe_open_error(errno));
		return -1;
	}
	if (for_children) {
		fcntl(fd, F_SETFD, 0); /* kept across exec */
		fmt_buf(num, sizeof(num), "%d", fd);
		setenv(KBUILD_LOCK_ENV, num, 1);
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return fd;
	pr_info("%s: another kernel config, build or bisect is using %s; waiting for it", what, dir);
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR || stop_requested()) {
			pr_warn("%s: stopped while waiting for the other build in %s", what, dir);
			close(fd);
			return -1;
		}
	}
	return fd;
}

/* scripts/config's argv: every option of kneeds[] (merge: only those kc lacks) */
static int config_argv(char **a, int max, const char *script, const char *cfg, const struct kconfig *kc)
{
	int n = 0;

	a[n++] = (char *)script;
	a[n++] = "--file";
	a[n++] = (char *)cfg;
	for (const struct kneed *k = kneeds; k->name && n < max - 3; k++) {
		char why[128];

		if (kc && kneed_ok(kc, k, NULL, why, sizeof(why)))
			continue;
		a[n++] = k->want == 'm' ? "-m" : "-e";
		a[n++] = (char *)(k->set ? k->set : k->name);
	}
	if (!kc) {
		/* one release per LOCALVERSION, whether the tree is a git checkout or not */
		a[n++] = "-d";
		a[n++] = "LOCALVERSION_AUTO";
	}
	a[n] = NULL;
	return n;
}

/* After olddefconfig: say which options did not stick, and why when the tree tells. */
static int config_verify(const struct kbuild *b, const char *cfg)
{
	struct kconfig kc;
	char why[256];
	int lost = 0;

	if (kconfig_read(cfg, &kc, why, sizeof(why)) < 0) {
		pr_warn("kernel config: %s", why);
		return -1;
	}
	for (const struct kneed *k = kneeds; k->name; k++) {
		char w[128];

		if (kneed_ok(&kc, k, NULL, w, sizeof(w)))
			continue;
		lost++;
		if (!kconfig_tree_has(b->tree, k->set ? k->set : k->name))
			printf("  CONFIG_%s: this tree has no such option (%s)\n", k->name, k->what);
		else
			printf("  CONFIG_%s: did not stick (%s): a dependency is off; see `make menuconfig`, /%s\n",
			       k->name, w, k->name);
	}
	kconfig_free(&kc);
	return lost;
}

static int config_steps(const struct kbuild *b, const char *cfg);

/*
 * The fragment allnoconfig starts from (KCONFIG_ALLCONFIG): kbase[] and
 * every option of kneeds[], kept beside .config for the reader. An option
 * the tree does not know (TCP_AO before 6.7) is skipped by kconfig with a
 * warning in the log, and config_verify names it.
 */
static int write_fragment(const char *path)
{
	int fd = safe_open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f) {
		pr_warn("kernel config: cannot write %s: %s", path, safe_open_error(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	fprintf(f, "# written by ipsecperf kernel config: allnoconfig plus these\n"
		   "# what the needs depend on, and the guest's machine\n");
	for (const struct kbase *k = kbase; k->name; k++)
		fprintf(f, "CONFIG_%s=y\n", k->name);
	fprintf(f, "# what the VM testbeds, the scenarios and the probes need (ipsecperf kernel show)\n");
	for (const struct kneed *k = kneeds; k->name; k++)
		fprintf(f, "CONFIG_%s=%c\n", k->set ? k->set : k->name, k->want);
	fprintf(f, "# CONFIG_LOCALVERSION_AUTO is not set\n");
	if (fclose(f) != 0) {
		pr_warn("kernel config: cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* allnoconfig with the fragment: the smallest .config the guest runs on */
static int config_minimal(const struct kbuild *b, const char *log)
{
	char dir[PATH_MAX], frag[PATH_MAX + 32], var[PATH_MAX + 64];

	/* make -C changes folder: kconfig must be given an absolute path */
	if (!realpath(kbuild_dir(b), dir)) {
		pr_warn("kernel config: %s: %s", kbuild_dir(b), strerror(errno));
		return -1;
	}
	fmt_buf(frag, sizeof(frag), "%s/ipsecperf-guest.config", dir);
	if (write_fragment(frag) < 0)
		return -1;
	fmt_buf(var, sizeof(var), "KCONFIG_ALLCONFIG=%s", frag);
	return run_make(b, (const char *const[]){ var, "allnoconfig", NULL }, log, false, "kernel config");
}

int kbuild_config(const struct kbuild *b)
{
	char why[4400], cfg[4200];
	int lock, rc;

	if (kbuild_check(b, why, sizeof(why)) < 0) {
		pr_warn("kernel config: %s", why);
		return EXIT_USAGE;
	}
	fmt_buf(cfg, sizeof(cfg), "%s/.config", kbuild_dir(b));
	if (b->merge && !is_file(cfg)) {
		pr_warn("kernel config --merge: there is no %s to merge into", cfg);
		return EXIT_USAGE;
	}
	if (check_build_tools("kernel config") < 0)
		return EXIT_FAIL;
	if (b->out && mkdir_p(b->out, 0755) < 0) {
		pr_warn("kernel config: cannot make %s: %s", b->out, strerror(errno));
		return EXIT_FAIL;
	}
	if (b->out && kbuild_tree_ours(b->out, why, sizeof(why)) < 0) {
		pr_warn("kernel config: %s", why);
		return EXIT_USAGE;
	}
	/* make's gits (scripts/setlocalversion) without the tree's hooks and fsmonitor */
	if (safe_git_env() < 0)
		return EXIT_FAIL;
	if ((lock = kbuild_lock(kbuild_dir(b), "kernel config", false)) < 0)
		return EXIT_FAIL;
	rc = config_steps(b, cfg);
	close(lock);
	return rc;
}

/* kernel config's steps, the build folder locked */
static int config_steps(const struct kbuild *b, const char *cfg)
{
	char why[512], log[4200], script[4200];
	struct kconfig old, *kc = NULL;
	char *a[2 * 80];
	int st;

	fmt_buf(log, sizeof(log), "%s/ipsecperf-config.log", kbuild_dir(b));
	if (!b->merge && config_minimal(b, log) < 0)
		return EXIT_FAIL;
	if (b->merge) {
		if (kconfig_read(cfg, &old, why, sizeof(why)) < 0) {
			pr_warn("kernel config: %s", why);
			return EXIT_FAIL;
		}
		kc = &old;
	}
	fmt_buf(script, sizeof(script), "%s/scripts/config", b->tree);
	config_argv(a, sizeof(a) / sizeof(a[0]), script, cfg, kc);
	if (kc)
		kconfig_free(kc);
	if ((st = exec_in_dir(NULL, a, NULL)) != 0) {
		pr_warn("kernel config: %s failed (status %d)", script, st);
		return EXIT_FAIL;
	}
	if (run_make(b, (const char *const[]){ "olddefconfig", NULL }, log, true, "kernel config") < 0)
		return EXIT_FAIL;
	printf("kernel config: wrote %s: %s and what the VM testbed needs (%s)\n", cfg,
	       b->merge ? "your configuration" : "allnoconfig, the guest's machine",
	       "`ipsecperf kernel show` lists it");
	return config_verify(b, cfg) < 0 ? EXIT_FAIL : EXIT_OK;
}

/* Lines in a file (modules.order: the modules built), or -1. */
static long count_lines(const char *path)
{
	size_t len;
	char *t = file_read(path, &len);
	long n = 0;

	if (!t)
		return -1;
	for (size_t i = 0; i < len; i++)
		n += t[i] == '\n';
	free(t);
	return n;
}

/*
 * link-vmlinux.sh leaves the images of its kallsyms passes, 170 MB that
 * no one reads and that it makes anew at every link: without them a
 * build folder of `kernel config`'s configuration stays under 1 GB.
 */
static void drop_link_images(const char *dir)
{
	for (const char *const *n = (const char *const[]){ ".tmp_vmlinux1", ".tmp_vmlinux2", NULL }; *n; n++) {
		char p[4200];
		struct stat st;

		fmt_buf(p, sizeof(p), "%s/%s", dir, *n);
		if (lstat(p, &st) == 0 && S_ISREG(st.st_mode))
			unlink(p);
	}
}

int kbuild_build(const struct kbuild *b)
{
	char why[4400], p[4200], log[4200], rel[128] = "?", el[16];
	double t0 = mono_s();
	const char *const targets[] = { "bzImage", "modules", NULL };
	const char *dir = kbuild_dir(b);
	struct make_argv m;
	int lock, st = 0;
	bool fresh;

	if (kbuild_check(b, why, sizeof(why)) < 0) {
		pr_warn("kernel build: %s", why);
		return EXIT_USAGE;
	}
	fmt_buf(p, sizeof(p), "%s/.config", dir);
	if (!is_file(p)) {
		pr_warn("kernel build: no .config in %s: run `ipsecperf kernel config %s%s%s` first", dir, b->tree,
			b->out ? " -O " : "", b->out ? b->out : "");
		return EXIT_USAGE;
	}
	if (check_build_tools("kernel build") < 0 || safe_git_env() < 0)
		return EXIT_FAIL;
	fmt_buf(log, sizeof(log), "%s/ipsecperf-build.log", dir);
	if ((lock = kbuild_lock(dir, "kernel build", false)) < 0)
		return EXIT_FAIL;
	make_argv(&m, b, targets);
	fresh = kbuild_up_to_date(b, m.a, why, sizeof(why));
	if (!fresh) {
		pr_info("kernel build: make runs: %s", why);
		kbuild_stamp(b, m.a, false);
		st = run_make(b, targets, log, false, "kernel build");
		if (st == 0) {
			drop_link_images(dir);
			kbuild_stamp(b, m.a, true);
		}
	}
	close(lock);
	if (st < 0)
		return EXIT_FAIL;
	format_duration(el, sizeof(el), mono_s() - t0);
	fmt_buf(p, sizeof(p), "%s/include/config/kernel.release", dir);
	file_read_line(p, rel, sizeof(rel));
	fmt_buf(p, sizeof(p), "%s/modules.order", dir);
	if (fresh)
		printf("kernel build: %s is up to date (no file newer than its last build, checked in %s)", dir, el);
	else
		printf("kernel build: %s built in %s", dir, el);
	printf(": release %s, %ld modules; log %s\n  boot it: ipsecperf run --testbed vm --kernel %s\n", rel,
	       count_lines(p), log, dir);
	return EXIT_OK;
}
