// SPDX-License-Identifier: GPL-2.0
/*
 * The peer testbed: this host sends, the peer (reached with ssh) receives,
 * over the link between --dev and --peer-dev. See testbed_peer.h and
 * docs/peer-testbed.md.
 *
 * What runs where:
 *   here      iperf3 client or the built-in stream's sender; ethtool -K on --dev;
 *             CPU accounting (sender); the BPF probes
 *   the peer  iperf3 -s -1 through ssh (bounded by timeout(1)); ethtool -K on
 *             --peer-dev, journaled here as "remote-argv" records; and, when
 *             ipsecperf is installed there, `ipsecperf peer-agent` over one ssh
 *             session for the whole run: the stream's receiver (its TCP-MD5/AO
 *             key sent on the session's stdin) and CPU accounting (receiver)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpu.h"
#include "exec.h"
#include "guest_tar.h"
#include "journal.h"
#include "load.h"
#include "log.h"
#include "matrix.h"
#include "offload.h"
#include "probes.h"
#include "remote.h"
#include "signals.h"
#include "testbed_peer.h"
#include "testbed_peer_int.h"
#include "version.h"


static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- the runner that puts offload.c's ethtool commands on the peer ---- */

static int peer_run(void *arg, char *const argv[], char **out, char **err)
{
	return remote_run(arg, argv, out, err);
}

static int peer_change(void *arg, char *const do_argv[], char *const undo_argv[], char **err)
{
	return remote_do(arg, do_argv, undo_argv, err);
}

/* ---- checks before the first run ---- */

static char *trim(char *s)
{
	size_t n = s ? strlen(s) : 0;

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}

/* Run argv here (h NULL) or on the peer; output in *out. 255 from ssh = unreachable. */
static int run_on(const struct host *h, char *const argv[], char **out, char **err)
{
	return h ? remote_run(h, argv, out, err) : exec_run(NULL, argv, out, err);
}

struct end {
	const char *name;    /* "this host" or the peer's destination */
	const char *dev;
	int mtu;
	char state[16];
	struct link_info li;
	char driver[200];    /* ethtool -i: driver, version, firmware */
};

static int check_end(struct peer *p, const struct host *h, struct end *e, const char *want_addr,
		     char *addr, size_t alen, char *why, size_t len)
{
	char *out = NULL, *err = NULL;
	int st, prefix;

	st = run_on(h, (char *[]){ "ip", "-j", "addr", "show", "dev", (char *)e->dev, NULL }, &out, &err);
	if (st == 255 && h) {
		snprintf(why, len, "cannot reach the peer with ssh: %s (`ssh -o BatchMode=yes %s true` must work without a password: set up a key, e.g. with ssh-copy-id)",
			 trim(err) && *err ? err : "ssh failed", h->ssh_dest);
		goto fail;
	}
	if (st != 0 || peer_parse_ip_link(out, &e->mtu, e->state, sizeof(e->state)) < 0) {
		snprintf(why, len, "%s has no device %s (ip addr show dev %s: %s)", e->name, e->dev, e->dev,
			 err && *trim(err) ? err : "no output");
		goto fail;
	}
	if (want_addr) {
		if (peer_parse_ip_addr(out, NULL, want_addr, addr, alen, &prefix) < 0) {
			snprintf(why, len, "%s is not an address of %s on %s; give one of its addresses (ip addr show dev %s), or none to take its first",
				 want_addr, e->dev, e->name, e->dev);
			goto fail;
		}
	} else if (peer_parse_ip_addr(out, p->family == AF_INET6 ? "inet6" : "inet", NULL, addr, alen, &prefix) < 0 &&
		   (p->family || peer_parse_ip_addr(out, "inet6", NULL, addr, alen, &prefix) < 0)) {
		snprintf(why, len, "%s has no global %saddress on %s; add one (ip addr add ADDR/LEN dev %s) or give --addr-%s",
			 e->name, p->family == AF_INET6 ? "IPv6 " : "", e->dev, e->dev, h ? "rx" : "tx");
		goto fail;
	}
	free(out);
	free(err);
	out = err = NULL;
	st = run_on(h, (char *[]){ "ethtool", (char *)e->dev, NULL }, &out, &err);
	if (st != 0 || peer_parse_ethtool(out, &e->li) < 0) {
		snprintf(why, len, "ethtool %s on %s failed: %s%s", e->dev, e->name, err && *trim(err) ? err : "no output",
			 st == 127 ? " (install the ethtool package there)" : "");
		goto fail;
	}
	free(out);
	free(err);
	out = err = NULL;
	if (run_on(h, (char *[]){ "ethtool", "-i", (char *)e->dev, NULL }, &out, NULL) == 0) {
		char drv[64] = "", ver[64] = "", fw[64] = "";

		for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n")) {
			sscanf(l, "driver: %63[^\n]", drv);
			sscanf(l, "version: %63[^\n]", ver);
			sscanf(l, "firmware-version: %63[^\n]", fw);
		}
		snprintf(e->driver, sizeof(e->driver), "%s%s%s%s%s", drv, ver[0] ? " " : "", ver,
			 fw[0] ? ", firmware " : "", fw);
	}
	free(out);
	return 0;
fail:
	free(out);
	free(err);
	return -1;
}

static int family_of(const char *a)
{
	unsigned char b[16];

	return inet_pton(AF_INET, a, b) == 1 ? AF_INET : inet_pton(AF_INET6, a, b) == 1 ? AF_INET6 : 0;
}

/* Deliverable 3: link up, speed and MTU alike on both ends, the peer reachable, the tools there. */
/* What installs this version on the peer, as a person would type it (docs/peer-testbed.md). */
static const char *peer_install_command(const struct peer *p, char *buf, size_t len)
{
	snprintf(buf, len, "scp %s %s:/tmp/ && ssh %s apt-get install -y --no-install-recommends /tmp/%s, the .deb from `make deb`",
		 IPSECPERF_DEB, p->h.ssh_dest, p->h.ssh_dest, IPSECPERF_DEB);
	return buf;
}

/*
 * The agent's hello names its release and its git describe. Another release
 * may speak another protocol: say so, with the fix; the same release built
 * from another tree is only worth a note.
 */
static void peer_version_check(const struct peer *p, json_t *hello)
{
	const char *v = json_string_value(json_object_get(hello, "version"));
	const char *git = json_string_value(json_object_get(hello, "git"));
	char how[512], vs[64], gs[128];

	/* the peer's answer is data: nothing of it reaches the terminal as a control sequence */
	if (v)
		v = guest_printable(v, strlen(v), vs, sizeof(vs));
	if (git)
		git = guest_printable(git, strlen(git), gs, sizeof(gs));

	if (!v || strcmp(v, IPSECPERF_VERSION))
		pr_warn("run: the peer's ipsecperf is %s%s%s%s, this one %s; install this version there: %s",
			v ? v : "of unknown version", git ? " (" : "", git ? git : "", git ? ")" : "",
			IPSECPERF_VERSION_FULL, peer_install_command(p, how, sizeof(how)));
	else if (!git || strcmp(git, IPSECPERF_GITDESC))
		pr_info("run: the peer's ipsecperf is %s (%s), this one %s", v, git ? git : "unknown",
			IPSECPERF_VERSION_FULL);
}

static int peer_checks(struct peer *p, struct results_writer *res, char *why, size_t len)
{
	const struct run_config *c = p->cfg;
	struct end me = { .name = "this host", .dev = c->dev }, them = { .name = c->peer, .dev = c->peer_dev };
	struct utsname u;
	char *out = NULL, *err = NULL;
	int st;

	if (c->addr_tx_set)
		p->family = family_of(c->addr_tx);
	if (check_end(p, &p->h, &them, c->addr_rx_set ? c->addr_rx : NULL, p->addr_rx, sizeof(p->addr_rx), why, len) < 0)
		return -1;
	if (!p->family)
		p->family = family_of(p->addr_rx);
	if (check_end(p, NULL, &me, c->addr_tx_set ? c->addr_tx : NULL, p->addr_tx, sizeof(p->addr_tx), why, len) < 0)
		return -1;
	if (family_of(p->addr_tx) != family_of(p->addr_rx)) {
		snprintf(why, len, "the addresses %s (here) and %s (the peer) are of different families; give --addr-tx and --addr-rx",
			 p->addr_tx, p->addr_rx);
		return -1;
	}
	for (int i = 0; i < 2; i++) {
		struct end *e = i ? &them : &me;

		if (e->li.link == 0 || !strcmp(e->state, "DOWN") || !strcmp(e->state, "LOWERLAYERDOWN")) {
			snprintf(why, len, "the link of %s on %s is down (operstate %s, ethtool: Link detected: %s); bring it up (ip link set %s up) and check the cable",
				 e->dev, e->name, e->state, e->li.link == 0 ? "no" : "yes", e->dev);
			return -1;
		}
	}
	if (me.mtu != them.mtu) {
		snprintf(why, len, "MTU differs: %d on %s here, %d on %s on the peer; set both alike (ip link set DEV mtu N)",
			 me.mtu, me.dev, them.mtu, them.dev);
		return -1;
	}
	if (me.li.speed_mbps > 0 && them.li.speed_mbps > 0 && me.li.speed_mbps != them.li.speed_mbps) {
		snprintf(why, len, "link speed differs: %d Mb/s on %s here, %d Mb/s on %s on the peer (ethtool DEV); the two ends negotiated differently",
			 me.li.speed_mbps, me.dev, them.li.speed_mbps, them.dev);
		return -1;
	}
	if (me.li.speed_mbps < 0 || them.li.speed_mbps < 0)
		pr_info("run: the link speed of %s is unknown to ethtool; not compared",
			me.li.speed_mbps < 0 ? me.dev : them.dev);
	if (c->cpu_tx >= cpu_count()) {
		snprintf(why, len, "--cpu-tx %d: this host has %d CPUs (0-%d)", c->cpu_tx, cpu_count(), cpu_count() - 1);
		return -1;
	}
	/* the peer's tools */
	st = remote_run(&p->h, (char *[]){ "iperf3", "--version", NULL }, &out, &err);
	if (st != 0) {
		snprintf(why, len, "iperf3 does not run on the peer (%s); install the iperf3 package there",
			 err && *trim(err) ? err : "no message");
		free(out);
		free(err);
		return -1;
	}
	free(out);
	free(err);
	out = err = NULL;
	if (remote_run(&p->h, (char *[]){ "timeout", "--version", NULL }, &out, NULL) != 0) {
		snprintf(why, len, "timeout(1) does not run on the peer; install coreutils there");
		free(out);
		return -1;
	}
	free(out);
	out = NULL;
	if (remote_run(&p->h, (char *[]){ "uname", "-r", NULL }, &out, NULL) == 0)
		snprintf(p->peer_kernel, sizeof(p->peer_kernel), "%s", trim(out));
	free(out);
	out = NULL;
	/* which addresses ssh itself uses: "client port server port", as sshd tells the session */
	if (remote_run(&p->h, (char *[]){ "printenv", "SSH_CONNECTION", NULL }, &out, NULL) == 0) {
		char cli[64] = "", srv[64] = "";

		snprintf(p->ssh_conn, sizeof(p->ssh_conn), "%s", trim(out));
		if (sscanf(p->ssh_conn, "%63s %*s %63s", cli, srv) == 2)
			p->ssh_on_link = !strcmp(cli, p->addr_tx) || !strcmp(srv, p->addr_rx);
	}
	free(out);
	uname(&u);
	snprintf(p->kernel, sizeof(p->kernel), "%s", u.release);

	/* the agent: the peer's ipsecperf, when it has one */
	const char *prog = p->prog;

	if (remote_session_open(&p->agent, &p->h, (char *[]){ (char *)prog, "peer-agent", NULL }) == 0) {
		json_t *r = remote_session_call(&p->agent, "{\"op\":\"hello\"}", AGENT_TIMEOUT_MS);

		if (r && json_is_true(json_object_get(r, "ok"))) {
			p->have_agent = true;
			if (c->cpu_rx >= json_integer_value(json_object_get(r, "ncpu"))) {
				snprintf(why, len, "--cpu-rx %d: the peer has %d CPUs (0-%d)", c->cpu_rx,
					 (int)json_integer_value(json_object_get(r, "ncpu")),
					 (int)json_integer_value(json_object_get(r, "ncpu")) - 1);
				json_decref(r);
				return -1;
			}
			peer_version_check(p, r);
		} else {
			char how[512];

			snprintf(p->no_agent_why, sizeof(p->no_agent_why),
				 "`%.80s peer-agent` does not run on the peer (%.200s); install ipsecperf there (%.400s) or give --peer-ipsecperf PATH",
				 prog, p->agent.lost ? p->agent.lost_why : "it did not answer",
				 peer_install_command(p, how, sizeof(how)));
			remote_session_close(&p->agent);
		}
		json_decref(r);
	} else {
		snprintf(p->no_agent_why, sizeof(p->no_agent_why), "cannot start ssh: %s", strerror(errno));
	}
	if (!p->have_agent)
		pr_warn("run: %s; scenarios that need it (TCP-MD5/AO keys, ESP) are skipped, and the receiver's cycles are not estimated",
			p->no_agent_why);

	/* provenance: both ends, for meta.json */
	if (res && res->meta) {
		json_t *e[2];

		for (int i = 0; i < 2; i++) {
			struct end *x = i ? &them : &me;

			e[i] = json_pack("{s:s, s:s, s:i, s:s, s:s, s:s}", "host", i ? c->peer : "local", "dev", x->dev,
					 "mtu", x->mtu, "operstate", x->state, "duplex", x->li.duplex, "driver", x->driver);
			json_object_set_new(e[i], "speed_mbps", x->li.speed_mbps > 0 ? json_integer(x->li.speed_mbps) : json_null());
			json_object_set_new(e[i], "kernel", json_string(i ? p->peer_kernel : p->kernel));
			json_object_set_new(e[i], "address", json_string(i ? p->addr_rx : p->addr_tx));
		}
		json_object_set_new(res->meta, "peer", json_pack("{s:s, s:o, s:o, s:b, s:s}", "ssh_dest", c->peer,
								  "sender", e[0], "receiver", e[1], "agent",
								  p->have_agent, "agent_why", p->no_agent_why));
		writer_write_meta(res);
	}
	return 0;
}

/* ---- CPU accounting on both hosts, at the window's edges ---- */

static long long peer_stat(struct peer *p, char *why, size_t len)
{
	char *out = NULL, *err = NULL;
	long long t = -1;
	int st = remote_run(&p->h, (char *[]){ "cat", "/proc/stat", NULL }, &out, &err);

	if (st == 0)
		t = peer_stat_busy_ticks(out);
	else if (st == 255)
		peer_lost(p, "ssh could not reach the peer to read /proc/stat");
	if (t < 0)
		snprintf(why, len, "cannot read the peer's /proc/stat: %s", err && *trim(err) ? err : "no cpuN lines");
	free(out);
	free(err);
	return t;
}

/* The peer's part of the window's edges: the SAs' counters, the receiver's CPU. */
static void peer_window_open(struct peer *p)
{
	struct peer_window *w = &p->w;

	peer_ipsec_begin(p);
	w->rx_ok = false;
	if (p->have_agent) {
		json_t *r = agent_call(p, json_pack("{s:s}", "op", "cpu-start"));

		w->rx_ok = r && json_is_true(json_object_get(r, "ok"));
		json_decref(r);
	} else {
		w->stat0 = peer_stat(p, w->rx_why, sizeof(w->rx_why));
		w->rx_ok = w->stat0 >= 0;
	}
}

static void peer_window_close(struct peer *p)
{
	struct peer_window *w = &p->w;

	if (w->rec && !p->lost) {
		w->sa_rc = peer_ipsec_record(p, w->rec, w->sa_why, sizeof(w->sa_why));
		w->sa_done = true;
	}
	if (!w->rx_ok)
		return;
	w->rx_ok = false;
	if (p->have_agent) {
		json_t *r = agent_call(p, json_pack("{s:s}", "op", "cpu-stop"));

		if (r && json_is_true(json_object_get(r, "ok"))) {
			w->rx_busy_s = json_number_value(json_object_get(r, "busy_s"));
			w->rx_cycles = (uint64_t)json_integer_value(json_object_get(r, "cycles"));
			w->rx_have_cycles = true;
			snprintf(w->rx_method, sizeof(w->rx_method), "%s",
				 json_string_value(json_object_get(r, "method")) ?: "estimated");
			w->rx_ok = true;
		}
		json_decref(r);
	} else {
		long long t1 = peer_stat(p, w->rx_why, sizeof(w->rx_why));

		if (t1 >= 0) {
			/* USER_HZ: 100 on every Linux architecture that /proc/stat reports in */
			w->rx_busy_s = (t1 - w->stat0) / 100.0;
			w->rx_ok = true;
		}
	}
}

static void peer_window(void *tb, int open)
{
	if (open)
		peer_window_open(tb);
	else
		peer_window_close(tb);
}

static void peer_tick(void *tb)
{
	struct peer *p = tb;

	/* the agent exits after a silence (a hung connection); and a ping finds a lost one early */
	if (p->have_agent && !p->lost && now() - p->last_ping >= 5) {
		p->last_ping = now();
		json_decref(agent_call(p, json_pack("{s:s}", "op", "ping")));
	}
}

/* ---- records ---- */

static void peer_record_head(void *tb, json_t *rec)
{
	struct peer *p = tb;

	json_object_set_new(rec, "peer_kernel", json_string(p->peer_kernel));
	json_object_set_new(rec, "peer", json_string(p->h.ssh_dest));
}

/* The receiver's cycles, or why they are unknown, and the sums. */
static void record_rx_cycles(struct peer *p, json_t *rec, const struct load_result *lr, uint64_t tx_cycles,
			     const char *method)
{
	struct peer_window *w = &p->w;

	if (w->rx_ok && w->rx_have_cycles) {
		json_object_set_new(rec, "cycles_receiver", json_integer((json_int_t)w->rx_cycles));
		json_object_set_new(rec, "cycles_method_receiver", json_string(w->rx_method));
		json_object_set_new(rec, "cycles_per_byte_receiver", record_cpb(w->rx_cycles, lr->bytes));
		/* the sum, comparable with the one-host testbeds' figure */
		json_object_set_new(rec, "cycles", json_integer((json_int_t)(tx_cycles + w->rx_cycles)));
		json_object_set_new(rec, "cycles_method",
				    json_string(!strcmp(method, "pmu") && !strcmp(w->rx_method, "pmu") ? "pmu" : "estimated"));
		json_object_set_new(rec, "cycles_per_byte", record_cpb(tx_cycles + w->rx_cycles, lr->bytes));
	} else {
		char why[400];

		snprintf(why, sizeof(why), "unavailable: %s", w->rx_ok ? "no agent on the peer to count its cycles"
			 : w->rx_why[0] ? w->rx_why : "the peer's CPU could not be read");
		json_object_set_new(rec, "cycles_receiver", json_null());
		json_object_set_new(rec, "cycles_method_receiver", json_string(why));
		json_object_set_new(rec, "cycles_per_byte_receiver", json_null());
		json_object_set_new(rec, "cycles", json_integer((json_int_t)tx_cycles));
		json_object_set_new(rec, "cycles_method", json_string(method));
		json_object_set_new(rec, "cycles_per_byte", json_null());
	}
}

static void peer_record_cpu(void *tb, json_t *rec, const struct load_result *lr, const struct cpu_acct *cpu)
{
	struct peer *p = tb;
	const char *method;
	uint64_t tx_cycles = cpu_cycles(cpu, &method);

	/* two hosts: each figure is the whole host's CPUs, measured on that host */
	json_object_set_new(rec, "cpu_busy_s", json_pack("{s:f, s:o}", "sender", cpu_busy_s(cpu, -1), "receiver",
							 p->w.rx_ok ? json_real(p->w.rx_busy_s) : json_null()));
	json_object_set_new(rec, "cpu_window_s", json_real(cpu_window_s(cpu)));
	/* where sender and receiver ran: pinned (--cpu-tx, --cpu-rx) or -1, where the scheduler put them */
	json_object_set_new(rec, "cpus", json_pack("{s:i, s:i}", "sender", p->cfg->cpu_tx, "receiver", p->cfg->cpu_rx));
	json_object_set_new(rec, "cycles_sender", json_integer((json_int_t)tx_cycles));
	json_object_set_new(rec, "cycles_method_sender", json_string(method));
	json_object_set_new(rec, "cycles_per_byte_sender", record_cpb(tx_cycles, lr->bytes));
	record_rx_cycles(p, rec, lr, tx_cycles, method);
}

static void peer_run_begin(void *tb, json_t *rec)
{
	struct peer *p = tb;

	memset(&p->w, 0, sizeof(p->w));
	p->w.rec = rec;
	peer_ipsec_begin(p); /* again at the window's open; this covers a load that fails before it */
}

static int peer_load(void *tb, const struct scenario *sc, const struct load_params *lp, struct load_result *lr)
{
	struct peer *p = tb;

	struct load_params l = *lp;

	l.tx = &p->ep_tx;
	l.rx = &p->ep_rx;
	l.sc = sc;
	return load_run(&l, lr);
}

/* The SAs' own counters, unless the window's close read them. */
static int peer_run_end(void *tb, json_t *rec, char *why, size_t len)
{
	struct peer *p = tb;

	if (!p->w.sa_done && !p->lost)
		p->w.sa_rc = peer_ipsec_record(p, rec, p->w.sa_why, sizeof(p->w.sa_why));
	if (!json_object_get(rec, "sa"))
		json_object_set_new(rec, "sa", json_array());
	p->w.rec = NULL;
	snprintf(why, len, "%s", p->w.sa_why);
	return p->w.sa_rc < 0 ? -1 : 0;
}

/* rec's "sa" list, only the SAs of host ("sender", "receiver"). */
static json_t *sa_of(json_t *rec, const char *host)
{
	json_t *sa = json_deep_copy(json_object_get(rec, "sa"));

	for (size_t i = json_array_size(sa); i-- > 0;)
		if (strcmp(json_string_value(json_object_get(json_array_get(sa, i), "host")) ?: "", host))
			json_array_remove(sa, i);
	return sa;
}

/* The peer's counters, by its agent, with the peer's SAs as their per-packet bases. */
static json_t *rx_counters(struct peer *p, json_t *rec, const char *off_why)
{
	json_t *c = NULL;

	if (p->peer_probes && !p->lost) {
		json_t *r = agent_call(p, json_pack("{s:s, s:o}", "op", "probes-counters", "sa", sa_of(rec, "receiver")));

		if (r && json_is_object(json_object_get(r, "counters")))
			c = json_incref(json_object_get(r, "counters"));
		json_decref(r);
	}
	return c ? c : probes_counters_unavailable(
		p->cfg->no_probes ? "probes not loaded (--no-probes)" : p->peer_probes_off ? off_why :
		p->have_agent ? (p->lost ? "the peer was lost" : "the peer's agent could not count")
			      : "no ipsecperf on the peer to load probes there");
}

static void peer_counters(void *tb, struct probes *pr, json_t *rec, const char *off_why)
{
	struct peer *p = tb;

	if (pr) {
		/* the probes count this host only: their per-packet bases are this host's SAs */
		json_t *mine = json_deep_copy(rec);
		static const char *const keys[] = { "probe_missed", "probe_cost" };

		json_object_set_new(mine, "sa", sa_of(rec, "sender"));
		json_object_set_new(rec, "counters", probes_counters_json(pr, mine));
		/* what the probes add about themselves (--probe-cost) belongs to the record */
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (json_object_get(mine, keys[i]))
				json_object_set(rec, keys[i], json_object_get(mine, keys[i]));
		json_decref(mine);
	} else {
		json_object_set_new(rec, "counters", probes_counters_unavailable(off_why));
	}
	json_object_set_new(rec, "counters_receiver", rx_counters(p, rec, off_why));
}

/* ---- scenarios ---- */

/* Can both kernels run sc? 0 yes; 1 no (skip, why). Changes nothing. */
static int scenario_possible(struct peer *p, const struct scenario *sc, char *why, size_t len)
{
	char w[300];

	if (sc->ipsec.on && p->ssh_on_link) {
		snprintf(why, len, "ssh reaches the peer over the link under test (%s -> %s): the scenario's ESP policies would take the ssh connection too; reach the peer over another network (--peer on the management address)",
			 p->addr_tx, p->addr_rx);
		return 1;
	}
	if (!sc->tcp_auth.method[0] && strcmp(sc->load, "stream"))
		return 0;
	if (load_check(sc, w, sizeof(w))) {
		snprintf(why, len, "this host: %s", w);
		return 1;
	}
	if (!p->have_agent) {
		snprintf(why, len, "the built-in stream%s needs ipsecperf on the peer: %s",
			 sc->tcp_auth.method[0] ? " and its key" : "", p->no_agent_why);
		return 1;
	}
	if (!sc->tcp_auth.method[0])
		return 0;
	json_t *r = agent_call(p, json_pack("{s:s, s:s, s:s}", "op", "tcp-auth-check", "method", sc->tcp_auth.method,
					    "ao_alg", sc->tcp_auth.ao_alg));
	int rc = 0;

	if (!r) {
		snprintf(why, len, "%.250s", p->lost ? p->lost_why : "the agent did not answer");
		rc = -1;
	} else if (!json_is_true(json_object_get(r, "can"))) {
		snprintf(why, len, "the peer (%s): %s", p->peer_kernel, json_string_value(json_object_get(r, "why")) ?: "cannot");
		rc = 1;
	}
	json_decref(r);
	return rc;
}

static int scenario_apply(struct peer *p, const struct scenario *sc, char *why, size_t len)
{
	struct offload_runner remote = { peer_run, peer_change, &p->h, " on the peer", true };
	char where[64];
	int rc;

	if (journal_dry_run())
		printf("# scenario %s: %s\n", sc->name, sc->description);
	else if ((rc = scenario_possible(p, sc, why, len)))
		return rc;
	rc = offload_apply(NULL, p->cfg->dev, sc, why, len);
	if (rc == 0) {
		rc = offload_apply_via(&remote, p->cfg->peer_dev, sc, why, len);
		if (rc != 0 && !p->lost && strncmp(why, "the peer", 8)) {
			char tmp[512];

			snprintf(where, sizeof(where), "the peer");
			snprintf(tmp, sizeof(tmp), "%s: %s", where, why);
			snprintf(why, len, "%s", tmp);
		}
	}
	if (rc == 0)
		rc = peer_ipsec_apply(p, sc, why, len);
	return rc;
}

static int host_from_cfg(struct host *h, const struct run_config *c, char *why, size_t len)
{
	memset(h, 0, sizeof(*h));
	if (!c->peer || !c->dev || !c->peer_dev) {
		snprintf(why, len, "--testbed peer needs --peer [user@]host, --dev IF (this host's end of the link) and --peer-dev IF (the peer's end)");
		return -1;
	}
	if (remote_check_dest(c->peer, why, len) < 0)
		return -1;
	h->ssh_dest = c->peer;
	for (int i = 0; i < c->nssh_opts && i < REMOTE_MAX_OPTS; i++) {
		if (remote_check_opt(c->ssh_opts[i], why, len) < 0)
			return -1;
		h->ssh_opts[h->nopts++] = c->ssh_opts[i];
	}
	return 0;
}

int peer_config_check(const struct run_config *cfg, char *why, size_t len)
{
	struct host h;

	return host_from_cfg(&h, cfg, why, len);
}

/* This host's probes on --dev; the peer's, by its agent, on its end of the link. */
static void peer_probes_attach(void *tb, struct probes *pr, const struct run_config *cfg)
{
	struct peer *p = tb;

	if (pr)
		probes_attach(pr, (const char *const[]){ cfg->dev, NULL });
	p->peer_probes_off = false;
	if (p->have_agent && !cfg->no_probes && !cfg->dry_run && !p->lost) {
		json_t *r = agent_call(p, json_pack("{s:s, s:s, s:b, s:b}", "op", "probes-attach", "dev", cfg->peer_dev,
						    "kprobes", !cfg->tracepoints_only, "cost", cfg->probe_cost));

		p->peer_probes = r && json_is_true(json_object_get(r, "ok"));
		json_decref(r);
	}
}

static void peer_probes_detach(void *tb, struct probes *pr)
{
	struct peer *p = tb;

	if (pr)
		probes_detach(pr);
	if (p->peer_probes && !p->lost) /* before the undo may unload a probed module there */
		json_decref(agent_call(p, json_pack("{s:s}", "op", "probes-detach")));
	if (p->peer_probes)
		p->peer_probes_off = true;
	p->peer_probes = false;
}

static const char *peer_lost_why(void *tb)
{
	struct peer *p = tb;

	return p->lost ? p->lost_why : NULL;
}

static void ep_lose(void *arg, const char *why)
{
	peer_lost(arg, why);
}

/* The endpoint's agent: one request line (it may hold a key), the answer. */
static json_t *ep_agent(void *arg, const char *line)
{
	struct peer *p = arg;
	json_t *r = remote_session_call(&p->agent, line, AGENT_TIMEOUT_MS);

	if (!r)
		peer_lost(p, p->agent.lost ? p->agent.lost_why : "the agent did not answer");
	return r;
}

static void *peer_setup(const struct run_config *cfg, struct results_writer *res)
{
	struct peer *p = calloc(1, sizeof(*p));
	char why[1024] = "";

	if (!p)
		return NULL;
	p->cfg = cfg;
	p->prog = cfg->peer_ipsecperf ? cfg->peer_ipsecperf : "ipsecperf";
	p->port = cfg->port;
	p->agent.pid = -1;
	p->agent.to_fd = p->agent.from_fd = p->agent.err_fd = -1;
	if (host_from_cfg(&p->h, cfg, why, sizeof(why)) < 0) {
		pr_warn("run: %s", why);
		free(p);
		return NULL;
	}
	if (peer_checks(p, res, why, sizeof(why)) < 0) {
		pr_warn("run: peer testbed: %s", why);
		remote_session_close(&p->agent);
		free(p);
		return NULL;
	}
	pr_info("run: peer testbed: %s %s (%s) -> %s %s (%s)", cfg->dev, p->addr_tx, p->kernel, cfg->peer_dev, p->addr_rx,
		p->peer_kernel);
	p->ep_tx = (struct endpoint){ .dev = cfg->dev, .addr = p->addr_tx, .cpu = cfg->cpu_tx };
	p->ep_rx = (struct endpoint){ .host = &p->h, .dev = cfg->peer_dev, .addr = p->addr_rx, .cpu = cfg->cpu_rx,
				      .lose = ep_lose, .lost = peer_lost_why, .agent = p->have_agent ? ep_agent : NULL,
				      .arg = p };
	return p;
}

static void peer_teardown(void *tb)
{
	struct peer *p = tb;

	remote_session_close(&p->agent);
	if (p->lost)
		pr_warn("run: %s; this host is restored, the peer's changes that could not be undone are listed above and kept in the journal for `ipsecperf cleanup`",
			p->lost_why);
	free(p);
}

static int peer_apply(void *tb, const struct scenario *sc, char *why, size_t len)
{
	return scenario_apply(tb, sc, why, len);
}

const struct testbed_ops peer_testbed_ops = {
	.kind = "peer",
	.run_slack_s = 2.0,
	.setup = peer_setup,
	.teardown = peer_teardown,
	.apply = peer_apply,
	.lost = peer_lost_why,
	.probes_attach = peer_probes_attach,
	.probes_detach = peer_probes_detach,
	.record_head = peer_record_head,
	.run_begin = peer_run_begin,
	.load = peer_load,
	.window = peer_window,
	.tick = peer_tick,
	.record_cpu = peer_record_cpu,
	.run_end = peer_run_end,
	.counters = peer_counters,
};
