// SPDX-License-Identifier: GPL-2.0
/*
 * The peer testbed's transport: one request to the agent over its ssh
 * session, and the mark that the peer was lost. Below the orchestrator
 * (testbed_peer.c, run/tb_peer.c) and the endpoints (endpoint_xfrm.c), which all
 * call it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "testbed_peer_int.h"

void peer_lost(struct peer *p, const char *why)
{
	if (p->lost)
		return;
	p->lost = true;
	snprintf(p->lost_why, sizeof(p->lost_why), "%s", why);
}

json_t *agent_call(struct peer *p, json_t *req)
{
	char *line = json_dumps(req, JSON_COMPACT);
	json_t *r;

	json_decref(req);
	if (!line)
		return NULL;
	r = remote_session_call(&p->agent, line, AGENT_TIMEOUT_MS);
	free(line);
	if (!r && p->agent.lost)
		peer_lost(p, p->agent.lost_why);
	if (r && !json_is_true(json_object_get(r, "ok")) && !json_object_get(r, "error")) {
		json_decref(r);
		r = NULL;
	}
	return r;
}
