/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A kernel's own debug info (elfutils' libdw): where functions that have
 * no symbol because they were inlined lie inside the functions that hold
 * them. Host side: the guest of a VM run has no vmlinux, so the host reads
 * it and hands the guest the anchors' text form (anchors.h).
 */
#ifndef IPSECPERF_KDWARF_H
#define IPSECPERF_KDWARF_H

#include <stddef.h>

#include "anchors.h"

/*
 * Every DW_TAG_inlined_subroutine whose function is one of names[],
 * with its entry pc and address ranges as offsets from the symbols of
 * path's symbol table that hold them (those /proc/kallsyms shows, the
 * first of their name), into a; its build id and source (path) too.
 * Returns how many instances it found (a range it cannot name by a
 * symbol is left out), or -1 with why (no such file, no DWARF, no symbol
 * table, no build id, more instances than a holds).
 */
int kdwarf_anchors(const char *path, const char *const *names, int nnames, struct anchors *a,
		   char *why, size_t wlen);

/*
 * kdwarf_anchors for the functions the probes anchor in (probes_sites.c):
 * xfrm4_transport_output, xfrm_outer_mode_output, esp_alloc_tmp,
 * esp_output_tail.
 */
int kdwarf_probe_anchors(const char *path, struct anchors *a, char *why, size_t wlen);

#endif
