/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A bzImage's vmlinux with its PVH entry, for the quickest boot (vm_pvh.c).
 */
#ifndef IPSECPERF_VM_PVH_H
#define IPSECPERF_VM_PVH_H

#include <stddef.h>

/*
 * The uncompressed vmlinux of a bzImage, with its PVH entry point, as
 * workdir/vmlinux (its path in out): 0, or -1 when the image has none this
 * host can inflate (then boot the bzImage).
 */
int vm_kernel_pvh(const char *image, const char *workdir, char *out, size_t outlen);

#endif
