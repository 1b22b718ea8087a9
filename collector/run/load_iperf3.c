// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exec.h"
#include "clock.h"
#include "cpu.h"
#include "endpoint.h"
#include "files.h"
#include "journal.h"
#include "load.h"
#include "log.h"
#include "signals.h"
#include "wait.h"

int iperf3_parse_result(const char *json, struct load_result *r)
{
	json_error_t jerr;
	json_t *root = json_loads(json, 0, &jerr);
	json_t *end, *rcv, *snd, *e;
	int err = -1;

	memset(r, 0, sizeof(*r));
	r->retransmits = -1;
	if (!root) {
		snprintf(r->error, sizeof(r->error), "iperf3 printed no JSON (line %d: %s)", jerr.line,
			 jerr.text);
		return -1;
	}
	if ((e = json_object_get(root, "error")) && json_is_string(e)) {
		snprintf(r->error, sizeof(r->error), "iperf3: %s", json_string_value(e));
		goto out;
	}
	end = json_object_get(root, "end");
	rcv = json_object_get(end, "sum_received");
	snd = json_object_get(end, "sum_sent");
	if (!json_is_object(rcv) || !json_is_number(json_object_get(rcv, "bytes"))) {
		snprintf(r->error, sizeof(r->error), "iperf3 JSON has no end.sum_received");
		goto out;
	}
	r->bytes = (uint64_t)json_number_value(json_object_get(rcv, "bytes"));
	r->duration_s = json_number_value(json_object_get(rcv, "seconds"));
	r->throughput_bps = json_number_value(json_object_get(rcv, "bits_per_second"));
	if (json_is_string(json_object_get(end, "sender_tcp_congestion")))
		snprintf(r->congestion, sizeof(r->congestion), "%s",
			 json_string_value(json_object_get(end, "sender_tcp_congestion")));
	if (json_is_object(snd)) {
		r->sender_bps = json_number_value(json_object_get(snd, "bits_per_second"));
		if (json_is_integer(json_object_get(snd, "retransmits")))
			r->retransmits = json_integer_value(json_object_get(snd, "retransmits"));
	}
	if (r->bytes == 0) {
		snprintf(r->error, sizeof(r->error), "iperf3 received no bytes");
		goto out;
	}
	err = 0;
out:
	json_decref(root);
	return err;
}

/* The result of the client whose JSON is PREFIX NAME. */
static int client_result_of(const char *prefix, const char *name, int status, struct load_result *r)
{
	char *json = raw_read(prefix, name);
	int err;

	if (!json) {
		snprintf(r->error, sizeof(r->error), "cannot read iperf3's output (raw/)");
		return -1;
	}
	err = iperf3_parse_result(json, r);
	free(json);
	if (err == 0 && (!WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
		snprintf(r->error, sizeof(r->error), "iperf3 client exited with status %d",
			 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
		err = -1;
	}
	return err;
}

int iperf3_client_result(const char *prefix, int status, struct load_result *r)
{
	return client_result_of(prefix, "iperf3-client.json", status, r);
}

int tcp_listening(const char *text, int port)
{
	const char *line = strchr(text, '\n'); /* skip the header */

	while (line && *++line) {
		unsigned int lport, st;

		/* "  0: 020012C6:1451 00000000:0000 0A ..." */
		if (sscanf(line, " %*d: %*[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%*x %x", &lport, &st) == 2 &&
		    (int)lport == port && st == 0x0A)
			return 1;
		line = strchr(line, '\n');
	}
	return 0;
}

int raw_open(const char *prefix, const char *suffix)
{
	char path[4096];

	/* no prefix (dry-run): nothing is written, and never into the cwd */
	if (!prefix || !*prefix)
		return -1;
	snprintf(path, sizeof(path), "%s%s", prefix, suffix);
	return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

char *raw_read(const char *prefix, const char *suffix)
{
	char path[4096];

	if (!prefix || !*prefix)
		return NULL;
	snprintf(path, sizeof(path), "%s%s", prefix, suffix);
	return file_read(path, NULL);
}


#define IPERF3_ARGV 20 /* the most words of one iperf3 command line, its NULL included */

/* One flow of an iperf3 load: its server at rx, its client at tx, on its own port. */
struct iperf3_flow {
	const struct endpoint *tx, *rx; /* the load's, or swapped (--direction rx, both) */
	int port, cpu_tx, cpu_rx;
	int fd[4];       /* raw/: the server's stdout and stderr, the client's */
	char raw[4][48]; /* their names */
	pid_t server, client;
	int status, srv_status;
};

/* One iperf3 load of one or more flows, either end here or on the peer. */
struct iperf3_run {
	const struct load_params *p;
	const struct endpoint *tx, *rx;
	struct load_result *r;
	int n;           /* flows */
	struct iperf3_flow f[LOAD_MAX_FLOWS];
	bool window_open;
};

static const char *const raw_names[4] = {
	"iperf3-server.json", "iperf3-server.err", "iperf3-client.json", "iperf3-client.err",
};

/* What made the run fail: the lost peer first, it explains the rest. */
static int fail(struct iperf3_run *x, const char *why)
{
	const char *lost = ep_lost(x->rx) ?: ep_lost(x->tx);

	snprintf(x->r->error, sizeof(x->r->error), "%.250s", lost ?: why);
	return -1;
}

/*
 * Is something listening on port at e? 1 yes, 0 no, -1 could not tell. Here
 * through the server's own /proc (its namespace's sockets), on the peer
 * through the host's.
 */
static int listening(const struct endpoint *e, pid_t server, int port)
{
	char path[64], *text = NULL;
	int rc;

	if (ep_remote(e)) {
		int st = ep_run(e, (char *[]){ "cat", "/proc/net/tcp", "/proc/net/tcp6", NULL }, &text, NULL);

		rc = st != 255 && text && *text ? tcp_listening(text, port) : -1;
	} else {
		/* IPv4's sockets, then IPv6's: a server on an IPv6 address listens in the second */
		rc = 0;
		for (int v6 = 0; v6 < 2 && rc == 0; v6++) {
			snprintf(path, sizeof(path), "/proc/%d/net/tcp%s", (int)server, v6 ? "6" : "");
			free(text);
			text = ep_read(e, path);
			rc = text && tcp_listening(text, port);
		}
	}
	free(text);
	return rc;
}

/* Did the server's ssh end (status 255)? Then the peer is lost. */
static void server_ended(struct iperf3_flow *f, const char *what)
{
	if (ep_remote(f->rx) && WIFEXITED(f->srv_status) && WEXITSTATUS(f->srv_status) == 255 && f->rx->lose)
		f->rx->lose(f->rx->arg, what);
}

/* The server of flow f stopped before it listened: why, from its stderr. */
static int server_stopped(struct iperf3_run *x, struct iperf3_flow *f)
{
	char why[300], *e = raw_read(x->p->raw_prefix, f->raw[1]);
	size_t n = e ? strlen(e) : 0;

	while (n && (e[n - 1] == '\n' || e[n - 1] == ' ' || e[n - 1] == '\r'))
		e[--n] = '\0';
	f->server = -1;
	server_ended(f, "the ssh connection running the iperf3 server ended");
	snprintf(why, sizeof(why), "the iperf3 server%s stopped: %.200s", ep_remote(f->rx) ? " on the peer" : "",
		 n ? e : "no message (see raw/)");
	free(e);
	return fail(x, why);
}

/* wait_until: 1 flow f's server listens, 2 it ended, -1 it cannot be told or a stop was asked for. */
static int server_listens(void *arg)
{
	struct iperf3_flow *f = arg;
	int l = listening(f->rx, f->server, f->port);

	if (l == 1)
		return 1;
	if (wait_child_ended(f->server, &f->srv_status))
		return 2;
	return l < 0 || stop_requested() ? -1 : 0;
}

/* Start flow f's server and wait (5 s at most) until it listens. */
static int server_start(struct iperf3_run *x, struct iperf3_flow *f, char *const argv[])
{
	const char *where = ep_remote(f->rx) ? " on the peer" : "";
	char why[300];

	/* a shared host may have the port taken; a namespace made for the run has not */
	if (ep_remote(f->rx) && listening(f->rx, -1, f->port) != 0)
		return fail(x, "the port is in use on the peer (or its /proc/net/tcp is unreadable); give another --port");
	f->server = ep_spawn(f->rx, argv, f->cpu_rx, f->fd[0], f->fd[1]);
	if (f->server < 0) {
		snprintf(why, sizeof(why), "cannot start %s: %s", ep_remote(f->rx) ? "ssh" : "iperf3", strerror(errno));
		return fail(x, why);
	}
	/* on the peer each look is an ssh: fewer; here 5 ms, so the client starts that much sooner */
	switch (wait_until(server_listens, f, 5000, ep_remote(f->rx) ? 100 : 5)) {
	case 1:
		return 0;
	case 2:
		return server_stopped(x, f);
	default:
		snprintf(why, sizeof(why), "the iperf3 server%s did not listen within 5 s (see raw/ for its output)", where);
		return fail(x, stop_requested() ? "interrupted" : why);
	}
}

static void window(struct iperf3_run *x, int open)
{
	if (x->window_open != !!open && x->p->window)
		x->p->window(x->p->arg, open);
	x->window_open = open;
}

/* Sleep up to ms, waking at once when the child behind pidfd exits (or a signal comes). */
static void sleep_or_exit(int pidfd, int ms)
{
	struct pollfd pfd = { pidfd, POLLIN, 0 };

	if (pidfd < 0 || stop_requested())
		sleep_ms_or_stop(ms);
	else
		poll(&pfd, 1, ms);
}

/* wait_until: 1 once flow f's server has ended (reaped), -1 on a stop request. */
static int server_exited(void *arg)
{
	struct iperf3_flow *f = arg;

	if (f->server <= 0)
		return 1;
	if (waitpid(f->server, &f->srv_status, WNOHANG) == f->server) {
		f->server = -1;
		server_ended(f, "the ssh connection running the iperf3 server was lost");
		return 1;
	}
	return stop_requested() ? -1 : 0;
}

/* The one-off servers exit after the test (on the peer, their ssh with them): 10 s at most. */
static void server_wait(struct iperf3_run *x)
{
	int ms = ep_remote(x->rx) || ep_remote(x->tx) ? 100 : 5;

	/* each exits by itself after the test: polled, never signalled */
	for (int k = 0; k < x->n; k++)
		wait_until(server_exited, &x->f[k], 10000, ms);
}

/* Reap the clients that exited; how many still run. */
static int clients_running(struct iperf3_run *x)
{
	int n = 0;

	for (int k = 0; k < x->n; k++) {
		struct iperf3_flow *f = &x->f[k];

		/* one look per client, the run goes on meanwhile */
		if (f->client > 0 && waitpid(f->client, &f->status, WNOHANG) == f->client)
			f->client = -1;
		n += f->client > 0;
	}
	return n;
}

/* Wait for every client's exit, the window opened after the warm-up; -1 on a failure. */
static int client_wait(struct iperf3_run *x, int pidfd)
{
	const struct load_params *p = x->p;
	double t0 = mono_s(), deadline = t0 + p->omit_s + p->duration_s + 20; /* bounds a hang, nothing else */
	char why[200];

	while (clients_running(x)) {
		if (!x->window_open && mono_s() - t0 >= p->omit_s)
			window(x, 1);
		if (p->tick)
			p->tick(p->arg);
		if (stop_requested()) {
			snprintf(why, sizeof(why), "interrupted by signal %d", stop_signal());
			return fail(x, why);
		}
		if (ep_lost(x->rx) || ep_lost(x->tx))
			return fail(x, "");
		if (mono_s() > deadline) {
			snprintf(why, sizeof(why), "iperf3 client still running after %.0f s", deadline - t0);
			return fail(x, why);
		}
		sleep_or_exit(pidfd, 100);
	}
	return 0;
}

/* The clients, from start to exit, then the servers' exit. */
static int client_run(struct iperf3_run *x, char **const argv)
{
	char why[200];
	int pidfd = -1, rc;

	for (int k = 0; k < x->n; k++) {
		struct iperf3_flow *f = &x->f[k];

		f->client = ep_spawn(f->tx, argv + k * IPERF3_ARGV, f->cpu_tx, f->fd[2], f->fd[3]);
		if (f->client < 0) {
			snprintf(why, sizeof(why), "cannot start iperf3: %s", strerror(errno));
			return fail(x, why);
		}
	}
	/* one flow: the loop wakes as soon as the client exits, not up to 100 ms later */
	if (x->n == 1)
		pidfd = (int)syscall(SYS_pidfd_open, x->f[0].client, 0);
	rc = client_wait(x, pidfd);
	if (pidfd >= 0)
		close(pidfd);
	if (rc < 0)
		return rc;
	window(x, 0);
	server_wait(x);
	return ep_lost(x->rx) || ep_lost(x->tx) ? fail(x, "") : 0;
}

/*
 * Where flow k of n is pinned at e: here, its own CPU (two a flow, the
 * sender's and the receiver's) where this host has enough; else, and on
 * the peer, where e is.
 */
static int flow_cpu(const struct endpoint *e, int k, int n)
{
	if (e->cpu < 0 || n == 1 || ep_remote(e))
		return e->cpu;
	return e->cpu + 2 * (n - 1) < cpu_count() ? e->cpu + 2 * k : e->cpu;
}

/*
 * Flow k: its ends (--direction rx: every flow from the receiving end;
 * both: the odd ones), port, CPUs and raw files' names (one flow: the
 * names of before).
 */
static void flow_init(struct iperf3_run *x, int k)
{
	struct iperf3_flow *f = &x->f[k];
	bool back = x->p->direction == LOAD_RX || (x->p->direction == LOAD_BOTH && k % 2);
	const struct endpoint *tx = back ? x->rx : x->tx, *rx = back ? x->tx : x->rx;

	*f = (struct iperf3_flow){ .tx = tx, .rx = rx, .port = x->p->port + k, .cpu_tx = flow_cpu(tx, k, x->n),
				   .cpu_rx = flow_cpu(rx, k, x->n), .server = -1, .client = -1, .status = -1,
				   .srv_status = -1 };
	for (int i = 0; i < 4; i++) {
		if (x->n == 1)
			snprintf(f->raw[i], sizeof(f->raw[i]), "%s", raw_names[i]);
		else
			snprintf(f->raw[i], sizeof(f->raw[i]), "f%d-%s", k + 1, raw_names[i]);
		f->fd[i] = journal_dry_run() ? -1 : raw_open(x->p->raw_prefix, f->raw[i]);
	}
}

/* The flows' results, summed into x->r; each flow's into x->r->flows when there are several. */
static int flows_result(struct iperf3_run *x)
{
	struct load_result *r = x->r, one;

	r->retransmits = 0;
	for (int k = 0; k < x->n; k++) {
		struct iperf3_flow *f = &x->f[k];

		if (client_result_of(x->p->raw_prefix, f->raw[2], f->status, &one) < 0) {
			snprintf(r->error, sizeof(r->error), "%s%.200s", x->n > 1 ? "a flow: " : "", one.error);
			return -1;
		}
		r->bytes += one.bytes;
		r->throughput_bps += one.throughput_bps;
		r->sender_bps += one.sender_bps;
		r->duration_s = one.duration_s > r->duration_s ? one.duration_s : r->duration_s;
		if (one.congestion[0])
			memcpy(r->congestion, one.congestion, sizeof(r->congestion));
		r->retransmits = r->retransmits < 0 || one.retransmits < 0 ? -1 : r->retransmits + one.retransmits;
		if (x->n > 1)
			r->flows[r->nflows++] = (struct load_flow){ .port = f->port, .cpu_tx = f->cpu_tx, .cpu_rx = f->cpu_rx,
								    .bytes = one.bytes, .throughput_bps = one.throughput_bps,
								    .back = f->tx != x->tx };
	}
	r->direction = x->p->direction;
	return 0;
}

static int load_iperf3(const struct load_params *p, struct load_result *r)
{
	const struct endpoint *tx = p->tx, *rx = p->rx;
	struct iperf3_run x = { .p = p, .tx = tx, .rx = rx, .r = r, .n = (p->flows > 1 ? p->flows : 1) * (p->direction == LOAD_BOTH ? 2 : 1) };
	char port[LOAD_MAX_FLOWS][16], dur[16], omit[16], bound[16], cpu_rx[LOAD_MAX_FLOWS][16], cpu_tx[LOAD_MAX_FLOWS][16];
	char *srv[LOAD_MAX_FLOWS * IPERF3_ARGV], *cli[LOAD_MAX_FLOWS * IPERF3_ARGV];
	int err = -1, k;

	memset(r, 0, sizeof(*r));
	r->retransmits = -1;
	if (x.n > LOAD_MAX_FLOWS)
		x.n = LOAD_MAX_FLOWS;
	snprintf(dur, sizeof(dur), "%d", p->duration_s);
	snprintf(omit, sizeof(omit), "%d", p->omit_s);
	/* on the peer: timeout(1) bounds a server the run can no longer reach, and -A pins it */
	snprintf(bound, sizeof(bound), "%d", p->omit_s + p->duration_s + 60);
	for (k = 0; k < x.n; k++) {
		flow_init(&x, k);
		tx = x.f[k].tx;
		rx = x.f[k].rx;
		snprintf(port[k], sizeof(port[k]), "%d", x.f[k].port);
		snprintf(cpu_rx[k], sizeof(cpu_rx[k]), "%d", x.f[k].cpu_rx);
		snprintf(cpu_tx[k], sizeof(cpu_tx[k]), "%d", x.f[k].cpu_tx);
		char *s[] = { "timeout", bound, "iperf3", "-s", "-1", "-J", "-B", (char *)rx->addr, "-p", port[k],
			      ep_remote(rx) && x.f[k].cpu_rx >= 0 ? "-A" : NULL, cpu_rx[k], NULL };
		char *c[IPERF3_ARGV] = { "timeout", bound, "iperf3", "-c", (char *)rx->addr, "-B", (char *)tx->addr, "-p",
					 port[k], "-t", dur, "-O", omit, "-J" };
		int nc = 14;

		if (p->congestion) { /* --congestion: the sender's, which the server takes from the client */
			c[nc++] = "-C";
			c[nc++] = (char *)p->congestion;
		}
		if (ep_remote(tx) && x.f[k].cpu_tx >= 0) {
			c[nc++] = "-A";
			c[nc++] = cpu_tx[k];
		}
		int so = ep_remote(rx) ? 0 : 2, co = ep_remote(tx) ? 0 : 2;

		memcpy(srv + k * IPERF3_ARGV, s + so, (sizeof(s) / sizeof(s[0]) - so) * sizeof(char *));
		memcpy(cli + k * IPERF3_ARGV, c + co, (nc + 1 - co) * sizeof(char *));
	}
	if (journal_dry_run()) {
		for (k = 0; k < x.n; k++)
			ep_print(stdout, x.f[k].rx, srv + k * IPERF3_ARGV);
		for (k = 0; k < x.n; k++)
			ep_print(stdout, x.f[k].tx, cli + k * IPERF3_ARGV);
		return 0;
	}
	for (k = 0; k < x.n && server_start(&x, &x.f[k], srv + k * IPERF3_ARGV) == 0; k++)
		;
	if (k == x.n && client_run(&x, cli) == 0)
		err = flows_result(&x);
	window(&x, 0);
	for (k = 0; k < x.n; k++) {
		if (x.f[k].client > 0)
			exec_stop(x.f[k].client, 1000);
		if (x.f[k].server > 0)
			exec_stop(x.f[k].server, 1000);
		for (int i = 0; i < 4; i++)
			if (x.f[k].fd[i] >= 0)
				close(x.f[k].fd[i]);
	}
	return err;
}

/* iperf3, the default load: a server and a client per flow, their JSON read back. */
const struct load_kind load_kind_iperf3 = {
	.name = "iperf3",
	.title = "iperf3",
	.caps = LOAD_FLOWS,
	.needs = (const struct load_need[]){ { "iperf3", "iperf3" }, { NULL, NULL } },
	.comm = "iperf3",
	.run = load_iperf3,
};
