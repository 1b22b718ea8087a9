/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A kernel's .config checked before it boots (vm_preflight.c).
 */
#ifndef IPSECPERF_VM_PREFLIGHT_H
#define IPSECPERF_VM_PREFLIGHT_H

#include <stddef.h>

#include "run.h"
#include "vm_kernel.h"

/*
 * Before k boots: -1 with why when its .config lacks what the guest needs
 * to boot and report (the options printed); else 0, after printing what
 * the run's scenarios will lose. A kernel without a .config passes.
 */
int vm_preflight(const struct run_config *cfg, const struct vm_kernel *k, char *why, size_t wlen);

#endif
