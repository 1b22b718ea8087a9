/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One boot's qemu (vm_qemu.c): struct boot, what a boot is given and what
 * came of it; qemu's command line (firmware, vCPUs, the kernel's command
 * line, the three serial ports, vm-pair's taps); starting qemu, journaled;
 * its CPU time; and whether the guest wrote more than its ports may hold.
 */
#ifndef IPSECPERF_VM_QEMU_H
#define IPSECPERF_VM_QEMU_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "run.h"
#include "vm_console.h"

/* what a guest may write on its console and its record port (the tar: GUEST_TAR_MAX_STREAM) */
#define CONSOLE_MAX (64L << 20)
#define LIVE_MAX (64L << 20)

/* One boot of a guest: what qemu is given, and what came of it. */
struct boot {
	const char *image, *initrd, *console_path, *tar_path, *live_path, *qlog_path;
	const char *bios;      /* -bios FILE, or NULL for qemu's own (SeaBIOS) */
	bool kvm;
	bool icount;           /* the virtual clock: TCG counting instructions (-icount), one vCPU */
	int vcpus;             /* the guest's -smp (guest_vcpus) */
	int boot_timeout_s, total_timeout_s;
	/* results */
	struct console con;
	double total_s;
	int qemu_status;       /* exit status, or -1 when we stopped it */
	char why[512];         /* why it failed; "" when the guest finished */
	bool kvm_broken;       /* a KVM boot that ended before the guest's init: retry with TCG */
	char retried[256];     /* a TCG boot panicked before the init and was booted again: its panic */
	bool flood;            /* the guest sent more than a serial file may hold */
	/* vm-pair (vm_pair.h): this guest's taps, passed to qemu as fds 3 and 4, and their MACs */
	const int *fds;
	const char *macs[2];
	struct boot *peer;     /* the sender's boot: the receiver's, started and stopped with it */
	pid_t pid;             /* the receiver's qemu while it runs */
	bool peer_fault;       /* the receiver ended the sender's boot (b->why says how) */
};

/* qemu's argv (a) and the strings it points into */
struct qemu_argv {
	char *a[56];
	char smp[16], icount[64], append[1024], ser[3][PATH_MAX + 8], dev[2][128];
};

/* IPSECPERF_VM_BOOT=classic: SeaBIOS, the bzImage as it is, no cryptomgr.notests. */
bool classic_boot(void);

/* qboot when qemu ships it, unless classic_boot(); NULL: qemu's default firmware. */
const char *quick_firmware(void);

/* This host's CPUs, at least 2 and at most 4. */
int nr_cpus(void);

/* A guest's vCPUs: --vcpus, else what the flows need (pair: a vm-pair guest's). */
int guest_vcpus(const struct run_config *cfg, bool pair);

/* qemu's command line for boot b, into q (q->a, NULL-terminated). */
void build_argv(struct boot *b, struct qemu_argv *q);

/* CPU seconds process pid has used (user + system); 0 if it cannot be read. */
double proc_cpu_s(pid_t pid);

/* Has the guest written more than its serial files may hold? Then b->why says so. */
bool serial_flood(struct boot *b);

/* Start qemu on fresh serial files, journaled; its pid, or -1 with b->why. */
pid_t boot_start(struct boot *b, char **argv, int *qfd);

#endif
