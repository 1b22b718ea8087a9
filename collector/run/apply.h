/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A scenario applied over the two ends of the link (apply.c): written once,
 * the matrix applies every scenario through it on every testbed.
 */
#ifndef IPSECPERF_APPLY_H
#define IPSECPERF_APPLY_H

#include <stddef.h>

struct enclink_run;
struct endpoint;
struct ipsec_sas;
struct scenario;

/*
 * sc's link MTU on tx then rx, its offloads on tx then rx, its SAs and
 * policies at both (into sas), and its encrypted link (into el: the load
 * then runs over its devices), each change journaled first: 0 done; 1
 * cannot here (skip, why); -1 failed (why).
 */
struct ipsec_flows;
int scenario_apply(const struct endpoint *tx, const struct endpoint *rx, const struct scenario *sc,
		   const struct ipsec_flows *fl, struct ipsec_sas *sas, struct enclink_run *el, char *why, size_t len);

#endif
