/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The VM testbed: boot the kernel under test in qemu with a small initramfs
 * that holds this very program, run the matrix inside on the netns testbed,
 * and bring the records and raw files back (docs/vm-testbed.md).
 *
 * vm.h declares vm.c's: one kernel's run (vm_matrix.c, every --kernel,
 * calls it). Each part of a run has a header of its file's name:
 * vm_kernel.h (kernel specs), vm_work.h, vm_accel.h, vm_boot.h,
 * vm_home.h and the rest (docs/architecture.md lists them).
 */
#ifndef IPSECPERF_VM_H
#define IPSECPERF_VM_H

#include "run.h"
#include "vm_kernel.h"
#include "vm_stats.h"

/*
 * Boot kernel_spec in qemu, run cfg's matrix inside, and append its records
 * to resultsdir/runs.jsonl, its raw files to resultsdir/raw/<release>/ and
 * the console to resultsdir/raw/<release>/console.log. Returns 0 when the
 * guest ran the matrix (its runs may still have failed), -1 when the kernel
 * could not be prepared, booted or did not finish; then failed records say why.
 */
int vm_run_kernel(const struct run_config *cfg, const char *kernel_spec,
		  const char *resultsdir, struct vm_stats *out);

/*
 * vm_run_kernel for a kernel resolved already (NULL: it could not be);
 * with peer (vm-pair), kernel is the sender's and peer the receiver's.
 */
int vm_run_resolved(const struct run_config *cfg, const char *kernel_spec, const struct vm_kernel *kernel,
		    const struct vm_kernel *peer, const char *resultsdir, struct vm_stats *out);

#endif
