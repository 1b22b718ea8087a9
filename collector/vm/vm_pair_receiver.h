/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vm-pair: the receiver's guest beside the sender's (vm_pair_receiver.c).
 * s is the sender's boot and s->peer the receiver's: its qemu starts with
 * the sender's, is watched while the sender runs, and is stopped when the
 * sender is done (it never stops by itself).
 */
#ifndef IPSECPERF_VM_PAIR_RECEIVER_H
#define IPSECPERF_VM_PAIR_RECEIVER_H

#include <stdbool.h>

#include "vm_qemu.h"

/* Start the receiver's qemu; -1 with why in the sender's boot s. */
int peer_start(struct boot *s);

/* Has the receiver ended the run at t (panicked, flooded, exited, not booted in time)? Then s->why says so. */
bool peer_failed(struct boot *s, double t);

/* Stop the receiver, and note what it wrote after the last look. */
void peer_stop(struct boot *s, double t);

#endif
