/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What one kernel's VM did (struct vm_stats): vm.c and vm_home.c fill it,
 * vm_matrix.c reads it.
 */
#ifndef IPSECPERF_VM_STATS_H
#define IPSECPERF_VM_STATS_H

#include <jansson.h>

/* What one kernel's VM did, for the caller's summary. */
struct vm_stats {
	char release[128];      /* uname -r, as the kernel's image, tree or package tells it */
	char accel[8];          /* "kvm" or "tcg" */
	char clock[8];          /* "real" or "virtual" (the guest's instruction counting) */
	char accel_why[160];    /* why this accelerator, e.g. "/dev/kvm: no such file" */
	double boot_to_init_s;  /* qemu start to the guest's init running */
	double boot_to_first_byte_s; /* qemu start to the first byte of load; <0 unknown */
	double total_s;         /* qemu start to qemu gone */
	double cpu_to_init_s, cpu_to_first_byte_s; /* CPU time qemu used until then; 0 unknown */
	int runs_ok, runs_failed, runs_skipped; /* records appended to the host's runs.jsonl */
	json_t *kernel_meta;    /* the guest's meta.json kernel entry (caller decrefs) */
};

#endif
