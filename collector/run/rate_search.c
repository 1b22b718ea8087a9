// SPDX-License-Identifier: GPL-2.0
/* The lossless-rate bisection (rate_search.h). */
#include <string.h>

#include "rate_search.h"

void rate_search_init(struct rate_search *s, double threshold, double resolution, int max_steps)
{
	memset(s, 0, sizeof(*s));
	s->threshold = threshold;
	s->resolution = resolution;
	s->max_steps = max_steps < 1 ? 1 : max_steps > RATE_MAX_STEPS ? RATE_MAX_STEPS : max_steps;
	s->best = -1;
}

double rate_search_next(const struct rate_search *s)
{
	if (s->done)
		return -1;
	/* as fast as the sender can: if that passes, there is nothing to search (again after a step that sent nothing) */
	if (s->hi == 0)
		return 0;
	/* a step that sent nothing (its sender got no CPU) said nothing of the path: the same rate again */
	if (s->nsteps && !s->step[s->nsteps - 1].sent && s->step[s->nsteps - 1].offered_pps > 0)
		return s->step[s->nsteps - 1].offered_pps;
	return s->lo > 0 ? (s->lo + s->hi) / 2 : s->hi / 2;
}

void rate_search_step(struct rate_search *s, double offered, uint64_t sent, uint64_t received, double seconds)
{
	struct rate_step *st;

	if (s->done || s->nsteps >= s->max_steps)
		return;
	st = &s->step[s->nsteps];
	st->offered_pps = offered;
	st->seconds = seconds;
	st->sent = sent;
	st->received = received;
	st->sent_pps = seconds > 0 ? sent / seconds : 0;
	/* more received than sent (a duplicate, a packet of the step before) is no loss */
	st->loss = sent && received < sent ? (double)(sent - received) / sent : sent ? 0 : 1;
	st->pass = sent > 0 && st->loss <= s->threshold;
	/* the rate the path saw: what was sent, which a slow sender keeps below the offer */
	double rate = offered > 0 && st->sent_pps > offered ? offered : st->sent_pps;

	if (!sent) {
		/* nothing sent: no answer about the path, only a step spent */
	} else if (st->pass) {
		if (rate > s->lo) {
			s->lo = rate;
			s->best = s->nsteps;
		}
	} else {
		s->hi = rate;
		/* a lower rate failed after a higher one passed: the path is not monotone, trust neither */
		if (rate <= s->lo) {
			s->lo = 0;
			s->best = -1;
		}
	}
	s->nsteps++;
	if ((st->pass && offered == 0) || s->nsteps >= s->max_steps ||
	    (s->lo > 0 && s->hi - s->lo <= s->resolution * s->hi) || (sent && s->lo == 0 && s->hi < RATE_MIN_PPS))
		s->done = true;
}

const struct rate_step *rate_search_best(const struct rate_search *s)
{
	return s->best >= 0 ? &s->step[s->best] : NULL;
}
