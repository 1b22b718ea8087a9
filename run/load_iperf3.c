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
#include "endpoint.h"
#include "files.h"
#include "journal.h"
#include "load.h"
#include "log.h"
#include "signals.h"

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

int iperf3_client_result(const char *prefix, int status, struct load_result *r)
{
	char *json = raw_read(prefix, "iperf3-client.json");
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


/* One iperf3 test: the server at rx, the client at tx, either end here or on the peer. */
struct iperf3_run {
	const struct load_params *p;
	const struct endpoint *tx, *rx;
	struct load_result *r;
	int fd[4];       /* raw/: the server's stdout and stderr, the client's */
	pid_t server, client;
	int status, srv_status;
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
		snprintf(path, sizeof(path), "/proc/%d/net/tcp", (int)server);
		text = ep_read(e, path);
		rc = text && tcp_listening(text, port);
	}
	free(text);
	return rc;
}

/* Did the server's ssh end (status 255)? Then the peer is lost. */
static void server_ended(struct iperf3_run *x, const char *what)
{
	if (ep_remote(x->rx) && WIFEXITED(x->srv_status) && WEXITSTATUS(x->srv_status) == 255 && x->rx->lose)
		x->rx->lose(x->rx->arg, what);
}

/* Start the server and wait (5 s at most) until it listens. */
static int server_start(struct iperf3_run *x, char *const argv[])
{
	const char *where = ep_remote(x->rx) ? " on the peer" : "";
	char why[300];

	/* a shared host may have the port taken; a namespace made for the run has not */
	if (ep_remote(x->rx) && listening(x->rx, -1, x->p->port) != 0)
		return fail(x, "the port is in use on the peer (or its /proc/net/tcp is unreadable); give another --port");
	x->server = ep_spawn(x->rx, argv, x->rx->cpu, x->fd[0], x->fd[1]);
	if (x->server < 0) {
		snprintf(why, sizeof(why), "cannot start %s: %s", ep_remote(x->rx) ? "ssh" : "iperf3", strerror(errno));
		return fail(x, why);
	}
	/* on the peer each look is an ssh: fewer; here 5 ms, so the client starts that much sooner */
	int step = ep_remote(x->rx) ? 100 : 5;

	for (int t = 0;; t += step) {
		int l = listening(x->rx, x->server, x->p->port);

		if (l == 1)
			return 0;
		if (waitpid(x->server, &x->srv_status, WNOHANG) == x->server) {
			char *e = raw_read(x->p->raw_prefix, "iperf3-server.err");
			size_t n = e ? strlen(e) : 0;

			while (n && (e[n - 1] == '\n' || e[n - 1] == ' ' || e[n - 1] == '\r'))
				e[--n] = '\0';
			x->server = -1;
			server_ended(x, "the ssh connection running the iperf3 server ended");
			snprintf(why, sizeof(why), "the iperf3 server%s stopped: %.200s", where, n ? e : "no message (see raw/)");
			free(e);
			return fail(x, why);
		}
		if (l < 0 || t >= 5000 || sleep_ms_or_stop(step)) {
			snprintf(why, sizeof(why), "the iperf3 server%s did not listen within 5 s (see raw/ for its output)", where);
			return fail(x, stop_requested() ? "interrupted" : why);
		}
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

/* The one-off server exits after the test (on the peer, its ssh with it): 10 s at most. */
static void server_wait(struct iperf3_run *x)
{
	int ms = ep_remote(x->rx) ? 100 : 5;

	for (int i = 0; i < 10000 / ms && x->server > 0; i++) {
		if (waitpid(x->server, &x->srv_status, WNOHANG) == x->server) {
			x->server = -1;
			server_ended(x, "the ssh connection running the iperf3 server was lost");
		} else {
			sleep_ms_or_stop(ms);
		}
	}
}

/* Wait for the client's exit, the window opened after the warm-up; -1 on a failure. */
static int client_wait(struct iperf3_run *x, int pidfd)
{
	const struct load_params *p = x->p;
	double t0 = mono_s(), deadline = t0 + p->omit_s + p->duration_s + 20; /* bounds a hang, nothing else */
	char why[200];

	while (waitpid(x->client, &x->status, WNOHANG) != x->client) {
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

/* The client, from start to exit, then the server's exit. */
static int client_run(struct iperf3_run *x, char *const argv[])
{
	char why[200];
	int pidfd, rc;

	x->client = ep_spawn(x->tx, argv, x->tx->cpu, x->fd[2], x->fd[3]);
	if (x->client < 0) {
		snprintf(why, sizeof(why), "cannot start iperf3: %s", strerror(errno));
		return fail(x, why);
	}
	/* the loop wakes as soon as the client exits, not up to 100 ms later */
	pidfd = (int)syscall(SYS_pidfd_open, x->client, 0);
	rc = client_wait(x, pidfd);
	if (pidfd >= 0)
		close(pidfd);
	if (rc < 0)
		return rc;
	x->client = -1;
	window(x, 0);
	server_wait(x);
	return ep_lost(x->rx) || ep_lost(x->tx) ? fail(x, "") : 0;
}

int load_iperf3(const struct load_params *p, struct load_result *r)
{
	const struct endpoint *tx = p->tx, *rx = p->rx;
	struct iperf3_run x = { .p = p, .tx = tx, .rx = rx, .r = r, .server = -1, .client = -1, .status = -1,
				.srv_status = -1 };
	char port[16], dur[16], omit[16], bound[16], cpu_rx[16], cpu_tx[16];
	int err = -1;

	memset(r, 0, sizeof(*r));
	r->retransmits = -1;
	snprintf(port, sizeof(port), "%d", p->port);
	snprintf(dur, sizeof(dur), "%d", p->duration_s);
	snprintf(omit, sizeof(omit), "%d", p->omit_s);
	/* on the peer: timeout(1) bounds a server the run can no longer reach, and -A pins it */
	snprintf(bound, sizeof(bound), "%d", p->omit_s + p->duration_s + 60);
	snprintf(cpu_rx, sizeof(cpu_rx), "%d", rx->cpu);
	snprintf(cpu_tx, sizeof(cpu_tx), "%d", tx->cpu);
	char *srv_argv[] = { "timeout", bound, "iperf3", "-s", "-1", "-J", "-B", (char *)rx->addr, "-p", port,
			     ep_remote(rx) && rx->cpu >= 0 ? "-A" : NULL, cpu_rx, NULL };
	char *cli_argv[] = { "timeout", bound, "iperf3", "-c", (char *)rx->addr, "-B", (char *)tx->addr, "-p", port,
			     "-t", dur, "-O", omit, "-J", ep_remote(tx) && tx->cpu >= 0 ? "-A" : NULL, cpu_tx, NULL };
	char **srv = ep_remote(rx) ? srv_argv : srv_argv + 2, **cli = ep_remote(tx) ? cli_argv : cli_argv + 2;

	if (journal_dry_run()) {
		ep_print(stdout, rx, srv);
		ep_print(stdout, tx, cli);
		return 0;
	}
	for (int i = 0; i < 4; i++)
		x.fd[i] = raw_open(p->raw_prefix, raw_names[i]);
	if (server_start(&x, srv) == 0 && client_run(&x, cli) == 0)
		err = iperf3_client_result(p->raw_prefix, x.status, r);
	window(&x, 0);
	if (x.client > 0)
		exec_stop(x.client, 1000);
	if (x.server > 0)
		exec_stop(x.server, 1000);
	for (int i = 0; i < 4; i++)
		if (x.fd[i] >= 0)
			close(x.fd[i]);
	return err;
}
