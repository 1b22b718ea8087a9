// SPDX-License-Identifier: GPL-2.0
/* The peer agent's run request: what it runs, and its answer (peer_run.h). */
#include <arpa/inet.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "kmod.h"
#include "peer_files.h"
#include "peer_run.h"
#include "remote.h"
#include "version.h"

/* ---- the agent's run request: what it runs, and its answer ---- */

bool peer_dev_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= 16 || s[0] == '-' || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == '/' || *s == ':' || *s == 0x7f)
			return false;
	return true;
}

int peer_req_port(json_t *req)
{
	json_t *v = json_object_get(req, "port");
	json_int_t p = json_integer_value(v);

	return json_is_integer(v) && p >= PEER_PORT_MIN && p <= 65535 ? (int)p : -1;
}

int peer_req_cpu(json_t *req)
{
	json_t *v = json_object_get(req, "cpu");
	json_int_t c = json_integer_value(v);

	if (!v || json_is_null(v) || (json_is_integer(v) && c == -1))
		return -1;
	return json_is_integer(v) && c >= 0 && c < cpu_count() ? (int)c : -2;
}

/* An ethtool -K feature name (tso, rx-gro-hw, tx-udp_tnl-segmentation, ...). */
static bool feature_ok(const char *s)
{
	return *s && *s != '-' && !s[strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-")];
}

static bool argv_is(char *const argv[], int argc, const char *const want[])
{
	int i;

	for (i = 0; want[i]; i++)
		if (i >= argc || strcmp(argv[i], want[i]))
			return false;
	return i == argc;
}

int peer_run_allowed(char *const argv[], int argc, char *why, size_t len)
{
	static const char *const exact[][3] = {
		{ "uname", "-r" }, { "printenv", "SSH_CONNECTION" }, { "iperf3", "--version" },
		{ "timeout", "--version" },
	};
	const char *prog = argc > 0 ? argv[0] : "";

	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (argv_is(argv, argc, exact[i]))
			return 0;
	if (argc == 6 && argv_is(argv, 5, (const char *const[]){ "ip", "-j", "addr", "show", "dev", NULL }) &&
	    peer_dev_ok(argv[5]))
		return 0;
	/* a scenario's [link] mtu, and its undo */
	if (argc == 7 && argv_is(argv, 4, (const char *const[]){ "ip", "link", "set", "dev", NULL }) && peer_dev_ok(argv[4]) &&
	    !strcmp(argv[5], "mtu") && argv[6][0] && strlen(argv[6]) <= 5 && strspn(argv[6], "0123456789") == strlen(argv[6]))
		return 0;
	if (!strcmp(prog, "ethtool")) {
		if (argc == 2 && peer_dev_ok(argv[1]))
			return 0;
		if (argc == 3 && (!strcmp(argv[1], "-i") || !strcmp(argv[1], "-k")) && peer_dev_ok(argv[2]))
			return 0;
		if (argc >= 5 && argc % 2 == 1 && !strcmp(argv[1], "-K") && peer_dev_ok(argv[2])) {
			int i;

			for (i = 3; i < argc; i += 2)
				if (!feature_ok(argv[i]) || (strcmp(argv[i + 1], "on") && strcmp(argv[i + 1], "off")))
					break;
			if (i >= argc)
				return 0;
		}
	}
	/* the files the testbed reads, which the agent reads itself (peer_files.c) */
	if (!strcmp(prog, "cat") && argc >= 2 && argc <= 4) {
		int i;

		for (i = 1; i < argc && peer_file_known(argv[i]); i++)
			;
		if (i == argc)
			return 0;
	}
	snprintf(why, len, "run: not a command the peer testbed runs (%.40s%s); the agent (ipsecperf %s) runs only ip -j addr show, ip link set dev DEV mtu N, ethtool, "
		 "iperf3 --version, timeout --version, uname -r, printenv SSH_CONNECTION and cat of %s; a run of another release may ask for more: install the same release on both hosts",
		 prog, argc > 1 ? " ..." : "", IPSECPERF_VERSION, peer_files_list);
	return -1;
}

static bool digits(const char *s, size_t max)
{
	size_t n = strlen(s);

	return n && n <= max && strspn(s, "0123456789") == n;
}

/*
 * argv (argc words) against a pattern: a word as it is, or "#N" digits
 * (N at most), "@" an address, "%" a port of run --port's range, "$" a module's name.
 */
static bool argv_match(char *const argv[], int argc, const char *const pat[])
{
	unsigned char b[16];
	int i;

	for (i = 0; pat[i]; i++) {
		const char *a = i < argc ? argv[i] : NULL, *p = pat[i];

		if (!a || (p[0] == '#' && !digits(a, (size_t)(p[1] - '0'))) ||
		    (!strcmp(p, "@") && inet_pton(AF_INET, a, b) != 1 && inet_pton(AF_INET6, a, b) != 1) ||
		    (!strcmp(p, "%") && (!digits(a, 5) || atoi(a) < PEER_PORT_MIN || atoi(a) > 65535)) ||
		    (!strcmp(p, "$") && !kmod_name_ok(a)) || (!strchr("#@%$", p[0]) && strcmp(a, p)))
			return false;
	}
	return i == argc;
}

int peer_ssh_allowed(char *const argv[], int argc, char *why, size_t len)
{
	/* load_iperf3.c's server and client on the peer (bounded by timeout), ep_kmod_set's modprobe and rmmod */
	static const char *const pats[][16] = {
		{ "timeout", "#7", "iperf3", "-s", "-1", "-J", "-B", "@", "-p", "%" },
		{ "timeout", "#7", "iperf3", "-c", "@", "-B", "@", "-p", "%", "-t", "#6", "-O", "#6", "-J" },
		{ "modprobe", "$" },
		{ "rmmod", "$" },
	};
	int n = argc;

	if (peer_run_allowed(argv, argc, why, len) == 0)
		return 0;
	/* -A CPU after the iperf3 server's or client's words, when the run pins it; -C NAME (--congestion) the client's */
	if (n > 2 && !strcmp(argv[0], "timeout") && !strcmp(argv[n - 2], "-A") && digits(argv[n - 1], 4))
		n -= 2;
	if (n > 4 && !strcmp(argv[0], "timeout") && !strcmp(argv[3], "-c") && !strcmp(argv[n - 2], "-C") &&
	    strlen(argv[n - 1]) < 16 && argv[n - 1][0] &&
	    !argv[n - 1][strspn(argv[n - 1], "abcdefghijklmnopqrstuvwxyz0123456789_")])
		n -= 2;
	for (size_t i = 0; i < sizeof(pats) / sizeof(pats[0]); i++)
		if (argv_match(argv, n, pats[i]) && (n == argc || !strcmp(argv[0], "timeout")))
			return 0;
	snprintf(why, len, "`%.40s%s` is not a command the peer testbed sends through ssh (this agent is ipsecperf %s; a run of another release may send others: install the same release on both hosts)",
		 argc > 0 ? argv[0] : "", argc > 1 ? " ..." : "", IPSECPERF_VERSION);
	return -1;
}

/* An answer that the program ran, and why what it printed is not in it. */
static char *run_not_sent(const struct peer_run_output *o, const char *flag, const char *why)
{
	json_t *a = json_pack("{s:b, s:b, s:i, s:s, s:b}", "ok", 0, "ran", 1, "status", o->status, "error", why,
			      flag, 1);
	char *line = a ? json_dumps(a, JSON_COMPACT) : NULL;

	json_decref(a);
	return line;
}

static bool is_text(const char *s, size_t n)
{
	json_t *j;

	if (memchr(s, '\0', n))
		return false;
	j = json_stringn(s, n); /* NULL: not UTF-8 */
	json_decref(j);
	return j != NULL;
}

char *peer_run_answer(const struct peer_run_output *o)
{
	char why[200];
	json_t *a;
	char *line;

	if (o->status < 0) {
		a = json_pack("{s:b, s:b, s:s}", "ok", 0, "ran", 0, "error", "run: the program could not be started");
		line = a ? json_dumps(a, JSON_COMPACT) : NULL;
		json_decref(a);
		return line;
	}
	if (o->timed_out) {
		snprintf(why, sizeof(why), "run: the program did not end within %d s; it was killed",
			 PEER_RUN_DEADLINE_MS / 1000);
		return run_not_sent(o, "timed_out", why);
	}
	if (o->too_long)
		return run_not_sent(o, "too_long", "run: the program printed more than an answer holds; it was killed");
	if (!is_text(o->out, o->out_len) || !is_text(o->err, o->err_len))
		return run_not_sent(o, "binary", "run: the program printed something that is not text (a NUL, or not UTF-8)");
	a = json_pack("{s:b, s:b, s:i, s:s%, s:s%}", "ok", 1, "ran", 1, "status", o->status, "out", o->out,
		      o->out_len, "err", o->err, o->err_len);
	line = a ? json_dumps(a, JSON_COMPACT) : NULL;
	json_decref(a);
	/* what the run's reader takes is the encoded line: escapes make it up to six times the output */
	if (line && strlen(line) > REMOTE_ANSWER_MAX) {
		snprintf(why, sizeof(why), "run: the answer would be %zu bytes, more than the %d an answer holds",
			 strlen(line), REMOTE_ANSWER_MAX);
		free(line);
		return run_not_sent(o, "too_long", why);
	}
	return line;
}

/* A string of the answer as a new C string; NULL when it holds a NUL (not text). */
static char *answer_str(json_t *r, const char *key)
{
	json_t *v = json_object_get(r, key);
	const char *s = json_string_value(v);

	if (!s)
		return strdup("");
	return memchr(s, '\0', json_string_length(v)) ? NULL : strdup(s);
}

int peer_run_result(json_t *r, char **out, char **err)
{
	json_t *ran = json_object_get(r, "ran");
	char *o = NULL, *e = NULL;

	if (json_is_true(json_object_get(r, "ok")) && json_is_integer(json_object_get(r, "status"))) {
		o = answer_str(r, "out");
		e = answer_str(r, "err");
		if (o && e) {
			if (out)
				*out = o;
			else
				free(o);
			if (err)
				*err = e;
			else
				free(e);
			return (int)json_integer_value(json_object_get(r, "status"));
		}
		free(o);
		free(e);
		if (err)
			*err = strdup("run: the agent's answer holds a NUL; not taken as text");
		if (out)
			*out = strdup("");
		return -1;
	}
	/* not run: ssh may run it; an agent older than "ran" ran it when it says too_long or binary */
	if (json_is_false(ran) || (!ran && !json_object_get(r, "too_long") && !json_object_get(r, "binary")))
		return PEER_RUN_NOT_RUN;
	if (err)
		*err = strdup(json_string_value(json_object_get(r, "error")) ?: "run: the agent did not send the output");
	if (out)
		*out = strdup("");
	return json_is_true(json_object_get(r, "too_long")) ? PEER_RUN_TOO_LONG : -1;
}

json_t *peer_answer(json_t *r)
{
	if (r && !json_is_true(json_object_get(r, "ok")) && !json_object_get(r, "error")) {
		json_decref(r);
		return NULL;
	}
	return r;
}
