/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest's initramfs: this program, its tools and modules, its config
 * (vm_initramfs.c; the vm-pair part in vm_initramfs_pair.c, vm_pair.h).
 */
#ifndef IPSECPERF_VM_INITRAMFS_H
#define IPSECPERF_VM_INITRAMFS_H

#include "run.h"
#include "vm_kernel.h"

/*
 * Build the initramfs for cfg's matrix on kernel k into the file path.
 * workdir is a scratch folder the caller removes.
 */
struct vm_pair_guest;
int vm_initramfs_build(const struct run_config *cfg, const struct vm_kernel *k, const struct vm_pair_guest *pg,
		       const char *workdir, const char *path);

#endif
