/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the host (vm_initramfs.c, vm_qemu.c, vm_console.c, vm_home.c) and
 * the guest's init (guest.c) agree on: where things are in the initramfs,
 * and the lines the guest prints on its console (ttyS0) for the host to
 * follow. Results travel back as a tar stream on the second serial port
 * (ttyS1): the 8250 UART is built into every x86 kernel config, unlike
 * virtio-9p (Debian's cloud kernels lack it). A third port (ttyS2) carries
 * each record as it is written, so that the runs finished before a panic
 * or a hang are not lost.
 */
#ifndef IPSECPERF_VM_GUEST_H
#define IPSECPERF_VM_GUEST_H

#define GUEST_EXE "/bin/ipsecperf"
#define GUEST_CONFIG "/etc/ipsecperf-guest.json"
#define GUEST_OUT "/out"      /* sent back whole */
#define GUEST_RUNDIR "run"    /* GUEST_OUT/run: the guest's results directory */
#define GUEST_INFO "guest.json" /* GUEST_OUT/guest.json: exit status, timings, uname */
#define GUEST_RESULTS_TTY "/dev/ttyS1" /* a tar of GUEST_OUT, at the end */
#define GUEST_LIVE_TTY "/dev/ttyS2"    /* runs.jsonl lines as they are written */
#define GUEST_MODPROBE "/usr/sbin/modprobe" /* not /sbin: see vm_initramfs.c */
/* the probes' anchors in inlined functions, from the kernel's DWARF (probes/anchors.h), if the host had it */
#define GUEST_ANCHORS "/etc/ipsecperf-anchors"

/*
 * The vm-pair testbed (vm_pair.h): each guest's config has a "pair" object
 * (its role, its devices' MACs and addresses); the ssh keys and sshd's
 * config are in GUEST_PAIR_DIR. The devices are renamed to these names.
 */
#define GUEST_PAIR_DIR "/etc/ipsecperf-pair"
#define GUEST_PAIR_DIR_REL "etc/ipsecperf-pair" /* in the archive */
#define GUEST_PAIR_LINK_DEV "ipp-link"
#define GUEST_PAIR_CTL_DEV "ipp-ctl"
/*
 * The sender's ssh options (each an -o), for the peer testbed's ssh and the
 * master connection the sender's init opens first: one connection for the
 * whole run, as a handshake costs seconds under TCG. Its key exchange is
 * plain curve25519: OpenSSH 9's default (sntrup761x25519) took 0.8 s more
 * of the emulated CPUs per handshake, and the link is a run's own, between
 * two guests, under keys made for that run.
 */
#define GUEST_PAIR_SSH_OPTS                                                                             \
	"IdentityFile=" GUEST_PAIR_DIR "/id", "UserKnownHostsFile=" GUEST_PAIR_DIR "/known_hosts",     \
		"StrictHostKeyChecking=yes", "ConnectTimeout=30", "ControlMaster=auto",                \
		"ControlPath=/run/ipsecperf-ssh-%C", "ControlPersist=600", "KexAlgorithms=curve25519-sha256"

/* console markers; each is followed by " t=<guest uptime s>" and more */
#define MARK_INIT "ipsecperf-guest: init"
#define MARK_START "ipsecperf-guest: matrix start"
#define MARK_FIRST_BYTE "ipsecperf-guest: first byte"
#define MARK_DONE "ipsecperf-guest: done"
#define MARK_PEER_READY "ipsecperf-guest: receiver ready" /* vm-pair: the receiver's sshd is up */

#endif
