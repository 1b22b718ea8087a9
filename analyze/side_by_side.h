/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernels side by side, scenario by scenario: the table `run` prints
 * after a VM matrix of several kernels, and `report --side-by-side`.
 */
#ifndef IPSECPERF_SIDE_BY_SIDE_H
#define IPSECPERF_SIDE_BY_SIDE_H

#include <stdio.h>

#include "results.h"

/* What follows a kernel's name in the K1 = ... lines: " (TCG)", or "". */
typedef const char *(*kernel_note_fn)(const char *release, const void *arg);

/*
 * Median throughput and cycles per byte (min-max, n) per kernel; K2.. with
 * their change from K1. Nothing when r holds fewer than two kernels.
 */
int kernels_side_by_side(FILE *f, const struct results *r, kernel_note_fn note, const void *arg);

#endif
