// SPDX-License-Identifier: GPL-2.0
/*
 * The accelerator, KVM or TCG, chosen once per process, and the boots of
 * a kernel that choose it: a KVM boot that ends before the guest's init is
 * booted again under TCG, a TCG boot that panics before it once more. The
 * time limits of a boot depend on the accelerator.
 */
#include "vm_accel.h"

#include <stdbool.h>
#include <stdlib.h>

#include "load.h"
#include "log.h"
#include "signals.h"
#include "testbed_ops.h"
#include "vm_boot.h"
#include "vm_kvm.h"

/* KVM brings a kernel to its init in a second or two; a hung KVM costs no more */
#define KVM_INIT_TIMEOUT_S 10
#define TCG_INIT_TIMEOUT_S 60
/*
 * The virtual clock: 10^9 instructions a guest second on one host thread,
 * 10 to 20 s of wall time a measured second on a loaded 2-CPU host, and
 * a boot to the init about twice plain TCG's.
 */
#define ICOUNT_SLOWDOWN 25
#define ICOUNT_INIT_TIMEOUT_S 150

/*
 * Decided once per process, for every kernel and every --interleave round:
 * qemu is asked first (vm_kvm_probe), then the first boot under KVM shows
 * whether it runs a kernel. A KVM boot that ends before the guest's init
 * is booted again under TCG; when TCG reaches the init, KVM is the culprit
 * and every later boot uses TCG.
 */
static int kvm_state = -1; /* -1 not known yet, 0 unusable, 1 usable */
static char kvm_why[256];

bool want_kvm(const char *workdir, bool dry)
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

/* Why not KVM, as this process knows it: why want_kvm said no, or the boot that showed it. */
const char *accel_kvm_why(void)
{
	return kvm_why;
}

static bool clock_virtual(const struct run_config *cfg, bool kvm)
{
	if (cfg->clock != RUN_CLOCK_AUTO)
		return cfg->clock == RUN_CLOCK_VIRTUAL;
	return !kvm && !(cfg->tb_entry && cfg->tb_entry->no_virtual_clock) && cfg->vcpus <= 1;
}

void boot_clock(const struct run_config *cfg, struct boot *b)
{
	b->icount = !b->kvm && clock_virtual(cfg, b->kvm);
	/* an SMP guest hangs at "Booting SMP configuration" under -icount */
	if (b->icount)
		b->vcpus = 1;
}

const char *vm_clock_guess(const struct run_config *cfg)
{
	bool kvm = cfg->clock == RUN_CLOCK_AUTO && kvm_state != 0;

	return clock_virtual(cfg, kvm) ? "virtual" : "real";
}

static int default_total_timeout(const struct run_config *cfg, const struct boot *b)
{
	const char *env = getenv("IPSECPERF_VM_TIMEOUT");
	bool kvm = b->kvm;
	int per_run = ((cfg->duration_s > 0 ? cfg->duration_s : 10) +
		       (cfg->omit_s > 0 ? cfg->omit_s : 0)) * (b->icount ? ICOUNT_SLOWDOWN : 1) + (kvm ? 10 : 30);
	int repeat = cfg->repeat > 0 ? cfg->repeat : 1, total = 90 + (cfg->nscenarios ? 0 : repeat * per_run);

	if (env && atoi(env) > 0)
		return atoi(env);
	/* each scenario's runs, with what its load takes beyond them (a rate search's steps) */
	for (int s = 0; s < cfg->nscenarios; s++)
		total += repeat * (per_run + load_extra_s(&cfg->scenarios[s]));
	return total;
}

/*
 * Boot until a boot is not KVM's fault: a KVM boot that ends before the
 * guest's init is booted again under TCG, and when TCG reaches the init,
 * KVM is not used for the rest of the invocation (kvm_state).
 */
void boot_kernel(const struct run_config *cfg, const struct vm_kernel *k,
			const struct vm_work *w, struct boot *b, char *kvm_fail, size_t failen)
{
	/* the virtual clock is TCG's: KVM is not asked */
	b->kvm = cfg->clock != RUN_CLOCK_VIRTUAL && want_kvm(w->dir, false);
	for (;;) {
		boot_clock(cfg, b);
		b->boot_timeout_s = b->kvm ? KVM_INIT_TIMEOUT_S : b->icount ? ICOUNT_INIT_TIMEOUT_S : TCG_INIT_TIMEOUT_S;
		b->total_timeout_s = default_total_timeout(cfg, b);
		if (!cfg->quiet)
			pr_info("vm: %s: booting under %s%s%s%s%s", k->release, b->kvm ? "KVM" : "TCG",
				b->icount ? " on the virtual clock (instruction counting, 1 vCPU)" : "",
				b->kvm ? "" : " (", b->kvm ? "" : cfg->clock == RUN_CLOCK_VIRTUAL ? "--clock virtual" : *kvm_fail ? "KVM did not bring it to its init" : kvm_why,
				b->kvm ? "" : ")");
		boot_once(b, false);
		if (!b->kvm_broken)
			break;
		fmt_buf(kvm_fail, failen, "KVM did not bring %s to its init: %s", k->release, b->why);
		pr_warn("vm: %s; booting it again under TCG", kvm_fail);
		b->kvm = false;
	}
	/*
	 * A TCG boot that panics before the init, once, is booted again: seen
	 * here with a 6.12 defconfig kernel now and then in a timer interrupt
	 * ("Fatal exception in interrupt", RIP inside an instruction) and never
	 * twice in a row. A kernel that panics again is at fault; the retry
	 * and the first panic are said, and kept in the records (vm.boot_retry).
	 */
	if (!b->kvm && b->con.panic && !b->con.t_init && !stop_requested()) {
		fmt_buf(b->retried, sizeof(b->retried), "%.250s", b->con.panic_line);
		pr_warn("vm: %s panicked under TCG before its init (%s); booting it once more", k->release,
			b->retried);
		boot_once(b, false);
	}
	if (b->kvm) {
		kvm_state = 1;
	} else if (*kvm_fail && b->con.t_init) {
		/* TCG brought the kernel KVM did not to its init: KVM it was */
		kvm_state = 0;
		fmt_buf(kvm_why, sizeof(kvm_why), "%.255s", kvm_fail);
	}
}
