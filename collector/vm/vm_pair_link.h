/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The vm-pair testbed's wires (docs/vm-testbed.md, "Two guests"): two
 * bridges in a network namespace of the run's own, each joining two taps,
 * one tap per guest. The link bridge carries the scenarios' traffic
 * between the guests' first virtio-net devices; the control bridge the
 * ssh between their second ones, which no ESP policy covers. The taps
 * carry virtio-net headers, so each guest's TSO, GSO, GRO and checksum
 * offload are switched by its own ethtool, as on a NIC.
 */
#ifndef IPSECPERF_VM_PAIR_LINK_H
#define IPSECPERF_VM_PAIR_LINK_H

enum { PAIR_TX, PAIR_RX };
enum { PAIR_LINK, PAIR_CTL };

struct pair_link {
	char netns[64];
	int fd[2][2];   /* [guest][PAIR_LINK or PAIR_CTL]: the tap fds qemu gets as 3 and 4 */
	int seq;        /* the namespace's journal record, 0: none */
};

/* Make the namespace (journaled), its bridges and the four taps; 0, or -1 having said why. */
int pair_link_make(struct pair_link *l, bool dry_run);

/* Close this process's copies of the taps (qemu keeps its own). */
void pair_link_close(struct pair_link *l);

/* Once both qemus are gone: the taps closed, the namespace deleted and its journal record done with. */
void pair_link_remove(struct pair_link *l);

/* The MAC address of a guest's device: fixed, so that each guest finds its link and control devices. */
const char *pair_mac(int guest, int which);

#endif
