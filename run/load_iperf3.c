// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exec.h"
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

static int wait_listening(pid_t server, int port, int timeout_ms)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/net/tcp", (int)server);
	/* 5 ms: the client starts that much sooner after the server listens */
	for (int t = 0; t < timeout_ms; t += 5) {
		char *text = file_read(path, NULL);
		int ok = text && tcp_listening(text, port);

		free(text);
		if (ok)
			return 0;
		if (waitpid(server, NULL, WNOHANG) == server)
			return -1;
		if (sleep_ms_or_stop(5))
			return -1;
	}
	return -1;
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

/* Sleep up to ms, waking at once when the child behind pidfd exits (or a signal comes). */
static void sleep_or_exit(int pidfd, int ms)
{
	struct pollfd pfd = { pidfd, POLLIN, 0 };

	if (pidfd < 0 || stop_requested())
		sleep_ms_or_stop(ms);
	else
		poll(&pfd, 1, ms);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int load_iperf3(const struct load_params *p, struct load_result *r)
{
	const struct testbed *tb = p->tb;
	char port[16], dur[16], omit[16];
	int srv_out = raw_open(p->raw_prefix, "iperf3-server.json");
	int cli_out = raw_open(p->raw_prefix, "iperf3-client.json");
	int cli_err = raw_open(p->raw_prefix, "iperf3-client.err");
	pid_t server = -1, client = -1;
	int status = -1, err = -1, cli_pidfd = -1;
	double t0, deadline;
	bool window_open = false;

	memset(r, 0, sizeof(*r));
	snprintf(port, sizeof(port), "%d", p->port);
	snprintf(dur, sizeof(dur), "%d", p->duration_s);
	snprintf(omit, sizeof(omit), "%d", p->omit_s);
	char *srv_argv[] = { "iperf3", "-s", "-1", "-J", "-B", (char *)tb->addr_rx, "-p", port, NULL };
	char *cli_argv[] = { "iperf3", "-c", (char *)tb->addr_rx, "-B", (char *)tb->addr_tx, "-p", port,
			     "-t", dur, "-O", omit, "-J", NULL };

	if (journal_dry_run()) {
		exec_print(stdout, tb->ns_rx, srv_argv);
		exec_print(stdout, tb->ns_tx, cli_argv);
		return 0;
	}
	server = exec_spawn(srv_argv, &(struct spawn_opts){ .netns = tb->ns_rx, .cpu = tb->cpu_rx,
							   .stdout_fd = srv_out, .stderr_fd = srv_out });
	if (server < 0) {
		snprintf(r->error, sizeof(r->error), "cannot start iperf3: %s", strerror(errno));
		goto out;
	}
	journal_add_process(server);
	if (wait_listening(server, p->port, 5000) < 0) {
		snprintf(r->error, sizeof(r->error), stop_requested() ? "interrupted" :
			 "iperf3 server did not listen within 5 s (see raw/ for its output)");
		goto out;
	}
	client = exec_spawn(cli_argv, &(struct spawn_opts){ .netns = tb->ns_tx, .cpu = tb->cpu_tx,
							   .stdout_fd = cli_out, .stderr_fd = cli_err });
	if (client < 0) {
		snprintf(r->error, sizeof(r->error), "cannot start iperf3: %s", strerror(errno));
		goto out;
	}
	journal_add_process(client);
	cli_pidfd = (int)syscall(SYS_pidfd_open, client, 0);
	t0 = now();
	deadline = t0 + p->omit_s + p->duration_s + 20; /* bounds a hang, nothing else */
	for (;;) {
		pid_t w = waitpid(client, &status, WNOHANG);

		if (w == client) {
			client = -1;
			break;
		}
		if (!window_open && now() - t0 >= p->omit_s) {
			if (p->window)
				p->window(p->arg, 1);
			window_open = true;
		}
		if (p->tick)
			p->tick(p->arg);
		if (stop_requested()) {
			snprintf(r->error, sizeof(r->error), "interrupted by signal %d", stop_signal());
			goto out;
		}
		if (now() > deadline) {
			snprintf(r->error, sizeof(r->error), "iperf3 client still running after %.0f s",
				 deadline - t0);
			goto out;
		}
		sleep_or_exit(cli_pidfd, 100);
	}
	if (window_open && p->window)
		p->window(p->arg, 0);
	window_open = false;

	/* the one-off server exits after the test (5 s at most; it is usually gone) */
	for (int i = 0; i < 1000 && server > 0; i++) {
		if (waitpid(server, NULL, WNOHANG) == server)
			server = -1;
		else
			sleep_ms_or_stop(5);
	}

	err = iperf3_client_result(p->raw_prefix, status, r);
out:
	if (window_open && p->window)
		p->window(p->arg, 0);
	if (client > 0)
		exec_stop(client, 1000);
	if (server > 0)
		exec_stop(server, 1000);
	if (srv_out >= 0)
		close(srv_out);
	if (cli_out >= 0)
		close(cli_out);
	if (cli_err >= 0)
		close(cli_err);
	if (cli_pidfd >= 0)
		close(cli_pidfd);
	return err;
}
