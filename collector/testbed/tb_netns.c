// SPDX-License-Identifier: GPL-2.0
/*
 * The netns testbed as the matrix sees it (matrix.h): two namespaces on this
 * host (testbed_netns.c makes them), the offloads and the SAs in each, the
 * load between them, and the SAs' counters read at the window's edges.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipsec.h"
#include "journal.h"
#include "link_mtu.h"
#include "load.h"
#include "matrix.h"
#include "offload.h"
#include "probes.h"
#include "options.h"
#include "testbed.h"

struct netns_tb {
	struct testbed tb;
	struct ipsec_sas sas; /* the scenario's SAs */
	/*
	 * The SAs' counters at the window's edges, so that "sa" and the probe
	 * counts cover one interval; the whole load (quiet at both ends, so
	 * exact) is kept as "sa_load" beside the probes' "count_load".
	 */
	json_t *sa_open, *sa_close;
	char sa_why[512];
};

static void *netns_setup_ops(const struct run_config *cfg, struct results_writer *res)
{
	struct netns_tb *n = calloc(1, sizeof(*n));
	struct testbed_config tc = testbed_config_of(cfg);

	if (n && netns_setup(&n->tb, &tc) == 0) {
		/* sender and receiver side by side on this host's CPUs */
		writer_conditions(res, writer_setup(res, false), n->tb.cpu_tx, n->tb.cpu_rx, "");
		return n;
	}
	free(n);
	return NULL;
}

static void netns_teardown(void *tb)
{
	struct netns_tb *n = tb;

	json_decref(n->sa_open);
	json_decref(n->sa_close);
	free(n); /* the namespaces go with the journal's undo */
}

static void netns_ends(void *arg, const struct endpoint **tx, const struct endpoint **rx, struct ipsec_sas **sas)
{
	struct netns_tb *n = arg;

	*tx = &n->tb.ep_tx;
	*rx = &n->tb.ep_rx;
	*sas = &n->sas;
}

/* Can this kernel run the scenario's load (TCP-MD5, TCP-AO)? Both ends share it. */
static int netns_possible(void *arg, const struct scenario *sc, char *why, size_t len)
{
	struct endpoint here = ((struct netns_tb *)arg)->tb.ep_tx;

	if (journal_dry_run()) /* no namespace yet: ask this kernel, where the run stands */
		here.netns = NULL;
	return load_check_at(&here, sc, why, len);
}

static void netns_probes_attach(void *arg, struct probes *pr, const struct run_config *cfg)
{
	struct netns_tb *n = arg;

	(void)cfg;
	if (pr)
		probes_attach_ns(pr, (const char *const[]){ n->tb.dev_tx, n->tb.dev_rx, NULL },
				 (const char *const[]){ n->tb.ns_tx, n->tb.ns_rx, NULL });
}

static void netns_probes_detach(void *arg, struct probes *pr)
{
	(void)arg;
	if (pr)
		probes_detach(pr);
}

static void netns_record_head(void *arg, json_t *rec)
{
	(void)arg;
	(void)rec;
}

static void netns_run_begin(void *arg, json_t *rec)
{
	struct netns_tb *n = arg;

	(void)rec;
	json_decref(n->sa_open); /* kept by run_end, which may be called again */
	json_decref(n->sa_close);
	n->sa_open = n->sa_close = NULL;
	n->sa_why[0] = '\0';
	ipsec_counters_begin(&n->sas);
}

static int netns_load(void *arg, const struct scenario *sc, const struct load_params *lp, struct load_result *lr)
{
	struct netns_tb *n = arg;
	struct load_params p = *lp;

	/* the link's ends, unless the matrix gave others (an encrypted link's devices) */
	p.tx = lp->tx ? lp->tx : &n->tb.ep_tx;
	p.rx = lp->rx ? lp->rx : &n->tb.ep_rx;
	p.sc = sc;
	return load_run(&p, lr);
}

static void netns_window(void *arg, int open)
{
	struct netns_tb *n = arg;
	json_t **at = open ? &n->sa_open : &n->sa_close;

	json_decref(*at);
	/* what the SAs counted since the load began (ipsec_counters_begin) */
	*at = ipsec_counters_read(&n->sas, IPSEC_SA_ALL, n->sa_why, sizeof(n->sa_why));
}

static void netns_tick(void *arg)
{
	(void)arg;
}

static void netns_record_cpu(void *arg, json_t *rec, const struct load_result *lr, const struct cpu_acct *cpu)
{
	struct netns_tb *n = arg;
	const struct testbed *tb = &n->tb;
	const char *method;
	uint64_t cycles = cpu_cycles(cpu, &method);

	json_object_set_new(rec, "cpu_busy_s",
			    json_pack("{s:f, s:f, s:f, s:o}", "sender", cpu_busy_s(cpu, tb->cpu_tx),
				      "receiver", cpu_busy_s(cpu, tb->cpu_rx), "total", cpu_busy_s(cpu, -1),
				      "per_cpu", record_busy_per_cpu(cpu)));
	json_object_set_new(rec, "cpu_window_s", json_real(cpu_window_s(cpu)));
	json_object_set_new(rec, "cpus", json_pack("{s:i, s:i}", "sender", tb->cpu_tx, "receiver", tb->cpu_rx));
	json_object_set_new(rec, "cycles", json_integer((json_int_t)cycles));
	json_object_set_new(rec, "cycles_method", json_string(method));
	json_object_set_new(rec, "cycles_per_byte", record_cpb(cycles, lr->bytes));
	record_instructions(rec, cpu, lr->bytes, "");
}

/* Idempotent: the SAs read again, the window's edges kept until the next run_begin. */
static int netns_run_end(void *arg, json_t *rec, char *why, size_t len)
{
	struct netns_tb *n = arg;
	int rc = ipsec_counters_record(&n->sas, rec, why, len);

	if (n->sa_open && n->sa_close) {
		json_object_set(rec, "sa_load", json_object_get(rec, "sa"));
		json_object_set_new(rec, "sa", probe_sa_window(n->sa_open, n->sa_close));
	}
	return rc;
}

static void netns_counters(void *arg, struct probes *pr, json_t *rec, const char *off_why)
{
	(void)arg;
	json_object_set_new(rec, "counters", pr ? probes_counters_json(pr, rec) : probes_counters_unavailable(off_why));
}

const struct testbed_ops netns_testbed_ops = {
	.run_slack_s = 1.0,
	.setup = netns_setup_ops,
	.teardown = netns_teardown,
	.ends = netns_ends,
	.possible = netns_possible,
	.probes_attach = netns_probes_attach,
	.probes_detach = netns_probes_detach,
	.record_head = netns_record_head,
	.run_begin = netns_run_begin,
	.load = netns_load,
	.window = netns_window,
	.tick = netns_tick,
	.record_cpu = netns_record_cpu,
	.run_end = netns_run_end,
	.counters = netns_counters,
};

/* netns, the default: two namespaces of this host and a veth pair. */
const struct testbed_entry testbed_netns = {
	.name = "netns",
	.mark = OPT_NETNS,
	.ops = &netns_testbed_ops,
};
