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
#include <sched.h>
#include <fcntl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "cpu.h"
#include "exec.h"
#include "guest_tar.h"
#include "journal.h"
#include "load.h"
#include "log.h"
#include "measuring.h"
#include "offload.h"
#include "probes.h"
#include "progress.h"
#include "remote.h"
#include "secret.h"
#include "signals.h"
#include "testbed_peer.h"
#include "testbed_peer_int.h"
#include "version.h"

#define STREAM_KEY_LEN 32
#define STREAM_BUF (128 * 1024)
#define AGENT_TIMEOUT_MS 15000

/* What one run measured in its window, on both hosts. */
struct window {
	struct peer *p;
	struct cpu_acct cpu;          /* this host: the sender */
	struct progress *progress;
	bool rx_ok;
	char rx_why[300];
	long long stat0;              /* without the agent: /proc/stat busy ticks of the peer */
	double rx_busy_s;
	uint64_t rx_cycles;
	bool rx_have_cycles;
	char rx_method[32];
	/* the SAs' counters, read at the window's edges too (as cmd_run.c does) */
	json_t *rec;
	int sa_rc;
	bool sa_done;
	char sa_why[400];
};

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

static void window_edge(void *arg, int open)
{
	struct window *w = arg;
	struct peer *p = w->p;

	if (open) {
		peer_ipsec_begin(p);
		measuring_window(true);
		if (p->probes)
			probes_window(p->probes, 1);
		cpu_start(&w->cpu);
		w->rx_ok = false;
		if (p->have_agent) {
			json_t *r = agent_call(p, json_pack("{s:s}", "op", "cpu-start"));

			w->rx_ok = r && json_is_true(json_object_get(r, "ok"));
			json_decref(r);
		} else {
			w->stat0 = peer_stat(p, w->rx_why, sizeof(w->rx_why));
			w->rx_ok = w->stat0 >= 0;
		}
		return;
	}
	cpu_stop(&w->cpu);
	if (p->probes)
		probes_window(p->probes, 0);
	measuring_window(false);
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

static void window_tick(void *arg)
{
	struct window *w = arg;
	struct peer *p = w->p;
	static double last_ping;

	progress_tick(w->progress);
	/* the agent exits after a silence (a hung connection); and a ping finds a lost one early */
	if (p->have_agent && !p->lost && mono_s() - last_ping >= 5) {
		last_ping = mono_s();
		json_decref(agent_call(p, json_pack("{s:s}", "op", "ping")));
	}
}

/* ---- the loads ---- */

/* Is something listening on port on the peer? 1 yes, 0 no, -1 could not tell (ssh failed). */
static int peer_listening(struct peer *p, int port)
{
	char *out = NULL;
	int st = remote_run(&p->h, (char *[]){ "cat", "/proc/net/tcp", "/proc/net/tcp6", NULL }, &out, NULL);
	int rc = -1;

	if (st == 255)
		peer_lost(p, "ssh could not reach the peer");
	else if (out && *out)
		rc = tcp_listening(out, port) ? 1 : 0;
	free(out);
	return rc;
}

static int load_iperf3_peer(struct peer *p, const char *prefix, struct window *w, struct load_result *r)
{
	const struct run_config *c = p->cfg;
	char port[16], dur[16], omit[16], bound[16];
	int srv_out = raw_open(prefix, "iperf3-server.json"), srv_err = raw_open(prefix, "iperf3-server.err");
	int cli_out = raw_open(prefix, "iperf3-client.json"), cli_err = raw_open(prefix, "iperf3-client.err");
	pid_t server = -1, client = -1;
	int status = 0, err = -1, srv_status = -1;
	bool window_open = false;
	double t0, deadline;

	memset(r, 0, sizeof(*r));
	r->retransmits = -1;
	snprintf(port, sizeof(port), "%d", p->port);
	snprintf(dur, sizeof(dur), "%d", c->duration_s);
	snprintf(omit, sizeof(omit), "%d", c->omit_s);
	/* timeout(1) bounds a server the run can no longer reach (a lost connection) */
	snprintf(bound, sizeof(bound), "%d", c->omit_s + c->duration_s + 60);
	char cpu_rx[16];
	char *srv_argv[] = { "timeout", bound, "iperf3", "-s", "-1", "-J", "-B", p->addr_rx, "-p", port,
			     c->cpu_rx >= 0 ? "-A" : NULL, cpu_rx, NULL };

	snprintf(cpu_rx, sizeof(cpu_rx), "%d", c->cpu_rx);
	char *cli_argv[] = { "iperf3", "-c", p->addr_rx, "-B", p->addr_tx, "-p", port, "-t", dur, "-O", omit, "-J", NULL };

	if (journal_dry_run()) {
		remote_print(stdout, &p->h, srv_argv);
		exec_print(stdout, NULL, cli_argv);
		err = 0;
		goto out;
	}
	if (peer_listening(p, p->port) != 0) {
		snprintf(r->error, sizeof(r->error), "%.250s", p->lost ? p->lost_why :
			 "the port is in use on the peer (or its /proc/net/tcp is unreadable); give another --port");
		goto out;
	}
	server = remote_spawn(&p->h, srv_argv, &(struct spawn_opts){ .cpu = -1, .stdout_fd = srv_out, .stderr_fd = srv_err });
	if (server < 0) {
		snprintf(r->error, sizeof(r->error), "cannot start ssh: %s", strerror(errno));
		goto out;
	}
	journal_add_process(server);
	for (int i = 0;; i++) {
		int l = peer_listening(p, p->port);

		if (l == 1)
			break;
		if (waitpid(server, &srv_status, WNOHANG) == server) {
			char *e = raw_read(prefix, "iperf3-server.err");

			server = -1;
			if (WIFEXITED(srv_status) && WEXITSTATUS(srv_status) == 255)
				peer_lost(p, "the ssh connection running the iperf3 server ended");
			snprintf(r->error, sizeof(r->error), "the iperf3 server on the peer stopped: %s",
				 e && *trim(e) ? e : "no message (see raw/)");
			free(e);
			goto out;
		}
		if (l < 0 || i >= 50 || sleep_ms_or_stop(100)) {
			snprintf(r->error, sizeof(r->error), "%.250s", stop_requested() ? "interrupted" : p->lost ? p->lost_why :
				 "the iperf3 server on the peer did not listen within 5 s");
			goto out;
		}
	}
	client = exec_spawn(cli_argv, &(struct spawn_opts){ .cpu = c->cpu_tx, .stdout_fd = cli_out, .stderr_fd = cli_err });
	if (client < 0) {
		snprintf(r->error, sizeof(r->error), "cannot start iperf3: %s", strerror(errno));
		goto out;
	}
	journal_add_process(client);
	t0 = mono_s();
	deadline = t0 + c->omit_s + c->duration_s + 20;
	for (;;) {
		if (waitpid(client, &status, WNOHANG) == client) {
			client = -1;
			break;
		}
		if (!window_open && mono_s() - t0 >= c->omit_s) {
			window_edge(w, 1);
			window_open = true;
		}
		window_tick(w);
		if (stop_requested()) {
			snprintf(r->error, sizeof(r->error), "interrupted by signal %d", stop_signal());
			goto out;
		}
		if (p->lost) {
			snprintf(r->error, sizeof(r->error), "%.250s", p->lost_why);
			goto out;
		}
		if (mono_s() > deadline) {
			snprintf(r->error, sizeof(r->error), "iperf3 client still running after %.0f s", deadline - t0);
			goto out;
		}
		sleep_ms_or_stop(100);
	}
	if (window_open)
		window_edge(w, 0);
	window_open = false;
	/* the one-off server exits after the test; its ssh with it */
	for (int i = 0; i < 100 && server > 0; i++) {
		if (waitpid(server, &srv_status, WNOHANG) == server)
			server = -1;
		else
			sleep_ms_or_stop(100);
	}
	if (server < 0 && WIFEXITED(srv_status) && WEXITSTATUS(srv_status) == 255)
		peer_lost(p, "the ssh connection running the iperf3 server was lost");
	if (p->lost) {
		snprintf(r->error, sizeof(r->error), "%.250s", p->lost_why);
		goto out;
	}
	err = iperf3_client_result(prefix, status, r);
out:
	if (window_open)
		window_edge(w, 0);
	if (client > 0)
		exec_stop(client, 1000);
	if (server > 0)
		exec_stop(server, 1000);
	for (int i = 0; i < 4; i++) {
		int fd = (int[]){ srv_out, srv_err, cli_out, cli_err }[i];

		if (fd >= 0)
			close(fd);
	}
	return err;
}

/* The built-in stream's sender, here; the receiver is the agent's. */
/* The receiver's byte count, from the agent; -1 when it cannot say. */
static long long agent_rx_bytes(struct peer *p, char *why, size_t len)
{
	json_t *r = agent_call(p, json_pack("{s:s}", "op", "stream-bytes"));
	long long b = -1;

	if (r && json_is_true(json_object_get(r, "ok"))) {
		b = json_integer_value(json_object_get(r, "bytes"));
		if (!json_is_true(json_object_get(r, "running"))) {
			snprintf(why, len, "the stream receiver on the peer stopped: %s",
				 *(json_string_value(json_object_get(r, "error")) ?: "") ?
				 json_string_value(json_object_get(r, "error")) : "no message");
			b = -1;
		}
	} else {
		snprintf(why, len, "%.250s", p->lost ? p->lost_why : "the agent did not answer");
	}
	json_decref(r);
	return b;
}

static int load_stream_peer(struct peer *p, const struct scenario *sc, const char *prefix, struct window *w,
			    struct load_result *r)
{
	const struct run_config *c = p->cfg;
	const struct tcp_auth_config *ta = &sc->tcp_auth;
	uint8_t key[STREAM_KEY_LEN];
	char hex[2 * STREAM_KEY_LEN + 1], line[1024];
	struct stream_tx *shm;
	pid_t tx = -1;
	bool open_ = false, rx_started = false;
	long long b0 = 0, b1;
	uint64_t s0 = 0;
	int64_t r0 = 0;
	double t0, t_open = 0, t_close;
	int err = -1;
	json_t *rep;
	char *head;

	memset(r, 0, sizeof(*r));
	r->retransmits = -1;
	if (journal_dry_run()) {
		printf("# built-in stream: receiver by `ipsecperf peer-agent` on %s at %s:%d, sender here from %s%s\n",
		       p->h.ssh_dest, p->addr_rx, p->port, p->addr_tx, ta->method[0] ? ", the key sent on the agent's stdin" : "");
		return 0;
	}
	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED) {
		snprintf(r->error, sizeof(r->error), "mmap: %s", strerror(errno));
		return -1;
	}
	memset(shm, 0, sizeof(*shm));
	secret_hold(); /* until the key, here and in the agent's request line, is wiped */
	if (ta->method[0] && getrandom(key, sizeof(key), 0) != sizeof(key)) {
		snprintf(r->error, sizeof(r->error), "getrandom: %s", strerror(errno));
		goto out;
	}
	/* the request without the key, then the key spliced in: it never passes through a json_t */
	json_t *req = json_pack("{s:s, s:s, s:s, s:i, s:s, s:s, s:i}", "op", "stream-rx", "addr", p->addr_rx,
				"peer", p->addr_tx, "port", p->port, "method", ta->method, "ao_alg", ta->ao_alg,
				"cpu", c->cpu_rx);

	head = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	if (!head) {
		snprintf(r->error, sizeof(r->error), "out of memory");
		goto out;
	}
	for (int i = 0; ta->method[0] && i < STREAM_KEY_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", key[i]);
	head[strlen(head) - 1] = '\0';
	if (ta->method[0])
		snprintf(line, sizeof(line), "%s,\"key\":\"%s\"}", head, hex);
	else
		snprintf(line, sizeof(line), "%s}", head);
	free(head);
	explicit_bzero(hex, sizeof(hex));
	rep = remote_session_call(&p->agent, line, AGENT_TIMEOUT_MS);
	explicit_bzero(line, sizeof(line));
	if (!rep) {
		peer_lost(p, p->agent.lost_why);
		snprintf(r->error, sizeof(r->error), "%.250s", p->lost_why);
		goto out;
	}
	if (!json_is_true(json_object_get(rep, "ok"))) {
		snprintf(r->error, sizeof(r->error), "the peer: %s",
			 json_string_value(json_object_get(rep, "error")) ?: "the stream receiver did not start");
		json_decref(rep);
		goto out;
	}
	json_decref(rep);
	rx_started = true;

	tx = exec_fork(NULL, c->cpu_tx, NULL, 0);
	if (tx == 0)
		stream_send(shm, p->addr_tx, p->addr_rx, p->port, sc->tcp_auth.method, sc->tcp_auth.ao_alg, key,
			    STREAM_KEY_LEN);
	explicit_bzero(key, sizeof(key));
	if (tx < 0) {
		snprintf(r->error, sizeof(r->error), "fork: %s", strerror(errno));
		goto out;
	}
	journal_add_process(tx);
	for (int t = 0; !atomic_load(&shm->connected); t += 10) {
		if (waitpid(tx, NULL, WNOHANG) == tx || t >= 5000 || sleep_ms_or_stop(10)) {
			tx = tx > 0 && waitpid(tx, NULL, WNOHANG) == tx ? -1 : tx;
			snprintf(r->error, sizeof(r->error), "%s", shm->err[0] ? shm->err :
				 stop_requested() ? "interrupted" : "the stream sender did not connect within 5 s");
			goto out;
		}
	}
	t0 = mono_s();
	for (;;) {
		double t = mono_s();

		if (!open_ && t - t0 >= c->omit_s) {
			b0 = agent_rx_bytes(p, r->error, sizeof(r->error));
			if (b0 < 0)
				goto out;
			t_open = mono_s();
			s0 = atomic_load(&shm->bytes);
			r0 = atomic_load(&shm->retrans);
			window_edge(w, 1);
			open_ = true;
		}
		if (open_ && t - t_open >= c->duration_s) {
			window_edge(w, 0);
			open_ = false;
			t_close = mono_s();
			b1 = agent_rx_bytes(p, r->error, sizeof(r->error));
			if (b1 < 0)
				goto out;
			r->bytes = (uint64_t)(b1 - b0);
			r->duration_s = t_close - t_open;
			r->sender_bps = (atomic_load(&shm->bytes) - s0) * 8.0 / r->duration_s;
			r->retransmits = atomic_load(&shm->retrans) - r0;
			r->throughput_bps = r->bytes * 8.0 / r->duration_s;
			break;
		}
		window_tick(w);
		if (stop_requested()) {
			snprintf(r->error, sizeof(r->error), "interrupted by signal %d", stop_signal());
			goto out;
		}
		if (waitpid(tx, NULL, WNOHANG) == tx) {
			tx = -1;
			snprintf(r->error, sizeof(r->error), "the stream sender stopped: %s", shm->err[0] ? shm->err : "no message");
			goto out;
		}
		if (p->lost) {
			snprintf(r->error, sizeof(r->error), "%.250s", p->lost_why);
			goto out;
		}
		double edge = open_ ? t_open + c->duration_s : t0 + c->omit_s;
		int ms = (int)((edge - mono_s()) * 1000);

		sleep_ms_or_stop(ms < 1 ? 1 : ms > 100 ? 100 : ms);
	}
	err = 0;
	if (r->bytes == 0) {
		snprintf(r->error, sizeof(r->error), "the stream receiver got no bytes in the measured window");
		err = -1;
	}
out:
	explicit_bzero(key, sizeof(key));
	secret_release();
	if (open_)
		window_edge(w, 0);
	atomic_store(&shm->stop, 1);
	for (int i = 0; i < 300 && tx > 0; i++) {
		if (waitpid(tx, NULL, WNOHANG) == tx)
			tx = -1;
		else
			nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
	}
	if (tx > 0)
		exec_stop(tx, 1000);
	if (rx_started && !p->lost)
		json_decref(agent_call(p, json_pack("{s:s}", "op", "stream-stop")));
	{
		char path[PATH_MAX + 300];
		json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:i, s:I, s:f, s:I}", "load", "stream", "tcp_auth",
				      ta->method[0] ? ta->method : "none", "sender", p->addr_tx, "receiver", p->addr_rx,
				      "port", p->port, "bytes", (json_int_t)r->bytes, "seconds", r->duration_s,
				      "sender_total_bytes", (json_int_t)atomic_load(&shm->bytes));

		if (r->error[0])
			json_object_set_new(o, "error", json_string(r->error));
		snprintf(path, sizeof(path), "%sstream.json", prefix);
		json_dump_file(o, path, JSON_INDENT(1));
		json_decref(o);
	}
	munmap(shm, sizeof(*shm));
	return err;
}

/* ---- records ---- */

static json_t *record_new(struct peer *p, const char *scenario, int repeat)
{
	char start[40];

	iso8601_now(start, sizeof(start));
	return json_pack("{s:i, s:s, s:s, s:s, s:i, s:s, s:s, s:s}", "version", 1, "kernel", p->kernel,
			 "peer_kernel", p->peer_kernel, "scenario", scenario, "repeat", repeat, "testbed", "peer",
			 "peer", p->h.ssh_dest, "start", start);
}

static void record_status(json_t *rec, const char *status, const char *reason)
{
	json_object_set_new(rec, "status", json_string(status));
	if (reason)
		json_object_set_new(rec, "reason", json_string(reason));
}

static json_t *cpb_json(uint64_t cycles, uint64_t bytes)
{
	double v = cycles_per_byte(cycles, bytes);

	return v >= 0 ? json_real(v) : json_null();
}

static void record_load(json_t *rec, const struct scenario *sc, const struct load_result *lr, struct window *w)
{
	const char *method;
	uint64_t tx_cycles = cpu_cycles(&w->cpu, &method);

	json_object_set_new(rec, "load", json_string(sc->load));
	json_object_set_new(rec, "duration_s", json_real(lr->duration_s));
	json_object_set_new(rec, "bytes", json_integer((json_int_t)lr->bytes));
	json_object_set_new(rec, "throughput_bps", json_real(lr->throughput_bps));
	json_object_set_new(rec, "sender_bps", json_real(lr->sender_bps));
	json_object_set_new(rec, "retransmits", lr->retransmits >= 0 ? json_integer(lr->retransmits) : json_null());
	/* two hosts: each figure is the whole host's CPUs, measured on that host */
	json_object_set_new(rec, "cpu_busy_s", json_pack("{s:f, s:o}", "sender", cpu_busy_s(&w->cpu, -1), "receiver",
							 w->rx_ok ? json_real(w->rx_busy_s) : json_null()));
	json_object_set_new(rec, "cpu_window_s", json_real(cpu_window_s(&w->cpu)));
	/* where sender and receiver ran: pinned (--cpu-tx, --cpu-rx) or -1, where the scheduler put them */
	json_object_set_new(rec, "cpus", json_pack("{s:i, s:i}", "sender", w->p->cfg->cpu_tx, "receiver", w->p->cfg->cpu_rx));
	json_object_set_new(rec, "cycles_sender", json_integer((json_int_t)tx_cycles));
	json_object_set_new(rec, "cycles_method_sender", json_string(method));
	json_object_set_new(rec, "cycles_per_byte_sender", cpb_json(tx_cycles, lr->bytes));
	if (w->rx_ok && w->rx_have_cycles) {
		json_object_set_new(rec, "cycles_receiver", json_integer((json_int_t)w->rx_cycles));
		json_object_set_new(rec, "cycles_method_receiver", json_string(w->rx_method));
		json_object_set_new(rec, "cycles_per_byte_receiver", cpb_json(w->rx_cycles, lr->bytes));
		/* the sum, comparable with the one-host testbeds' figure */
		json_object_set_new(rec, "cycles", json_integer((json_int_t)(tx_cycles + w->rx_cycles)));
		json_object_set_new(rec, "cycles_method",
				    json_string(!strcmp(method, "pmu") && !strcmp(w->rx_method, "pmu") ? "pmu" : "estimated"));
		json_object_set_new(rec, "cycles_per_byte", cpb_json(tx_cycles + w->rx_cycles, lr->bytes));
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

static json_t *run_once(struct peer *p, struct results_writer *res, const struct scenario *sc, int repeat,
			struct progress *pr)
{
	char prefix[PATH_MAX + 200];
	struct window w = { .p = p, .progress = pr };
	struct load_result lr;
	json_t *rec = record_new(p, sc->name, repeat);
	int rc;

	w.rec = rec;
	peer_ipsec_begin(p); /* again at the window's open; this covers a load that fails before it */

	snprintf(prefix, sizeof(prefix), "%s/raw/%s-r%d-", res->dir, sc->name, repeat);
	cpu_open(&w.cpu);
	if (!strcmp(sc->load, "stream"))
		rc = load_stream_peer(p, sc, prefix, &w, &lr);
	else
		rc = load_iperf3_peer(p, prefix, &w, &lr);
	if (rc < 0) {
		record_status(rec, "failed", lr.error[0] ? lr.error : "the load failed");
	} else {
		record_status(rec, "ok", NULL);
		record_load(rec, sc, &lr, &w);
	}
	measuring_record(rec, sc->name, repeat);
	/* the SAs' own counters: proof that the traffic went through them */
	if (!w.sa_done && !p->lost)
		w.sa_rc = peer_ipsec_record(p, rec, w.sa_why, sizeof(w.sa_why));
	if (!json_object_get(rec, "sa"))
		json_object_set_new(rec, "sa", json_array());
	if (w.sa_rc < 0 && !strcmp(json_string_value(json_object_get(rec, "status")), "ok"))
		record_status(rec, "failed", w.sa_why);
	if (p->probes) {
		/* the probes count this host only: their per-packet bases are this host's SAs */
		json_t *mine = json_deep_copy(rec), *sa = json_object_get(mine, "sa");

		for (size_t i = json_array_size(sa); i-- > 0;)
			if (strcmp(json_string_value(json_object_get(json_array_get(sa, i), "host")) ?: "", "sender"))
				json_array_remove(sa, i);
		json_object_set_new(rec, "counters", probes_counters_json(p->probes, mine));
		json_decref(mine);
	} else {
		json_object_set_new(rec, "counters", probes_counters_unavailable("probes not loaded (--no-probes)"));
	}
	/* the peer's counters, with the peer's SAs as their per-packet bases */
	json_t *rx_counters = NULL;

	if (p->peer_probes && !p->lost) {
		json_t *sa = json_deep_copy(json_object_get(rec, "sa")), *r;

		for (size_t i = json_array_size(sa); i-- > 0;)
			if (strcmp(json_string_value(json_object_get(json_array_get(sa, i), "host")) ?: "", "receiver"))
				json_array_remove(sa, i);
		r = agent_call(p, json_pack("{s:s, s:o}", "op", "probes-counters", "sa", sa));
		if (r && json_is_object(json_object_get(r, "counters")))
			rx_counters = json_incref(json_object_get(r, "counters"));
		json_decref(r);
	}
	json_object_set_new(rec, "counters_receiver", rx_counters ? rx_counters : probes_counters_unavailable(
		p->no_probes ? "probes not loaded (--no-probes)" : p->have_agent ? (p->lost ? "the peer was lost" :
		"the peer's agent could not count") : "no ipsecperf on the peer to load probes there"));
	cpu_close(&w.cpu);
	return rec;
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

int peer_run_matrix(const struct run_config *cfg, struct results_writer *res, int port, int no_probes)
{
	static struct peer pst;
	struct peer *p = &pst;
	struct progress pr;
	char why[1024] = "";
	int failed = 0;

	memset(p, 0, sizeof(*p));
	p->cfg = cfg;
	p->no_probes = no_probes;
	p->prog = cfg->peer_ipsecperf ? cfg->peer_ipsecperf : "ipsecperf";
	p->port = port;
	p->agent.pid = -1;
	p->agent.to_fd = p->agent.from_fd = p->agent.err_fd = -1;
	if (host_from_cfg(&p->h, cfg, why, sizeof(why)) < 0) {
		pr_warn("run: %s", why);
		return -1;
	}
	if (peer_checks(p, res, why, sizeof(why)) < 0) {
		pr_warn("run: peer testbed: %s", why);
		remote_session_close(&p->agent);
		return -1;
	}
	pr_info("run: peer testbed: %s %s (%s) -> %s %s (%s)", cfg->dev, p->addr_tx, p->kernel, cfg->peer_dev, p->addr_rx,
		p->peer_kernel);
	progress_init(&pr, cfg->quiet || cfg->dry_run, cfg->nscenarios * cfg->repeat, cfg->omit_s + cfg->duration_s + 2.0);
	if (!cfg->dry_run && !no_probes)
		p->probes = probes_open();
	for (int s = 0; s < cfg->nscenarios && !stop_requested(); s++) {
		const struct scenario *sc = &cfg->scenarios[s];
		int mark = journal_mark();
		int rc = p->lost ? -1 : scenario_apply(p, sc, why, sizeof(why));

		if (p->lost)
			snprintf(why, sizeof(why), "%.250s", p->lost_why);
		if (rc == 0 && p->probes)
			probes_attach(p->probes, (const char *const[]){ cfg->dev, NULL });
		/* the peer's probes, by its agent, on its end of the link */
		if (rc == 0 && p->have_agent && !p->no_probes && !cfg->dry_run) {
			json_t *r = agent_call(p, json_pack("{s:s, s:s}", "op", "probes-attach", "dev", cfg->peer_dev));

			p->peer_probes = r && json_is_true(json_object_get(r, "ok"));
			json_decref(r);
		}
		for (int r = cfg->repeat_from; r < cfg->repeat_from + cfg->repeat && !stop_requested(); r++) {
			json_t *rec;

			if (cfg->dry_run) {
				struct load_result lr;
				struct window w = { .p = p };

				if (!strcmp(sc->load, "stream"))
					load_stream_peer(p, sc, "", &w, &lr);
				else
					load_iperf3_peer(p, "", &w, &lr);
				break;
			}
			progress_begin_run(&pr, s + 1, cfg->nscenarios, sc->name, r - cfg->repeat_from + 1, cfg->repeat);
			if (rc == 0 && p->lost) {
				rc = -1;
				snprintf(why, sizeof(why), "%.250s", p->lost_why);
			}
			if (rc != 0) {
				rec = record_new(p, sc->name, r);
				record_status(rec, rc > 0 ? "skipped" : "failed", why);
			} else {
				rec = run_once(p, res, sc, r, &pr);
			}
			progress_end_run(&pr);
			failed += writer_append_run(res, rec);
		}
		progress_clear(&pr);
		if (rc != 0)
			pr_warn("run: %s %s: %s", sc->name, rc > 0 ? "skipped" : "failed", why);
		if (p->probes)
			probes_detach(p->probes);
		if (p->peer_probes && !p->lost) /* before the undo may unload a probed module there */
			json_decref(agent_call(p, json_pack("{s:s}", "op", "probes-detach")));
		p->peer_probes = false;
		journal_undo_to(mark);
	}
	progress_clear(&pr);
	probes_close(p->probes);
	p->probes = NULL;
	remote_session_close(&p->agent);
	if (p->lost)
		pr_warn("run: %s; this host is restored, the peer's changes that could not be undone are listed above and kept in the journal for `ipsecperf cleanup`",
			p->lost_why);
	return failed;
}
