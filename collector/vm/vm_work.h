/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One kernel's scratch folder (vm_work.c), journaled for removal, and
 * what a boot needs in it: the initramfs and the kernel as qemu boots it
 * quickest; for vm-pair also the receiver's, made beside the sender's,
 * and the run's ssh keys.
 */
#ifndef IPSECPERF_VM_WORK_H
#define IPSECPERF_VM_WORK_H

#include <limits.h>
#include <stdbool.h>

#include "run.h"
#include "vm_kernel.h"
#include "vm_pair_link.h"

/* One guest's files in the scratch folder. */
struct vm_files {
	char dir[PATH_MAX];
	char initrd[PATH_MAX], con[PATH_MAX], tar[PATH_MAX], live[PATH_MAX], qlog[PATH_MAX];
	char vmlinux[PATH_MAX]; /* the kernel as an ELF with its PVH entry, or "" */
};

/* One kernel's (vm-pair: one pair's) scratch folder and the files in it. */
struct vm_work {
	char dir[PATH_MAX];
	char initrd[PATH_MAX], con[PATH_MAX], tar[PATH_MAX], live[PATH_MAX], qlog[PATH_MAX];
	char vmlinux[PATH_MAX]; /* the kernel as an ELF with its PVH entry, or "" */
	/* vm-pair: the receiver's files (in dir/receiver), the ssh keys, the wires */
	const struct vm_kernel *peer;
	struct vm_files rx;
	char keydir[PATH_MAX];
	struct pair_link link;
};

/* The scratch folder, journaled for removal; -1 (with a warning) if it cannot be made. */
int work_make(const struct run_config *cfg, struct vm_work *w);

/* The initramfs, and the kernel as qemu boots it quickest (w->peer: the receiver's too); -1 if an initramfs fails. */
int work_fill(const struct run_config *cfg, const struct vm_kernel *k, struct vm_work *w);

#endif
