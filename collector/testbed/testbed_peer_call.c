// SPDX-License-Identifier: GPL-2.0
/*
 * The peer testbed's transport: one request to the agent over its ssh
 * session, and the mark that the peer was lost. Below the orchestrator
 * (testbed_peer.c, collector/testbed/tb_peer.c) and the endpoints (endpoint_xfrm.c), which all
 * call it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "peer_run.h"
#include "testbed_peer_int.h"

void peer_lost(struct peer *p, const char *why)
{
	if (p->lost)
		return;
	p->lost = true;
	snprintf(p->lost_why, sizeof(p->lost_why), "%s", why);
}

static int send_line(struct peer *p, json_t *req, bool ahead)
{
	char *line = json_dumps(req, JSON_COMPACT);
	int rc;

	json_decref(req);
	if (!line)
		return -1;
	rc = ahead ? remote_session_send_ahead(&p->agent, line) : remote_session_send(&p->agent, line);
	free(line);
	if (rc < 0 && p->agent.lost)
		peer_lost(p, p->agent.lost_why);
	return rc;
}

int agent_send(struct peer *p, json_t *req)
{
	return send_line(p, req, false);
}

int agent_send_ahead(struct peer *p, json_t *req)
{
	return send_line(p, req, true);
}

json_t *agent_recv(struct peer *p)
{
	json_t *r = remote_session_recv(&p->agent, AGENT_TIMEOUT_MS);

	if (!r && p->agent.lost)
		peer_lost(p, p->agent.lost_why);
	return peer_answer(r);
}

json_t *agent_call(struct peer *p, json_t *req)
{
	return agent_send(p, req) < 0 ? NULL : agent_recv(p);
}
