/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The peer testbed's agent on the far host; collector/cmd/cmd_peer_agent.c
 * starts it. A façade of peer_agent.c (the session and its requests),
 * peer_agent_answer.c (where its answers go) and peer_agent_ssh.c (a key
 * pinned to it).
 */
#ifndef IPSECPERF_PEER_AGENT_H
#define IPSECPERF_PEER_AGENT_H

#include <jansson.h>
#include <stdio.h>

/*
 * Answer the requests of stdin, one JSON object a line, until its end; an
 * exit status (EXIT_FAIL when the input ended before any request).
 */
int peer_agent_serve(void);

/*
 * The agent started for a key pinned to it (command= in authorized_keys):
 * cmd is what the key was asked for (SSH_ORIGINAL_COMMAND), served when the
 * peer testbed sends it (peer_agent_ssh.c), else refused with
 * PEER_AGENT_PINNED_EXIT and why on stderr; an exit status.
 */
int peer_agent_pinned(const char *cmd);

/*
 * The agent's state made (0, or -1 said why) and unmade; one request
 * answered; where answers go (NULL: stdout). peer_agent_serve does all of
 * it; the fuzzer (tests/fuzz/fuzz_peer_agent.c) calls them one by one.
 */
int peer_agent_init(void);
void peer_agent_fini(void);
void peer_agent_dispatch(json_t *req);
void peer_agent_answer_to(FILE *f);

/*
 * Undo one journal record of ipsec.c's kinds (xfrm-state, xfrm-policy,
 * modules), given as JSON text; an exit status (JOURNAL_LEFT_EXIT: not
 * undone safely, said on stderr).
 */
int peer_agent_undo(const char *record);

#endif
