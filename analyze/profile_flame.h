/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Flame graphs of the profiles `run --profile` recorded: one per kernel
 * and scenario, and the differential ones (each ESP scenario against
 * no-gso, each kernel against the first), for `report --profile -f svg`
 * and the HTML report.
 */
#ifndef IPSECPERF_PROFILE_FLAME_H
#define IPSECPERF_PROFILE_FLAME_H

#include <stdbool.h>
#include <stdio.h>

#include "profile_load.h"

/*
 * The flame graph of g, or with base its difference against base (the
 * same kernel: scenarios; the same scenario: kernels), as SVG with the
 * element id id ([A-Za-z0-9-]). Frames are sized by cycles per byte when
 * every run has them (each run weighs as much as the text's mean does),
 * else by share of the busy samples. -1 on a write error or out of memory.
 */
int profile_flame_svg(FILE *f, const struct pgroup *base, const struct pgroup *g, const char *id,
		      bool standalone);

/*
 * The HTML report's section of flame graphs for the profiled runs of
 * dirs: every kernel and scenario, then the default differences. A
 * profile that cannot be read is said in the page and on stderr; the
 * report goes on. Returns the number of graphs drawn, -1 on a write error.
 */
int profile_flame_html(FILE *f, char *const dirs[], int ndirs);

/*
 * The default base of g for a differential graph, or NULL: by_kernel,
 * g's scenario on the first kernel; else no-gso on g's kernel for an ESP
 * scenario (the study's pair), or without no-gso the kernel's first
 * scenario for every other one.
 */
const struct pgroup *profile_flame_base(const struct preport *r, const struct pgroup *g, bool by_kernel);

#endif
