// SPDX-License-Identifier: GPL-2.0
/*
 * The text report's set-up block and its "reproduce:" block: what a mail
 * to netdev states beside the figures, read from meta.json (the set-up of
 * each end as found, docs/results-format.md) and printed within
 * REPORT_COLUMNS. meta.json is input: every value is read with its type
 * checked and every string through results_bad_char before it is shown.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_int.h"
#include "summary.h"

#define KEY_COL 14 /* "  mitigations " */

/* A string member that is data (no control character), at most 4 KiB; else NULL. */
static const char *jstr(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_string(v) || json_string_length(v) > 4096 ||
	    results_bad_char(json_string_value(v), json_string_length(v)))
		return NULL;
	return json_string_value(v);
}

static bool jint(const json_t *o, const char *key, long long *v)
{
	const json_t *x = json_object_get(o, key);

	if (!json_is_integer(x))
		return false;
	*v = json_integer_value(x);
	return true;
}

/* "  key         value", the value wrapped under itself */
static void kv(FILE *f, const char *key, const char *val)
{
	if (!val || !*val)
		return;
	fprintf(f, "  %-*s", KEY_COL - 2, key);
	fputs_wrapped_at(f, val, KEY_COL, KEY_COL);
}

/* printf into buf at its end */
static void cat(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cat(char *buf, size_t len, const char *fmt, ...)
{
	size_t l = strlen(buf);
	va_list ap;

	if (l >= len - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + l, len - l, fmt, ap);
	va_end(ap);
}

static void cpu_lines(FILE *f, const json_t *cpu)
{
	char line[1024] = "";
	long long n, sock, cores, tpc, nodes;
	const char *s;

	if (!json_is_object(cpu))
		return;
	cat(line, sizeof(line), "%s", jstr(cpu, "model") ? jstr(cpu, "model") : "model not recorded");
	if (jint(cpu, "cpus", &n) && jint(cpu, "sockets", &sock) && jint(cpu, "cores", &cores) &&
	    jint(cpu, "threads_per_core", &tpc))
		cat(line, sizeof(line), "; %lld CPUs: %lld socket%s, %lld cores, %lld thread%s a core", n, sock,
		    sock == 1 ? "" : "s", cores, tpc, tpc == 1 ? "" : "s");
	if ((s = jstr(cpu, "smt")))	/* the kernel's smt/control words, read as words */
		cat(line, sizeof(line), " (SMT %s)",
		    !strcmp(s, "notsupported") ? "not supported" :
		    !strcmp(s, "notimplemented") ? "not implemented" :
		    !strcmp(s, "forceoff") ? "forced off" : s);
	if (jint(cpu, "numa_nodes", &nodes))
		cat(line, sizeof(line), "; %lld NUMA node%s", nodes, nodes == 1 ? "" : "s");
	kv(f, "cpu", line);
	line[0] = '\0';
	if ((s = jstr(cpu, "governor")))
		cat(line, sizeof(line), "governor %s%s%s%s", s, jstr(cpu, "scaling_driver") ? " (" : "",
		    jstr(cpu, "scaling_driver") ? jstr(cpu, "scaling_driver") : "",
		    jstr(cpu, "scaling_driver") ? ")" : "");
	else
		cat(line, sizeof(line), "no cpufreq (the clock is not the kernel's to set)");
	const json_t *boost = json_object_get(cpu, "boost");

	cat(line, sizeof(line), "; boost %s", json_is_true(boost) ? "on" : json_is_false(boost) ? "off" : "not switchable");
	if ((s = jstr(cpu, "idle_driver")))
		cat(line, sizeof(line), "; idle driver %s", s);
	kv(f, "frequency", line);
}

/* "2 vulnerable (a, b), 3 mitigated, 14 not affected", or "off" with mitigations=off */
static void mitigation_line(FILE *f, const json_t *m, const char *cmdline)
{
	char vuln[600] = "", line[1024] = "";
	int nv = 0, nm = 0, nn = 0;
	const char *k;
	json_t *v;

	if (cmdline && (strstr(cmdline, "mitigations=off") == cmdline || strstr(cmdline, " mitigations=off"))) {
		kv(f, "mitigations", "off (mitigations=off on the command line)");
		return;
	}
	if (!json_is_object(m))
		return;
	json_object_foreach((json_t *)m, k, v) {
		const char *s = json_is_string(v) ? json_string_value(v) : "";

		if (!strncmp(s, "Vulnerable", 10)) {
			if (!results_bad_char(k, strlen(k)))
				cat(vuln, sizeof(vuln), "%s%s", nv ? ", " : "", k);
			nv++;
		} else if (!strncmp(s, "Mitigation", 10)) {
			nm++;
		} else {
			nn++;
		}
	}
	if (nv)
		cat(line, sizeof(line), "%d vulnerable (%s), ", nv, vuln);
	cat(line, sizeof(line), "%d mitigated, %d not affected", nm, nn);
	kv(f, "mitigations", line);
}

/* The CONFIG_ options set, then those of IPsec and its crypto that are not. */
static void config_line(FILE *f, const json_t *config)
{
	char set[1024] = "", unset[1024] = "";
	const char *k;
	json_t *v;

	if (!json_is_object(config)) {
		kv(f, "config", "not read (no /proc/config.gz, no /boot/config-RELEASE)");
		return;
	}
	json_object_foreach((json_t *)config, k, v) {
		const char *val = json_is_string(v) ? json_string_value(v) : NULL;
		const char *name = !strncmp(k, "CONFIG_", 7) ? k + 7 : k;

		if (!val || results_bad_char(k, strlen(k)) || results_bad_char(val, strlen(val)))
			continue;
		if (strcmp(val, "n"))
			cat(set, sizeof(set), "%s%s=%s", set[0] ? " " : "", name, val);
		else if (strstr(name, "ESP") || strstr(name, "XFRM") || !strncmp(name, "CRYPTO", 6) ||
			 !strncmp(name, "TCP", 3))
			cat(unset, sizeof(unset), "%s%s", unset[0] ? " " : "", name);
	}
	kv(f, "config", set);
	kv(f, "not set", unset);
}

/* Each algorithm the SAs used, and the driver /proc/crypto served it with. */
static void crypto_lines(FILE *f, const json_t *crypto)
{
	const char *alg;
	json_t *list;
	bool first = true;

	json_object_foreach((json_t *)crypto, alg, list) {
		const json_t *e = json_array_get(list, 0);
		char line[600];

		if (results_bad_char(alg, strlen(alg)))
			continue;
		snprintf(line, sizeof(line), "%s: %s", alg,
			 jstr(e, "driver") ? jstr(e, "driver") : "no instance in use found in /proc/crypto");
		kv(f, first ? "crypto" : "", line);
		first = false;
	}
}

static void nic_offloads(char *line, size_t len, const json_t *off)
{
	static const char *const show[][2] = {
		{ "tx-tcp-segmentation", "tso" }, { "tx-generic-segmentation", "gso" }, { "rx-gro", "gro" },
		{ "rx-lro", "lro" }, { "rx-gro-hw", "gro-hw" }, { "rx-gro-list", "gro-list" },
		{ "tx-scatter-gather", "sg" }, { "rx-checksum", "rx-csum" }, { "tx-checksum-ip-generic", "tx-csum" },
		{ "esp-hw-offload", "esp-hw" }, { "esp-tx-csum-hw-offload", "esp-tx-csum" },
		{ "tx-esp-segmentation", "esp-gso" },
	};
	int n = 0;

	for (size_t i = 0; i < sizeof(show) / sizeof(show[0]); i++) {
		const json_t *v = json_object_get(off, show[i][0]);

		if (json_is_boolean(v))
			cat(line, len, "%s%s %s", n++ ? ", " : "; offloads ", show[i][1], json_is_true(v) ? "on" : "off");
	}
}

static void nic_queues(char *line, size_t len, const json_t *nic)
{
	const json_t *r = json_object_get(nic, "rings"), *c = json_object_get(nic, "coalesce"),
		     *ch = json_object_get(nic, "channels");
	long long a, b, x, y;

	if (jint(r, "rx", &a) && jint(r, "tx", &b) && jint(r, "rx_max", &x) && jint(r, "tx_max", &y))
		cat(line, len, "; rings rx %lld/%lld tx %lld/%lld", a, x, b, y);
	if (jint(c, "rx_usecs", &a) && jint(c, "tx_usecs", &b))
		cat(line, len, "; coalescing rx %lld us%s tx %lld us%s", a,
		    json_is_true(json_object_get(c, "adaptive_rx")) ? " adaptive" : "", b,
		    json_is_true(json_object_get(c, "adaptive_tx")) ? " adaptive" : "");
	if (jint(ch, "combined", &a) && jint(ch, "rx", &b) && jint(ch, "tx", &x))
		cat(line, len, "; channels combined %lld rx %lld tx %lld", a, b, x);
}

static void nic_line(FILE *f, const json_t *nic)
{
	char line[2048] = "";
	long long speed, mtu;
	const json_t *irq;
	size_t i;
	int n = 0;

	cat(line, sizeof(line), "%s: %s", jstr(nic, "dev") ? jstr(nic, "dev") : "?",
	    jstr(nic, "driver") ? jstr(nic, "driver") : "driver not read");
	if (jstr(nic, "version") && *jstr(nic, "version"))
		cat(line, sizeof(line), " %s", jstr(nic, "version"));
	if (jstr(nic, "firmware") && *jstr(nic, "firmware"))
		cat(line, sizeof(line), ", firmware %s", jstr(nic, "firmware"));
	if (jint(nic, "speed_mbps", &speed))
		cat(line, sizeof(line), ", %lld Mb/s", speed);
	if (jint(nic, "mtu", &mtu))
		cat(line, sizeof(line), ", MTU %lld", mtu);
	nic_queues(line, sizeof(line), nic);
	nic_offloads(line, sizeof(line), json_object_get(nic, "offloads"));
	json_array_foreach(json_object_get(nic, "irqs"), i, irq) {
		long long num;

		if (!jint(irq, "irq", &num) || n >= 16)
			continue;
		cat(line, sizeof(line), "%s%lld on %s", n++ ? ", " : "; IRQ ", num,
		    jstr(irq, "affinity") && *jstr(irq, "affinity") ? jstr(irq, "affinity") : "?");
	}
	kv(f, "nic", line);
}

/* One end's set-up; host: the machine that runs guests (its CPU and kernel only). */
static void end_block(FILE *f, const char *title, const json_t *s, const char *config_sha, bool host)
{
	const char *why = jstr(s, "unavailable"), *cmdline = jstr(s, "cmdline"), *k;
	char line[600];
	size_t i;
	const json_t *nic;

	fprintf(f, "%s\n", title);
	if (why) {
		kv(f, "not known", why);
		return;
	}
	cpu_lines(f, json_object_get(s, "cpu"));
	mitigation_line(f, json_object_get(s, "mitigations"), cmdline);
	snprintf(line, sizeof(line), "%s%s%.12s", (k = jstr(s, "kernel")) ? k : "release not recorded",
		 config_sha ? ", config sha256 " : "", config_sha ? config_sha : "");
	kv(f, "kernel", line);
	/* a long one (a cloud VM's) is cut: meta.json has it whole */
	if (cmdline && strlen(cmdline) > 220) {
		snprintf(line, sizeof(line), "%.200s ... (%zu characters: meta.json has it whole)", cmdline, strlen(cmdline));
		kv(f, "cmdline", line);
	} else {
		kv(f, "cmdline", cmdline);
	}
	if (!host) {
		config_line(f, json_object_get(s, "config"));
		if ((k = jstr(s, "tcp_congestion_control"))) {
			snprintf(line, sizeof(line), "congestion control %s (the default)", k);
			kv(f, "tcp", line);
		}
		crypto_lines(f, json_object_get(s, "crypto"));
	}
	json_array_foreach(json_object_get(s, "nics"), i, nic)
		nic_line(f, nic);
	line[0] = '\0';
	if (json_is_number(json_object_get(s, "busy_pct")))
		cat(line, sizeof(line), "%.0f%% busy before the run",
		    json_number_value(json_object_get(s, "busy_pct")));
	if (json_is_number(json_object_get(s, "loadavg")))
		cat(line, sizeof(line), "%sload average %.2f", line[0] ? ", " : "",
		    json_number_value(json_object_get(s, "loadavg")));
	if (json_is_boolean(json_object_get(s, "irqbalance")))
		cat(line, sizeof(line), "%sirqbalance %s", line[0] ? "; " : "",
		    json_is_true(json_object_get(s, "irqbalance")) ? "running" : "not running");
	kv(f, "load", line);
}

/*
 * The title of kernels[i]'s end; receiver: its setup_receiver. Where the
 * ends were is read from what meta.json holds, not from the testbed's
 * name: guests (the guests' "vm" list, a kernel's "vm"), a receiving guest
 * of its own (its "vm" names a receiver, or the kernel has a receiver's
 * set-up), a peer (its "peer"); else this host's two namespaces.
 */
static void end_title(char *buf, size_t len, const char *testbed, const char *host, const json_t *meta,
		      const json_t *k, bool receiver)
{
	const char *rel = jstr(k, "release") ? jstr(k, "release") : "?";
	const json_t *vm = json_object_get(k, "vm"), *vm_rx = json_object_get(vm, "receiver");
	const json_t *peer = json_object_get(meta, "peer");
	const char *dest = jstr(peer, "ssh_dest");
	bool guests = json_is_array(json_object_get(meta, "vm")) || json_is_object(vm);

	if (guests && (json_is_object(vm_rx) || json_is_object(json_object_get(k, "setup_receiver"))))
		snprintf(buf, len, "%s guest: kernel %s", receiver ? "receiving" : "sending",
			 receiver && jstr(vm_rx, "release") ? jstr(vm_rx, "release") : rel);
	else if (guests)
		snprintf(buf, len, "guest: kernel %s", rel);
	else if (json_is_object(peer))
		snprintf(buf, len, receiver ? "receiver: %s" : "sender: this host (%s)", receiver ? (dest ? dest : "the peer") : host);
	else if (*testbed && strcmp(testbed, "?"))
		snprintf(buf, len, "this host (%s): sender and receiver, two namespaces", host);
	else
		snprintf(buf, len, "kernel %s", rel);
}

/* Source i's set-up: the host that runs guests, each kernel's end(s), the conditions warned about. */
static void source_setup(FILE *f, const struct results *src)
{
	const json_t *meta = src->meta.json, *k, *hk = json_object_get(meta, "host_kernel"), *w;
	const char *testbed = src->meta.testbed ? src->meta.testbed : "?";
	const char *host = src->meta.host ? src->meta.host : "?";
	char title[400];
	size_t i;
	int shown = 0;

	if (json_is_object(json_object_get(hk, "setup"))) {
		snprintf(title, sizeof(title), "host (%s): runs the guests", host);
		end_block(f, title, json_object_get(hk, "setup"), jstr(hk, "config_sha256"), true);
		shown++;
	}
	json_array_foreach(json_object_get(meta, "kernels"), i, k) {
		for (int rx = 0; rx < 2; rx++) {
			const json_t *s = json_object_get(k, rx ? "setup_receiver" : "setup");

			if (!json_is_object(s))
				continue;
			end_title(title, sizeof(title), testbed, host, meta, k, rx);
			end_block(f, title, s, rx ? NULL : jstr(k, "config_sha256"), false);
			shown++;
		}
	}
	if (!shown)
		fputs_wrapped(f, "not recorded in meta.json (docs/results-format.md)", 2, 2);
	json_array_foreach(json_object_get(json_object_get(meta, "conditions"), "warnings"), i, w) {
		char line[700];

		if (!json_is_string(w) || results_bad_char(json_string_value(w), json_string_length(w)))
			continue;
		snprintf(line, sizeof(line), "warned: %s", json_string_value(w));
		fputs_wrapped(f, line, 0, 8);
	}
	json_array_foreach(json_object_get(json_object_get(meta, "conditions"), "tuned"), i, w) {
		char line[700];

		if (!jstr(w, "path") || !jstr(w, "to"))
			continue;
		snprintf(line, sizeof(line), "tuned for the run (--tune, undone after): %s = %s (was %s)", jstr(w, "path"),
			 jstr(w, "to"), jstr(w, "from") ? jstr(w, "from") : "?");
		fputs_wrapped(f, line, 0, 8);
	}
}

void report_setup_text(FILE *f, const struct report *rep)
{
	fprintf(f, "Set-up, as found\n");
	for (int i = 0; i < rep->nsrc; i++) {
		if (rep->nsrc > 1)
			fprintf(f, "%s%s\n", i ? "\n" : "", rep->src[i].dir);
		source_setup(f, &rep->src[i]);
	}
	fputc('\n', f);
}

/* "v0.9.0-3-gb1c09f8-dirty": the commit (b1c09f8, or the tag), and whether the tree was dirty. */
static void git_commit(const char *desc, char *commit, size_t len, bool *dirty)
{
	const char *g = strstr(desc, "-g");
	size_t n = strlen(desc);

	*dirty = n > 6 && !strcmp(desc + n - 6, "-dirty");
	if (*dirty)
		n -= 6;
	if (g && (size_t)(g - desc) < n)
		snprintf(commit, len, "%.*s", (int)(n - (g + 2 - desc)), g + 2);
	else
		snprintf(commit, len, "%.*s", (int)n, desc);
}

void report_reproduce_text(FILE *f, const struct report *rep)
{
	fprintf(f, "\nreproduce:\n");
	for (int i = 0; i < rep->nsrc; i++) {
		const struct results_meta *m = &rep->src[i].meta;
		const char *tool = m->tool_version ? m->tool_version : NULL;
		const char *open = tool ? strchr(tool, '(') : NULL;
		char desc[128] = "", commit[128], line[4200];
		bool dirty;

		snprintf(line, sizeof(line), "%s", m->command ? m->command : "(the command was not recorded)");
		fputs_wrapped(f, line, 2, 6);
		if (open)
			snprintf(desc, sizeof(desc), "%.*s", (int)strcspn(open + 1, ")"), open + 1);
		if (!tool) {
			fputs_wrapped(f, "the tool's version was not recorded", 2, 6);
			continue;
		}
		if (!desc[0] || !strcmp(desc, "unknown")) {
			snprintf(line, sizeof(line), "ipsecperf %.*s, built without git: no commit recorded",
				 (int)(open ? open - tool - 1 : (long)strlen(tool)), tool);
		} else {
			git_commit(desc, commit, sizeof(commit), &dirty);
			snprintf(line, sizeof(line), "ipsecperf %.*s, commit %s%s", (int)(open - tool - 1), tool, commit,
				 dirty ? " with changes not committed (-dirty): the commit alone may not reproduce it"
				       : " (clean: git checkout it and make)");
		}
		fputs_wrapped(f, line, 2, 6);
	}
}
