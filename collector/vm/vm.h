/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The VM testbed: boot the kernel under test in qemu with a small initramfs
 * that holds this very program, run the matrix inside on the netns testbed,
 * and bring the records and raw files back (docs/vm-testbed.md).
 *
 * Kernel specs (--kernel K):
 *   debian:PACKAGE        a Debian linux-image package, fetched into the cache
 *                         (PACKAGE may omit its "linux-image-" prefix)
 *   FILE.deb              a linux-image .deb, unpacked into the cache
 *   DIR                   a kernel build tree (arch/x86/boot/bzImage, .config,
 *                         modules.order), or an unpacked package (boot/vmlinuz-*,
 *                         lib/modules/...)
 *   IMAGE[:MODDIR]        a bzImage and its modules folder (lib/modules/<release>)
 */
#ifndef IPSECPERF_VM_H
#define IPSECPERF_VM_H

#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdbool.h>

#include "run.h"

struct vm_kernel {
	char spec[PATH_MAX];    /* as given */
	char image[PATH_MAX];   /* the bzImage to boot */
	char moddir[PATH_MAX];  /* lib/modules/<release> with modules.dep, or "" */
	char tree[PATH_MAX];    /* a build tree whose modules still need staging, or "" */
	char config[PATH_MAX];  /* the kernel's .config, or "" */
	char release[128];      /* uname -r as the host can tell it before booting */
	char vmlinux[PATH_MAX]; /* its vmlinux, perhaps with DWARF (a tree's, a -dbg package's), or "" */
};

/* What one kernel's VM did, for the caller's summary. */
struct vm_stats {
	char release[128];      /* uname -r, as the kernel's image, tree or package tells it */
	char accel[8];          /* "kvm" or "tcg" */
	char accel_why[160];    /* why this accelerator, e.g. "/dev/kvm: no such file" */
	double boot_to_init_s;  /* qemu start to the guest's init running */
	double boot_to_first_byte_s; /* qemu start to the first byte of load; <0 unknown */
	double total_s;         /* qemu start to qemu gone */
	double cpu_to_init_s, cpu_to_first_byte_s; /* CPU time qemu used until then; 0 unknown */
	int runs_ok, runs_failed, runs_skipped; /* records appended to the host's runs.jsonl */
	json_t *kernel_meta;    /* the guest's meta.json kernel entry (caller decrefs) */
};

/* Where kernels are cached: $IPSECPERF_CACHE or /var/cache/ipsecperf/kernels. */
const char *vm_cache_dir(void);

/*
 * Resolve a spec to an image and modules; debian: specs are fetched when not
 * cached, .deb files unpacked. Returns 0, or -1 after printing why.
 */
int vm_kernel_resolve(const char *spec, struct vm_kernel *k);
/* The same; with fetch false a debian: spec not in the cache is an error, not a download (--dry-run). */
int vm_kernel_resolve_fetch(const char *spec, struct vm_kernel *k, bool fetch);

/*
 * Whether a debian:PACKAGE or FILE.deb spec has a name the cache can take
 * (checked before anything is fetched, so that bad usage is exit 2); 0,
 * or -1 with one line in why. Other specs are paths: 0.
 */
int vm_kernel_spec_check(const char *spec, char *why, size_t len);

/*
 * Download a Debian package with apt-get download and unpack it into the
 * cache (kernel fetch). On success the unpacked folder is in dir.
 */
int vm_kernel_fetch(const char *package, char *dir, size_t dirlen);

/* Unpack a linux-image .deb into the cache; dir gets the unpacked folder. */
int vm_kernel_unpack_deb(const char *deb, char *dir, size_t dirlen);

/* The release a bzImage announces in its setup header, or -1. */
int vm_image_release(const char *image, char *out, size_t outlen);

/* sha256 of a file as 64 hex digits; -1 if it cannot be read. */
int vm_sha256_file(const char *path, char out[65]);

/*
 * The uncompressed vmlinux of a bzImage, with its PVH entry point, as
 * workdir/vmlinux (its path in out): 0, or -1 when the image has none this
 * host can inflate (then boot the bzImage). See vm_pvh.c.
 */
int vm_kernel_pvh(const char *image, const char *workdir, char *out, size_t outlen);

/*
 * Build the initramfs for cfg's matrix on kernel k into the file path.
 * workdir is a scratch folder the caller removes.
 */
struct vm_pair_guest;
int vm_initramfs_build(const struct run_config *cfg, const struct vm_kernel *k, const struct vm_pair_guest *pg,
		       const char *workdir, const char *path);

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
 * Before k boots: -1 with why when its .config lacks what the guest needs
 * to boot and report (the options printed); else 0, after printing what
 * the run's scenarios will lose. A kernel without a .config passes.
 */
int vm_preflight(const struct run_config *cfg, const struct vm_kernel *k, char *why, size_t wlen);

/*
 * vm_run_kernel for a kernel resolved already (NULL: it could not be);
 * with peer (vm-pair), kernel is the sender's and peer the receiver's.
 */
int vm_run_resolved(const struct run_config *cfg, const char *kernel_spec, const struct vm_kernel *kernel,
		    const struct vm_kernel *peer, const char *resultsdir, struct vm_stats *out);

/*
 * May the vm testbed try KVM here? No when IPSECPERF_VM_ACCEL=tcg or
 * /dev/kvm does not open (why says which); IPSECPERF_VM_ACCEL=kvm says yes
 * even without /dev/kvm, and qemu decides.
 */
bool vm_kvm_allowed(char *why, size_t len);

/*
 * Ask qemu itself whether KVM runs a guest: a firmware of a few hundred
 * bytes, under -accel kvm -cpu host as a run uses, that enters long mode
 * and runs 10 million instructions (milliseconds on a working KVM), within
 * 3 s. Returns 1 (it ran), 0 (it did not: why quotes qemu or says it took
 * too long) or -1 (cannot tell: no qemu, or qemu cannot run the test under
 * TCG either). dir is a folder for the firmware file.
 */
int vm_kvm_probe(const char *dir, char *why, size_t len);

struct results_writer;

/*
 * The vm testbed's matrix: every --kernel in turn, each running the whole
 * matrix; the host's kernel moves to meta.json's "host_kernel" and
 * "kernels" lists the guests'. Returns the number of failed runs.
 */
int vm_run_matrix(const struct run_config *cfg, struct results_writer *res);

/*
 * Print the kernels side by side, scenario by scenario, from
 * resultsdir/runs.jsonl: median throughput (min-max, n) per kernel.
 */
int vm_print_summary(FILE *f, const char *resultsdir);


#endif
