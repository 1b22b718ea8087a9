// SPDX-License-Identifier: GPL-2.0
/* The collector's parsers and arithmetic: scenario files, ethtool -k,
 * iperf3 -J, /proc/net/tcp, /proc/stat, /proc/net/snmp and xfrm_stat, option ranges. */
#include <math.h>
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

#include "cpu.h"
#include "files.h"
#include "kstat.h"
#include "load.h"
#include "load_util.h"
#include "offload.h"
#include "options.h"
#include "progress.h"
#include "scenario.h"

static char *write_tmp(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/ipsecperf-unit-%d-%s", (int)getpid(), name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void scenario_good(void **state)
{
	struct scenario sc;
	char err[256];
	char *p = write_tmp("good.ini", "; comment\n[scenario]\ndescription = d e\nload = stream\n\n"
					"[offload]\ntso = off\ngso = on\nrx-gro-list = no\n");

	(void)state;
	assert_int_equal(scenario_load(p, &sc, err, sizeof(err)), 0);
	assert_non_null(strstr(sc.name, "good"));
	assert_string_equal(sc.description, "d e");
	assert_string_equal(sc.load, "stream");
	assert_int_equal(sc.noffloads, 3);
	assert_string_equal(sc.offloads[0].feature, "tso");
	assert_false(sc.offloads[0].on);
	assert_true(sc.offloads[1].on);
	assert_string_equal(sc.offloads[2].feature, "rx-gro-list");
	assert_false(sc.offloads[2].on);
	assert_non_null(strstr(sc.text, "[offload]"));
	assert_int_equal(sc.mtu, 0);
	scenario_free(&sc);
	unlink(p);
	/* per-CPU SAs: off unless asked */
	p = write_tmp("pcpu.ini", "[scenario]\ndescription = d\n[ipsec]\nproto = esp\nencryption = ecb(cipher_null)\n"
					"authentication = digest_null\npcpu = yes\n");
	assert_int_equal(scenario_load(p, &sc, err, sizeof(err)), 0);
	assert_true(sc.ipsec.on && sc.ipsec.pcpu);
	scenario_free(&sc);
	unlink(p);
	p = write_tmp("nopcpu.ini", "[scenario]\ndescription = d\n[ipsec]\nproto = esp\nencryption = ecb(cipher_null)\n"
					"authentication = digest_null\n");
	assert_int_equal(scenario_load(p, &sc, err, sizeof(err)), 0);
	assert_false(sc.ipsec.pcpu);
	scenario_free(&sc);
	unlink(p);
	p = write_tmp("mtu.ini", "[scenario]\ndescription = d\n[link]\nmtu = 9000\n");
	assert_int_equal(scenario_load(p, &sc, err, sizeof(err)), 0);
	assert_int_equal(sc.mtu, 9000);
	assert_int_equal(sc.ipsec.sas, 0);
	scenario_free(&sc);
	unlink(p);
	p = write_tmp("sas.ini", "[scenario]\ndescription = d\n[ipsec]\nencryption = ecb(cipher_null)\nauthentication = digest_null\nsas = 16\n");
	assert_int_equal(scenario_load(p, &sc, err, sizeof(err)), 0);
	assert_int_equal(sc.ipsec.sas, 16);
	scenario_free(&sc);
	unlink(p);
}

static void expect_error(const char *text, const char *want)
{
	struct scenario sc;
	char err[256];
	char *p = write_tmp("bad.ini", text);

	assert_int_equal(scenario_load(p, &sc, err, sizeof(err)), -1);
	if (!strstr(err, want))
		fail_msg("error '%s' lacks '%s'", err, want);
	unlink(p);
}

/* [ipsec] sas: SA pairs, 1 to SCENARIO_MAX_SAS, a whole number */
static void scenario_sas_errors(void **state)
{
	static const char *const bad[] = { "0", "17", "-1", "2x", "", "1.5", "99999999999999999999" };
	char text[200];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "[scenario]\ndescription = x\n[ipsec]\nsas = %s\n", bad[i]);
		expect_error(text, "sas must be a number of SA pairs from 1 to 16");
	}
}

static void scenario_errors(void **state)
{
	expect_error("[scenario]\ndescription = x\n[ipsec]\npcpu = maybe\n", ":4: pcpu must be yes or no, not 'maybe'");
	expect_error("[scenario]\ndescription = x\n[ipsec]\npcpu =\n", "pcpu must be yes or no");
	(void)state;
	expect_error("[scenario]\ndescription = x\ntso = off\n", "bad.ini:3: unknown key 'tso' in [scenario]");
	expect_error("[scenario]\ndescription = x\n[offlaod]\ntso = off\n", ":4: unknown section [offlaod]");
	expect_error("tso = off\n", ":1: key 'tso' before any [section]");
	expect_error("[scenario]\ndescription = x\n[offload]\ngso = maybe\n", ":4: gso must be on or off, not 'maybe'");
	expect_error("[scenario]\ndescription = x\n[offload]\ngso = on\ngso = off\n", ":5: feature 'gso' set twice");
	expect_error("[scenario]\ndescription = x\n[offload]\nTSO; = on\n", "is not an ethtool feature name");
	expect_error("[scenario]\nload = netperf\n", ":2: load must be iperf3, stream, tcp-rr, tcp-crr, udp-rr or udp-rate");
	expect_error("[scenario]\n", "description is missing");
	expect_error("[scenario\n", ":1: syntax error");
	expect_error("[scenario]\ndescription = x\n[link]\nmtu = 67\n", ":4: mtu must be a whole number from 68 to 65535, not '67'");
	expect_error("[scenario]\ndescription = x\n[link]\nmtu = 65536\n", ":4: mtu must be a whole number");
	expect_error("[scenario]\ndescription = x\n[link]\nmtu = 9000x\n", ":4: mtu must be a whole number");
	expect_error("[scenario]\ndescription = x\n[link]\nmtu = 1500\nmtu = 9000\n", ":5: mtu set twice");
	expect_error("[scenario]\ndescription = x\n[link]\nmt = 1500\n", ":4: unknown key 'mt' in [link]");
}

/* The table of loads: every entry whole, names unique, the lookups and the lists messages print. */
static void load_table(void **state)
{
	char names[200];

	(void)state;
	assert_ptr_equal(load_kinds[0], &load_kind_iperf3); /* the default */
	for (int i = 0; load_kinds[i]; i++) {
		const struct load_kind *k = load_kinds[i];

		assert_non_null(k->name);
		assert_non_null(k->title);
		assert_non_null(k->run);
		assert_non_null(k->needs);
		assert_true(strlen(k->name) < sizeof(((struct scenario *)0)->load));
		assert_ptr_equal(load_find(k->name), k);
		for (int j = 0; j < i; j++)
			assert_string_not_equal(load_kinds[j]->name, k->name);
		/* a unit makes a record key: a plain word */
		assert_true(!k->unit || (strlen(k->unit) > 0 && strspn(k->unit, "abcdefghijklmnopqrstuvwxyz") == strlen(k->unit)));
		/* an agent request names one function, whichever load lists it; an entry with requests stops them */
		for (const struct load_agent_op *o = k->agent_ops; o && o->op; o++) {
			assert_non_null(o->answer);
			assert_non_null(k->agent_end);
			assert_true(k->caps & LOAD_AGENT);
			for (int j = 0; j < i; j++)
				for (const struct load_agent_op *q = load_kinds[j]->agent_ops; q && q->op; q++)
					if (!strcmp(q->op, o->op))
						assert_ptr_equal(q->answer, o->answer);
		}
	}
	assert_null(load_find("netperf"));
	assert_null(load_find(NULL));
	assert_string_equal(load_names(0, names, sizeof(names)), "iperf3, stream, tcp-rr, tcp-crr, udp-rr or udp-rate");
	assert_string_equal(load_names(LOAD_TCP_AUTH, names, sizeof(names)), "stream");
	assert_string_equal(load_names(LOAD_FLOWS, names, sizeof(names)), "iperf3");
	assert_ptr_equal(load_comm("iperf3"), &load_kind_iperf3);
	assert_null(load_comm("ipsecperf"));
	assert_ptr_equal(load_of(NULL), &load_kind_iperf3);
	expect_error("[scenario]\ndescription = x\n[tcp-auth]\nmethod = md5\n",
		     "[tcp-auth] needs load = stream: iperf3 cannot set TCP_MD5SIG or TCP-AO keys");
}

/* [load]: the scenario's load checks its own keys, once the whole file is read. */
static void scenario_load_keys(void **state)
{
	struct scenario sc;
	char err[256], *p;

	(void)state;
	p = write_tmp("rr.ini", "[load]\nrequest = 100\n[scenario]\ndescription = x\nload = tcp-crr\n[load]\nresponse = 1000\n");
	/* before the load is named, and in two parts: checked once the file is whole */
	assert_int_equal(scenario_load(p, &sc, err, sizeof(err)), 0);
	scenario_free(&sc);
	unlink(p);
	p = write_tmp("rr.ini", "[load]\nrequest = 100\nresponse = 1000\n[scenario]\ndescription = x\nload = tcp-crr\n");
	assert_int_equal(scenario_load(p, &sc, err, sizeof(err)), 0);
	assert_string_equal(load_key(&sc, "request"), "100");
	assert_string_equal(load_key(&sc, "response"), "1000");
	assert_null(load_key(&sc, "size"));
	scenario_free(&sc);
	unlink(p);
	p = write_tmp("rate.ini", "[scenario]\ndescription = x\nload = udp-rate\n[load]\nsize = 1400\nloss = 0.5\nsteps = 8\n");
	assert_int_equal(scenario_load(p, &sc, err, sizeof(err)), 0);
	scenario_free(&sc);
	unlink(p);
	expect_error("[scenario]\ndescription = x\nload = udp-rr\n[load]\nrequest = 65508\n",
		     "[load] request must be a whole number from 1 to 65507, not '65508'");
	expect_error("[scenario]\ndescription = x\nload = tcp-rr\n[load]\nsize = 64\n",
		     "unknown key 'size' in [load] (tcp-rr takes request and response)");
	expect_error("[scenario]\ndescription = x\nload = udp-rate\n[load]\nrequest = 1\n",
		     "unknown key 'request' in [load] (udp-rate takes size, loss, step-ms, steps and resolution)");
	expect_error("[scenario]\ndescription = x\nload = udp-rate\n[load]\nloss = 101\n",
		     "[load] loss must be a percentage from 0 to 100, not '101'");
	expect_error("[scenario]\ndescription = x\nload = udp-rate\n[load]\nsize = 2\n",
		     "[load] size must be a whole number from 4 to 65507");
	expect_error("[scenario]\ndescription = x\n[load]\nrequest = 1\n", "[load] request: iperf3 takes no settings");
	expect_error("[scenario]\ndescription = x\nload = tcp-rr\n[load]\nrequest = 1\nrequest = 2\n",
		     ":6: request set twice in [load]");
}

static void expect_load_error(const char *path, const char *want)
{
	struct scenario sc;
	char err[512];

	assert_int_equal(scenario_load(path, &sc, err, sizeof(err)), -1);
	if (!strstr(err, want) || strncmp(err, path, strlen(path)))
		fail_msg("error '%s' lacks '%s' or the file name", err, want);
}

/* What a file must be before it is read: a FIFO would hang, /dev/zero fill the memory. */
static void scenario_hostile_files(void **state)
{
	char dir[] = "/tmp/ipsecperf-unit-XXXXXX", path[128], good[128];
	char *big = calloc(1, 70001);
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fifo.ini", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	expect_load_error(path, ": is not a regular file");
	unlink(path);
	expect_load_error("/dev/zero", ": is not a regular file");
	snprintf(good, sizeof(good), "%s/good.ini", dir);
	f = fopen(good, "w");
	assert_non_null(f);
	fputs("[scenario]\ndescription = x\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/link.ini", dir);
	assert_int_equal(symlink(good, path), 0);
	expect_load_error(path, ": is a symbolic link");
	unlink(path);
	memset(big, ';', 70000);
	expect_error(big, "bad.ini: is larger than 65536 bytes");
	expect_error("[scenario]\ndescription = a\x1b[31m\n", "bad.ini:2: a control character");
	expect_error("[scenario]\ndescription = \xff\n", "bad.ini: not UTF-8 text");
	snprintf(path, sizeof(path), "%s/...ini", dir);
	assert_int_equal(rename(good, path), 0);
	expect_load_error(path, ": not a usable scenario file name");
	unlink(path);
	rmdir(dir);
	free(big);
}

static void scenario_unknown_name(void **state)
{
	struct scenario sc;
	char err[512];

	(void)state;
	setenv("IPSECPERF_SCENARIOS", "/nonexistent-dir", 1);
	assert_int_equal(scenario_find("clear", &sc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown scenario 'clear'"));
	assert_int_equal(scenario_find("../etc", &sc, err, sizeof(err)), -1);
	assert_int_equal(scenario_find("a b", &sc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a scenario name"));
	assert_int_equal(scenario_find("..", &sc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a scenario name"));
	assert_int_equal(scenario_find("a\nb", &sc, err, sizeof(err)), -1);
	assert_null(strchr(err, '\n'));
	/* a C1 control (CSI, U+009B) is no C0 control: still cleaned in the message */
	assert_int_equal(scenario_find("a\xc2\x9b" "2J", &sc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a scenario name"));
	assert_null(strstr(err, "\xc2\x9b"));

	/* a folder of someone else's: its names reach the message cleaned, and only a scenario name is offered */
	char dir[] = "/tmp/ipsecperf-unit-XXXXXX", path[128];
	const char *const files[] = { "ab\x1b" "cd.ini", "clea\xc2\x9b" "r.ini", "x\xff.ini", "clear.ini" };

	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		assert_int_equal(file_write(path, "[scenario]\ndescription = x\n", 27), 0);
	}
	setenv("IPSECPERF_SCENARIOS", dir, 1);
	assert_int_equal(scenario_find("abcd", &sc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown scenario 'abcd'"));
	assert_null(strstr(err, "did you mean"));
	assert_non_null(strstr(err, " ab?cd"));
	assert_int_equal(scenario_find("clearr", &sc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "did you mean 'clear'?"));
	for (const char *c = err; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c == 0x7f || !strncmp(c, "\xc2\x9b", 2) ||
		    (unsigned char)*c == 0xff)
			fail_msg("a control character or a bad byte in '%s'", err);
	unsetenv("IPSECPERF_SCENARIOS");
	assert_int_equal(rm_rf(dir), 0);
}

static const char ethtool_k[] =
	"Features for ipp-tx:\n"
	"rx-checksumming: on\n"
	"tx-checksumming: off\n"
	"\ttx-checksum-ipv4: off [fixed]\n"
	"\ttx-checksum-ip-generic: off\n"
	"tcp-segmentation-offload: on\n"
	"\ttx-tcp-segmentation: off [requested on]\n"
	"generic-segmentation-offload: on\n"
	"generic-receive-offload: off\n"
	"large-receive-offload: off [fixed]\n";

static void ethtool_parse(void **state)
{
	struct feature_state f[16];
	int n = offload_parse(ethtool_k, f, 16);

	(void)state;
	assert_int_equal(n, 9);
	assert_string_equal(f[0].name, "rx-checksumming");
	assert_true(f[0].on);
	assert_int_equal(f[0].parent, -1);
	assert_string_equal(f[2].name, "tx-checksum-ipv4");
	assert_true(f[2].fixed);
	assert_int_equal(f[2].parent, 1);
	assert_string_equal(f[5].name, "tx-tcp-segmentation");
	assert_false(f[5].on);
	assert_int_equal(f[5].parent, 4);
	assert_true(f[8].fixed);
	assert_string_equal(offload_long_name("tso"), "tcp-segmentation-offload");
	assert_string_equal(offload_long_name("gro"), "generic-receive-offload");
	assert_string_equal(offload_long_name("rx-gro-list"), "rx-gro-list");
	assert_int_equal(offload_parse("", f, 16), 0);
}

/* Jain's index: 1 for equal flows, 1/n when one flow took everything. */
static void flows_fairness(void **state)
{
	struct load_flow f[3] = { { .throughput_bps = 5 }, { .throughput_bps = 5 }, { .throughput_bps = 5 } };

	(void)state;
	assert_true(fabs(load_fairness(f, 3) - 1.0) < 1e-12);
	f[1].throughput_bps = f[2].throughput_bps = 0;
	assert_true(fabs(load_fairness(f, 3) - 1.0 / 3) < 1e-12);
	f[1].throughput_bps = 15; /* 5 and 15: (20)^2 / (3 * 250) */
	assert_true(fabs(load_fairness(f, 3) - 400.0 / 750) < 1e-12);
	assert_true(load_fairness(f, 0) == 0);
}

static void iperf3_json(void **state)
{
	struct load_result r;

	(void)state;
	assert_int_equal(iperf3_parse_result(
				 "{\"start\":{},\"end\":{\"sum_sent\":{\"bytes\":1000,\"bits_per_second\":8e9,"
				 "\"retransmits\":7},\"sum_received\":{\"bytes\":999,\"seconds\":2.0,"
				 "\"bits_per_second\":7.5e9}}}", &r), 0);
	assert_int_equal(r.bytes, 999);
	assert_int_equal(r.retransmits, 7);
	assert_true(r.throughput_bps == 7.5e9);
	assert_true(r.sender_bps == 8e9);
	assert_true(r.duration_s == 2.0);

	assert_int_equal(iperf3_parse_result("{\"error\":\"unable to connect to server\"}", &r), -1);
	assert_string_equal(r.error, "iperf3: unable to connect to server");
	assert_int_equal(iperf3_parse_result("iperf3: error", &r), -1);
	assert_non_null(strstr(r.error, "no JSON"));
	assert_int_equal(iperf3_parse_result("{\"end\":{}}", &r), -1);
	assert_int_equal(iperf3_parse_result("{\"end\":{\"sum_received\":{\"bytes\":0}}}", &r), -1);
	assert_string_equal(r.error, "iperf3 received no bytes");
}

static void proc_net_tcp(void **state)
{
	const char *t = "  sl  local_address rem_address   st tx_queue rx_queue\n"
			"   0: 020012C6:1451 00000000:0000 0A 00000000:00000000 00:00000000\n"
			"   1: 020012C6:1451 010012C6:8E3A 01 00000000:00000000 00:00000000\n";

	(void)state;
	assert_int_equal(tcp_listening(t, 5201), 1);
	assert_int_equal(tcp_listening(t, 5202), 0);
	assert_int_equal(tcp_listening("header only\n", 5201), 0);
}

static void proc_stat(void **state)
{
	unsigned long long busy, total;
	int cpu;

	(void)state;
	assert_int_equal(parse_stat_cpu_line("cpu1 100 5 50 1000 10 3 7 2 40 0", &cpu, &busy, &total), 0);
	assert_int_equal(cpu, 1);
	assert_int_equal(busy, 100 + 5 + 50 + 3 + 7 + 2);
	assert_int_equal(total, busy + 1000 + 10);
	assert_int_equal(parse_stat_cpu_line("intr 1 2 3", &cpu, &busy, &total), -1);
}

static void metrics(void **state)
{
	(void)state;
	assert_true(cycles_per_byte(3000, 1000) == 3.0);
	assert_true(cycles_per_byte(3000, 0) < 0);
	assert_true(tsc_hz() > 1e6);
}

static void ranges(void **state)
{
	long v;
	char buf[32];

	(void)state;
	assert_int_equal(parse_long_range("10", 1, 3600, &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(parse_long_range("0", 1, 3600, &v), -1);
	assert_int_equal(parse_long_range("3601", 1, 3600, &v), -1);
	assert_int_equal(parse_long_range("1x", 1, 3600, &v), -1);
	assert_int_equal(parse_long_range("", 1, 3600, &v), -1);
	assert_int_equal(parse_long_range("99999999999999999999", 1, 3600, &v), -1);
	format_duration(buf, sizeof(buf), 65);
	assert_string_equal(buf, "1:05");
	format_duration(buf, sizeof(buf), 3725);
	assert_string_equal(buf, "1:02:05");
	format_duration(buf, sizeof(buf), -3);
	assert_string_equal(buf, "0:00");
	assert_int_equal(parse_bool("Off"), 0);
	assert_int_equal(parse_bool("yes"), 1);
	assert_int_equal(parse_bool("2"), -1);
}

struct order_args {
	int duration;
	bool quiet;
	double alpha;
	int format;
	int ncb;
};

static int count_cb(void *cfg, const char *val)
{
	(void)val;
	((struct order_args *)cfg)->ncb++;
	return 0;
}

static const struct opt_def order_defs[] = {
	OPT_INT("duration", 't', struct order_args, duration, 1, 3600, "S", ""),
	OPT_FLAG("quiet", 'q', struct order_args, quiet, ""),
	OPT_DOUBLE("alpha", 'a', struct order_args, alpha, 0, 0.5, "P", ""),
	OPT_FORMAT(struct order_args, format),
	OPT_CB("tag", 0, count_cb, "T", ""),
	OPT_END,
};

/* Options may follow the operands (GNU order); after "--" nothing is an option. */
static void options_order(void **state)
{
	char *a1[] = { "run", "clear", "-t", "7", "no-gso", "--quiet", NULL };
	char *a2[] = { "run", "-q", "--", "clear", "-t", NULL };
	char *a3[] = { "run", "-qt5", "--al=0.25", "x", "-f", "json", "--tag", "a", "--ta=b", NULL };
	struct order_args o = { 0 };
	int first;

	(void)state;
	first = options_parse("run", order_defs, 0, 6, a1, &o);
	assert_int_equal(first, 4);
	assert_int_equal(o.duration, 7);
	assert_true(o.quiet);
	assert_string_equal(a1[first], "clear");
	assert_string_equal(a1[first + 1], "no-gso");
	o = (struct order_args){ 0 };
	first = options_parse("run", order_defs, 0, 5, a2, &o);
	assert_int_equal(first, 3);
	assert_string_equal(a2[first + 1], "-t");
	assert_int_equal(o.duration, 0);
	o = (struct order_args){ 0 };
	first = options_parse("run", order_defs, 0, 9, a3, &o);
	assert_int_equal(first, 8);
	assert_string_equal(a3[first], "x");
	assert_int_equal(o.duration, 5);
	assert_true(o.quiet);
	assert_true(o.alpha == 0.25);
	assert_int_equal(o.format, 1);
	assert_int_equal(o.ncb, 2);
}

/* compare's BASE... -- NEW...: a "--" after an operand stays one; options may follow it. */
static void options_separator(void **state)
{
	char *a[] = { "compare", "A", "--", "B", "-t", "3", NULL };
	char *b[] = { "compare", "--", "A", "--", "B", NULL };
	struct order_args o = { 0 };
	int first;

	(void)state;
	first = options_parse("compare", order_defs, OPTS_SEPARATOR, 6, a, &o);
	assert_int_equal(first, 3);
	assert_int_equal(o.duration, 3);
	assert_string_equal(a[3], "A");
	assert_string_equal(a[4], "--");
	assert_string_equal(a[5], "B");
	first = options_parse("compare", order_defs, OPTS_SEPARATOR, 5, b, &o);
	assert_int_equal(first, 2);
	assert_string_equal(b[3], "--");
}

/* Bad input: -1, and nothing stored after the bad option. */
static void options_bad(void **state)
{
	char *bad[][4] = {
		{ "run", "--duration", NULL }, { "run", "-t", "0", NULL }, { "run", "--quiet=1", NULL },
		{ "run", "--frob", NULL },     { "run", "-x", NULL },      { "run", "--a", "1", NULL },
		{ "run", "-f", "yaml", NULL }, { "run", "--alpha", "0.6", NULL }, { "run", "--tag", "a\nb", NULL },
	};
	struct order_args o = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int argc = 0;

		while (bad[i][argc])
			argc++;
		assert_int_equal(options_parse("run", order_defs, 0, argc, bad[i], &o), -1);
	}
	assert_int_equal(o.ncb, 0);
}

/* /proc/net/snmp's Ip and Udp and xfrm_stat, and what moved between two reads. */
static void kernel_drop_counters(void **state)
{
	const char *snmp0 =
		"Ip: Forwarding DefaultTTL InReceives InDiscards\n"
		"Ip: 1 64 100 0\n"
		"Icmp: InMsgs InErrors\nIcmp: 5 0\n"
		"Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors\n"
		"Udp: 10 0 0 12 0 0\n"
		"UdpLite: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors\n"
		"UdpLite: 0 0 0 0 0 0\n";
	const char *snmp1 =
		"Ip: Forwarding DefaultTTL InReceives InDiscards\n"
		"Ip: 1 64 1100 3\n"
		"Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors\n"
		"Udp: 900 0 7 12 7 0\n";
	const char *x0 = "XfrmInError             \t0\nXfrmInStateSeqError     \t2\n";
	const char *x1 = "XfrmInError             \t0\nXfrmInStateSeqError     \t5\n";
	struct kstat a, b;
	uint64_t v;
	json_t *d;

	(void)state;
	assert_int_equal(kstat_parse(&a, snmp0, x0), 0);
	assert_int_equal(kstat_parse(&b, snmp1, x1), 0);
	assert_true(a.xfrm && b.xfrm);
	/* UdpLite is not Udp, Icmp is not read */
	assert_int_equal(kstat_get(&a, "UdpInDatagrams", &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(kstat_get(&a, "IcmpInMsgs", &v), -1);
	assert_int_equal(kstat_get(&a, "UdpLiteInDatagrams", &v), -1);
	d = kstat_delta(&a, &b);
	assert_int_equal(json_integer_value(json_object_get(d, "UdpRcvbufErrors")), 7);
	assert_int_equal(json_integer_value(json_object_get(d, "UdpInErrors")), 7);
	assert_int_equal(json_integer_value(json_object_get(d, "UdpInDatagrams")), 890);
	assert_int_equal(json_integer_value(json_object_get(d, "IpInDiscards")), 3);
	assert_int_equal(json_integer_value(json_object_get(d, "XfrmInStateSeqError")), 3);
	/* only what moved */
	assert_null(json_object_get(d, "UdpOutDatagrams"));
	assert_null(json_object_get(d, "XfrmInError"));
	assert_null(json_object_get(d, "IpForwarding"));
	json_decref(d);
	/* every run's xfrm_stat: all its counters, zeros too, none of snmp's */
	d = kstat_xfrm_delta(&a, &b);
	assert_int_equal(json_object_size(d), 2);
	assert_int_equal(json_integer_value(json_object_get(d, "XfrmInStateSeqError")), 3);
	assert_true(json_is_integer(json_object_get(d, "XfrmInError")));
	assert_int_equal(json_integer_value(json_object_get(d, "XfrmInError")), 0);
	json_decref(d);
	/* no xfrm_stat (CONFIG_XFRM_STATISTICS unset): said, the rest read */
	assert_int_equal(kstat_parse(&a, snmp0, NULL), 0);
	assert_false(a.xfrm);
	assert_null(kstat_xfrm_delta(&a, &b));
	/* not snmp at all */
	assert_int_equal(kstat_parse(&a, "garbage\n", NULL), -1);
	assert_int_equal(kstat_parse(&a, "Udp: InDatagrams\nUdp: -1\n", NULL), 0);
	assert_int_equal(kstat_get(&a, "UdpInDatagrams", &v), -1);
	/* the peer's text (cat through its agent) names no key of the record but the kernel's kind of name */
	assert_int_equal(kstat_parse(&a, "Udp: In\x1b[2J\tX <b>x</b> Errors\nUdp: 5 6 7\n",
				     "Xfrm\x7fIn 3\nXfrm\xc2\x9bOut 4\n"), 0);
	assert_int_equal(a.n, 1);
	assert_int_equal(kstat_get(&a, "UdpErrors", &v), 0);
	assert_int_equal(v, 7);
	/* this host's own, read in its namespace */
	assert_int_equal(kstat_read_netns(NULL, &a), 0);
	assert_int_equal(kstat_get(&a, "UdpInDatagrams", &v), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scenario_good),   cmocka_unit_test(scenario_errors), cmocka_unit_test(scenario_sas_errors),
		cmocka_unit_test(scenario_unknown_name), cmocka_unit_test(ethtool_parse),
		cmocka_unit_test(scenario_hostile_files), cmocka_unit_test(flows_fairness),
		cmocka_unit_test(iperf3_json),     cmocka_unit_test(proc_net_tcp),
		cmocka_unit_test(proc_stat),       cmocka_unit_test(metrics),
		cmocka_unit_test(ranges),          cmocka_unit_test(options_order),
		cmocka_unit_test(options_separator), cmocka_unit_test(options_bad),
		cmocka_unit_test(load_table),
		cmocka_unit_test(kernel_drop_counters), cmocka_unit_test(scenario_load_keys),
	};

	return cmocka_run_group_tests_name("collector parsers", tests, NULL, NULL);
}
