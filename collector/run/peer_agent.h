/* SPDX-License-Identifier: GPL-2.0 */
/* The peer testbed's agent on the far host (peer_agent.c); collector/cmd/cmd_peer_agent.c starts it. */
#ifndef IPSECPERF_PEER_AGENT_H
#define IPSECPERF_PEER_AGENT_H

/* Answer the requests of stdin, one JSON object a line, until its end; an exit status. */
int peer_agent_serve(void);

/*
 * Undo one journal record of ipsec.c's kinds (xfrm-state, xfrm-policy,
 * modules), given as JSON text; an exit status (JOURNAL_LEFT_EXIT: not
 * undone safely, said on stderr).
 */
int peer_agent_undo(const char *record);

#endif
