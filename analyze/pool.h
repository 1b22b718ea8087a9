/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Several results directories read as one (one per CI job or per machine):
 * each keeps its meta.json apart, for its provenance; their runs are pooled
 * into one set whose records say which directory they came from.
 */
#ifndef IPSECPERF_POOL_H
#define IPSECPERF_POOL_H

#include <stdbool.h>

#include "results.h"

/*
 * Load dirs[0..ndirs) into src (one per directory, meta only: the runs are
 * moved into all, where run_record.source is the index in src). A
 * directory given twice is refused. Returns 0, or -1 after printing one
 * "ipsecperf: ..." line (src and all are then empty).
 */
int pool_load(char *const dirs[], int ndirs, struct results **src, int *nsrc, struct results *all);
void pool_free(struct results *src, int nsrc, struct results *all);

/* One directory, by name or by another path to it (results/A, ./results/A/). */
bool pool_same_dir(const char *a, const char *b);

/* The directories that hold runs of a group of all, as a bit mask of src indexes. */
unsigned long long pool_group_sources(const struct results *all, const struct run_group *g);

#define POOL_MAX_DIRS 64

#endif
