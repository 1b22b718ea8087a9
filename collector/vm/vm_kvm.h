/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether KVM can run the vm testbed's guests here (vm_kvm.c).
 */
#ifndef IPSECPERF_VM_KVM_H
#define IPSECPERF_VM_KVM_H

#include <stdbool.h>
#include <stddef.h>

/*
 * May the vm testbed try KVM here? No when IPSECPERF_VM_ACCEL=tcg or
 * /dev/kvm does not open (why says which); IPSECPERF_VM_ACCEL=kvm says yes
 * even without /dev/kvm, and qemu decides.
 */
bool vm_kvm_allowed(char *why, size_t len);

/*
 * Ask qemu itself whether KVM runs a guest: a firmware of a few hundred
 * bytes, under -accel kvm -cpu host as a run uses, that enters long mode
 * and runs 10 million instructions (milliseconds on a working KVM), within
 * 3 s. Returns 1 (it ran), 0 (it did not: why quotes qemu or says it took
 * too long) or -1 (cannot tell: no qemu, or qemu cannot run the test under
 * TCG either). dir is a folder for the firmware file.
 */
int vm_kvm_probe(const char *dir, char *why, size_t len);

#endif
