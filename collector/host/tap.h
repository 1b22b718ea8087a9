/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The links between guests (the vm-pair testbed): tap devices and the
 * bridge that joins them, made inside a network namespace of their own so
 * that this host's links never change. A tap lives as long as an fd on it
 * (it is not made persistent): once qemu, which gets the fd, is gone, so
 * is the tap; deleting the namespace takes the bridge.
 */
#ifndef IPSECPERF_TAP_H
#define IPSECPERF_TAP_H

#include <stddef.h>

/*
 * A tap NAME in NETNS (IFF_TAP, IFF_NO_PI, IFF_VNET_HDR: qemu's virtio-net
 * then offers the guest TSO, GSO and checksum offload). The fd
 * (close-on-exec), or -1 with why in err.
 */
int tap_open(const char *netns, const char *name, char *err, size_t errlen);

#endif
