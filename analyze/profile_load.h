/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The profiles of results directories, read for `report --profile` and the
 * report's flame graphs: per kernel and scenario, each run's folded stacks
 * and summary, and their merge.
 */
#ifndef IPSECPERF_PROFILE_LOAD_H
#define IPSECPERF_PROFILE_LOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "profile.h"

/* The profiled ok runs of one kernel and scenario. */
struct pgroup {
	char *kernel, *scenario;
	struct prof_summary *runs;  /* each run's, reduced */
	struct prof_folded *rfold;  /* each run's stacks (runs[i] is their summary) */
	int nruns, cap;             /* runs and rfold have room for cap */
	struct prof_folded folded;  /* every run's stacks, merged */
	struct prof_summary merged;
	int hz;
};

struct preport {
	struct pgroup *g;
	int ng;
	int skipped;      /* ok runs without a usable profile */
	size_t nstacks;   /* stacks read, of all runs */
	char *first_skip;
	bool with_kernel; /* groups of more than one kernel */
};

/*
 * The profiled runs of dirs into r, each group's stacks finished and its
 * runs merged. Returns EXIT_OK, or an exit status with the reason in err
 * (one line) and r freed.
 */
int profile_load(struct preport *r, char *const dirs[], int ndirs, char *err, size_t errlen);
void preport_free(struct preport *r);

/* The group of one kernel and scenario, or NULL. */
struct pgroup *preport_group(const struct preport *r, const char *kernel, const char *scenario);

#endif
