// SPDX-License-Identifier: GPL-2.0
/*
 * ipsecperf doctor: what this host's kernel and tools can do, found by
 * probing (load a module with -n, open a socket, load a BPF program, open a
 * counter, run a tiny guest), never by comparing version numbers. Changes
 * nothing on the host.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/perf_event.h>
#include <bpf/libbpf.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "commands.h"
#include "cpu.h"
#include "enclink.h"
#include "exec.h"
#include "ipsec.h"
#include "load.h"
#include "log.h"
#include "setup.h"
#include "vm_kvm.h"
#include "xfrm_pcpu.h"

static const char help_doctor[] =
	"usage: ipsecperf doctor [-f FMT]\n"
	"\n"
	"Print what this host can run, each found by probing the running kernel:\n"
	"ESP (esp4, esp6) and each algorithm the scenarios use, esp4_offload,\n"
	"per-CPU SAs (an XFRM_MSG_ALLOCSPI for a CPU that is not there, in a\n"
	"network namespace of a child's own), the encrypted links beside IPsec\n"
	"(the wireguard and macsec modules), TCP-MD5 and TCP-AO (a key set on a\n"
	"throwaway socket), the BPF program\n"
	"types that load (libbpf's probe), kprobes, the PMU's cycle counter, a\n"
	"KVM that runs the vm testbed's guests (qemu -accel kvm -cpu host on a\n"
	"test guest of a few hundred bytes, at most 3 s; \"unknown\" when qemu\n"
	"cannot tell), and the versions of iperf3, perf and qemu. Makes no change\n"
	"to the host: modules are looked up with modprobe -n, nothing is loaded\n"
	"or mounted.\n"
	"\n"
	"A verdict is yes, likely, no, unknown (qemu could not tell) or ? (not\n"
	"probed: not root, or a program missing). The last rows are the\n"
	"measuring conditions `ipsecperf run` warns about (docs/methodology.md).\n"
	"\n"
	"With -f json: {\"kernel\": {\"release\", \"version\"}, \"checks\": [{\"section\",\n"
	"\"check\", \"verdict\", \"detail\"}, ...]}.\n";

struct doctor_args {
	int json;
};

static const struct opt_def doctor_opts[] = {
	OPT_FORMAT(struct doctor_args, json),
	OPT_END,
};

/* With -f json the rows gather here instead of being printed. */
static json_t *checks;
static const char *cur_section;

static void section(const char *name)
{
	cur_section = name;
	if (!checks)
		printf("\n%s\n", name);
}

static void row(const char *what, const char *verdict, const char *detail)
{
	if (checks)
		json_array_append_new(checks, json_pack("{s:s, s:s, s:s, s:s}", "section", cur_section, "check",
							 what, "verdict", verdict, "detail", detail ? detail : ""));
	else
		printf("  %-22s %-10s %s\n", what, verdict, detail ? detail : "");
}

/*
 * What makes figures vary here, as `run` would warn (pyperf's `system
 * show`): the netns testbed's sender and receiver on CPUs 0 and 1.
 */
static void conditions_rows(void)
{
	json_t *s = setup_collect(NULL, 0), *w, *v, *cpu = json_object_get(s, "cpu");
	const char *gov = json_string_value(json_object_get(cpu, "governor"));
	char line[256];
	size_t i;

	section("measuring conditions (docs/methodology.md)");
	w = setup_conditions(s, cpu_count() >= 2 ? 0 : -1, cpu_count() >= 2 ? 1 : -1, "");
	snprintf(line, sizeof(line), "governor %s, boost %s, SMT %s, %.0f%% busy now", gov ? gov : "none (no cpufreq)",
		 json_is_true(json_object_get(cpu, "boost")) ? "on" : json_is_false(json_object_get(cpu, "boost")) ? "off" : "-",
		 json_string_value(json_object_get(cpu, "smt")) ?: "-", json_number_value(json_object_get(s, "busy_pct")));
	row("as found", json_array_size(w) ? "no" : "yes", line);
	json_array_foreach(w, i, v)
		row("warning", "no", json_string_value(v));
	json_decref(w);
	json_decref(s);
}

static bool in_proc_crypto(const char *name)
{
	FILE *f = fopen("/proc/crypto", "r");
	char line[256];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char val[200];

		if ((sscanf(line, "name : %199s", val) == 1 || sscanf(line, "driver : %199s", val) == 1) &&
		    !strcmp(val, name))
			found = true;
	}
	fclose(f);
	return found;
}

/*
 * An algorithm the kernel does not hold yet is built from templates on
 * demand: rfc4106(gcm(aes)) needs rfc4106, gcm and aes (and
 * rfc7539esp(chacha20,poly1305) its three), each either present or
 * loadable as the module alias crypto-NAME.
 */
static void crypto_row(const char *alg)
{
	char buf[128], detail[300] = "";
	size_t off = 0;
	bool missing = false;

	if (in_proc_crypto(alg)) {
		row(alg, "yes", "in /proc/crypto");
		return;
	}
	snprintf(buf, sizeof(buf), "%s", alg);
	for (char *tok = strtok(buf, "(),"); tok; tok = strtok(NULL, "(),")) {
		char alias[96];
		const char *how;

		snprintf(alias, sizeof(alias), "crypto-%s", tok);
		if (in_proc_crypto(tok))
			how = "present";
		else if (exec_run(NULL, (char *[]){ "modprobe", "-n", "-q", alias, NULL }, NULL, NULL) == 0)
			how = "loadable";
		else
			how = "not found", missing = true;
		if (off < sizeof(detail))
			off += snprintf(detail + off, sizeof(detail) - off, "%s%s %s", off ? ", " : "", tok, how);
	}
	row(alg, missing ? "no" : "likely", detail);
}

static void kmod_row(const char *name, const char *what)
{
	int ref = 0;
	enum kmod_state st = kmod_state(name, &ref);
	char detail[200];

	snprintf(detail, sizeof(detail), "%s: %s", name, kmod_state_name(st));
	if (st == KMOD_LOADED)
		snprintf(detail + strlen(detail), sizeof(detail) - strlen(detail), " (refcount %d)", ref);
	row(what, st == KMOD_MISSING ? "no" : "yes", detail);
}

static void xfrm_row(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_XFRM);

	if (fd < 0) {
		row("xfrm netlink", "no", strerror(errno));
		return;
	}
	close(fd);
	row("xfrm netlink", "yes", "NETLINK_XFRM socket opens (CONFIG_XFRM_USER)");
}

/* Per-CPU SAs (RFC 9611): probed in a namespace of a child's own (xfrm_pcpu.h). */
static void pcpu_row(void)
{
	char why[300];
	int rc;

	if (geteuid() != 0) {
		row("per-CPU SAs", "?", "needs root to probe (a network namespace of its own)");
		return;
	}
	rc = xfrm_pcpu_probe(why, sizeof(why));
	row("per-CPU SAs", rc > 0 ? "yes" : rc == 0 ? "no" : "?", why);
}

static int silent_libbpf(enum libbpf_print_level l, const char *fmt, va_list ap)
{
	(void)l;
	(void)fmt;
	(void)ap;
	return 0;
}

static void bpf_rows(void)
{
	static const struct {
		enum bpf_prog_type type;
		const char *name;
	} types[] = {
		{ BPF_PROG_TYPE_TRACEPOINT, "tracepoint" },
		{ BPF_PROG_TYPE_RAW_TRACEPOINT, "raw_tracepoint" },
		{ BPF_PROG_TYPE_KPROBE, "kprobe" },
		{ BPF_PROG_TYPE_TRACING, "tracing (fentry)" },
	};
	libbpf_print_fn_t old = libbpf_set_print(silent_libbpf);

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		char what[64], detail[128];
		int rc = libbpf_probe_bpf_prog_type(types[i].type, NULL);

		snprintf(what, sizeof(what), "BPF %s", types[i].name);
		if (rc < 0)
			snprintf(detail, sizeof(detail), "probe failed: %s", strerror(-rc));
		else
			snprintf(detail, sizeof(detail), "libbpf_probe_bpf_prog_type: %s",
				 rc ? "loads" : "refused");
		row(what, rc == 1 ? "yes" : "no", detail);
	}
	libbpf_set_print(old);
}

static void kprobe_row(void)
{
	struct stat st;
	const char *tr = NULL;

	if (stat("/sys/kernel/tracing/kprobe_events", &st) == 0)
		tr = "/sys/kernel/tracing/kprobe_events";
	else if (stat("/sys/kernel/debug/tracing/kprobe_events", &st) == 0)
		tr = "/sys/kernel/debug/tracing/kprobe_events";
	if (stat("/sys/bus/event_source/devices/kprobe", &st) == 0)
		row("kprobes", "yes", tr ? tr : "kprobe PMU (/sys/bus/event_source/devices/kprobe)");
	else if (tr)
		row("kprobes", "yes", tr);
	else if (stat("/sys/kernel/tracing/events", &st) != 0 && stat("/sys/kernel/debug/tracing/events", &st) != 0)
		row("kprobes", "no", "no kprobe PMU; tracefs not mounted, so kprobe_events unknown (CONFIG_KPROBES?)");
	else
		row("kprobes", "no", "no kprobe PMU and no kprobe_events (CONFIG_KPROBES unset)");
}

static void pmu_row(void)
{
	struct perf_event_attr a = { .type = PERF_TYPE_HARDWARE, .size = sizeof(a),
				     .config = PERF_COUNT_HW_CPU_CYCLES, .disabled = 1, .exclude_hv = 1 };
	int fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	char detail[128];

	if (fd >= 0) {
		close(fd);
		row("PMU cycles", "yes", "perf_event_open(cycles) works: cycles_method pmu");
		return;
	}
	snprintf(detail, sizeof(detail), "perf_event_open(cycles): %s; cycles will be \"estimated\"",
		 strerror(errno));
	row("PMU cycles", "no", detail);
}

/*
 * What a VM run needs of KVM: qemu running a guest under -accel kvm with
 * the run's CPU model (vm_kvm_probe), not just a /dev/kvm that opens.
 */
static void kvm_row(void)
{
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX], why[300], detail[360];
	int rc;

	if (!vm_kvm_allowed(why, sizeof(why))) {
		snprintf(detail, sizeof(detail), "%s; the vm testbed uses TCG (slow)", why);
		row("KVM", "no", detail);
		return;
	}
	snprintf(dir, sizeof(dir), "%s/ipsecperf-doctor-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		snprintf(detail, sizeof(detail), "cannot make a scratch folder for the test guest: %s",
			 strerror(errno));
		row("KVM", "unknown", detail);
		return;
	}
	rc = vm_kvm_probe(dir, why, sizeof(why));
	rmdir(dir);
	if (rc == 0)
		snprintf(detail, sizeof(detail), "%s; the vm testbed uses TCG (slow)", why);
	else
		snprintf(detail, sizeof(detail), "%s", why);
	row("KVM", rc > 0 ? "yes" : rc == 0 ? "no" : "unknown", detail);
}

static void version_row(const char *what, const char *prog, const char *arg)
{
	char *out = NULL, *err = NULL;
	int st;

	if (!exec_have(prog)) {
		row(what, "no", "not found in PATH");
		return;
	}
	st = exec_run(NULL, (char *[]){ (char *)prog, (char *)arg, NULL }, &out, &err);
	char *text = out && *out ? out : err;

	if (text)
		text[strcspn(text, "\n")] = '\0';
	row(what, st == 0 ? "yes" : "?", text && *text ? text : "printed no version");
	free(out);
	free(err);
}

static int cmd_doctor(int argc, char **argv)
{
	struct doctor_args a = { 0 };
	struct utsname u;
	char why[256];
	int err = EXIT_OK;
	int first = options_parse("doctor", doctor_opts, 0, argc, argv, &a);
	int json = a.json;

	if (first < 0)
		return EXIT_USAGE;
	if (first < argc) {
		pr_warn("doctor: takes no arguments, not '%s'; see `ipsecperf doctor --help`", argv[first]);
		return EXIT_USAGE;
	}
	uname(&u);
	if (json)
		checks = json_array();
	else
		printf("kernel %s (%s)\n", u.release, u.version);
	section("IPsec");
	xfrm_row();
	kmod_row("esp4", "ESP (IPv4)");
	kmod_row("esp6", "ESP (IPv6)");
	kmod_row("esp4_offload", "ESP GSO (esp4_offload)");
	kmod_row("esp6_offload", "ESP GSO (esp6_offload)");
	pcpu_row();
	section("beside IPsec (scenarios [wireguard], [macsec])");
	for (const struct enclink_kind *const *k = enclink_kinds; *k; k++)
		kmod_row((*k)->module, (*k)->title);
	section("algorithms (the scenarios' own)");
	for (const char *const *a = (const char *const[]){ "ecb(cipher_null)", "digest_null", "cbc(aes)",
							   "hmac(sha256)", "rfc4106(gcm(aes))",
							   "rfc7539esp(chacha20,poly1305)", "gcm(aes)", NULL };
	     *a; a++)
		crypto_row(*a);
	section("TCP authentication");
	for (const char *const *m = (const char *const[]){ "md5", "ao", NULL }; *m; m++) {
		int rc = tcp_auth_probe(*m, "hmac(sha1)", why, sizeof(why));

		row(!strcmp(*m, "md5") ? "TCP-MD5" : "TCP-AO", rc ? "no" : "yes",
		    rc ? why : !strcmp(*m, "md5") ? "setsockopt TCP_MD5SIG works"
						  : "setsockopt TCP_AO_ADD_KEY works (hmac(sha1))");
	}
	section("observation");
	if (geteuid() == 0)
		bpf_rows();
	else
		row("BPF", "?", "needs root to probe program types");
	kprobe_row();
	pmu_row();
	section("virtualisation and tools");
	kvm_row();
	version_row("iperf3", "iperf3", "--version");
	version_row("perf", "perf", "--version");
	version_row("qemu", "qemu-system-x86_64", "--version");
	version_row("iproute2", "ip", "-V");
	version_row("ethtool", "ethtool", "--version");
	version_row("modprobe", "modprobe", "--version");
	conditions_rows();
	if (json) {
		json_t *o = json_pack("{s:{s:s, s:s}, s:o}", "kernel", "release", u.release, "version", u.version,
				      "checks", checks);

		if (!o || json_dumpf(o, stdout, JSON_INDENT(2)) < 0 || fputc('\n', stdout) == EOF)
			err = EXIT_FAIL;
		json_decref(o);
		checks = NULL;
	}
	return err;
}

const struct command command_doctor = {
	.name = "doctor", .fn = cmd_doctor, .help = help_doctor, .opts = doctor_opts,
	.exit_status = "  0   the report, whatever it says (a scenario that cannot run here is\n"
		       "      skipped by `ipsecperf run` with the same reason)\n"
		       "  2   bad usage\n",
	.examples = "  ipsecperf doctor\n  ssh root@peer ipsecperf doctor -f json\n",
	.summary = "what this host can run: ESP, algorithms, TCP-MD5/AO, BPF, KVM",
};
