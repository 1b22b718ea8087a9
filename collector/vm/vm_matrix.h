/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The vm testbed's matrix, kernel by kernel, and its summary (vm_matrix.c).
 */
#ifndef IPSECPERF_VM_MATRIX_H
#define IPSECPERF_VM_MATRIX_H

#include <stdio.h>

#include "run.h"

struct results_writer;

/*
 * The vm testbed's matrix: every --kernel in turn, each running the whole
 * matrix; the host's kernel moves to meta.json's "host_kernel" and
 * "kernels" lists the guests'. Returns the number of failed runs.
 */
int vm_run_matrix(const struct run_config *cfg, struct results_writer *res);

/*
 * Print the kernels side by side, scenario by scenario, from
 * resultsdir/runs.jsonl: median throughput (min-max, n) per kernel.
 */
int vm_print_summary(FILE *f, const char *resultsdir);

#endif
