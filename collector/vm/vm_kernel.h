/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernels the vm testbed boots (vm_kernel.c): a --kernel spec resolved
 * to an image, its modules and .config, fetched or unpacked into the cache.
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
#ifndef IPSECPERF_VM_KERNEL_H
#define IPSECPERF_VM_KERNEL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct vm_kernel {
	char spec[PATH_MAX];    /* as given */
	char image[PATH_MAX];   /* the bzImage to boot */
	char moddir[PATH_MAX];  /* lib/modules/<release> with modules.dep, or "" */
	char tree[PATH_MAX];    /* a build tree whose modules still need staging, or "" */
	char config[PATH_MAX];  /* the kernel's .config, or "" */
	char release[128];      /* uname -r as the host can tell it before booting */
	char vmlinux[PATH_MAX]; /* its vmlinux, perhaps with DWARF (a tree's, a -dbg package's), or "" */
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

#endif
