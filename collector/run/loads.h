/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The table of loads: a scenario's `load =` names one entry, and the run
 * asks the entry what the load can do, what it needs, how it runs and what
 * it records. Each load defines its entry in its own file (iperf3 in
 * load_iperf3.c, the built-in stream in load_stream_run.c); loads.c lists
 * them. A new load is its file, its line in load_kinds[] and its extern
 * here (docs/architecture.md, "Recipes"). No code outside this table
 * compares a load's name.
 *
 * A façade of loads.c (the table) and loads_find.c (the lookups).
 */
#ifndef IPSECPERF_LOADS_H
#define IPSECPERF_LOADS_H

#include <jansson.h>
#include <stddef.h>

struct endpoint;
struct scenario;
struct load_params;
struct load_result;

/* What a load can do besides one TCP stream from the sending end (struct load_kind's caps). */
#define LOAD_FLOWS 0x1    /* several flows (--flows) and either direction (--direction) */
#define LOAD_TCP_AUTH 0x2 /* puts a scenario's [tcp-auth] keys on its sockets */
#define LOAD_AGENT 0x4    /* its receiver is this program: on the peer testbed, its agent */
#define LOAD_ONE_WAY 0x8  /* sends from the sending end only: the SAs of the way back carry nothing */

/*
 * A request of the peer agent's that a load answers: its receiver on the
 * peer (`ipsecperf peer-agent`). answer gets the request and the load's
 * own state on the agent (NULL at first) and returns the answer line.
 */
struct load_agent_op {
	const char *op;
	json_t *(*answer)(json_t *req, void **state);
};

/* A program a load starts, and the Debian package that has it. */
struct load_need {
	const char *program, *package;
};

/*
 * One load: an entry of load_kinds[]. run starts it (both ends), opens and
 * closes the measured window through p->window, stops it and reads its
 * result into r (also under --dry-run, where it prints its commands).
 */
struct load_kind {
	const char *name;  /* the scenario's `load =` and the record's "load" */
	const char *title; /* in messages: "the built-in stream" */
	unsigned caps;     /* LOAD_* */
	const struct load_need *needs; /* the programs it starts, { NULL } last */
	const char *comm;  /* its sender's process name (/proc/PID/comm), or NULL: not a program of its own */
	/* Can endpoint e's kernel run sc's load? 0 yes; 1 no (why); -1 e was lost. Changes nothing. NULL: always. */
	int (*check_at)(const struct endpoint *e, const struct scenario *sc, char *why, size_t len);
	int (*run)(const struct load_params *p, struct load_result *r);
	/* What it adds to the run's record beyond record_load()'s, or NULL. */
	void (*record)(json_t *rec, const struct scenario *sc, const struct load_result *lr);
	/*
	 * The scenario's [load] keys (its settings: sizes, rates), checked once
	 * the file is read: 0, or -1 with why. NULL: it takes none.
	 */
	int (*check_keys)(const struct scenario *sc, char *why, size_t len);
	/*
	 * What its cycles and counters are counted per, besides bytes: with
	 * "transaction", the record's "transactions" gives "cycles_per_transaction"
	 * (and instructions_..., _sender, _receiver where those are) and each
	 * counter's "per_transaction". NULL: bytes only.
	 */
	const char *unit;
	/* The seconds a run takes beyond --omit and --duration (a search's steps); NULL: none. */
	int (*extra_s)(const struct scenario *sc);
	/* The agent's requests it answers ({ NULL } last), and its end (stop what state holds); NULL: none. */
	const struct load_agent_op *agent_ops;
	void (*agent_end)(void **state);
};

/* Every load, NULL last; the first is the default (a scenario without `load =`). */
extern const struct load_kind *const load_kinds[];
extern const struct load_kind load_kind_iperf3, load_kind_stream;
extern const struct load_kind load_kind_tcp_rr, load_kind_tcp_crr, load_kind_udp_rr, load_kind_udp_rate;

/* The load of that name, or NULL. */
const struct load_kind *load_find(const char *name);
/* The load whose sender is a process named comm (/proc/PID/comm), or NULL. */
const struct load_kind *load_comm(const char *comm);
/* The names of the loads with every cap of caps, as "a, b or c" (caps 0: all), into buf. */
const char *load_names(unsigned caps, char *buf, size_t len);

#endif
