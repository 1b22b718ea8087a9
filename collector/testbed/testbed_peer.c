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
#include "log.h"
#include "peer_run.h"
#include "remote.h"
#include "testbed_peer.h"
#include "testbed_peer_int.h"
#include "version.h"


/* ---- the peer's endpoint: lost, and its agent ---- */

const char *peer_lost_why(void *tb)
{
	struct peer *p = tb;

	return p->lost ? p->lost_why : NULL;
}

struct peer_view peer_view(struct peer *p)
{
	return (struct peer_view){
		.cfg = &p->cfg, .ssh_dest = p->h.ssh_dest, .peer_kernel = p->peer_kernel, .addr_tx = p->addr_tx,
		.addr_rx = p->addr_rx, .ep_tx = &p->ep_tx, .ep_rx = &p->ep_rx, .have_agent = p->have_agent,
		.no_agent_why = p->no_agent_why, .ssh_on_link = p->ssh_on_link,
	};
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

/* ---- checks before the first run ---- */

static char *trim(char *s)
{
	size_t n = s ? strlen(s) : 0;

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}

/*
 * Run argv here or on the peer (by its agent once it is open, else with
 * ssh); output in *out. 255 from ssh = unreachable.
 */
static int run_on(struct peer *p, bool remote, char *const argv[], char **out, char **err)
{
	return remote ? ep_run(&p->ep_rx, argv, out, err) : exec_run(NULL, argv, out, err);
}

struct end {
	const char *name;    /* "this host" or the peer's destination */
	const char *dev;
	int mtu;
	char state[16];
	struct link_info li;
	char driver[200];    /* ethtool -i: driver, version, firmware */
};

static int check_end(struct peer *p, bool remote, struct end *e, const char *want_addr,
		     char *addr, size_t alen, char *why, size_t len)
{
	char *out = NULL, *err = NULL;
	int st, prefix;

	st = run_on(p, remote, (char *[]){ "ip", "-j", "addr", "show", "dev", (char *)e->dev, NULL }, &out, &err);
	if (st == 255 && remote) {
		snprintf(why, len, "cannot reach the peer with ssh: %s (`ssh -o BatchMode=yes %s true` must work without a password: set up a key, e.g. with ssh-copy-id)",
			 trim(err) && *err ? err : "ssh failed", p->h.ssh_dest);
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
			 e->name, p->family == AF_INET6 ? "IPv6 " : "", e->dev, e->dev, remote ? "rx" : "tx");
		goto fail;
	}
	free(out);
	free(err);
	out = err = NULL;
	st = run_on(p, remote, (char *[]){ "ethtool", (char *)e->dev, NULL }, &out, &err);
	if (st != 0 || peer_parse_ethtool(out, &e->li) < 0) {
		snprintf(why, len, "ethtool %s on %s failed: %s%s", e->dev, e->name, err && *trim(err) ? err : "no output",
			 st == 127 ? " (install the ethtool package there)" : "");
		goto fail;
	}
	free(out);
	free(err);
	out = err = NULL;
	if (run_on(p, remote, (char *[]){ "ethtool", "-i", (char *)e->dev, NULL }, &out, NULL) == 0) {
		char drv[64] = "", ver[64] = "", fw[64] = "";

		for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n")) {
			sscanf(l, "driver: %63[^\n]", drv);
			sscanf(l, "version: %63[^\n]", ver);
			sscanf(l, "firmware-version: %63[^\n]", fw);
		}
		snprintf(e->driver, sizeof(e->driver), "%s%s%s%s%s", drv, ver[0] ? " " : "", ver,
			 fw[0] ? ", firmware " : "", fw);
		msg_clean(e->driver, true);
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

/* The two ends of the link: addresses of one family, links up, MTU and speed alike. */
static int check_link(struct peer *p, struct end *me, struct end *them, char *why, size_t len)
{
	const struct testbed_config *c = &p->cfg;

	if (c->addr_tx_set)
		p->family = family_of(c->addr_tx);
	if (check_end(p, true, them, c->addr_rx_set ? c->addr_rx : NULL, p->addr_rx, sizeof(p->addr_rx), why, len) < 0)
		return -1;
	if (!p->family)
		p->family = family_of(p->addr_rx);
	if (check_end(p, false, me, c->addr_tx_set ? c->addr_tx : NULL, p->addr_tx, sizeof(p->addr_tx), why, len) < 0)
		return -1;
	if (family_of(p->addr_tx) != family_of(p->addr_rx)) {
		snprintf(why, len, "the addresses %s (here) and %s (the peer) are of different families; give --addr-tx and --addr-rx",
			 p->addr_tx, p->addr_rx);
		return -1;
	}
	for (int i = 0; i < 2; i++) {
		struct end *e = i ? them : me;

		if (e->li.link == 0 || !strcmp(e->state, "DOWN") || !strcmp(e->state, "LOWERLAYERDOWN")) {
			snprintf(why, len, "the link of %s on %s is down (operstate %s, ethtool: Link detected: %s); bring it up (ip link set %s up) and check the cable",
				 e->dev, e->name, e->state, e->li.link == 0 ? "no" : "yes", e->dev);
			return -1;
		}
	}
	if (me->mtu != them->mtu) {
		snprintf(why, len, "MTU differs: %d on %s here, %d on %s on the peer; set both alike (ip link set DEV mtu N)",
			 me->mtu, me->dev, them->mtu, them->dev);
		return -1;
	}
	if (me->li.speed_mbps > 0 && them->li.speed_mbps > 0 && me->li.speed_mbps != them->li.speed_mbps) {
		snprintf(why, len, "link speed differs: %d Mb/s on %s here, %d Mb/s on %s on the peer (ethtool DEV); the two ends negotiated differently",
			 me->li.speed_mbps, me->dev, them->li.speed_mbps, them->dev);
		return -1;
	}
	if (me->li.speed_mbps < 0 || them->li.speed_mbps < 0)
		pr_info("run: the link speed of %s is unknown to ethtool; not compared",
			me->li.speed_mbps < 0 ? me->dev : them->dev);
	if (c->cpu_tx >= cpu_count()) {
		snprintf(why, len, "--cpu-tx %d: this host has %d CPUs (0-%d)", c->cpu_tx, cpu_count(), cpu_count() - 1);
		return -1;
	}
	return 0;
}

/* The peer's tools (iperf3, timeout), its kernel, and whether ssh comes over the link under test. */
static int check_peer_host(struct peer *p, char *why, size_t len)
{
	char *out = NULL, *err = NULL;
	struct utsname u;
	int st = ep_run(&p->ep_rx, (char *[]){ "iperf3", "--version", NULL }, &out, &err);

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
	if (ep_run(&p->ep_rx, (char *[]){ "timeout", "--version", NULL }, &out, NULL) != 0) {
		snprintf(why, len, "timeout(1) does not run on the peer; install coreutils there");
		free(out);
		return -1;
	}
	free(out);
	out = NULL;
	if (ep_run(&p->ep_rx, (char *[]){ "uname", "-r", NULL }, &out, NULL) == 0)
		snprintf(p->peer_kernel, sizeof(p->peer_kernel), "%.*s", (int)strcspn(trim(out), "\n"), out);
	free(out);
	out = NULL;
	/* which addresses ssh itself uses: "client port server port", as sshd tells the session (the agent's too) */
	if (ep_run(&p->ep_rx, (char *[]){ "printenv", "SSH_CONNECTION", NULL }, &out, NULL) == 0) {
		char cli[64] = "", srv[64] = "";

		snprintf(p->ssh_conn, sizeof(p->ssh_conn), "%.*s", (int)strcspn(trim(out), "\n"), out);
		if (sscanf(p->ssh_conn, "%63s %*s %63s", cli, srv) == 2)
			p->ssh_on_link = !strcmp(cli, p->addr_tx) || !strcmp(srv, p->addr_rx);
	}
	free(out);
	uname(&u);
	snprintf(p->kernel, sizeof(p->kernel), "%s", u.release);
	return 0;
}

/*
 * The agent: the peer's ipsecperf, when it has one, started first so that
 * it runs the checks' commands (one ssh connection and remote shell each
 * would be seconds on a slow peer). Its hello (NULL without an agent) is
 * judged after the checks, by agent_judge.
 */
static json_t *open_agent(struct peer *p)
{
	const char *prog = p->prog;
	json_t *r = NULL;

	if (remote_session_open(&p->agent, &p->h, (char *[]){ (char *)prog, "peer-agent", NULL }) == 0) {
		r = remote_session_call(&p->agent, "{\"op\":\"hello\"}", AGENT_TIMEOUT_MS);
		if (r && json_is_true(json_object_get(r, "ok"))) {
			p->have_agent = true;
			p->ep_rx.agent = ep_agent;
			return r;
		}
		char how[512];

		snprintf(p->no_agent_why, sizeof(p->no_agent_why),
			 "`%.80s peer-agent` does not run on the peer (%.200s); install ipsecperf there (%.400s) or give --peer-ipsecperf PATH",
			 prog, p->agent.lost ? p->agent.lost_why : "it did not answer",
			 peer_install_command(p, how, sizeof(how)));
		remote_session_close(&p->agent);
	} else {
		snprintf(p->no_agent_why, sizeof(p->no_agent_why), "cannot start ssh: %s", strerror(errno));
	}
	json_decref(r);
	return NULL;
}

/* The key ssh logs in with, as the run's options name it (for a message). */
static const char *key_named(const struct peer *p)
{
	for (int i = 0; i < p->h.nopts; i++)
		if (!strncasecmp(p->h.ssh_opts[i], "IdentityFile=", 13))
			return p->h.ssh_opts[i];
	return "the key ssh offers";
}

/*
 * Does ssh run what the run asks? A key pinned to the agent (command= in the
 * peer's authorized_keys, or a sudo rule for it) runs the agent whatever is
 * asked, and the run asks ssh for more than the agent's session (the
 * iperf3 server, the undo of each change): before anything changes, such
 * a key must reach an agent of this release, which serves those (and
 * refuses `echo` with PEER_AGENT_PINNED_EXIT). 0, or -1 with why.
 */
static int ssh_check(struct peer *p, json_t *hello, char *why, size_t len)
{
	const char *v = json_string_value(json_object_get(hello, "version")), *key = key_named(p);
	char *out = NULL, *err = NULL, told[200], vs[64];
	int st = remote_run(&p->h, (char *[]){ "echo", "ipsecperf-ssh-check", NULL }, &out, &err), rc = 0;

	snprintf(told, sizeof(told), "%s", trim(err) && *err ? err : "no message");
	msg_clean(told, true);
	if (st == 0 && out && !strcmp(out, "ipsecperf-ssh-check\n")) {
		rc = 0;
	} else if (st == 255) {
		snprintf(why, len, "cannot run a command on the peer with ssh: %s", told);
		rc = -1;
	} else if (st != PEER_AGENT_PINNED_EXIT) {
		snprintf(why, len, "ssh to %s with %s runs `ipsecperf peer-agent` whatever it is asked (a key pinned to the agent with command= in the peer's authorized_keys, or a sudo rule): asked for `echo ipsecperf-ssh-check`, it %s (exit %d: %.150s); that agent does not serve what the run sends through ssh (the iperf3 server, the undo of each change), so nothing was changed: install this release on the peer, whose agent serves them (under sudo, keep SSH_ORIGINAL_COMMAND: env_keep), or use a key without command=",
			 p->h.ssh_dest, key, out && *out ? "printed something else" : "printed nothing", st, told);
		rc = -1;
	} else if (!v || strcmp(v, IPSECPERF_VERSION)) {
		snprintf(why, len, "ssh to %s with %s reaches only the agent (a key pinned to it), and that agent is ipsecperf %s, this one %s: what the run sends it through ssh may differ, so nothing was changed: install this release there",
			 p->h.ssh_dest, key, v ? guest_printable(v, strlen(v), vs, sizeof(vs)) : "of unknown version",
			 IPSECPERF_VERSION);
		rc = -1;
	} else {
		pr_info("run: ssh to %s with %s reaches only the agent (a key pinned to it): the agent serves what the run sends through ssh",
			p->h.ssh_dest, key);
	}
	free(out);
	free(err);
	return rc;
}

/* The agent's hello, after the checks: -1 for a --cpu-rx the peer has not, or a key the run cannot use. */
static int agent_judge(struct peer *p, json_t *hello, char *why, size_t len)
{
	int ncpu = (int)json_integer_value(json_object_get(hello, "ncpu"));

	if (!p->have_agent) {
		pr_warn("run: %s; scenarios that need it (TCP-MD5/AO keys, ESP) are skipped, and the receiver's cycles are not estimated",
			p->no_agent_why);
		return 0;
	}
	if (p->cfg.cpu_rx >= ncpu) {
		snprintf(why, len, "--cpu-rx %d: the peer has %d CPUs (0-%d)", p->cfg.cpu_rx, ncpu, ncpu - 1);
		return -1;
	}
	peer_version_check(p, hello);
	return ssh_check(p, hello, why, len);
}

/* Provenance: both ends, for meta.json. */
static void peer_meta(struct peer *p, json_t *meta, const struct end *me, const struct end *them)
{
	const struct testbed_config *c = &p->cfg;
	json_t *e[2];

	if (!meta)
		return;
	for (int i = 0; i < 2; i++) {
		const struct end *x = i ? them : me;

		e[i] = json_pack("{s:s, s:s, s:i, s:s, s:s, s:s}", "host", i ? c->peer : "local", "dev", x->dev,
				 "mtu", x->mtu, "operstate", x->state, "duplex", x->li.duplex, "driver", x->driver);
		json_object_set_new(e[i], "speed_mbps", x->li.speed_mbps > 0 ? json_integer(x->li.speed_mbps) : json_null());
		json_object_set_new(e[i], "kernel", json_string(i ? p->peer_kernel : p->kernel));
		json_object_set_new(e[i], "address", json_string(i ? p->addr_rx : p->addr_tx));
	}
	json_object_set_new(meta, "peer", json_pack("{s:s, s:o, s:o, s:b, s:s}", "ssh_dest", c->peer,
							  "sender", e[0], "receiver", e[1], "agent",
							  p->have_agent, "agent_why", p->no_agent_why));
}

/* Both ends checked before the first run; provenance into meta.json. */
static int peer_checks(struct peer *p, json_t *meta, char *why, size_t len)
{
	const struct testbed_config *c = &p->cfg;
	struct end me = { .name = "this host", .dev = c->dev }, them = { .name = c->peer, .dev = c->peer_dev };
	json_t *hello = open_agent(p);
	int rc = check_link(p, &me, &them, why, len) < 0 || check_peer_host(p, why, len) < 0 ||
		 agent_judge(p, hello, why, len) < 0 ? -1 : 0;

	json_decref(hello);
	if (rc == 0)
		peer_meta(p, meta, &me, &them);
	return rc;
}

/* ---- CPU accounting on both hosts, at the window's edges ---- */

long long peer_stat(struct peer *p, char *why, size_t len)
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

static int host_from_cfg(struct host *h, const struct testbed_config *c, char *why, size_t len)
{
	memset(h, 0, sizeof(*h));
	if (!c->peer || !c->dev || !c->peer_dev) {
		snprintf(why, len, "--testbed peer needs --peer [USER@]HOST, --dev IF and --peer-dev IF (docs/peer-testbed.md)");
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

int peer_host_check(const struct testbed_config *cfg, char *why, size_t len)
{
	struct host h;

	return host_from_cfg(&h, cfg, why, len);
}

struct peer *peer_open(const struct testbed_config *cfg, json_t *meta)
{
	struct peer *p = calloc(1, sizeof(*p));
	char why[1024] = "";

	if (!p)
		return NULL;
	p->cfg = *cfg;
	p->prog = cfg->peer_ipsecperf ? cfg->peer_ipsecperf : "ipsecperf";
	p->port = cfg->port;
	p->agent.pid = -1;
	p->agent.to_fd = p->agent.from_fd = p->agent.err_fd = -1;
	if (host_from_cfg(&p->h, cfg, why, sizeof(why)) < 0) {
		pr_warn("run: %s", why);
		free(p);
		return NULL;
	}
	/* the peer's end, its agent set once it answers (open_agent) */
	p->ep_rx = (struct endpoint){ .host = &p->h, .dev = cfg->peer_dev, .addr = p->addr_rx, .cpu = cfg->cpu_rx,
				      .lose = ep_lose, .lost = peer_lost_why, .prog = p->prog, .arg = p };
	if (peer_checks(p, meta, why, sizeof(why)) < 0) {
		pr_warn("run: peer testbed: %s", why);
		remote_session_close(&p->agent);
		free(p);
		return NULL;
	}
	pr_info("run: peer testbed: %s %s (%s) -> %s %s (%s)", cfg->dev, p->addr_tx, p->kernel, cfg->peer_dev, p->addr_rx,
		p->peer_kernel);
	p->ep_tx = (struct endpoint){ .dev = cfg->dev, .addr = p->addr_tx, .cpu = cfg->cpu_tx };
	return p;
}

void peer_close(struct peer *p)
{

	remote_session_close(&p->agent);
	if (p->lost)
		pr_warn("run: %s; this host is restored, the peer's changes that could not be undone are listed above and kept in the journal for `ipsecperf cleanup`",
			p->lost_why);
	free(p);
}
