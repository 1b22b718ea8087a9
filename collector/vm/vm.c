// SPDX-License-Identifier: GPL-2.0
/*
 * The VM testbed, host side, one kernel's run (vm-pair: one pair's): the
 * scratch folder filled (vm_work.c), the kernel booted, KVM when it really
 * runs this kernel, TCG otherwise (vm_accel.c, vm_boot.c), and its results
 * brought home (vm_home.c); a kernel that cannot run gets failed records.
 */
#include "vm.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "exec.h"
#include "files.h"
#include "guest_tar.h"
#include "log.h"
#include "vm_accel.h"
#include "vm_boot.h"
#include "vm_home.h"
#include "vm_pair_link.h"
#include "vm_preflight.h"
#include "vm_qemu.h"
#include "vm_work.h"

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
	fmt_buf(out->clock, sizeof(out->clock), "%s", b->icount ? "virtual" : "real");
	fmt_buf(out->accel_why, sizeof(out->accel_why), "%s",
	       b->kvm ? "KVM runs this kernel" : *kvm_fail ? kvm_fail : accel_kvm_why());
	out->boot_to_init_s = b->con.t_init;
	/* the first measured byte comes --omit seconds after the load's first */
	out->boot_to_first_byte_s = b->con.t_first ? b->con.t_first + (cfg->omit_s > 0 ? cfg->omit_s : 0) : -1;
	out->total_s = b->total_s;
	out->cpu_to_init_s = b->con.cpu_init;
	out->cpu_to_first_byte_s = b->con.cpu_first;
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
	bring_home(cfg, k, d, w, &b, &t, vm, seen, out);
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
	/* as the run would decide it, qemu's own test included (doctor's) */
	b.kvm = cfg->clock != RUN_CLOCK_VIRTUAL && want_kvm(w->dir, false);
	boot_clock(cfg, &b);
	printf("# accelerator: %s%s%s%s\n", b.kvm ? "kvm" : "tcg", b.kvm ? "" : " (",
	       b.kvm ? "" : cfg->clock == RUN_CLOCK_VIRTUAL ? "--clock virtual" : accel_kvm_why(), b.kvm ? "" : ")");
	printf("# clock: %s\n", b.icount ? "virtual (-icount: a guest second is 10^9 instructions at shift 0; 1 vCPU)"
					 : "real");
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
