/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KVM or TCG (vm_accel.c): decided once per process, for every kernel and
 * every --interleave round, by qemu's own test (vm_kvm.c) and the first
 * boots; boot_kernel boots a kernel until a boot is not KVM's fault, in
 * the time each accelerator is given.
 */
#ifndef IPSECPERF_VM_ACCEL_H
#define IPSECPERF_VM_ACCEL_H

#include <stdbool.h>
#include <stddef.h>

#include "run.h"
#include "vm_kernel.h"
#include "vm_qemu.h"
#include "vm_work.h"

/* Boot under KVM? Decided once (dry: without asking qemu). */
bool want_kvm(const char *workdir, bool dry);

/* Why not KVM, as this process knows it: why want_kvm said no, or the boot that showed it. */
const char *accel_kvm_why(void);

/*
 * The guest's clock for boot b, whose b->kvm is decided: the virtual clock
 * (b->icount, one vCPU) with --clock virtual, or with auto where KVM does
 * not run it on a testbed that can (testbed_entry.no_virtual_clock) and
 * no --vcpus above one was asked for.
 */
void boot_clock(const struct run_config *cfg, struct boot *b);

/* "virtual" or "real": the clock of cfg's boots as far as this process knows (a run that failed before one). */
const char *vm_clock_guess(const struct run_config *cfg);

/* Boot k from w's files into b until a boot is not KVM's fault; kvm_fail says why KVM failed it, if it did. */
void boot_kernel(const struct run_config *cfg, const struct vm_kernel *k,
		 const struct vm_work *w, struct boot *b, char *kvm_fail, size_t failen);

#endif
