/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The vm-pair testbed (docs/vm-testbed.md, "Two guests"): the sender's
 * kernel in one qemu guest, the receiver's in another, joined by a virtio-net
 * link (vm_pair_link.h). The sender's guest runs the peer testbed's matrix
 * (collector/testbed/tb_peer.c) with the receiver's guest as its peer, reached with ssh
 * over a second, control link; its agent counts the receiver's SAs, probes
 * and CPU. No new run loop: what is new is the wires and the guests' roles.
 *
 * vm_pair.h is a façade: the pair's addresses and a guest's role, shared
 * by the host's files, and the functions of vm_initramfs_pair.c (the
 * pair's part of an initramfs, the ssh keys).
 */
#ifndef IPSECPERF_VM_PAIR_H
#define IPSECPERF_VM_PAIR_H

#include <jansson.h>
#include <limits.h>

#include "cpio.h"
#include "run.h"
#include "vm_pair_link.h"

/* the control link's addresses: in the benchmarking range, apart from the link's */
#define PAIR_CTL_ADDR_TX "198.19.255.1"
#define PAIR_CTL_ADDR_RX "198.19.255.2"
#define PAIR_CTL_PREFIX 30

/* What one guest of a pair is told (its initramfs). */
struct vm_pair_guest {
	int role;                  /* PAIR_TX or PAIR_RX */
	char keydir[PATH_MAX];     /* the run's throwaway ssh keys (vm_pair_keys) */
	char peer_release[128];    /* the other guest's kernel */
};

/* Throwaway ssh keys (the receiver's host key, the sender's identity) in dir/ssh; 0, or -1 having said why. */
int vm_pair_keys(const char *dir, char *keydir, size_t len);

/*
 * The pair's part of a guest's initramfs (vm_initramfs_pair.c): ssh and
 * sshd, the keys, sshd's config, the sshd user; and into gc, the guest's
 * config, the "pair" object and, for the sender, the run's peer testbed
 * options. 0, or -1.
 */
int vm_initramfs_pair(struct cpio *c, const struct run_config *cfg, const struct vm_pair_guest *pg, json_t *gc);

/* The sender's run options: the peer testbed, its peer the receiver's guest over the control link. */
void vm_pair_sender_args(json_t *argv);

/* The modules the pair adds (virtio's PCI transport and net driver): is rel one of them? */
int vm_pair_module(const char *rel);

#endif
