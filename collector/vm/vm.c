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

#include "clock.h"
#include "files.h"
#include "exec.h"
#include "guest_check.h"
#include "guest_tar.h"
#include "journal.h"
#include "load.h"
#include "log.h"
#include "signals.h"
#include "vm_guest.h"
#include "vm_pair.h"
#include "vm_console.h"
#include "vm_qemu.h"
#include "vm_pair_receiver.h"
#include "vm_boot.h"
#include "vm_work.h"
#include "vm_accel.h"
#include "vm_initramfs.h"
#include "vm_kvm.h"
#include "vm_preflight.h"
#include "vm_pvh.h"

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

static json_t *vm_info(const struct boot *b, const struct vm_kernel *k, const struct vm_kernel *peer)
{
	json_t *v = json_pack("{s:s, s:s, s:s, s:i}", "accel", b->kvm ? "kvm" : "tcg", "spec", k->spec,
			      "image", k->image, "vcpus", b->vcpus ? b->vcpus : nr_cpus());

	/* vm-pair: the receiver's kernel (the records' peer_kernel), booted alike */
	if (peer)
		json_object_set_new(v, "receiver", json_pack("{s:s, s:s, s:s}", "spec", peer->spec, "release",
							     peer->release, "image", peer->image));

	if (*b->retried)
		json_object_set_new(v, "boot_retry", json_string(b->retried));
	return v;
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
						cfg->testbed, "vm", vm);
			char *line = json_dumps(rec, JSON_COMPACT);

			if (line && append_line(runs, line) == 0)
				n++;
			free(line);
			json_decref(rec);
		}
	}
	return n;
}

/*
 * Is this a run of cfg's (scenario, repeat), as this boot was asked for?
 * With --probe-overhead the guest also runs "<scenario>+noprobes" (matrix.c);
 * a counting repeat ("purpose": "count") is numbered within --count-repeats.
 */
static bool run_asked(const struct run_config *cfg, const char *scenario, json_t *rec)
{
	json_t *repeat = json_object_get(rec, "repeat"), *purpose = json_object_get(rec, "purpose");
	json_int_t r = json_integer_value(repeat);
	int nrep = cfg->repeat > 0 ? cfg->repeat : 1;
	size_t n;

	if (purpose) {
		if (!json_is_string(purpose) || strcmp(json_string_value(purpose), "count"))
			return false;
		nrep = cfg->count_repeats;
	}
	if (!scenario || !json_is_integer(repeat) || r < cfg->repeat_from || r >= cfg->repeat_from + nrep)
		return false;
	for (int i = 0; i < cfg->nscenarios; i++) {
		if (!strcmp(cfg->scenarios[i].name, scenario))
			return true;
		n = strlen(cfg->scenarios[i].name);
		if (cfg->probe_overhead && !strncmp(cfg->scenarios[i].name, scenario, n) &&
		    !strcmp(scenario + n, "+noprobes"))
			return true;
	}
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
	/* vm-pair: the receiver's release, as this host named it; the sender's guest may not say otherwise */
	const char *peer_rel = json_string_value(json_object_get(json_object_get(vm, "receiver"), "release"));
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
		if (!run_asked(cfg, scen, rec)) {
			fmt_buf(why, whylen, "%s:%d: scenario %s, repeat %lld is not a run this VM was asked for",
			       name, i + 1, scen ? scen : "?", (long long)json_integer_value(json_object_get(rec, "repeat")));
			json_decref(rec);
			break;
		}
		json_t *jpk = json_object_get(rec, "peer_kernel");
		const char *pk = json_string_value(jpk);

		/*
		 * The receiver is the one the host booted: a record that names
		 * another, or none (empty, or absent from a run that went ok), is
		 * not taken. Only a run that failed before it reached the
		 * receiver may say nothing of it.
		 */
		if (peer_rel && ((jpk && (!pk || strcmp(pk, peer_rel))) ||
				 (!jpk && status && !strcmp(status, "ok")))) {
			fmt_buf(why, whylen, "%s:%d: its peer_kernel is not the receiver's release %s", name, i + 1,
				peer_rel);
			json_decref(rec);
			break;
		}
		json_object_set(rec, "vm", vm);
		json_object_set_new(rec, "testbed", json_string(cfg->testbed));
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
		if (st.st_size > CONSOLE_MAX)
			pr_warn("vm: %s: the guest wrote %lld bytes; its first %ld MiB are kept", name,
				(long long)st.st_size, CONSOLE_MAX >> 20);
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

/* What the guest sent, once taken apart and checked. */
struct taken {
	void *tarmap;
	size_t tarlen;
	struct guest_out g;
	json_t *ginfo, *gkernel;
	bool refused;          /* the guest broke a rule: nothing more of it is kept */
};

/* Where one kernel's results go on the host. */
struct vm_dest {
	const char *dir;       /* the results directory */
	char runs[PATH_MAX];   /* its runs.jsonl */
	char rawrel[GUEST_NAME_MAX + 8]; /* raw/<release> */
	char boot_sfx[24];     /* "-rN" with --interleave (a console per boot), else "" */
};

/* The boot of k from w's files: its PVH vmlinux and qboot when there are. */
static void boot_init(struct boot *b, const struct vm_kernel *k, const struct vm_work *w)
{
	memset(b, 0, sizeof(*b));
	b->image = *w->vmlinux ? w->vmlinux : k->image;
	b->bios = quick_firmware();
	b->initrd = w->initrd;
	b->console_path = w->con;
	b->tar_path = w->tar;
	b->live_path = w->live;
	b->qlog_path = w->qlog;
}

/* vm-pair: the receiver's boot beside the sender's b, each on its taps. */
static void boot_init_pair(struct boot *b, struct boot *rx, const struct vm_work *w)
{
	memset(rx, 0, sizeof(*rx));
	rx->image = *w->rx.vmlinux ? w->rx.vmlinux : w->peer->image;
	rx->bios = b->bios;
	rx->initrd = w->rx.initrd;
	rx->console_path = w->rx.con;
	rx->tar_path = NULL; /* the receiver sends no results: its ports are -serial null */
	rx->live_path = NULL;
	rx->qlog_path = w->rx.qlog;
	rx->con.fd = -1;
	rx->pid = -1;
	rx->vcpus = b->vcpus;
	for (int g = 0; g < 2; g++) {
		struct boot *x = g == PAIR_TX ? b : rx;

		x->fds = w->link.fd[g];
		x->macs[0] = pair_mac(g, PAIR_LINK);
		x->macs[1] = pair_mac(g, PAIR_CTL);
	}
	b->peer = rx;
}

/* What the boot tells the caller: accelerator and why, and the boot's times. */
static void note_boot(const struct run_config *cfg, const struct boot *b, const char *kvm_fail,
		      struct vm_stats *out)
{
	fmt_buf(out->accel, sizeof(out->accel), "%s", b->kvm ? "kvm" : "tcg");
	fmt_buf(out->accel_why, sizeof(out->accel_why), "%s",
	       b->kvm ? "KVM runs this kernel" : *kvm_fail ? kvm_fail : accel_kvm_why());
	out->boot_to_init_s = b->con.t_init;
	/* the first measured byte comes --omit seconds after the load's first */
	out->boot_to_first_byte_s = b->con.t_first ? b->con.t_first + (cfg->omit_s > 0 ? cfg->omit_s : 0) : -1;
	out->total_s = b->total_s;
	out->cpu_to_init_s = b->con.cpu_init;
	out->cpu_to_first_byte_s = b->con.cpu_first;
}

/* Refuse what the guest sent: b->why says why, and nothing more of it is kept. */
static void refuse(struct boot *b, struct taken *t, const char *what, const char *why)
{
	fmt_buf(b->why, sizeof(b->why), "the guest's results were refused: %s%s", what, why);
	t->refused = true;
	json_decref(t->ginfo);
	t->ginfo = NULL;
}

/*
 * The guest's results, when it sent them: read as data, checked before
 * any is kept. The host names the kernel (uname -r as its image, tree or
 * package tells it): records and raw/ are keyed by it, and a guest that
 * says otherwise could write as another kernel of the run.
 */
static void take_results(struct boot *b, const struct vm_kernel *k, const struct vm_work *w,
			 struct taken *t)
{
	char why[512];
	const char *grel;

	t->refused = b->flood;
	if (!*b->why) {
		t->tarmap = map_file(w->tar, &t->tarlen, why, sizeof(why));
		if (!t->tarmap)
			fmt_buf(b->why, sizeof(b->why), "the guest's results did not arrive whole: %s", why);
		else if (guest_out_scan(t->tarmap, t->tarlen, &t->g, why, sizeof(why)) < 0)
			refuse(b, t, "results.tar: ", why);
	}
	if (t->g.info && !t->refused) {
		t->ginfo = json_loadb(t->g.info, t->g.info_len, JSON_REJECT_DUPLICATES, NULL);
		if (guest_info_check(t->ginfo, why, sizeof(why)) < 0)
			refuse(b, t, GUEST_INFO ": ", why);
	}
	grel = json_string_value(json_object_get(t->ginfo, "release"));
	if (t->ginfo && strcmp(grel, k->release)) {
		fmt_buf(why, sizeof(why), "release %s is not this kernel's own %s", grel, k->release);
		refuse(b, t, GUEST_INFO ": ", why);
	}
	if (t->g.meta && !t->refused &&
	    guest_meta_kernel(t->g.meta, t->g.meta_len, k->release, &t->gkernel, why, sizeof(why)) < 0) {
		fmt_buf(b->why, sizeof(b->why), "the guest's results were refused: %s", why);
		t->refused = true;
	}
}

/*
 * Keep the console and, from a guest not refused, its raw files and
 * guest.json under raw/<release>/, opened without following a link.
 */
static void keep_raw(const struct vm_dest *d, const struct vm_work *w, struct boot *b,
		     struct taken *t)
{
	char why[512], name[64];
	int resfd = open(d->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rawfd = -1;

	if (resfd < 0)
		fmt_buf(why, sizeof(why), "%s", strerror(errno));
	else
		rawfd = guest_open_dir(resfd, d->rawrel, why, sizeof(why));
	if (rawfd < 0)
		pr_warn("vm: %s/%s: %s", d->dir, d->rawrel, why);
	fmt_buf(name, sizeof(name), "console%s.log", d->boot_sfx);
	if (rawfd >= 0)
		keep_console(rawfd, w->con, name);
	/* vm-pair: the receiver's console beside the sender's */
	fmt_buf(name, sizeof(name), "console-receiver%s.log", d->boot_sfx);
	if (rawfd >= 0 && w->peer)
		keep_console(rawfd, w->rx.con, name);
	if (t->tarmap && !t->refused && rawfd >= 0) {
		if (guest_out_raw(t->tarmap, t->tarlen, rawfd, why, sizeof(why)) < 0) {
			fmt_buf(b->why, sizeof(b->why), "the guest's raw files were not kept: %s", why);
			t->refused = true;
		}
		/* a refused archive leaves nothing: not its timings either */
		fmt_buf(name, sizeof(name), "vm-guest%s.json", d->boot_sfx);
		if (t->g.info && !t->refused &&
		    guest_write_file(rawfd, name, t->g.info, t->g.info_len, why, sizeof(why)) < 0)
			pr_warn("vm: %s: %s", d->rawrel, why);
	}
	if (rawfd >= 0)
		close(rawfd);
	if (resfd >= 0)
		close(resfd);
}

/* The guest's records into the host's runs.jsonl: from its tar, or else as they were sent. */
static void merge_guest_records(const struct run_config *cfg, const struct vm_kernel *k,
				const struct vm_dest *d, const struct vm_work *w, struct boot *b,
				struct taken *t, json_t *vm, json_t *seen, struct vm_stats *out)
{
	char why[512];

	if (t->refused)
		return;
	if (t->g.runs) {
		if (merge_runs(GUEST_RUNDIR "/runs.jsonl", t->g.runs, t->g.runs_len, cfg, k->release,
			       d->runs, vm, seen, out, why, sizeof(why)) < 0) {
			fmt_buf(b->why, sizeof(b->why), "the guest's record was refused: %s", why);
			t->refused = true;
		}
	} else if (!t->tarmap) {
		/* no tar: the records sent as they were written, if any */
		size_t len = 0;
		char *buf = file_read(w->live, &len);

		if (buf && merge_runs("live.jsonl", buf, len, cfg, k->release, d->runs, vm, seen, out,
				      why, sizeof(why)) < 0) {
			fmt_buf(b->why + strlen(b->why), sizeof(b->why) - strlen(b->why),
			       "%sthe guest's record was refused: %s", *b->why ? "; " : "", why);
			t->refused = true;
		}
		free(buf);
	}
}

/*
 * Failed records for the runs the guest wrote none for, with the reason;
 * 0 when the guest ran the matrix, -1 when the boot failed.
 */
static int conclude(const struct run_config *cfg, const struct vm_kernel *k,
		    const struct vm_dest *d, struct boot *b, const struct taken *t, json_t *vm,
		    json_t *seen, struct vm_stats *out)
{
	if (*b->why) {
		char reason[700], *tail;

		/* it may quote the guest or qemu: printable ASCII only, for the terminal and the records */
		guest_printable(b->why, strlen(b->why), b->why, sizeof(b->why));
		tail = console_tail(b->peer_fault ? &b->peer->con : &b->con);
		pr_warn("vm: %s: %s; the last %sconsole lines (all in %s/%s/console%s%s.log):\n%s", k->release,
			b->why, b->peer_fault ? "receiver's " : "", d->dir, d->rawrel, b->peer_fault ? "-receiver" : "",
			d->boot_sfx, tail ? tail : "");
		free(tail);
		fmt_buf(reason, sizeof(reason), "vm: %s", b->why);
		out->runs_failed += append_failed(d->runs, cfg, k->release, seen, reason, vm);
		return -1;
	}
	out->runs_failed += append_failed(d->runs, cfg, k->release, seen,
					  "vm: the guest's collector wrote no record for it", vm);
	if (json_integer_value(json_object_get(t->ginfo, "rc")) != 0)
		pr_warn("vm: %s: the collector in the guest exited with status %d; see %s/%s/console%s.log",
			k->release, (int)json_integer_value(json_object_get(t->ginfo, "rc")), d->dir,
			d->rawrel, d->boot_sfx);
	return 0;
}

/* "vm: K: TCG, boot to init X s, boot to first measured byte Y s (qemu used Z s of CPU), total T s" */
static void print_boot_line(const struct vm_stats *out, bool kvm)
{
	char fb[128], ini[32];

	if (out->boot_to_first_byte_s >= 0)
		fmt_buf(fb, sizeof(fb), "%.1f s", out->boot_to_first_byte_s);
	else
		fmt_buf(fb, sizeof(fb), "not reached");
	if (out->boot_to_init_s > 0)
		fmt_buf(ini, sizeof(ini), "%.1f s", out->boot_to_init_s);
	else
		fmt_buf(ini, sizeof(ini), "not reached");
	if (out->cpu_to_first_byte_s > 0)
		fmt_buf(fb + strlen(fb), sizeof(fb) - strlen(fb), " (qemu used %.1f s of CPU)",
		       out->cpu_to_first_byte_s);
	pr_info("vm: %s: %s, boot to init %s, boot to first measured byte %s, total %.1f s",
		out->release, kvm ? "KVM" : "TCG", ini, fb, out->total_s);
}

/* A kernel that cannot run at all: its runs fail with why (none written with --dry-run). */
static void not_run(const struct run_config *cfg, const char *spec, const struct vm_dest *d,
		    const char *why, struct vm_stats *out)
{
	json_t *vm = json_pack("{s:s}", "spec", spec), *seen = json_object();

	if (!cfg->dry_run)
		out->runs_failed += append_failed(d->runs, cfg, out->release, seen, why, vm);
	json_decref(vm);
	json_decref(seen);
}

/* A kernel's release names its folder under raw/: a plain name, or the kernel does not run. */
static const struct vm_kernel *plain_release(const char *spec, const struct vm_kernel *kernel,
					     struct vm_stats *out)
{
	if (kernel && !guest_name_ok(kernel->release)) {
		guest_printable(kernel->release, strlen(kernel->release), out->release, sizeof(out->release));
		pr_warn("vm: %s: its release '%s' is not a plain name ([A-Za-z0-9._+-]); it names the kernel's folder under raw/",
			spec, out->release);
		return NULL;
	}
	return kernel;
}

int vm_run_kernel(const struct run_config *cfg, const char *kernel_spec,
		  const char *resultsdir, struct vm_stats *out)
{
	struct vm_kernel k;
	int ok = vm_kernel_resolve_fetch(kernel_spec, &k, !cfg->dry_run) == 0;

	return vm_run_resolved(cfg, kernel_spec, ok ? &k : NULL, NULL, resultsdir, out);
}

/* Boot k (its work files made), bring its results home, and say how it went. */
static int run_booted(const struct run_config *cfg, const struct vm_kernel *k,
		      const struct vm_work *w, const struct vm_dest *d, struct vm_stats *out)
{
	char kvm_fail[600] = "";
	struct boot b, rx;
	struct taken t = { 0 };
	json_t *vm, *seen = json_object();
	int err;

	boot_init(&b, k, w);
	b.vcpus = guest_vcpus(cfg, w->peer != NULL);
	if (w->peer)
		boot_init_pair(&b, &rx, w);
	boot_kernel(cfg, k, w, &b, kvm_fail, sizeof(kvm_fail));
	note_boot(cfg, &b, kvm_fail, out);
	vm = vm_info(&b, k, w->peer);
	take_results(&b, k, w, &t);
	keep_raw(d, w, &b, &t);
	merge_guest_records(cfg, k, d, w, &b, &t, vm, seen, out);
	err = conclude(cfg, k, d, &b, &t, vm, seen, out);
	/* a guest that broke a rule is not the source of anything in meta.json */
	if (t.refused) {
		json_decref(t.ginfo);
		t.ginfo = NULL;
	}
	if (t.ginfo || !*b.why)
		out->kernel_meta = kernel_entry(k, k->release, t.ginfo, t.gkernel, vm);
	if (!cfg->quiet)
		print_boot_line(out, b.kvm);
	if (t.tarmap)
		munmap(t.tarmap, t.tarlen);
	json_decref(t.ginfo);
	json_decref(t.gkernel);
	json_decref(vm);
	json_decref(seen);
	return err;
}

/* Dry-run: the commands for the wires and the qemus, none started. */
static void print_boots(const struct run_config *cfg, const struct vm_kernel *kernel, struct vm_work *w)
{
	struct boot b, rx;

	boot_init(&b, kernel, w);
	b.vcpus = guest_vcpus(cfg, w->peer != NULL);
	b.kvm = want_kvm(w->dir, true);
	if (w->peer) {
		struct qemu_argv q;

		pair_link_make(&w->link, true);
		boot_init_pair(&b, &rx, w);
		rx.kvm = b.kvm;
		build_argv(&rx, &q);
		exec_print(stdout, NULL, q.a);
	}
	boot_once(&b, true);
}

int vm_run_resolved(const struct run_config *cfg, const char *kernel_spec, const struct vm_kernel *kernel,
		    const struct vm_kernel *peer, const char *resultsdir, struct vm_stats *out)
{
	struct vm_dest d = { .dir = resultsdir };
	struct vm_work w;
	int err = -1;

	memset(out, 0, sizeof(*out));
	out->boot_to_first_byte_s = -1;
	fmt_buf(out->release, sizeof(out->release), "%s", kernel_spec);
	fmt_buf(d.runs, sizeof(d.runs), "%s/runs.jsonl", resultsdir);
	kernel = plain_release(kernel_spec, kernel, out);
	if (!kernel) {
		not_run(cfg, kernel_spec, &d, "vm: the kernel could not be prepared", out);
		return -1;
	}
	fmt_buf(out->release, sizeof(out->release), "%s", kernel->release);
	fmt_buf(d.rawrel, sizeof(d.rawrel), "raw/%s", kernel->release);
	char why[512];

	if (vm_preflight(cfg, kernel, why, sizeof(why)) < 0 ||
	    (peer && strcmp(peer->release, kernel->release) && vm_preflight(cfg, peer, why, sizeof(why)) < 0)) {
		not_run(cfg, kernel_spec, &d, why, out);
		return -1;
	}
	/* --interleave boots a kernel once per repeat: a console log and guest info each */
	if (cfg->interleave)
		fmt_buf(d.boot_sfx, sizeof(d.boot_sfx), "-r%d", cfg->repeat_from);
	if (work_make(cfg, &w) < 0)
		return -1;
	w.peer = peer;
	if (work_fill(cfg, kernel, &w) < 0) {
		not_run(cfg, kernel_spec, &d, "vm: the initramfs could not be built", out);
	} else if (cfg->dry_run) {
		print_boots(cfg, kernel, &w);
		err = 0;
	} else if (peer && pair_link_make(&w.link, false) < 0) {
		not_run(cfg, kernel_spec, &d, "vm-pair: the link between the guests could not be made", out);
	} else {
		err = run_booted(cfg, kernel, &w, &d, out);
	}
	pair_link_remove(&w.link);
	rm_rf(w.dir);
	return err;
}
