/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU SAs (RFC 9611) as the kernel's xfrm uapi has them since Linux
 * 6.13 (and some 6.12.y): an outbound SA bound to one CPU (XFRMA_SA_PCPU,
 * which needs XFRMA_SA_DIR), and the outbound policy's flag
 * XFRM_POLICY_CPU_ACQUIRE, under which a CPU without an SA of its own
 * takes the SA without a CPU (the fallback) and asks the key manager for
 * one. The numbers are the uapi's (include/uapi/linux/xfrm.h), defined
 * here because the build host's headers may be older. Whether the running
 * kernel has them is probed, never told from its version.
 */
#ifndef IPSECPERF_XFRM_PCPU_H
#define IPSECPERF_XFRM_PCPU_H

#include <stddef.h>
#include <stdint.h>

#define IPP_XFRMA_SA_DIR 33  /* __u8: XFRM_SA_DIR_IN 1, XFRM_SA_DIR_OUT 2 */
#define IPP_XFRMA_SA_PCPU 35 /* __u32: the CPU an SA is for */
#define IPP_XFRM_SA_DIR_IN 1
#define IPP_XFRM_SA_DIR_OUT 2
#define IPP_XFRM_POLICY_CPU_ACQUIRE 4 /* struct xfrm_userpolicy_info's flags */

struct nlmsghdr;

/* An SA's per-CPU attributes into nlh: its direction (1 in, 2 out) and, for an outbound one, its CPU. */
void xfrm_pcpu_put(struct nlmsghdr *nlh, int dir, int cpu);

/*
 * Does the running kernel take per-CPU SAs? Asked in a network namespace
 * of a child's own (nothing on the host changes, nothing is loaded): an
 * XFRM_MSG_ALLOCSPI naming CPU UINT32_MAX, which a kernel with per-CPU SAs
 * refuses (EINVAL, "pCPU number too big") before anything else, and one
 * without takes, the attribute unread. 1 yes; 0 no, why says; -1 cannot
 * tell (not root, no xfrm netlink), why says.
 */
int xfrm_pcpu_probe(char *why, size_t len);

/* The probe's request, built into buf (NLSOCK_BUF bytes); for the unit tests. */
int xfrm_pcpu_probe_build(void *buf);

/*
 * A kernel's CPU list ("0-3,6\n", as /sys/devices/system/cpu/online has
 * it) into cpus, at most max, ascending: their number, or -1 (not such a
 * list, or more than max).
 */
int xfrm_pcpu_cpu_list(const char *s, int *cpus, int max);

/* This kernel's online CPUs (xfrm_pcpu_cpu_list of sysfs' list): their number, or -1 with why. */
int xfrm_pcpu_online(int *cpus, int max, char *why, size_t len);

#endif
