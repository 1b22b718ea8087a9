// SPDX-License-Identifier: GPL-2.0
/*
 * The peer testbed: shell quoting of the remote argv (checked against a
 * real /bin/sh), the ssh argv, and the parsers of ethtool, ip -j, /proc/stat.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "clock.h"
#include "endpoint.h"
#include "endpoint_xfrm.h"
#include "exec.h"
#include "log.h"
#include "peer_files.h"
#include "peer_run.h"
#include "remote.h"
#include "testbed_peer.h"

static void quote_plain_words_unchanged(void **state)
{
	(void)state;
	const char *words[] = { "ethtool", "-K", "eth0", "198.18.0.2", "/usr/bin/iperf3", "a=b,c:d@e%f+g" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		char *q = shell_quote(words[i]);

		assert_string_equal(q, words[i]);
		free(q);
	}
}

static void quote_special(void **state)
{
	(void)state;
	struct {
		const char *in, *out;
	} t[] = {
		{ "", "''" },
		{ "a b", "'a b'" },
		{ "it's", "'it'\\''s'" },
		{ "'", "''\\'''" },
		{ "$(reboot)", "'$(reboot)'" },
		{ "`id`", "'`id`'" },
		{ "a;b", "'a;b'" },
		{ "x\ny", "'x\ny'" },
		{ "*", "'*'" },
		{ "~root", "'~root'" },
		{ "\\", "'\\'" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *q = shell_quote(t[i].in);

		assert_string_equal(q, t[i].out);
		free(q);
	}
}

/* What a real shell makes of the joined words: each word back, unchanged. */
static void quote_round_trip_through_sh(void **state)
{
	(void)state;
	char *words[] = { "printf", "%s\\n", "plain", "two words", "it's", "''", "$HOME", "$(echo no)",
			  "`echo no`", "a;echo no", "a|b", "a&b", "<x>", "*", "?", "[a]", "{a,b}", "~",
			  "#hash", "back\\slash", "new\nline", "tab\there", "\"dq\"", "!bang", "", NULL };
	char *joined = shell_join(words);
	char *out = NULL, *err = NULL;
	int st;

	assert_non_null(joined);
	st = exec_run(NULL, (char *[]){ "/bin/sh", "-c", joined, NULL }, &out, &err);
	assert_int_equal(st, 0);

	/* printf prints each argument after the format on its own line */
	char *expect = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&expect, &len);

	for (int i = 2; words[i]; i++)
		fprintf(m, "%s\n", words[i]);
	fclose(m);
	assert_string_equal(out, expect);
	free(expect);
	free(out);
	free(err);
	free(joined);
}

/* shell_split undoes shell_join, and takes nothing else (what a pinned key was asked for is data). */
static void split_round_trip(void **state)
{
	(void)state;
	char *words[] = { "ipsecperf", "peer-agent", "--undo", "{\"kind\":\"xfrm-state\",\"dst\":\"a b\"}", "it's",
			  "''", "'", "$(echo no)", "a;b", "new\nline", "", "x'y'z", "\\'", NULL };
	static const char *const bad[] = { "", " a", "a ", "a  b", "a;b", "'unclosed", "ab'c'", "'a'b", "a\\ b",
					   "'a'\\''", "$(x)", "a\tb" };
	char *joined = shell_join(words), **back = shell_split(joined);
	int n;

	assert_non_null(back);
	for (n = 0; words[n]; n++) {
		assert_non_null(back[n]);
		assert_string_equal(back[n], words[n]);
	}
	assert_null(back[n]);
	remote_argv_free(back);
	free(joined);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if ((back = shell_split(bad[i]))) {
			remote_argv_free(back);
			fail_msg("shell_split took \"%s\"", bad[i]);
		}
}

static void ssh_argv_shape(void **state)
{
	(void)state;
	struct host h = { .ssh_dest = "root@peer", .ssh_opts = { "IdentityFile=/k", "Port=2222" }, .nopts = 2 };
	char **a = remote_ssh_argv(&h, (char *[]){ "ethtool", "-k", "eth 1", NULL });
	int n = 0, dashdash = -1;

	assert_non_null(a);
	assert_string_equal(a[0], "ssh");
	/* BatchMode before any user option: ssh keeps an option's first value */
	assert_string_equal(a[1], "-o");
	assert_string_equal(a[2], "BatchMode=yes");
	while (a[n]) {
		if (!strcmp(a[n], "--") && dashdash < 0)
			dashdash = n;
		n++;
	}
	assert_true(dashdash > 0);
	assert_string_equal(a[dashdash - 1], "Port=2222");
	assert_string_equal(a[dashdash - 3], "IdentityFile=/k");
	assert_string_equal(a[dashdash + 1], "root@peer");
	assert_string_equal(a[dashdash + 2], "ethtool -k 'eth 1'");
	assert_int_equal(n, dashdash + 3);
	remote_argv_free(a);
}

static void dest_and_opt_checks(void **state)
{
	(void)state;
	char why[256];

	assert_int_equal(remote_check_dest("root@10.0.0.2", why, sizeof(why)), 0);
	assert_int_equal(remote_check_dest("peer", why, sizeof(why)), 0);
	assert_int_equal(remote_check_dest("-oProxyCommand=x", why, sizeof(why)), -1);
	assert_int_equal(remote_check_dest("a b", why, sizeof(why)), -1);
	assert_int_equal(remote_check_dest("a\nb", why, sizeof(why)), -1);
	assert_int_equal(remote_check_dest("", why, sizeof(why)), -1);
	assert_int_equal(remote_check_opt("IdentityFile=/x", why, sizeof(why)), 0);
	assert_int_equal(remote_check_opt("Port 22", why, sizeof(why)), 0);
	assert_int_equal(remote_check_opt("BatchMode", why, sizeof(why)), -1);
	assert_int_equal(remote_check_opt("=x", why, sizeof(why)), -1);
	assert_int_equal(remote_check_opt("A=b\nc", why, sizeof(why)), -1);
}

static void ethtool_link(void **state)
{
	(void)state;
	struct link_info li;
	const char *ten_g = "Settings for enp1s0f0:\n\tSupported ports: [ FIBRE ]\n"
			    "\tSpeed: 10000Mb/s\n\tDuplex: Full\n\tAuto-negotiation: off\n"
			    "\tLink detected: yes\n";

	assert_int_equal(peer_parse_ethtool(ten_g, &li), 0);
	assert_int_equal(li.speed_mbps, 10000);
	assert_int_equal(li.link, 1);
	assert_string_equal(li.duplex, "Full");
	assert_int_equal(peer_parse_ethtool("Settings for x:\n\tSpeed: Unknown!\n\tLink detected: no\n", &li), 0);
	assert_int_equal(li.speed_mbps, -1);
	assert_int_equal(li.link, 0);
	assert_int_equal(peer_parse_ethtool("Settings for lo:\n\tLink detected: yes\n", &li), 0);
	assert_int_equal(li.link, 1);
	assert_int_equal(peer_parse_ethtool("nothing here\n", &li), -1);
}

static const char ip_json[] =
	"[{\"ifindex\":2,\"ifname\":\"eth1\",\"mtu\":9000,\"operstate\":\"UP\",\"addr_info\":["
	"{\"family\":\"inet6\",\"local\":\"fe80::1\",\"prefixlen\":64,\"scope\":\"link\"},"
	"{\"family\":\"inet\",\"local\":\"10.1.0.1\",\"prefixlen\":24,\"scope\":\"global\"},"
	"{\"family\":\"inet\",\"local\":\"10.2.0.1\",\"prefixlen\":16,\"scope\":\"global\"},"
	"{\"family\":\"inet6\",\"local\":\"2001:db8::1\",\"prefixlen\":64,\"scope\":\"global\"}]}]";

static void ip_addr_and_link(void **state)
{
	(void)state;
	char a[64], st[16];
	int plen = 0, mtu = 0;

	assert_int_equal(peer_parse_ip_addr(ip_json, "inet", NULL, a, sizeof(a), &plen), 0);
	assert_string_equal(a, "10.1.0.1");
	assert_int_equal(plen, 24);
	assert_int_equal(peer_parse_ip_addr(ip_json, "inet6", NULL, a, sizeof(a), &plen), 0);
	assert_string_equal(a, "2001:db8::1"); /* the link-local one is skipped */
	assert_int_equal(peer_parse_ip_addr(ip_json, NULL, "10.2.0.1", a, sizeof(a), &plen), 0);
	assert_int_equal(plen, 16);
	assert_int_equal(peer_parse_ip_addr(ip_json, NULL, "10.3.0.1", a, sizeof(a), &plen), -1);
	assert_int_equal(peer_parse_ip_addr("not json", "inet", NULL, a, sizeof(a), &plen), -1);
	assert_int_equal(peer_parse_ip_addr("[]", "inet", NULL, a, sizeof(a), &plen), -1);
	assert_int_equal(peer_parse_ip_link(ip_json, &mtu, st, sizeof(st)), 0);
	assert_int_equal(mtu, 9000);
	assert_string_equal(st, "UP");
	assert_int_equal(peer_parse_ip_link("[{\"ifname\":\"x\"}]", &mtu, st, sizeof(st)), -1);
}

static void hex_decode(void **state)
{
	(void)state;
	uint8_t b[4];

	assert_int_equal(peer_hex_decode("00ff10Ab", b, sizeof(b)), 4);
	assert_int_equal(b[1], 0xff);
	assert_int_equal(b[3], 0xab);
	assert_int_equal(peer_hex_decode("abc", b, sizeof(b)), -1);
	assert_int_equal(peer_hex_decode("zz", b, sizeof(b)), -1);
	assert_int_equal(peer_hex_decode("0x", b, sizeof(b)), -1);
	assert_int_equal(peer_hex_decode("0011223344", b, sizeof(b)), -1);
	assert_int_equal(peer_hex_decode("", b, sizeof(b)), 0);
}

/* Nothing of a request (a key) stays in the agent's line buffer once it is taken. */
static void request_take_wipes(void **state)
{
	(void)state;
	static const char key[] = "00112233445566778899aabbccddeeff";
	char buf[256], text[256];
	size_t have, all;
	json_t *req;

	all = (size_t)snprintf(text, sizeof(text), "{\"op\":\"sa-add\",\"key\":\"%s\"}\n[1]\nnot json\n{\"op\":\"pi", key);
	memset(buf, 0x5a, sizeof(buf));
	memcpy(buf, text, all);
	have = all;

	assert_int_equal(peer_request_take(buf, &have, &req), 1);
	assert_non_null(req);
	assert_string_equal(json_string_value(json_object_get(req, "key")), key);
	json_decref(req);
	/* the rest moved to the front; behind it zeroes, not the key nor a stale copy */
	assert_memory_equal(buf, strchr(text, '\n') + 1, have);
	for (size_t i = have; i < all; i++)
		assert_int_equal(buf[i], 0);
	assert_null(memmem(buf, sizeof(buf), "0011223344", 10));

	assert_int_equal(peer_request_take(buf, &have, &req), 1);
	assert_null(req); /* JSON, not an object */
	assert_int_equal(peer_request_take(buf, &have, &req), 1);
	assert_null(req); /* not JSON */
	assert_int_equal(peer_request_take(buf, &have, &req), 0); /* half a line: wait for more */
	assert_int_equal(have, strlen("{\"op\":\"pi"));
	memcpy(buf + have, "ng\"}\n", 5);
	have += 5;
	assert_int_equal(peer_request_take(buf, &have, &req), 1);
	assert_string_equal(json_string_value(json_object_get(req, "op")), "ping");
	json_decref(req);
	assert_int_equal(have, 0);
	for (size_t i = 0; i < all; i++)
		assert_int_equal(buf[i], 0);
}

static void stat_busy(void **state)
{
	(void)state;
	const char *s = "cpu  100 0 100 1000 0 0 0 0 0 0\n"
			"cpu0 10 1 20 500 5 2 3 4 0 0\n"
			"cpu1 30 0 40 500 0 0 0 0 0 0\n"
			"intr 12345\nctxt 1\n";

	/* busy = user nice system irq softirq steal: (10+1+20+2+3+4) + (30+40) */
	assert_int_equal(peer_stat_busy_ticks(s), 110);
	assert_int_equal(peer_stat_busy_ticks("intr 1\n"), -1);
}


/* ---- the agent's run request ---- */

static char *answer_of(int status, const char *out, size_t out_len, const char *err, size_t err_len)
{
	return peer_run_answer(&(struct peer_run_output){ .status = status, .out = out, .out_len = out_len,
							   .err = err, .err_len = err_len });
}

/* Output that fits as bytes but not as JSON: the answer is measured encoded, and says it ran. */
static void run_answer_measured_encoded(void **state)
{
	(void)state;
	const char fill[] = { 1, '"', 0x1b };

	for (size_t f = 0; f < sizeof(fill); f++) {
		size_t n = f == 1 ? 24000 : 20000;
		char *out = malloc(n + 1), *line;
		json_t *r;

		memset(out, fill[f], n);
		out[n] = '\0';
		line = answer_of(0, out, n, out, f == 1 ? n : 0);
		assert_non_null(line);
		assert_true(strlen(line) <= REMOTE_ANSWER_MAX);
		r = json_loads(line, 0, NULL);
		assert_non_null(r);
		assert_true(json_is_false(json_object_get(r, "ok")));
		assert_true(json_is_true(json_object_get(r, "ran")));
		assert_true(json_is_true(json_object_get(r, "too_long")));
		json_decref(r);
		free(line);
		free(out);
	}
}

/* Output that fits is sent whole, and read back as it was. */
static void run_answer_round_trip(void **state)
{
	(void)state;
	char *line = answer_of(3, "out \"q\"\n", 8, "err\x01", 4), *out = NULL, *err = NULL;
	json_t *r = json_loads(line, 0, NULL);

	assert_int_equal(peer_run_result(r, &out, &err), 3);
	assert_string_equal(out, "out \"q\"\n");
	assert_string_equal(err, "err\x01");
	free(out);
	free(err);
	json_decref(r);
	free(line);
}

/* A NUL is not cut at: the output is not text, said so, and not sent. */
static void run_answer_nul_not_cut(void **state)
{
	(void)state;
	char *line = answer_of(0, "abc\0", 4, "", 0), *out = NULL, *err = NULL;
	json_t *r = json_loads(line, 0, NULL);

	assert_true(json_is_false(json_object_get(r, "ok")));
	assert_true(json_is_true(json_object_get(r, "binary")));
	assert_null(json_object_get(r, "out"));
	assert_int_equal(peer_run_result(r, &out, &err), -1);
	assert_non_null(strstr(err, "not text"));
	free(out);
	free(err);
	json_decref(r);
	free(line);
	/* and a NUL inside an answer's string (an agent that sends one) is not taken as text either */
	r = json_loads("{\"ok\":true,\"ran\":true,\"status\":0,\"out\":\"abc\\u0000\",\"err\":\"\"}", JSON_ALLOW_NUL, NULL);
	assert_non_null(r);
	assert_int_equal(peer_run_result(r, &out, &err), -1);
	free(out);
	free(err);
	json_decref(r);
}

/* Only an answer that says the program did not run sends it to ssh; one that ran is never run again. */
static void run_result_ran_or_not(void **state)
{
	(void)state;
	static const struct {
		const char *answer;
		int want;
	} t[] = {
		{ "{\"ok\":false,\"ran\":false,\"error\":\"run: not a command\"}", PEER_RUN_NOT_RUN },
		{ "{\"ok\":false,\"error\":\"unknown request 'run'\"}", PEER_RUN_NOT_RUN },
		{ "{\"ok\":false,\"ran\":true,\"status\":0,\"too_long\":true,\"error\":\"x\"}", PEER_RUN_TOO_LONG },
		{ "{\"ok\":false,\"ran\":true,\"status\":137,\"timed_out\":true,\"error\":\"x\"}", -1 },
		/* an agent from before "ran": too_long and binary came after running */
		{ "{\"ok\":false,\"too_long\":true,\"error\":\"x\"}", PEER_RUN_TOO_LONG },
		{ "{\"ok\":false,\"binary\":true,\"error\":\"x\"}", -1 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		json_t *r = json_loads(t[i].answer, 0, NULL);
		char *out = NULL, *err = NULL;

		assert_int_equal(peer_run_result(r, &out, &err), t[i].want);
		if (t[i].want == -1 || t[i].want == PEER_RUN_TOO_LONG)
			assert_string_equal(out, "");
		free(out);
		free(err);
		json_decref(r);
	}
}

/* Is the agent's answer text kept by peer_answer? */
static bool kept(const char *answer)
{
	json_t *r = peer_answer(json_loads(answer, 0, NULL));
	bool k = r != NULL;

	json_decref(r);
	return k;
}

/* Any answer of the agent: kept when it says ok or carries an error, else dropped. */
static void answer_ok_or_error(void **state)
{
	static const char *const keep[] = { "{\"ok\":true}", "{\"ok\":false,\"error\":\"x\"}", "{\"error\":\"x\"}" };
	static const char *const drop[] = { "{\"ok\":false}", "{\"ok\":1}", "[]" };

	(void)state;
	assert_null(peer_answer(NULL));
	for (size_t i = 0; i < 3; i++) {
		assert_true(kept(keep[i]));
		assert_false(kept(drop[i]));
	}
}

static int allowed(const char *const *argv)
{
	int n = 0;
	char why[400];

	while (argv[n])
		n++;
	return peer_run_allowed((char *const *)argv, n, why, sizeof(why));
}

/* The agent runs what the peer testbed sends, and nothing that could be a shell. */
static void run_allowed_list(void **state)
{
	(void)state;
	static const char *const yes[][10] = {
		{ "uname", "-r" }, { "printenv", "SSH_CONNECTION" }, { "iperf3", "--version" },
		{ "timeout", "--version" }, { "ip", "-j", "addr", "show", "dev", "eth0" }, { "ethtool", "enp1s0" },
		{ "ethtool", "-i", "eth0" }, { "ethtool", "-k", "eth0" },
		{ "ethtool", "-K", "eth0", "tso", "off", "rx-gro-hw", "on", "tx-udp_tnl-segmentation", "off" },
		{ "cat", "/proc/net/tcp", "/proc/net/tcp6" }, { "cat", "/proc/stat" }, { "cat", "/proc/net/tcp6" },
		{ "ip", "link", "set", "dev", "eth0", "mtu", "9000" },
	};
	static const char *const no[][9] = {
		{ "sh", "-c", "id" }, { "bash" }, { "/bin/sh" }, { "uname" }, { "uname", "-r", "-a" },
		{ "ip", "netns", "exec", "x", "sh" }, { "ip", "-j", "addr", "show", "dev", "-x" },
		{ "ip", "-j", "addr", "show", "dev", "../x" }, { "ethtool", "--flash", "eth0", "fw" },
		{ "ethtool", "-E", "eth0" }, { "ethtool", "-K", "eth0", "tso" }, { "ethtool", "-K", "eth0", "tso", "maybe" },
		{ "ethtool", "-K", "eth0", "--x", "on" }, { "cat", "/etc/shadow" }, { "cat", "/proc/../etc/shadow" },
		{ "cat", "/proc/net/tcp", "/root/.ssh/id_rsa" }, { "cat" }, { "timeout", "1", "sh" },
		{ "iperf3", "-s", "--logfile", "/etc/passwd" }, { "printenv" }, { "" },
		{ "ip", "link", "set", "dev", "eth0", "down" }, { "ip", "link", "set", "dev", "eth0", "mtu", "9000x" },
		{ "ip", "link", "set", "dev", "eth0", "mtu", "" }, { "ip", "link", "set", "dev", "-x", "mtu", "9000" },
		{ "ip", "link", "set", "dev", "eth0", "mtu", "9000", "up" }, { "ip", "link", "set", "dev", "eth0", "mtu", "123456" },
		/* only the files the testbed reads: no other /proc or /sys file, none through a link of /proc */
		{ "cat", "/proc/self/root/etc/shadow" }, { "cat", "/proc/1/root/etc/shadow" }, { "cat", "/proc/self/environ" },
		{ "cat", "/proc/1/cwd/x" }, { "cat", "/proc/self/fd/3" }, { "cat", "/sys/class/net/eth0/mtu" },
		{ "cat", "/proc/net/tcp", "/proc/self/environ" }, { "cat", "/proc/net/tcp/" }, { "cat", "/proc/kcore" },
	};

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		assert_int_equal(allowed(yes[i]), 0);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (allowed(no[i]) != -1)
			fail_msg("allowed: %s %s", no[i][0], no[i][1] ? no[i][1] : "");
}

static int ssh_allowed(const char *const argv[])
{
	char why[600];
	int n = 0;

	while (argv[n])
		n++;
	return peer_ssh_allowed((char *const *)argv, n, why, sizeof(why));
}

/* A key pinned to the agent is served what the run sends through ssh, and nothing more. */
static void ssh_allowed_list(void **state)
{
	(void)state;
	static const char *const yes[][20] = {
		{ "timeout", "73", "iperf3", "-s", "-1", "-J", "-B", "198.18.7.2", "-p", "5201" },
		{ "timeout", "73", "iperf3", "-s", "-1", "-J", "-B", "2001:db8::2", "-p", "5202", "-A", "1" },
		{ "timeout", "73", "iperf3", "-c", "198.18.7.1", "-B", "198.18.7.2", "-p", "5201", "-t", "10", "-O", "2", "-J" },
		{ "timeout", "73", "iperf3", "-c", "198.18.7.1", "-B", "198.18.7.2", "-p", "5201", "-t", "10", "-O", "2", "-J",
		  "-A", "0" },
		{ "timeout", "73", "iperf3", "-c", "198.18.7.1", "-B", "198.18.7.2", "-p", "5201", "-t", "10", "-O", "2", "-J",
		  "-C", "bbr", "-A", "0" },
		{ "timeout", "73", "iperf3", "-c", "198.18.7.1", "-B", "198.18.7.2", "-p", "5201", "-t", "10", "-O", "2", "-J",
		  "-C", "cubic" },
		{ "modprobe", "esp4" }, { "rmmod", "esp4_offload" }, { "modprobe", "xfrm-user" },
		{ "ethtool", "-K", "eth0", "tso", "on", "gso", "off" }, { "ip", "link", "set", "dev", "eth0", "mtu", "1500" },
		{ "cat", "/proc/stat" }, { "cat", "/proc/net/tcp", "/proc/net/tcp6" }, { "uname", "-r" },
	};
	static const char *const no[][20] = {
		{ "timeout", "73", "iperf3", "-s", "-1", "-J", "-B", "198.18.7.2", "-p", "5201", "--logfile", "/etc/passwd" },
		{ "timeout", "73", "iperf3", "-s", "-1", "-J", "-B", "x;y", "-p", "5201" },
		{ "timeout", "73", "iperf3", "-s", "-1", "-J", "-B", "198.18.7.2", "-p", "0" },
		{ "timeout", "73", "iperf3", "-s", "-1", "-J", "-B", "198.18.7.2", "-p", "70000" },
		{ "timeout", "73", "iperf3", "-s", "-1", "-J", "-B", "198.18.7.2", "-p", "80" }, /* below run --port's */
		{ "timeout", "73", "iperf3", "-c", "198.18.7.1", "-B", "198.18.7.2", "-p", "1023", "-t", "10", "-O", "2", "-J" },
		{ "timeout", "73", "iperf3", "-s", "-1", "-J", "-B", "198.18.7.2", "-p", "5201", "-A", "x" },
		{ "timeout", "-s", "KILL", "iperf3", "-s" }, { "timeout", "1", "sh" }, { "iperf3", "-s" },
		{ "timeout", "73", "iperf3", "-s", "-1", "-J", "-B", "198.18.7.2", "-p", "5201", "-C", "bbr" },
		{ "timeout", "73", "iperf3", "-c", "198.18.7.1", "-B", "198.18.7.2", "-p", "5201", "-t", "10", "-O", "2", "-J",
		  "-C", "x;y" },
		{ "timeout", "73", "iperf3", "-c", "198.18.7.1", "-B", "198.18.7.2", "-p", "5201", "-t", "10", "-O", "2", "-J",
		  "-A", "0", "-C", "bbr" },
		{ "modprobe", "-v", "esp4" }, { "modprobe", "--config=/etc/shadow" }, { "modprobe", "esp4", "-A", "1" },
		{ "rmmod", "-f", "esp4" }, { "modprobe", "../x" }, { "echo", "ipsecperf-ssh-check" },
		{ "cat", "/etc/shadow" }, { "sh", "-c", "id" }, { "" },
	};

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (ssh_allowed(yes[i]) != 0)
			fail_msg("not served: %s %s %s", yes[i][0], yes[i][1], yes[i][2] ? yes[i][2] : "");
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (ssh_allowed(no[i]) != -1)
			fail_msg("served: %s %s", no[i][0], no[i][1] ? no[i][1] : "");
}

/* The agent's cat: the testbed's files, read here, capped; nothing else. */
static void files_read_in_process(void **state)
{
	(void)state;
	struct exec_result r;

	/* the host's own /proc/net/tcp: 150 bytes a socket, more than 1 MiB on a busy host */
	assert_int_equal(peer_files_cat((char *[]){ "/proc/net/tcp", "/proc/stat" }, 2, 1 << 28, &r), 0);
	assert_false(r.too_long);
	assert_int_equal(strncmp(r.out, "  sl  local_address", 19), 0);
	assert_non_null(strstr(r.out, "\ncpu "));
	assert_int_equal(r.err_len, 0);
	free(r.out);
	free(r.err);
	assert_int_equal(peer_files_cat((char *[]){ "/proc/stat" }, 1, 10, &r), 0);
	assert_true(r.too_long);
	assert_int_equal(r.out_len, 10);
	free(r.out);
	free(r.err);
	/* a name not in the table is never opened, whatever it is */
	assert_int_equal(peer_files_cat((char *[]){ "/proc/stat", "/proc/self/root/etc/shadow" }, 2, 1 << 20, &r), -1);
	assert_null(r.out);
	assert_int_equal(peer_files_cat((char *[]){ "/proc/self/environ" }, 1, 1 << 20, &r), -1);
	assert_false(peer_file_known("/proc/net/../stat"));
	assert_false(peer_file_known("/proc/net/tcp "));
	assert_true(peer_file_known("/proc/net/tcp6"));
}

/* exec_run_limited: a cap and a deadline end the program at once, and its children with it. */
static void exec_limits_kill(void **state)
{
	(void)state;
	struct exec_limits cap = { .max_out = 1000, .deadline_ms = 10000 }, soon = { .max_out = 0, .deadline_ms = 300 };
	struct exec_result r;
	double t0 = mono_s();
	int st;

	st = exec_run_limited(NULL, (char *[]){ "sh", "-c", "yes", NULL }, &cap, &r);
	assert_true(r.too_long);
	assert_false(r.timed_out);
	assert_int_equal(r.out_len, 1000);
	assert_int_equal(st, 128 + 9);
	free(r.out);
	free(r.err);
	/* a child that keeps the pipes open after the program ended holds the read: the deadline ends both */
	st = exec_run_limited(NULL, (char *[]){ "sh", "-c", "sleep 30 & printf 'a\\000b'", NULL }, &soon, &r);
	assert_true(r.timed_out);
	assert_int_equal(r.out_len, 3);
	assert_memory_equal(r.out, "a\0b", 3);
	assert_true(mono_s() - t0 < 5);
	free(r.out);
	free(r.err);
	(void)st;
}

/* ---- the peer's text is data ---- */

static void clean_text(void **state)
{
	(void)state;
	char a[] = "6.1\x1b]0;pwned\x07\x1b[31m\r\x7f\xc2\x9b" "2J\xff\xc3\xa9\tok\n";
	char b[] = "line one\nline\ttwo";

	msg_clean(a, false);
	assert_string_equal(a, "6.1?]0;pwned??[31m????2J?\xc3\xa9\tok\n");
	msg_clean(b, true);
	assert_string_equal(b, "line one line two");
	msg_clean(NULL, true);
	/* bidirectional controls and zero-width characters (RLO, LRI, PDI, ZWSP, ZWJ, BOM, ALM, LS): they reorder or hide text */
	char c[] = "a\xe2\x80\xae" "gnp.exe\xe2\x81\xa6" "b\xe2\x81\xa9\xe2\x80\x8b" "c\xe2\x80\x8d\xef\xbb\xbf\xd8\x9c"
		   "\xe2\x80\xa8\xe2\x80\x94\xc3\xa9\xe2\x82\xac";

	msg_clean(c, false);
	assert_string_equal(c, "a???gnp.exe???b??????c???????????\xe2\x80\x94\xc3\xa9\xe2\x82\xac");
}

/* A message cut by snprintf is cut back to whole characters (the agent's errors then stay UTF-8, and are sent). */
static void cut_utf8(void **state)
{
	(void)state;
	char a[] = "ab\xc3\xa9", b[] = "ab\xc3", c[] = "ab\xe2\x80", d[] = "ab\xf0\x9f\x98", e[] = "ab\x80", f[] = "";
	char g[7];

	msg_cut_utf8(a);
	assert_string_equal(a, "ab\xc3\xa9");
	msg_cut_utf8(b);
	assert_string_equal(b, "ab");
	msg_cut_utf8(c);
	assert_string_equal(c, "ab");
	msg_cut_utf8(d);
	assert_string_equal(d, "ab");
	msg_cut_utf8(e);
	assert_string_equal(e, "ab");
	msg_cut_utf8(f);
	assert_string_equal(f, "");
	fmt_buf(g, sizeof(g), "%s", "x\xc3\xa9\xc3\xa9\xc3\xa9"); /* 6 bytes: x, two é and half of one */
	msg_cut_utf8(g);
	assert_string_equal(g, "x\xc3\xa9\xc3\xa9");
}

/* Every string of the agent's answer is cleaned as it is read: kmsg, why, error, out. */
static void session_answer_cleaned(void **state)
{
	(void)state;
	struct remote_session s;
	int p[2];
	const char *line = "{\"ok\":true,\"kmsg\":\"\\u001b]0;x\\u0007\",\"a\":[{\"why\":\"\\u009b31m\"}]}\n";
	json_t *r;

	memset(&s, 0, sizeof(s));
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], line, strlen(line)), (ssize_t)strlen(line));
	s.from_fd = p[0];
	s.to_fd = s.err_fd = -1;
	r = remote_session_recv(&s, 1000);
	assert_non_null(r);
	assert_string_equal(json_string_value(json_object_get(r, "kmsg")), "?]0;x?");
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(r, "a"), 0), "why")),
			    "??31m");
	json_decref(r);
	close(p[0]);
	close(p[1]);
}

/* What ssh brings back from the peer (its output and its stderr) is cleaned too; a stand-in ssh here. */
static void remote_run_cleaned(void **state)
{
	(void)state;
	char dir[] = "/tmp/ipsecperf-unit-XXXXXX", path[64], *oldpath = getenv("PATH"), *saved, *out = NULL,
	     *err = NULL;
	struct host h = { .ssh_dest = "peer" };
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/ssh", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\nprintf '6.1\\033[2J\\n'; printf 'no\\033]0;t\\007\\n' >&2\n", f);
	fclose(f);
	chmod(path, 0755);
	saved = strdup(oldpath ? oldpath : "/usr/bin:/bin");
	setenv("PATH", dir, 1);
	assert_int_equal(remote_run(&h, (char *[]){ "uname", "-r", NULL }, &out, &err), 0);
	setenv("PATH", saved, 1);
	assert_string_equal(out, "6.1?[2J\n");
	assert_string_equal(err, "no?]0;t?\n");
	/* ip -j's JSON may spell a control character as an escape: the parsed field is cleaned */
	int mtu;
	char st[16];

	assert_int_equal(peer_parse_ip_link("[{\"mtu\":1500,\"operstate\":\"UP\\u001b[31m\"}]", &mtu, st, sizeof(st)), 0);
	assert_string_equal(st, "UP?[31m");
	unlink(path);
	rmdir(dir);
	free(saved);
	free(out);
	free(err);
}

/* ---- what the peer sends back over ssh is capped and has a deadline ---- */

static char fake_dir[64], *saved_path;

/* An ssh on PATH that runs body (sh) instead of reaching a peer; fake_ssh_end() takes it away. */
static void fake_ssh(const char *body)
{
	char path[96], *oldpath = getenv("PATH");
	FILE *f;

	snprintf(fake_dir, sizeof(fake_dir), "/tmp/ipsecperf-unit-XXXXXX");
	assert_non_null(mkdtemp(fake_dir));
	snprintf(path, sizeof(path), "%s/ssh", fake_dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	chmod(path, 0755);
	saved_path = strdup(oldpath ? oldpath : "/usr/bin:/bin");
	setenv("PATH", fake_dir, 1);
	setenv("IPP_FAKE_PATH", saved_path, 1); /* the stand-in's own tools */
}

static void fake_ssh_end(void)
{
	char path[96];

	setenv("PATH", saved_path, 1);
	free(saved_path);
	snprintf(path, sizeof(path), "%s/ssh", fake_dir);
	unlink(path);
	rmdir(fake_dir);
}

#define FLOOD "PATH=$IPP_FAKE_PATH; head -c 100000000 /dev/zero | tr '\\000' a"

/* A peer that prints 100 MB, on stdout or stderr: ssh is stopped at 1 MiB and nothing of it is taken. */
static void remote_output_capped(void **state)
{
	(void)state;
	struct host h = { .ssh_dest = "peer" };
	const char *bodies[] = { FLOOD, FLOOD " >&2" };

	for (int i = 0; i < 2; i++) {
		char *out = NULL, *err = NULL;
		double t0 = mono_s();

		fake_ssh(bodies[i]);
		int st = remote_run(&h, (char *[]){ "cat", "/proc/stat", NULL }, &out, &err);

		fake_ssh_end();
		assert_int_equal(st, -1);
		assert_string_equal(out, "");
		assert_non_null(strstr(err, "more than 1024 KiB"));
		assert_true(mono_s() - t0 < 30);
		free(out);
		free(err);
	}
}

/* A file the testbed reads through ssh (a busy peer's /proc/net/tcp) may pass 1 MiB; a command's output may not. */
static void file_reread_larger(void **state)
{
	(void)state;
	struct host h = { .ssh_dest = "peer" };
	struct endpoint e = { .host = &h, .cpu = -1 };
	char *out = NULL, *err = NULL;

	fake_ssh("PATH=$IPP_FAKE_PATH; head -c 2000000 /dev/zero | tr '\\000' a");
	assert_int_equal(ep_run(&e, (char *[]){ "cat", "/proc/net/tcp", NULL }, &out, &err), 0);
	assert_int_equal(strlen(out), 2000000);
	free(out);
	free(err);
	assert_int_equal(ep_run(&e, (char *[]){ "uname", "-r", NULL }, &out, &err), -1);
	fake_ssh_end();
	assert_string_equal(out, "");
	free(out);
	free(err);
}

/* A peer whose command never ends: stopped at the deadline, with what it started there. */
static void remote_run_deadline(void **state)
{
	(void)state;
	struct host h = { .ssh_dest = "peer" };
	const struct exec_limits soon = { .max_out = REMOTE_OUTPUT_MAX, .deadline_ms = 1000 };
	char *out = NULL, *err = NULL;
	double t0 = mono_s();
	int st;

	assert_true(REMOTE_RUN_DEADLINE_MS > 0 && REMOTE_RUN_DEADLINE_MS <= 120000);
	fake_ssh("PATH=$IPP_FAKE_PATH; echo partial; exec sleep 600");
	st = remote_run_within(&h, (char *[]){ "uname", "-r", NULL }, &soon, &out, &err);
	fake_ssh_end();
	assert_int_equal(st, -1);
	assert_string_equal(out, "");
	assert_string_equal(err, "ssh did not end within 1 s; it was stopped");
	assert_true(mono_s() - t0 < 10);
	free(out);
	free(err);
}

/* What ssh writes on a session's stderr stays in a memfd that cannot grow past 1 MiB. */
static void session_stderr_capped(void **state)
{
	(void)state;
	struct host h = { .ssh_dest = "peer" };
	struct remote_session s;
	struct stat st;

	fake_ssh(FLOOD " >&2; exit 255");
	assert_int_equal(remote_session_open(&s, &h, (char *[]){ "ipsecperf", "peer-agent", NULL }), 0);
	assert_int_equal(exec_wait(s.pid), 255);
	s.pid = -1;
	fake_ssh_end();
	assert_int_equal(fstat(s.err_fd, &st), 0);
	assert_true(st.st_size <= REMOTE_OUTPUT_MAX);
	assert_true(lseek(s.err_fd, 0, SEEK_CUR) <= REMOTE_OUTPUT_MAX);
	assert_null(remote_session_recv(&s, 5000));
	assert_non_null(strstr(s.lost_why, "ssh closed the connection"));
	remote_session_close(&s);
}

/* A program started on the peer (the iperf3 server) writes at most 1 MiB into each raw/ file. */
static void spawn_output_capped(void **state)
{
	(void)state;
	struct host h = { .ssh_dest = "peer" };
	char file[] = "/tmp/ipsecperf-unit-raw-XXXXXX";
	int fd = mkstemp(file);
	struct stat st;
	pid_t pid;

	assert_true(fd >= 0);
	fake_ssh(FLOOD);
	pid = remote_spawn(&h, (char *[]){ "iperf3", "-s", NULL },
			   &(struct spawn_opts){ .cpu = -1, .stdout_fd = fd, .stderr_fd = -1 });
	assert_true(pid > 0);
	exec_wait(pid);
	fake_ssh_end();
	assert_int_equal(fstat(fd, &st), 0);
	assert_true(st.st_size > 0 && st.st_size <= REMOTE_OUTPUT_MAX);
	close(fd);
	unlink(file);
}

/* The peer's SA counters are counts from 0, or the SA's read fails: never a negative count into the window's arithmetic. */
static void sa_answer_counts(void **state)
{
	struct xfrm_sa_counters c;

	(void)state;
	assert_int_equal(ep_xfrm_sa_answer(json_loads("{\"err\":0,\"packets\":5,\"bytes\":500,\"oseq\":6,\"seq\":0}", 0, NULL), &c), 0);
	assert_true(c.packets == 5 && c.bytes == 500 && c.oseq == 6 && c.seq == 0);
	assert_int_equal(ep_xfrm_sa_answer(json_loads("{\"err\":-2}", 0, NULL), &c), -2);
	for (const char *const *bad = (const char *const[]){
		     "{\"err\":0,\"packets\":-1,\"bytes\":0,\"oseq\":0,\"seq\":0}",
		     "{\"err\":0,\"packets\":1,\"bytes\":-9223372036854775808,\"oseq\":0,\"seq\":0}",
		     "{\"err\":0,\"packets\":1,\"bytes\":1,\"oseq\":\"7\",\"seq\":0}",
		     "{\"err\":0,\"packets\":1,\"bytes\":1,\"oseq\":1}", NULL };
	     *bad; bad++)
		if (ep_xfrm_sa_answer(json_loads(*bad, 0, NULL), &c) != -EPROTO)
			fail_msg("taken: %s", *bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(quote_plain_words_unchanged),
		cmocka_unit_test(quote_special),
		cmocka_unit_test(quote_round_trip_through_sh),
		cmocka_unit_test(split_round_trip),
		cmocka_unit_test(ssh_argv_shape),
		cmocka_unit_test(dest_and_opt_checks),
		cmocka_unit_test(ethtool_link),
		cmocka_unit_test(ip_addr_and_link),
		cmocka_unit_test(hex_decode),
		cmocka_unit_test(request_take_wipes),
		cmocka_unit_test(stat_busy),
		cmocka_unit_test(run_answer_measured_encoded),
		cmocka_unit_test(run_answer_round_trip),
		cmocka_unit_test(run_answer_nul_not_cut),
		cmocka_unit_test(run_result_ran_or_not),
		cmocka_unit_test(answer_ok_or_error),
		cmocka_unit_test(run_allowed_list),
		cmocka_unit_test(ssh_allowed_list),
		cmocka_unit_test(files_read_in_process),
		cmocka_unit_test(exec_limits_kill),
		cmocka_unit_test(clean_text),
		cmocka_unit_test(cut_utf8),
		cmocka_unit_test(session_answer_cleaned),
		cmocka_unit_test(remote_run_cleaned),
		cmocka_unit_test(remote_output_capped),
		cmocka_unit_test(file_reread_larger),
		cmocka_unit_test(remote_run_deadline),
		cmocka_unit_test(session_stderr_capped),
		cmocka_unit_test(spawn_output_capped),
		cmocka_unit_test(sa_answer_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
