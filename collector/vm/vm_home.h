/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bringing a guest's results home (vm_home.c): what it sent read as data
 * and checked (guest_tar.c, guest_check.c) before anything is kept; its
 * records into the host's runs.jsonl, for the runs it was asked for; its
 * consoles and raw files under raw/<release>/; failed records, with the
 * reason, for the runs it wrote none for.
 */
#ifndef IPSECPERF_VM_HOME_H
#define IPSECPERF_VM_HOME_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "guest_check.h"
#include "guest_tar.h"
#include "run.h"
#include "vm_kernel.h"
#include "vm_qemu.h"
#include "vm_stats.h"
#include "vm_work.h"

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

/* The records' "vm" object: accelerator, kernel, vCPUs (vm-pair: the receiver's kernel), a boot retried. */
json_t *vm_info(const struct boot *b, const struct vm_kernel *k, const struct vm_kernel *peer);

/* Failed records, with reason, for cfg's runs of the scenarios not in seen; how many were written. */
int append_failed(const char *runs, const struct run_config *cfg, const char *release,
		  json_t *seen, const char *reason, json_t *vm);

/* The kernel entry of meta.json: the guest's own (from its meta.json, checked), else what we know. */
json_t *kernel_entry(const struct vm_kernel *k, const char *release, json_t *ginfo,
		     json_t *gkernel, json_t *vm);

/*
 * A boot's results brought home: the guest's tar taken apart and checked
 * (b->why says what was refused), every record checked, then the consoles
 * and, from a guest not refused, its raw files and guest.json kept under
 * raw/<release>/, and its records appended to the host's runs.jsonl
 * (from its tar, or else as they were sent). A guest refused, for its tar
 * or any record, leaves none of its files.
 */
void bring_home(const struct run_config *cfg, const struct vm_kernel *k, const struct vm_dest *d,
		const struct vm_work *w, struct boot *b, struct taken *t, json_t *vm, json_t *seen,
		struct vm_stats *out);

/* Failed records for the runs the guest wrote none for; 0 when the guest ran the matrix, -1 when the boot failed. */
int conclude(const struct run_config *cfg, const struct vm_kernel *k,
	     const struct vm_dest *d, struct boot *b, const struct taken *t, json_t *vm,
	     json_t *seen, struct vm_stats *out);

#endif
