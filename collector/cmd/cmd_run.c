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
#include "setup.h"
#include "summary.h"
#include "testbeds.h"
#include "testbed.h"
#include "testbed_peer.h"
#include "tune.h"
#include "until_ci.h"
#include "vm_kernel.h"
#include "vm_matrix.h"

static const char help_run[] =
	"usage: ipsecperf run [OPTIONS] [SCENARIO...]\n"
	"\n"
	"Run each SCENARIO (default: " RUN_DEFAULT_SCENARIOS ") --repeat\n"
	"times for --duration seconds of one TCP stream, on a testbed made for\n"
	"the run and removed after it, and write a results directory:\n"
	"  meta.json   provenance: version, command, host, CPU, kernel, iperf3\n"
	"  runs.jsonl  one record per run, appended as each run ends\n"
	"  raw/        what iperf3 printed\n"
	"then print a summary. A SCENARIO is a name from `ipsecperf list` or a\n"
	"path to a scenario file (docs/scenarios.md). One this host cannot run\n"
	"(esp-null on a kernel without ESP) is skipped, saying why.\n"
	"\n"
	"The netns testbed is two network namespaces, ipsecperf-PID-START-tx and\n"
	"ipsecperf-PID-START-rx (START: the run's start time, in ticks since\n"
	"boot), joined by a veth pair (ipp-tx 198.18.0.1/24 and\n"
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
	"--testbed vm boots each --kernel in qemu and runs the netns testbed\n"
	"inside (docs/vm-testbed.md). --testbed vm-pair boots two guests, the\n"
	"sender on --kernel and the receiver on --peer-kernel (default: the\n"
	"same), joined by a virtio-net link whose offloads each guest's ethtool\n"
	"switches as on a NIC; the sender's guest runs the peer testbed against\n"
	"the receiver's over a second, control link (docs/vm-pair-testbed.md).\n"
	"\n"
	"Cycles per byte: cycles of all CPUs during the measured interval (the\n"
	"PMU's cycle counter, or busy CPU time times the TSC frequency where\n"
	"there is no PMU, recorded as \"estimated\") over bytes received.\n"
	"\n"
	"An option marked [TESTBED] below works on that testbed only; run\n"
	"refuses it on another (exit 2).\n"
	"\n"
	"Needs root.\n";

static const char help_run_end[] =
	"Then `ipsecperf report DIR` and `ipsecperf compare BASE NEW`.\n";

static const char exit_run[] =
	"  0   every run ok or skipped; --dry-run: the run could start\n"
	"  1   a run failed, or the host could not be restored;\n"
	"      --dry-run: every scenario would be skipped\n"
	"  2   bad usage or input, nothing changed; --dry-run: the run could not\n"
	"      start (a kernel not there, a peer not reached)\n"
	"  128+N  stopped by signal N, the host restored\n";

static const char examples_run[] =
	"  ipsecperf run                   # clear no-tso no-gso esp-null, netns\n"
	"  ipsecperf run -t 5 -r 10 clear esp-null esp-gcm\n"
	"  ipsecperf run --testbed vm --kernel ~/linux --kernel ~/linux-patched \\\n"
	"      --interleave clear esp-null     # two kernels built alike, in turn\n"
	"  ipsecperf run --testbed peer --peer root@10.0.0.2 --dev eth1 \\\n"
	"      --peer-dev eth1 clear no-gso esp-null\n"
	"  ipsecperf run --dry-run esp-null   # the commands, changing nothing\n";

struct run_ctx {
	struct run_config cfg;
	json_t *overhead;       /* --probe-overhead: scenario -> {"on": [bps...], "off": [bps...]} */
};

/* ---- the options with their own parsing ---- */

static int opt_tag(void *arg, const char *val)
{
	struct run_ctx *ctx = arg;

	if (!*val || strspn(val, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != strlen(val)) {
		pr_warn("run: --tag takes letters, digits, '.', '_' and '-', not '%s'", val);
		return -1;
	}
	ctx->cfg.tag = val;
	return 0;
}

/* A --kernel or --peer-kernel into list (n of them so far). */
static int add_kernel(const char *opt, const char **list, int *n, const char *val)
{
	char why[512];

	if (*n == RUN_MAX_KERNELS) {
		pr_warn("run: at most %d --%s options", RUN_MAX_KERNELS, opt);
		return -1;
	}
	if (vm_kernel_spec_check(val, why, sizeof(why)) < 0) {
		pr_warn("run: %s", why);
		return -1;
	}
	list[(*n)++] = val;
	return 0;
}

static int opt_kernel(void *arg, const char *val)
{
	struct run_config *c = &((struct run_ctx *)arg)->cfg;

	return add_kernel("kernel", c->kernels, &c->nkernels, val);
}

static int opt_peer_kernel(void *arg, const char *val)
{
	struct run_config *c = &((struct run_ctx *)arg)->cfg;

	return add_kernel("peer-kernel", c->peer_kernels, &c->npeer_kernels, val);
}

static int opt_ssh_option(void *arg, const char *val)
{
	struct run_config *c = &((struct run_ctx *)arg)->cfg;

	if (c->nssh_opts == RUN_MAX_SSH_OPTS) {
		pr_warn("run: at most %d --ssh-option options", RUN_MAX_SSH_OPTS);
		return -1;
	}
	c->ssh_opts[c->nssh_opts++] = val;
	return 0;
}

static int opt_addr_tx(void *arg, const char *val)
{
	struct run_config *c = &((struct run_ctx *)arg)->cfg;

	c->addr_tx = val;
	c->addr_tx_set = true;
	return 0;
}

static int opt_addr_rx(void *arg, const char *val)
{
	struct run_config *c = &((struct run_ctx *)arg)->cfg;

	c->addr_rx = val;
	c->addr_rx_set = true;
	return 0;
}

static int opt_congestion(void *arg, const char *val)
{
	struct run_config *c = &((struct run_ctx *)arg)->cfg;

	/* a kernel's name for one (TCP_CA_NAME_MAX is 16 with its NUL) */
	if (!*val || strlen(val) > 15 || strspn(val, "abcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(val)) {
		pr_warn("run: --congestion takes a congestion control's name (cubic, reno, bbr: /proc/sys/net/ipv4/tcp_available_congestion_control), not '%s'",
			val);
		return -1;
	}
	c->congestion = val;
	return 0;
}

static int opt_profile(void *arg, const char *val)
{
	struct run_config *c = &((struct run_ctx *)arg)->cfg;

	(void)val;
	c->profile_hz = c->profile_hz ? c->profile_hz : PROFILE_DEFAULT_HZ;
	return 0;
}

static int opt_until_ci(void *arg, const char *val)
{
	struct run_config *c = &((struct run_ctx *)arg)->cfg;
	char *end;

	c->until_ci = strtod(val, &end);
	if (end == val || *end || !(c->until_ci > 0 && c->until_ci <= 100)) {
		pr_warn("run: --until-ci takes a percentage above 0 and at most 100, not '%s'", val);
		return -1;
	}
	return 0;
}

static int opt_scenario_dir(void *arg, const char *val)
{
	(void)arg;
	return scenario_dir_option("run", val);
}

static int opt_no_wait(void *arg, const char *val)
{
	(void)arg;
	(void)val;
	hostwide_set_no_wait(true);
	return 0;
}

/*
 * Every option: the testbeds it works on (elsewhere refused at parse time)
 * and, on vm, whether the guest's run gets it as given (GUEST) or the host
 * handles it. One line per option; tests/integration/test_option_testbeds.sh
 * names the test that proves each one effective on each testbed.
 */
#define ALL (OPT_NETNS | OPT_PEER | OPT_VM)
#define GUEST OPT_GUEST
/* vm-pair: what its tests show working there (test_option_testbeds.sh) */
#define PAIR OPT_VMPAIR
/* The probe options: every testbed runs them through one matrix loop. */
#define PROBE_TESTBEDS ALL
#define RC struct run_ctx

static const struct opt_def run_opts[] = {
	OPT_STR("testbed", 0, RC, cfg.testbed, "KIND", testbeds_help, .marks = ALL | PAIR, .group = "what runs",
		.choices = testbeds_choices),
	OPT_CB("kernel", 0, opt_kernel, "K", "kernel to boot (repeatable; vm-pair: the sender's)", .marks = OPT_VM | PAIR),
	OPT_CB("peer-kernel", 0, opt_peer_kernel, "K", "vm-pair: the receiver's kernel, one for each --kernel in order (default: the same)", .marks = PAIR),
	OPT_INT("vcpus", 0, RC, cfg.vcpus, 1, 64, "N", "each guest's vCPUs (default, vm: two a --flows flow, at least this host's CPUs up to 4; vm-pair: one a flow)", .marks = OPT_VM | PAIR),
	/* the host chooses the guests' clock (auto: by KVM) and rewrites their records' */
	OPT_CHOICE("clock", 0, RC, cfg.clock, run_clock_names, "CLOCK", "the guest's clock: real (default), virtual (qemu counts instructions, -icount: figures that do not depend on this host's load, 10-20x the wall time; one vCPU; instructions_per_byte) or auto (virtual where KVM cannot run guests, real with KVM; vm-pair: real); docs/vm-testbed.md", .marks = OPT_VM | PAIR, .say_takes = true),
	/* the scenario files are copied into the guest: this host's folder means nothing there */
	OPT_CB("scenario-dir", 0, opt_scenario_dir, "DIR", "the scenario folder (default: $IPSECPERF_SCENARIOS, or beside the program)", .marks = ALL),
	OPT_FLAG("dry-run", 'n', RC, cfg.dry_run, "print the host changes as commands, then their undo; make none", .marks = ALL | PAIR),
	OPT_INT("flows", 'P', RC, cfg.flows, 1, LOAD_MAX_FLOWS, "N", "TCP flows at once, each on its own port (--port and up) and, where there are CPUs enough, its own CPUs (default 1; iperf3 only; --parallel, iperf3's name, too); docs/load.md", .marks = OPT_NETNS | OPT_PEER | OPT_VM | PAIR | GUEST, .alias = "parallel"),
	OPT_CB("congestion", 'C', opt_congestion, "ALGO", "the sender's TCP congestion control (default: the kernel's, recorded either way; iperf3's -C)", .marks = ALL | PAIR | GUEST),
	OPT_INT("sas", 0, RC, cfg.sas, 1, SCENARIO_MAX_SAS, "N", "SA pairs in each ESP scenario, flow k (port --port + k) through pair k mod N, each SA with its own counters; needs N flows or more (--flows); the scenario's sas = N otherwise, one by default; docs/scenarios.md", .marks = OPT_NETNS | OPT_PEER | OPT_VM | PAIR | GUEST),
	OPT_CHOICE("direction", 0, RC, cfg.direction, load_direction_names, "DIR", "who sends: tx (this host, default), rx (the peer) or both (each flow both ways at once); docs/load.md", .marks = OPT_PEER | PAIR | GUEST, .say_takes = true),
	OPT_INT("duration", 't', RC, cfg.duration_s, 1, 3600, "S", "measured seconds per run (default 10; --time, iperf3's name, too)", .marks = ALL | PAIR | GUEST, .alias = "time", .group = "how long"),
	OPT_INT("omit", 'O', RC, cfg.omit_s, 0, 60, "S", "warm-up seconds before measuring (default 1)", .marks = ALL | PAIR | GUEST),
	/* the vm host gives each boot its own --repeat and --repeat-from (--interleave) */
	OPT_INT("repeat", 'r', RC, cfg.repeat, 1, 1000, "N", "runs per scenario (default " RUN_DEFAULT_REPEAT_S ": the fewest with which compare can call a change significant)", .marks = ALL | PAIR),
	OPT_INT("repeat-from", 0, RC, cfg.repeat_from, 1, 1000000, "N", "number the repeats from N (default 1; --interleave gives it to each guest)", .marks = ALL | PAIR),
	OPT_FLAG("interleave", 0, RC, cfg.interleave, "boot every kernel once per repeat, in turn (K1 K2 K1 K2 ...); docs/vm-testbed.md", .marks = OPT_VM | PAIR),
	/* the vm and peer matrices bound their time by --repeat; not there yet */
	OPT_CB("until-ci", 0, opt_until_ci, "PCT", "repeat each scenario until the 95% interval of its median throughput is narrower than PCT% of it (at least 6 runs; --max-repeat)", .marks = OPT_NETNS),
	OPT_INT("max-repeat", 0, RC, cfg.max_repeat, 6, 1000, "N", "the most runs per scenario --until-ci makes (default 30)", .marks = OPT_NETNS),
	/* a guest's kernel is its own: no other run there to wait for, and the vm host changes nothing host-wide */
	OPT_CB_FLAG("no-wait", 0, opt_no_wait, "fail a scenario at once, not wait, when another run holds host-wide changes (modules, shared offloads)", .marks = OPT_NETNS | OPT_PEER),
	/* this host's CPUs, where sender and receiver both run (elsewhere the warnings give the commands) */
	OPT_FLAG("tune", 0, RC, cfg.tune, "for the run: this host's CPU frequency governor to performance and boost off, journaled and put back after (docs/methodology.md)", .marks = OPT_NETNS),
	OPT_CB("addr-tx", 0, opt_addr_tx, "ADDR", "sender address (default " DEFAULT_ADDR_TX ")", .marks = ALL | PAIR | GUEST, .group = "testbeds"),
	OPT_CB("addr-rx", 0, opt_addr_rx, "ADDR", "receiver address (default " DEFAULT_ADDR_RX ")", .marks = ALL | PAIR | GUEST),
	/* the peer's addresses are its devices' own, with their own prefix lengths */
	OPT_INT("prefix-len", 0, RC, cfg.prefix_len, 8, 128, "N", "prefix length of both addresses (default 24)", .marks = OPT_NETNS | OPT_VM | GUEST),
	OPT_INT("port", 'p', RC, cfg.port, 1024, 65535, "N", "TCP port of the load (default 5201)", .marks = ALL | PAIR | GUEST),
	OPT_STR("peer", 0, RC, cfg.peer, "[USER@]HOST", "the receiving host, reached with ssh", .marks = OPT_PEER),
	OPT_STR("dev", 0, RC, cfg.dev, "IF", "this host's end of the link", .marks = OPT_PEER),
	OPT_STR("peer-dev", 0, RC, cfg.peer_dev, "IF", "the peer's end of the link", .marks = OPT_PEER),
	OPT_CB("ssh-option", 0, opt_ssh_option, "OPT", "passed to ssh as -o OPT (repeatable)", .marks = OPT_PEER),
	OPT_STR("peer-ipsecperf", 0, RC, cfg.peer_ipsecperf, "PATH", "ipsecperf on the peer, for its agent (default: the installed one, in the peer's PATH)", .marks = OPT_PEER),
	OPT_INT("cpu-tx", 0, RC, cfg.cpu_tx, 0, 4095, "N", "pin the sender to CPU N (docs/peer-testbed.md)", .marks = OPT_PEER),
	OPT_INT("cpu-rx", 0, RC, cfg.cpu_rx, 0, 4095, "N", "pin the receiver on the peer to CPU N", .marks = OPT_PEER),
	OPT_FLAG("no-probes", 0, RC, cfg.no_probes, "attach no BPF probes (counters: unavailable)", .marks = ALL | PAIR | GUEST, .group = "probes"),
	OPT_CHOICE("probe-set", 0, RC, cfg.probe_set, probe_set_names, "SET", "default (the kernel's counters, GSO kprobes), esp (and the ESP programs), all (and the xmit program), tracepoints (no kprobes) or kernel (no BPF); docs/probes.md", .marks = PROBE_TESTBEDS | PAIR | GUEST, .say_takes = true),
	/* the vm host gives each boot its own (--interleave: the first round's) */
	OPT_INT("count-repeats", 0, RC, cfg.count_repeats, 0, 1000, "N", "runs per scenario with SAs that count with the ESP programs attached, kept out of the throughput figures (default 1; 0: none); docs/probes.md", .marks = PROBE_TESTBEDS | PAIR),
	OPT_FLAG("probe-overhead", 0, RC, cfg.probe_overhead, "run each repeat with and without probes; report the throughput ratio", .marks = PROBE_TESTBEDS | GUEST),
	OPT_FLAG("probe-cost", 0, RC, cfg.probe_cost, "have the kernel time the BPF programs (probe_cost in each record; adds a clock read per event)", .marks = PROBE_TESTBEDS | GUEST),
	/* the peer's agent samples nothing yet */
	OPT_CB_FLAG("profile", 0, opt_profile, "sample call chains in the measured window (perf, cpu-clock); docs/profiling.md", .marks = OPT_NETNS | OPT_VM | GUEST),
	OPT_INT("profile-hz", 0, RC, cfg.profile_hz, 1, 10000, "HZ", "--profile's samples per second per CPU (default 99)", .marks = OPT_NETNS | OPT_VM | GUEST),
	OPT_STR("output", 'o', RC, cfg.outdir, "DIR", "results directory, new or empty (default results/<UTC>-<testbed>-<tag>)", .marks = ALL | PAIR, .group = "output"),
	OPT_CB("tag", 0, opt_tag, "TAG", "name part of the default directory (default run)", .marks = ALL | PAIR),
	OPT_FLAG("quiet", 'q', RC, cfg.quiet, "no progress line", .marks = ALL | PAIR),
	/* iperf3's options that are not ours: refused, saying what is (docs/user-guide.md) */
	OPT_HINT("client", 'c', "iperf3's client: ipsecperf starts both ends itself; on two hosts --testbed peer --peer HOST --dev IF --peer-dev IF (docs/peer-testbed.md)", .group = "iperf3's options, and what to use instead"),
	OPT_HINT("reverse", 'R', "iperf3's reverse: --direction rx (the peer sends; peer and vm-pair testbeds)"),
	OPT_HINT("bidir", 0, "iperf3's bidirectional test: --direction both (peer and vm-pair testbeds)"),
	OPT_HINT("affinity", 'A', "iperf3's CPU affinity: netns pins the sender to CPU 0 and the receiver to CPU 1 itself; the peer testbed takes --cpu-tx N and --cpu-rx N"),
	OPT_HINT("json", 'J', "iperf3's JSON: every run is a JSON record already (results/DIR/runs.jsonl; iperf3's own in raw/); `ipsecperf report -f json DIR` for the figures"),
	OPT_END,
};

#undef RC
#undef ALL
#undef GUEST
#undef PAIR

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

/* A tool a run starts is in PATH, or say which Debian package has it. */
static int check_tool(const struct load_need *t)
{
	if (exec_have(t->program))
		return 0;
	pr_warn("run: %s not found in PATH: install the %s package (apt-get install %s)", t->program,
		t->package, t->package);
	return -1;
}

/* The tools a run starts: every load's (loads.h), then the testbeds'. */
static int check_tools(void)
{
	static const struct load_need tools[] = { { "ethtool", "ethtool" }, { "ip", "iproute2" } };

	for (int k = 0; load_kinds[k]; k++)
		for (const struct load_need *t = load_kinds[k]->needs; t->program; t++)
			if (check_tool(t) < 0)
				return -1;
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if (check_tool(&tools[i]) < 0)
			return -1;
	return 0;
}

/* The testbed and what it needs: the options' marks, then each testbed's own musts. */
static int check_testbed(struct run_ctx *ctx, int argc, char **argv)
{
	struct run_config *c = &ctx->cfg;
	const struct testbed_entry *t = testbed_find(c->testbed);
	char err[1024];

	if (!t) {
		testbeds_names(err, sizeof(err), ", ");
		pr_warn("run: unknown testbed '%s'; this build has: %s", c->testbed, err);
		return -1;
	}
	c->tb_entry = t;
	if (options_check_testbed("run", run_opts, argc, argv, t->mark, t->name) < 0)
		return -1;
	if (t->check && t->check(c, err, sizeof(err)) < 0) {
		pr_warn("run: %s", err);
		return -1;
	}
	if (c->clock == RUN_CLOCK_VIRTUAL && t->no_virtual_clock) {
		pr_warn("run: --clock virtual: not on --testbed %s: %s; use --clock real", t->name, t->no_virtual_clock);
		return -1;
	}
	if (c->clock == RUN_CLOCK_VIRTUAL && c->vcpus > 1) {
		pr_warn("run: --clock virtual runs one vCPU (an SMP guest does not boot under qemu's instruction counting); drop --vcpus %d or use --clock real",
			c->vcpus);
		return -1;
	}
	if (c->npeer_kernels && c->npeer_kernels != c->nkernels) {
		pr_warn("run: --peer-kernel pairs with --kernel: give one for each --kernel (%d), in order, or none",
			c->nkernels);
		return -1;
	}
	return 0;
}

/* The options that depend on one another, and the addresses. */
static int check_options(struct run_ctx *ctx)
{
	struct run_config *c = &ctx->cfg;

	if (c->direction == LOAD_BOTH && 2 * c->flows > LOAD_MAX_FLOWS) {
		pr_warn("run: --direction both runs each flow both ways: at most %d --flows", LOAD_MAX_FLOWS / 2);
		return -1;
	}
	if (c->sas > c->flows * (c->direction == LOAD_BOTH ? 2 : 1)) {
		pr_warn("run: --sas %d: each SA pair carries flows of its own, and --flows %d runs fewer; give --flows %d or more",
			c->sas, c->flows, c->sas);
		return -1;
	}
	if (c->max_repeat && !c->until_ci) {
		pr_warn("run: --max-repeat bounds --until-ci; without it use --repeat");
		return -1;
	}
	if (c->until_ci && !c->max_repeat)
		c->max_repeat = UNTIL_CI_MAX_REPEAT;
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
	return 0;
}

/* The scenarios named (default: RUN_DEFAULT_SCENARIOS), each once. */
static int load_scenarios(struct run_config *c, int n, char *const *names)
{
	static char *const default_matrix[] = { "clear", "no-tso", "no-gso", "esp-null" };
	char err[1024];

	if (!n) {
		names = default_matrix;
		n = sizeof(default_matrix) / sizeof(default_matrix[0]);
	}
	c->scenarios = calloc(n, sizeof(*c->scenarios));
	if (!c->scenarios) {
		pr_warn("run: out of memory");
		return -1;
	}
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

static int parse_run_args(struct run_ctx *ctx, int argc, char **argv)
{
	struct run_config *c = &ctx->cfg;
	int first;

	*ctx = (struct run_ctx){ 0 };
	*c = (struct run_config){ .duration_s = 10, .omit_s = 1, .repeat = RUN_DEFAULT_REPEAT, .repeat_from = 1, .count_repeats = 1, .flows = 1, .clock = RUN_CLOCK_REAL, .testbed = testbed_default()->name,
				  .addr_tx = DEFAULT_ADDR_TX, .addr_rx = DEFAULT_ADDR_RX, .prefix_len = 24,
				  .tag = "run", .cpu_tx = -1, .cpu_rx = -1, .port = 5201, .argc = argc, .argv = argv,
				  .opts = run_opts };
	first = options_parse("run", run_opts, 0, argc, argv, ctx);
	if (first < 0 || check_testbed(ctx, argc, argv) < 0 || check_options(ctx) < 0)
		return -1;
	return load_scenarios(c, argc - first, argv + first);
}

static void run_config_free(struct run_config *c)
{
	for (int i = 0; i < c->nscenarios; i++)
		scenario_free(&c->scenarios[i]);
	free(c->scenarios);
	c->scenarios = NULL;
	c->nscenarios = 0;
}

/* Root, the tools, the results directory and the journal: 0, or the exit status. */
static int run_prepare(struct run_ctx *ctx, struct results_writer *res)
{
	struct run_config *c = &ctx->cfg;

	if (!c->dry_run) {
		const char *why = NULL;

		if (geteuid() != 0)
			why = "run: needs root (it creates network namespaces and sets offloads); try sudo";
		if (why || check_tools() < 0 || writer_check(c, c->testbed) < 0 ||
		    journal_check(c->tb_entry->peer) < 0 || writer_open(res, c, c->testbed) < 0) {
			if (why)
				pr_warn("%s", why);
			return EXIT_USAGE;
		}
	}
	signals_install();
	return journal_open(c->dry_run) < 0 ? EXIT_FAIL : 0;
}

/*
 * --tune: the host set up for measuring (journaled), recorded in meta.json
 * with the set-up as it is now. 0, or -1 after one line.
 */
static int run_tune(struct results_writer *res)
{
	char why[512];
	json_t *done = tune_apply(why, sizeof(why)), *k;

	if (!done) {
		pr_warn("run: --tune: %s", why);
		return -1;
	}
	if (res->meta) {
		json_t *c = json_object_get(res->meta, "conditions");

		if (!c)
			json_object_set_new(res->meta, "conditions", c = json_pack("{s:[], s:[]}", "warnings", "tuned"));
		json_object_set(c, "tuned", done);
		if ((k = json_array_get(json_object_get(res->meta, "kernels"), 0)))
			json_object_set_new(k, "setup", setup_collect(NULL, 0));
		writer_write_meta(res);
	}
	if (!journal_dry_run())
		pr_info("run: --tune: %zu setting%s changed for the run%s", json_array_size(done),
			json_array_size(done) == 1 ? "" : "s",
			json_array_size(done) ? "" : " (no cpufreq governor or boost to set here)");
	json_decref(done);
	return 0;
}

/* The matrix on its testbed: through the one loop on its operations, or its own runner (the vm ones, in guests). */
static int run_testbed(struct run_ctx *ctx, struct results_writer *res)
{
	const struct testbed_entry *t = ctx->cfg.tb_entry;

	if (t->guests)
		return vm_run_matrix(&ctx->cfg, res);
	return run_matrix(t->ops, &ctx->cfg, res, &ctx->overhead);
}

/* After a run that was not stopped: the summaries; the exit status. */
static int run_report(struct run_ctx *ctx, const char *dir, int failed, int undo_failures)
{
	int ret = failed != 0 || undo_failures ? EXIT_FAIL : EXIT_OK;

	if (failed < 0)
		pr_warn("run: the testbed could not be set up; nothing was measured");
	fflush(stderr);
	if (summary_print(stdout, dir) < 0)
		ret = EXIT_FAIL;
	fflush(stdout);
	measuring_warn();
	if (ctx->cfg.tb_entry->guests && vm_print_summary(stdout, dir) < 0)
		ret = EXIT_FAIL;
	if (ctx->overhead)
		probe_overhead_print(stdout, ctx->overhead);
	printf("\nresults: %s\n", dir);
	return ret;
}

static int cmd_run(int argc, char **argv)
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
	ret = run_prepare(&ctx, &res);
	if (ret) {
		writer_close(&res);
		run_config_free(&ctx.cfg);
		return ret;
	}
	/* the vm testbed measures in its guests, whose windows this host does not see */
	if (!ctx.cfg.dry_run && !run_in_vm(&ctx.cfg))
		measuring_open();
	failed = ctx.cfg.tune && run_tune(&res) < 0 ? 1 : run_testbed(&ctx, &res);
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
	if (ctx.cfg.dry_run && failed && failed != RUN_NOTHING)
		pr_warn("run: --dry-run: the run could not start (said above)");
	ret = ctx.cfg.dry_run ? (failed == RUN_NOTHING ? EXIT_FAIL : failed ? EXIT_USAGE : EXIT_OK)
			      : run_report(&ctx, res.dir, failed, undo_failures);
	json_decref(concurrent);
	json_decref(ctx.overhead);
	return ret;
}

const struct command command_run = {
	.name = "run", .fn = cmd_run, .help = help_run, .opts = run_opts, .help_end = help_run_end,
	.exit_status = exit_run, .examples = examples_run,
	.summary = "run a scenario matrix on a testbed and write a results directory",
};
