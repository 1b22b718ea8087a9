/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lossless-rate search: the highest offered packet rate at which the
 * path loses at most a threshold of what was sent (0.1% by default, as
 * OpenBSD's nightly regress finds its UDP rate; FD.io CSIT's NDR is the
 * same search at 0%). The first step sends as fast as the sender can; if
 * that loses too much, the rate is bisected between the highest rate that
 * passed and the lowest that failed, until the two are within a
 * resolution or the steps run out. Pure arithmetic: whoever drives it
 * offers each rate and reports what was sent and received.
 */
#ifndef IPSECPERF_RATE_SEARCH_H
#define IPSECPERF_RATE_SEARCH_H

#include <stdbool.h>
#include <stdint.h>

#define RATE_MAX_STEPS 32
#define RATE_MIN_PPS 10.0 /* below this the search gives up: the path loses at any rate */

struct rate_step {
	double offered_pps;  /* 0: unlimited */
	double seconds;
	uint64_t sent, received;
	double sent_pps;     /* what the sender achieved */
	double loss;         /* (sent - received) / sent, 0..1 */
	bool pass;
};

struct rate_search {
	double threshold;    /* the loss allowed, a fraction (0.001) */
	double resolution;   /* stop when hi - lo <= resolution * hi */
	int max_steps;
	double lo, hi;       /* the highest rate that passed, the lowest that failed (0: none yet) */
	int best;            /* the step at lo, -1: none passed */
	int nsteps;
	bool done;
	struct rate_step step[RATE_MAX_STEPS];
};

void rate_search_init(struct rate_search *s, double threshold, double resolution, int max_steps);

/* The next rate to offer, packets/s (0: as fast as the sender can); -1 when the search is done. */
double rate_search_next(const struct rate_search *s);

/* What the step at rate offered (rate_search_next's) sent and received in seconds. */
void rate_search_step(struct rate_search *s, double offered, uint64_t sent, uint64_t received, double seconds);

/* The answer: the step that passed at the highest rate, or NULL when none did. */
const struct rate_step *rate_search_best(const struct rate_search *s);

#endif
