// SPDX-License-Identifier: GPL-2.0
/*
 * A scenario applied over the two ends of the link, the same on every
 * testbed (apply.h): its link MTU, its offloads, its SAs and its encrypted
 * link, each change journaled with its undo.
 */
#include <stdio.h>
#include <string.h>

#include "apply.h"
#include "enclink_run.h"
#include "endpoint.h"
#include "ipsec.h"
#include "journal.h"
#include "link_mtu.h"
#include "offload.h"
#include "scenario.h"

/* e's offloads; a failure on the peer says so (unless the peer was lost: that says it). */
static int offloads_at(const struct endpoint *e, const struct offload_list *ol, char *why, size_t len)
{
	int rc = offload_apply(e, ol, why, len);

	if (rc != 0 && ep_remote(e) && !ep_lost(e) && strncmp(why, "the peer", 8)) {
		char tmp[512];

		snprintf(tmp, sizeof(tmp), "the peer: %s", why);
		snprintf(why, len, "%s", tmp);
	}
	return rc;
}

int scenario_apply(const struct endpoint *tx, const struct endpoint *rx, const struct scenario *sc,
		   const struct ipsec_flows *fl, struct ipsec_sas *sas, struct enclink_run *el, char *why, size_t len)
{
	const struct endpoint *end[2] = { tx, rx };
	struct offload_list ol = scenario_offloads(sc);
	int rc = 0;

	for (int i = 0; i < 2 && rc == 0; i++)
		rc = link_mtu_apply(end[i], sc->mtu, ep_remote(end[i]) ? " on the peer" : "", why, len);
	for (int i = 0; i < 2 && rc == 0; i++)
		rc = offloads_at(end[i], &ol, why, len);
	if (rc == 0)
		rc = ipsec_apply(tx, rx, sc, fl, sas, why, len);
	if (rc == 0)
		rc = enclink_apply(tx, rx, sc, el, why, len);
	return rc;
}
