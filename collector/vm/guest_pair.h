/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A vm-pair guest's part before its run (guest.c calls it): the virtio-net
 * devices found by their MACs and named, addressed and up; on the
 * receiver, sshd on the control link for the sender's peer testbed; on the
 * sender, a wait until that sshd answers.
 */
#ifndef IPSECPERF_GUEST_PAIR_H
#define IPSECPERF_GUEST_PAIR_H

#include <jansson.h>
#include <stdbool.h>

/* The devices of pair (the config's "pair" object) up with their addresses; 0 or -1 having said why. */
int guest_pair_net(json_t *pair);

/* Is this guest the receiver? */
bool guest_pair_receiver(json_t *pair);

/* The receiver: start sshd; its pid, or -1 having said why. */
int guest_pair_sshd(void);

/* The sender: wait until the receiver's sshd accepts a connection; 0, or -1 after timeout_s. */
int guest_pair_wait_peer(json_t *pair, int timeout_s);

#endif
