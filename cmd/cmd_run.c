// SPDX-License-Identifier: GPL-2.0
/* ipsecperf run: the scenario matrix, one record per run. */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "commands.h"
#include "cpu.h"
#include "exec.h"
#include "ipsec.h"
#include "hostwide.h"
#include "journal.h"
#include "load.h"
#include "matrix.h"
#include "log.h"
#include "measuring.h"
#include "offload.h"
#include "probes.h"
#include "profile_run.h"
#include "progress.h"
#include "results_writer.h"
#include "run.h"
#include "signals.h"
#include "summary.h"
#include "testbed.h"
#include "testbed_peer.h"
#include "until_ci.h"
#include "vm.h"

const char help_run[] =
	"usage: ipsecperf run [OPTIONS] [SCENARIO...]\n"
	"\n"
	"Run each SCENARIO (default: clear no-tso no-gso) --repeat times for\n"
	"--duration seconds of one TCP stream, on a testbed made for the run and\n"
	"removed after it, and write a results directory:\n"
	"  meta.json   provenance: version, command, host, CPU, kernel, iperf3\n"
	"  runs.jsonl  one record per run, appended as each run ends\n"
	"  raw/        what iperf3 printed\n"
	"then print a summary. A SCENARIO is a name from `ipsecperf list` or a\n"
	"path to a scenario file (docs/scenarios.md).\n"
	"\n"
	"The netns testbed is two network namespaces, ipsecperf-PID-tx and\n"
	"ipsecperf-PID-rx, joined by a veth pair (ipp-tx 198.18.0.1/24 and\n"
	"ipp-rx 198.18.0.2/24, RFC 2544's benchmarking range); the iperf3\n"
	"client runs in the first, pinned to CPU 0, the server in the second,\n"
	"pinned to CPU 1. The host's own interfaces are never touched. Every\n"
	"change is journaled and undone at the end, also after Ctrl-C or\n"
	"SIGTERM; after a SIGKILL, `ipsecperf cleanup` undoes it.\n"
	"\n"
	"--testbed peer: two hosts on a real link (docs/peer-testbed.md). This\n"
	"host sends from --dev, the --peer (reached with ssh, BatchMode: a key,\n"
	"never a password) receives on --peer-dev; the addresses are the\n"
	"devices' own (or --addr-tx/--addr-rx, which must be theirs). Offloads\n"
	"are set on both ends and journaled on this host with the ssh\n"
	"destination, so the undo and `ipsecperf cleanup` reach the peer. With\n"
	"ipsecperf installed on the peer (--peer-ipsecperf), its peer-agent\n"
	"runs the built-in stream's receiver (TCP-MD5/AO keys travel on its\n"
	"stdin) and counts the receiver's cycles: records then hold\n"
	"cycles_per_byte_sender and cycles_per_byte_receiver.\n"
	"\n"
	"Cycles per byte: cycles of all CPUs during the measured interval (the\n"
	"PMU's cycle counter, or busy CPU time times the TSC frequency where\n"
	"there is no PMU, recorded as \"estimated\") over bytes received.\n"
	"\n"
	"Needs root. Exit status: 0 every run ok or skipped, 1 a run failed,\n"
	"2 bad usage or input, 128+N after signal N.\n";

enum {
	O_DURATION, O_OMIT, O_REPEAT, O_OUT, O_TAG, O_TESTBED, O_KERNEL, O_ADDR_TX, O_ADDR_RX,
	O_PREFIX, O_PORT, O_DRY_RUN, O_QUIET, O_NO_PROBES, O_PROBE_OVERHEAD, O_PROBE_SET, O_PROBE_COST,
	O_PEER, O_DEV, O_PEER_DEV, O_SSH_OPTION, O_PEER_IPSECPERF, O_CPU_TX, O_CPU_RX,
	O_PROFILE, O_PROFILE_HZ, O_INTERLEAVE, O_REPEAT_FROM, O_SCENARIO_DIR, O_NO_WAIT, O_UNTIL_CI, O_MAX_REPEAT,
};

const struct opt_def run_opts[] = {
	[O_DURATION] = { "duration", 't', OPT_INT, 1, 3600, "S", "measured seconds per run (default 10)" },
	[O_OMIT] = { "omit", 'O', OPT_INT, 0, 60, "S", "warm-up seconds before measuring (default 1)" },
	[O_REPEAT] = { "repeat", 'r', OPT_INT, 1, 1000, "N", "runs per scenario (default 3)" },
	[O_OUT] = { "output", 'o', OPT_STRING, 0, 0, "DIR", "results directory, new or empty (default results/<UTC>-<testbed>-<tag>)" },
	[O_TAG] = { "tag", 0, OPT_STRING, 0, 0, "TAG", "name part of the default directory (default run)" },
	[O_TESTBED] = { "testbed", 0, OPT_STRING, 0, 0, "KIND", "netns (default), peer, vm" },
	[O_KERNEL] = { "kernel", 0, OPT_STRING, 0, 0, "K", "kernel to boot (vm testbed; repeatable)" },
	[O_ADDR_TX] = { "addr-tx", 0, OPT_STRING, 0, 0, "ADDR", "sender address (default " DEFAULT_ADDR_TX ")" },
	[O_ADDR_RX] = { "addr-rx", 0, OPT_STRING, 0, 0, "ADDR", "receiver address (default " DEFAULT_ADDR_RX ")" },
	[O_PREFIX] = { "prefix-len", 0, OPT_INT, 8, 128, "N", "prefix length of both addresses (default 24)" },
	[O_PORT] = { "port", 0, OPT_INT, 1024, 65535, "N", "TCP port of the load (default 5201)" },
	[O_DRY_RUN] = { "dry-run", 'n', OPT_FLAG, 0, 0, NULL, "print the host changes as commands; make none" },
	[O_QUIET] = { "quiet", 'q', OPT_FLAG, 0, 0, NULL, "no progress line" },
	[O_NO_PROBES] = { "no-probes", 0, OPT_FLAG, 0, 0, NULL, "attach no BPF probes (counters: unavailable)" },
	[O_PROBE_SET] = { "probe-set", 0, OPT_STRING, 0, 0, "SET", "all (default) or tracepoints: no kprobes, the cheap counters only" },
	[O_PROBE_OVERHEAD] = { "probe-overhead", 0, OPT_FLAG, 0, 0, NULL, "run each repeat with and without probes; report the throughput ratio" },
	[O_PROBE_COST] = { "probe-cost", 0, OPT_FLAG, 0, 0, NULL, "have the kernel time the BPF programs (probe_cost in each record; adds a clock read per event)" },
	[O_PEER] = { "peer", 0, OPT_STRING, 0, 0, "[USER@]HOST", "the receiving host, reached with ssh (peer testbed)" },
	[O_DEV] = { "dev", 0, OPT_STRING, 0, 0, "IF", "this host's end of the link (peer testbed)" },
	[O_PEER_DEV] = { "peer-dev", 0, OPT_STRING, 0, 0, "IF", "the peer's end of the link (peer testbed)" },
	[O_SSH_OPTION] = { "ssh-option", 0, OPT_STRING, 0, 0, "OPT", "passed to ssh as -o OPT (repeatable)" },
	[O_PEER_IPSECPERF] = { "peer-ipsecperf", 0, OPT_STRING, 0, 0, "PATH", "ipsecperf on the peer, for its agent (default: the installed one, in the peer's PATH)" },
	[O_CPU_TX] = { "cpu-tx", 0, OPT_INT, 0, 4095, "N", "pin the sender to CPU N (peer testbed; docs/peer-testbed.md)" },
	[O_CPU_RX] = { "cpu-rx", 0, OPT_INT, 0, 4095, "N", "pin the receiver on the peer to CPU N (peer testbed)" },
	[O_PROFILE] = { "profile", 0, OPT_FLAG, 0, 0, NULL, "sample call chains in the measured window (perf, cpu-clock); docs/profiling.md" },
	[O_PROFILE_HZ] = { "profile-hz", 0, OPT_INT, 1, 10000, "HZ", "--profile's samples per second per CPU (default 99)" },
	[O_INTERLEAVE] = { "interleave", 0, OPT_FLAG, 0, 0, NULL, "vm: boot every kernel once per repeat, in turn (K1 K2 K1 K2 ...); docs/vm-testbed.md" },
	[O_REPEAT_FROM] = { "repeat-from", 0, OPT_INT, 1, 1000000, "N", "number the repeats from N (default 1; --interleave gives it to each guest)" },
	[O_SCENARIO_DIR] = OPT_DEF_SCENARIO_DIR,
	[O_NO_WAIT] = { "no-wait", 0, OPT_FLAG, 0, 0, NULL, "fail a scenario at once, not wait, when another run holds host-wide changes (modules, shared offloads)" },
	[O_UNTIL_CI] = { "until-ci", 0, OPT_STRING, 0, 0, "PCT", "repeat each scenario until the 95% interval of its median throughput is narrower than PCT% of it (at least 6 runs; --max-repeat)" },
	[O_MAX_REPEAT] = { "max-repeat", 0, OPT_INT, 6, 1000, "N", "the most runs per scenario --until-ci makes (default 30)" },
	{ NULL, 0, 0, 0, 0, NULL, NULL },
};

struct run_ctx {
	struct run_config cfg;
	json_t *overhead;       /* --probe-overhead: scenario -> {"on": [bps...], "off": [bps...]} */
};

static int on_run_opt(int idx, const char *val, long ival, void *arg)
{
	struct run_ctx *ctx = arg;
	struct run_config *c = &ctx->cfg;

	switch (idx) {
	case O_DURATION: c->duration_s = ival; break;
	case O_OMIT: c->omit_s = ival; break;
	case O_REPEAT: c->repeat = ival; break;
	case O_OUT: c->outdir = val; break;
	case O_TAG:
		if (!*val || strspn(val, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != strlen(val)) {
			pr_warn("run: --tag takes letters, digits, '.', '_' and '-', not '%s'", val);
			return -1;
		}
		c->tag = val;
		break;
	case O_TESTBED: c->testbed = val; break;
	case O_KERNEL: {
		char why[512];

		if (c->nkernels == RUN_MAX_KERNELS) {
			pr_warn("run: at most %d --kernel options", RUN_MAX_KERNELS);
			return -1;
		}
		if (vm_kernel_spec_check(val, why, sizeof(why)) < 0) {
			pr_warn("run: %s", why);
			return -1;
		}
		c->kernels[c->nkernels++] = val;
		break;
	}
	case O_ADDR_TX: c->addr_tx = val; c->addr_tx_set = true; break;
	case O_ADDR_RX: c->addr_rx = val; c->addr_rx_set = true; break;
	case O_PREFIX: c->prefix_len = ival; break;
	case O_PORT: c->port = ival; break;
	case O_DRY_RUN: c->dry_run = true; break;
	case O_QUIET: c->quiet = true; break;
	case O_NO_PROBES: c->no_probes = true; break;
	case O_PROBE_SET:
		if (strcmp(val, "all") && strcmp(val, "tracepoints")) {
			pr_warn("run: --probe-set takes all or tracepoints, not '%s'", val);
			return -1;
		}
		c->tracepoints_only = !strcmp(val, "tracepoints");
		break;
	case O_PROBE_OVERHEAD: c->probe_overhead = true; break;
	case O_PROBE_COST: c->probe_cost = true; break;
	case O_PEER: c->peer = val; break;
	case O_DEV: c->dev = val; break;
	case O_PEER_DEV: c->peer_dev = val; break;
	case O_PEER_IPSECPERF: c->peer_ipsecperf = val; break;
	case O_CPU_TX: c->cpu_tx = ival; break;
	case O_CPU_RX: c->cpu_rx = ival; break;
	case O_SSH_OPTION:
		if (c->nssh_opts == RUN_MAX_SSH_OPTS) {
			pr_warn("run: at most %d --ssh-option options", RUN_MAX_SSH_OPTS);
			return -1;
		}
		c->ssh_opts[c->nssh_opts++] = val;
		break;
	case O_PROFILE: c->profile_hz = c->profile_hz ? c->profile_hz : PROFILE_DEFAULT_HZ; break;
	case O_PROFILE_HZ: c->profile_hz = ival; break;
	case O_INTERLEAVE: c->interleave = true; break;
	case O_REPEAT_FROM: c->repeat_from = (int)ival; break;
	case O_UNTIL_CI: {
		char *end;

		c->until_ci = strtod(val, &end);
		if (end == val || *end || !(c->until_ci > 0 && c->until_ci <= 100)) {
			pr_warn("run: --until-ci takes a percentage above 0 and at most 100, not '%s'", val);
			return -1;
		}
		break;
	}
	case O_MAX_REPEAT: c->max_repeat = (int)ival; break;
	case O_SCENARIO_DIR: return scenario_dir_option("run", val);
	case O_NO_WAIT: hostwide_set_no_wait(true); break;
	}
	return 0;
}

static int check_addr(const char *what, const char *a, int prefix)
{
	unsigned char buf[16];

	if (inet_pton(AF_INET, a, buf) == 1) {
		if (prefix > 32) {
			pr_warn("run: --prefix-len %d is too long for IPv4 address %s", prefix, a);
			return -1;
		}
		return AF_INET;
	}
	if (inet_pton(AF_INET6, a, buf) == 1)
		return AF_INET6;
	pr_warn("run: %s '%s' is not an IPv4 or IPv6 address", what, a);
	return -1;
}

/* The tools a run starts, with the Debian package that provides each. */
static int check_tools(void)
{
	static const char *const tools[][2] = {
		{ "iperf3", "iperf3" }, { "ethtool", "ethtool" }, { "ip", "iproute2" },
	};

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if (!exec_have(tools[i][0])) {
			pr_warn("run: %s not found in PATH: install the %s package (apt-get install %s)",
				tools[i][0], tools[i][1], tools[i][1]);
			return -1;
		}
	return 0;
}

static int parse_run_args(struct run_ctx *ctx, int argc, char **argv)
{
	struct run_config *c = &ctx->cfg;
	char err[1024];
	int first;

	*c = (struct run_config){ .duration_s = 10, .omit_s = 1, .repeat = 3, .repeat_from = 1, .testbed = "netns",
				  .addr_tx = DEFAULT_ADDR_TX, .addr_rx = DEFAULT_ADDR_RX,
				  .prefix_len = 24, .tag = "run", .cpu_tx = -1, .cpu_rx = -1, .port = 5201,
				  .argc = argc, .argv = argv };
	ctx->overhead = NULL;
	first = options_parse("run", run_opts, argc, argv, on_run_opt, ctx);
	if (first < 0)
		return -1;
	if (strcmp(c->testbed, "netns") && strcmp(c->testbed, "vm") && strcmp(c->testbed, "peer")) {
		pr_warn("run: unknown testbed '%s'; this build has: netns, peer, vm", c->testbed);
		return -1;
	}
	if (strcmp(c->testbed, "peer") && (c->peer || c->dev || c->peer_dev || c->nssh_opts || c->peer_ipsecperf ||
					    c->cpu_tx >= 0 || c->cpu_rx >= 0)) {
		pr_warn("run: --peer, --dev, --peer-dev, --ssh-option, --peer-ipsecperf, --cpu-tx and --cpu-rx need --testbed peer");
		return -1;
	}
	if (!strcmp(c->testbed, "peer") && (!c->peer || !c->dev || !c->peer_dev)) {
		pr_warn("run: --testbed peer needs --peer [USER@]HOST, --dev IF and --peer-dev IF (docs/peer-testbed.md)");
		return -1;
	}
	if (!strcmp(c->testbed, "peer") && peer_config_check(c, err, sizeof(err)) < 0) {
		pr_warn("run: %s", err);
		return -1;
	}
	if (!strcmp(c->testbed, "vm") != !!c->nkernels) {
		pr_warn("run: %s", c->nkernels ? "--kernel needs --testbed vm"
			: "--testbed vm needs --kernel K (see `ipsecperf help kernel`)");
		return -1;
	}
	if (c->max_repeat && !c->until_ci) {
		pr_warn("run: --max-repeat bounds --until-ci; without it use --repeat");
		return -1;
	}
	if (c->until_ci && strcmp(c->testbed, "netns")) {
		/* the vm and peer matrices bound their time by --repeat; not there yet */
		pr_warn("run: --until-ci works on the netns testbed only for now; on %s use --repeat N", c->testbed);
		return -1;
	}
	if (c->until_ci && !c->max_repeat)
		c->max_repeat = UNTIL_CI_MAX_REPEAT;
	if (c->interleave && strcmp(c->testbed, "vm")) {
		pr_warn("run: --interleave is for the vm testbed (it interleaves the kernels' boots)");
		return -1;
	}
	if (c->profile_hz && !strcmp(c->testbed, "peer")) {
		pr_warn("run: --profile is not supported on the peer testbed yet; use netns or vm");
		return -1;
	}
	if (c->profile_hz && !c->dry_run) {
		char why[256];

		if (profile_check(why, sizeof(why)) < 0) {
			pr_warn("%s", why);
			return -1;
		}
	}
	if (c->no_probes && (c->probe_overhead || c->probe_cost)) {
		pr_warn("run: --%s needs the probes; drop --no-probes", c->probe_overhead ? "probe-overhead" : "probe-cost");
		return -1;
	}
	int fam_tx = check_addr("--addr-tx", c->addr_tx, c->prefix_len);
	int fam_rx = fam_tx < 0 ? -1 : check_addr("--addr-rx", c->addr_rx, c->prefix_len); /* one line */

	if (fam_tx < 0 || fam_rx < 0)
		return -1;
	if (fam_tx != fam_rx || !strcmp(c->addr_tx, c->addr_rx)) {
		pr_warn("run: --addr-tx and --addr-rx must be two different addresses of one family");
		return -1;
	}

	static char *const default_matrix[] = { "clear", "no-tso", "no-gso" };
	char *const *names = first < argc ? argv + first : default_matrix;
	int n = first < argc ? argc - first : 3;

	c->scenarios = calloc(n, sizeof(*c->scenarios));
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < i; j++)
			if (!strcmp(names[i], names[j])) {
				pr_warn("run: scenario '%s' named twice; use --repeat for more runs", names[i]);
				return -1;
			}
		if (scenario_find(names[i], &c->scenarios[i], err, sizeof(err)) < 0) {
			pr_warn("run: %s", err);
			return -1;
		}
		c->nscenarios++;
	}
	return 0;
}

static void run_config_free(struct run_config *c)
{
	for (int i = 0; i < c->nscenarios; i++)
		scenario_free(&c->scenarios[i]);
	free(c->scenarios);
	c->scenarios = NULL;
	c->nscenarios = 0;
}

int cmd_run(int argc, char **argv)
{
	struct run_ctx ctx;
	struct results_writer res = { .runs_fd = -1 };
	int failed, undo_failures, ret;
	json_t *concurrent;

	/* the results directory is checked in --dry-run too, as a real run would */
	if (parse_run_args(&ctx, argc, argv) < 0 || (ctx.cfg.dry_run && writer_check(&ctx.cfg, ctx.cfg.testbed) < 0)) {
		run_config_free(&ctx.cfg);
		return EXIT_USAGE;
	}
	if (!ctx.cfg.dry_run) {
		const char *why = NULL;

		if (geteuid() != 0)
			why = "run: needs root (it creates network namespaces and sets offloads); try sudo";
		if (why || check_tools() < 0 || writer_check(&ctx.cfg, ctx.cfg.testbed) < 0 ||
		    journal_check(!strcmp(ctx.cfg.testbed, "peer")) < 0 ||
		    writer_open(&res, &ctx.cfg, ctx.cfg.testbed) < 0) {
			if (why)
				pr_warn("%s", why);
			writer_close(&res);
			run_config_free(&ctx.cfg);
			return EXIT_USAGE;
		}
	}
	signals_install();
	if (journal_open(ctx.cfg.dry_run) < 0) {
		writer_close(&res);
		run_config_free(&ctx.cfg);
		return EXIT_FAIL;
	}
	/* the vm testbed measures in its guests, whose windows this host does not see */
	if (!ctx.cfg.dry_run && strcmp(ctx.cfg.testbed, "vm"))
		measuring_open();
	if (!strcmp(ctx.cfg.testbed, "vm"))
		failed = vm_run_matrix(&ctx.cfg, &res);
	else if (!strcmp(ctx.cfg.testbed, "peer"))
		failed = run_matrix(&peer_testbed_ops, &ctx.cfg, &res, &ctx.overhead);
	else
		failed = run_matrix(&netns_testbed_ops, &ctx.cfg, &res, &ctx.overhead);
	undo_failures = journal_undo_all();
	measuring_close();
	concurrent = measuring_report();
	if (concurrent && res.meta) {
		json_object_set_new(res.meta, "concurrent_runs", json_incref(concurrent));
		writer_write_meta(&res);
	}
	writer_close(&res);
	run_config_free(&ctx.cfg);

	if (stop_requested()) {
		pr_warn("run: stopped by signal %d; the host is restored%s; results so far in %s",
			stop_signal(), undo_failures ? " except as said above" : "", res.dir);
		signal(stop_signal(), SIG_DFL);
		raise(stop_signal());
		return 128 + stop_signal();
	}
	if (ctx.cfg.dry_run)
		return EXIT_OK;
	ret = failed != 0 || undo_failures ? EXIT_FAIL : EXIT_OK;
	if (failed < 0)
		pr_warn("run: the testbed could not be set up; nothing was measured");
	fflush(stderr);
	if (summary_print(stdout, res.dir) < 0)
		ret = EXIT_FAIL;
	fflush(stdout);
	measuring_warn();
	json_decref(concurrent);
	if (!strcmp(ctx.cfg.testbed, "vm") && vm_print_summary(stdout, res.dir) < 0)
		ret = EXIT_FAIL;
	if (ctx.overhead) {
		probe_overhead_print(stdout, ctx.overhead);
		json_decref(ctx.overhead);
	}
	printf("\nresults: %s\n", res.dir);
	return ret;
}
