/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One boot of a guest (vm_boot.c): qemu started (vm-pair: the receiver's
 * beside it), its console followed until qemu ends or the boot must stop
 * (a panic, a flood, a time-out, a signal), and the verdict in b->why.
 */
#ifndef IPSECPERF_VM_BOOT_H
#define IPSECPERF_VM_BOOT_H

#include <stdbool.h>

#include "vm_qemu.h"

/* Boot b once (dry: print qemu's command line, start nothing); 0 when the guest finished, else -1 with b->why. */
int boot_once(struct boot *b, bool dry);

#endif
