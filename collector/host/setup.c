// SPDX-License-Identifier: GPL-2.0
/* This host's set-up as found (setup.h): the CPU, its policies, the kernel, what else runs. */
#include "setup.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "cpu.h"
#include "files.h"
#include "log.h"
#include "wait.h"

#define SYS_CPU "/sys/devices/system/cpu"

const char *const setup_config_names[] = {
	"CONFIG_INET_ESP", "CONFIG_INET_ESP_OFFLOAD", "CONFIG_INET6_ESP", "CONFIG_INET6_ESP_OFFLOAD",
	"CONFIG_XFRM_OFFLOAD", "CONFIG_CRYPTO_AES_NI_INTEL", "CONFIG_CRYPTO_GHASH_CLMUL_NI_INTEL",
	"CONFIG_CRYPTO_SHA256_SSSE3", "CONFIG_CRYPTO_GCM", "CONFIG_CRYPTO_NULL", "CONFIG_CRYPTO_AUTHENC",
	"CONFIG_CRYPTO_ECHAINIV", "CONFIG_CRYPTO_SEQIV", "CONFIG_TCP_MD5SIG", "CONFIG_TCP_AO",
	"CONFIG_PREEMPT_DYNAMIC", "CONFIG_PREEMPT", "CONFIG_PREEMPT_VOLUNTARY", "CONFIG_HZ",
	"CONFIG_RETPOLINE", "CONFIG_MITIGATION_RETPOLINE", "CONFIG_KASAN", "CONFIG_PROVE_LOCKING",
	"CONFIG_DEBUG_KMEMLEAK", "CONFIG_SLUB_DEBUG_ON", NULL,
};

/* A sysfs or procfs file's first line, or NULL. */
static json_t *line_of(const char *path)
{
	char buf[4096];

	if (file_read_line(path, buf, sizeof(buf)) < 0)
		return json_null();
	buf[strcspn(buf, "\r")] = '\0';
	return json_string(buf);
}

static int int_of(const char *path, int dflt)
{
	char buf[64];

	return file_read_line(path, buf, sizeof(buf)) < 0 ? dflt : atoi(buf);
}

/* The online CPUs of /sys/devices/system/cpu/online ("0-3,8"), up to max, into cpus. */
static int online_cpus(int *cpus, int max)
{
	char buf[1024], *p = buf;
	int n = 0;

	if (file_read_line(SYS_CPU "/online", buf, sizeof(buf)) < 0) {
		int c = cpu_count();

		for (n = 0; n < c && n < max; n++)
			cpus[n] = n;
		return n;
	}
	while (*p && n < max) {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p)
			break;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (long c = a; c <= b && n < max; c++)
			cpus[n++] = (int)c;
		p = *end == ',' ? end + 1 : end + strlen(end);
	}
	return n;
}

/* Sockets, cores and threads of the online CPUs (topology/), into o. */
static void cpu_topology(json_t *o, const int *cpus, int n)
{
	static int pkg[CPU_MAX], core[CPU_MAX];
	int npkg = 0, ncore = 0, nodes = 0;
	DIR *d;
	struct dirent *e;

	for (int i = 0; i < n; i++) {
		char path[160];
		bool seen_pkg = false, seen_core = false;
		int p, c;

		snprintf(path, sizeof(path), SYS_CPU "/cpu%d/topology/physical_package_id", cpus[i]);
		p = int_of(path, 0);
		snprintf(path, sizeof(path), SYS_CPU "/cpu%d/topology/core_id", cpus[i]);
		c = int_of(path, cpus[i]);
		for (int j = 0; j < i; j++) {
			seen_pkg |= pkg[j] == p;
			seen_core |= pkg[j] == p && core[j] == c;
		}
		npkg += !seen_pkg;
		ncore += !seen_core;
		pkg[i] = p;
		core[i] = c;
	}
	if ((d = opendir("/sys/devices/system/node"))) {
		while ((e = readdir(d)))
			nodes += !strncmp(e->d_name, "node", 4) && isdigit((unsigned char)e->d_name[4]);
		closedir(d);
	}
	json_object_set_new(o, "cpus", json_integer(n));
	json_object_set_new(o, "sockets", json_integer(npkg));
	json_object_set_new(o, "cores", json_integer(ncore));
	json_object_set_new(o, "threads_per_core", json_integer(ncore ? (n + ncore - 1) / ncore : 1));
	json_object_set_new(o, "numa_nodes", nodes ? json_integer(nodes) : json_null());
	json_object_set_new(o, "smt", line_of(SYS_CPU "/smt/control"));
}

/*
 * Each CPU's cpufreq file name ("scaling_governor"): the distinct values
 * joined with '+' in the order met, or null without cpufreq.
 */
static json_t *per_cpu_values(const int *cpus, int n, const char *name)
{
	char all[512] = "";

	for (int i = 0; i < n; i++) {
		char path[160], v[64];

		snprintf(path, sizeof(path), SYS_CPU "/cpu%d/cpufreq/%s", cpus[i], name);
		if (file_read_line(path, v, sizeof(v)) < 0 || !v[0])
			continue;
		/* already there, whole? */
		char *hit = strstr(all, v);
		size_t l = strlen(v);

		if (hit && (hit == all || hit[-1] == '+') && (hit[l] == '\0' || hit[l] == '+'))
			continue;
		if (strlen(all) + l + 2 < sizeof(all))
			snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s", all[0] ? "+" : "", v);
	}
	return all[0] ? json_string(all) : json_null();
}

/* Boost (turbo): true, false, or null when the host has no such switch; the file in *path. */
static json_t *boost_state(const char **path)
{
	static const struct { const char *path; bool inverse; } sw[] = {
		{ SYS_CPU "/cpufreq/boost", false },
		{ SYS_CPU "/intel_pstate/no_turbo", true },
		{ SYS_CPU "/cpufreq/policy0/boost", false },
	};

	for (size_t i = 0; i < sizeof(sw) / sizeof(sw[0]); i++) {
		int v = int_of(sw[i].path, -1);

		if (v < 0)
			continue;
		*path = sw[i].path;
		return json_boolean(sw[i].inverse ? !v : v);
	}
	*path = NULL;
	return json_null();
}

/* The SMT siblings of CPU c (topology/thread_siblings_list), or NULL. */
static json_t *siblings(int c)
{
	char path[160];

	snprintf(path, sizeof(path), SYS_CPU "/cpu%d/topology/thread_siblings_list", c);
	return line_of(path);
}

/* /proc/cpuinfo's model name, or null */
static json_t *cpu_model(void)
{
	char *info = file_read("/proc/cpuinfo", NULL), *p = info ? strstr(info, "model name") : NULL;
	json_t *m = json_null();

	if (p && (p = strchr(p, ':'))) {
		p += 1 + strspn(p + 1, " \t");
		m = json_stringn(p, strcspn(p, "\n"));
	}
	free(info);
	return m ? m : json_null();
}

static json_t *cpu_setup(void)
{
	static int cpus[CPU_MAX];
	int n = online_cpus(cpus, CPU_MAX);
	json_t *o = json_object();
	const char *boost_path;

	json_object_set_new(o, "model", cpu_model());
	cpu_topology(o, cpus, n);
	/* by CPU number, for setup_conditions: at most 64 CPUs kept */
	json_t *sib = json_object();

	for (int i = 0; i < n && i < 64; i++) {
		char key[16];

		snprintf(key, sizeof(key), "%d", cpus[i]);
		json_object_set_new(sib, key, siblings(cpus[i]));
	}
	json_object_set_new(o, "siblings", sib);
	json_object_set_new(o, "governor", per_cpu_values(cpus, n, "scaling_governor"));
	json_object_set_new(o, "scaling_driver", per_cpu_values(cpus, n, "scaling_driver"));
	json_object_set_new(o, "boost", boost_state(&boost_path));
	json_object_set_new(o, "idle_driver", line_of(SYS_CPU "/cpuidle/current_driver"));
	json_object_set_new(o, "idle_governor", line_of(SYS_CPU "/cpuidle/current_governor_ro"));
	return o;
}

/* vulnerabilities/: each file's line, by its name. */
static json_t *mitigations(void)
{
	DIR *d = opendir(SYS_CPU "/vulnerabilities");
	json_t *o;
	struct dirent *e;

	if (!d)
		return json_null();
	o = json_object();
	while ((e = readdir(d))) {
		char path[PATH_MAX];

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), SYS_CPU "/vulnerabilities/%s", e->d_name);
		json_object_set_new(o, e->d_name, line_of(path));
	}
	closedir(d);
	return o;
}

/* Is a process of that name (comm) running on this host? */
static bool running(const char *comm)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	bool hit = false;

	while (d && !hit && (e = readdir(d))) {
		char path[300], c[64];

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		hit = file_read_line(path, c, sizeof(c)) == 0 && !strcmp(c, comm);
	}
	if (d)
		closedir(d);
	return hit;
}

/* The share of every CPU busy over a quarter second, and the load average. */
static void busy(json_t *o)
{
	static struct cpu_acct a;
	char la[128];

	memset(&a, 0, sizeof(a));
	a.ncpu = cpu_count();
	if (cpu_start(&a) == 0) {
		wait_ms(250);
		if (cpu_stop(&a) == 0 && cpu_window_s(&a) > 0) {
			/* /proc/stat counts in ticks: a fully busy quarter second can read a tick over */
			double pct = 100.0 * cpu_busy_s(&a, -1) / (cpu_window_s(&a) * a.ncpu);

			json_object_set_new(o, "busy_pct", json_real(pct > 100 ? 100 : pct));
		}
	}
	if (file_read_line("/proc/loadavg", la, sizeof(la)) == 0)
		json_object_set_new(o, "loadavg", json_real(strtod(la, NULL)));
}

char *setup_config_text(const char *release)
{
	char path[512], *text = NULL;
	size_t len = 0, cap = 0;
	gzFile gz = NULL;
	int n;

	/* gzread reads plain files as they are, so one path serves both */
	snprintf(path, sizeof(path), "/boot/config-%s", release);
	if (access("/proc/config.gz", R_OK) == 0)
		gz = gzopen("/proc/config.gz", "rb");
	if (!gz && access(path, R_OK) == 0)
		gz = gzopen(path, "rb");
	if (!gz)
		return NULL;
	for (;;) {
		if (cap - len < 65537) {
			char *t = realloc(text, cap = cap * 2 + 65537);

			if (!t)
				break;
			text = t;
		}
		if ((n = gzread(gz, text + len, 65536)) <= 0)
			break;
		len += n;
	}
	gzclose(gz);
	if (text)
		text[len] = '\0';
	return text;
}

json_t *setup_config_options(const char *text)
{
	json_t *o = json_object();

	for (int i = 0; setup_config_names[i]; i++) {
		const char *name = setup_config_names[i], *p = text;
		size_t l = strlen(name);
		const char *val = "n";
		char buf[64];

		while (p && (p = strstr(p, name))) {
			bool bol = p == text || p[-1] == '\n';

			if (bol && p[l] == '=') {
				snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(p + l + 1, "\n"), p + l + 1);
				val = buf;
				break;
			}
			p += l;
		}
		json_object_set_new(o, name, json_string(val));
	}
	return o;
}

json_t *setup_collect(const char *const *devs, int ndevs)
{
	json_t *o = json_object(), *nics = json_array();
	struct utsname u;
	char *config;

	if (!o || !nics) {
		json_decref(o);
		json_decref(nics);
		return NULL;
	}
	uname(&u);
	json_object_set_new(o, "kernel", json_string(u.release));
	json_object_set_new(o, "cpu", cpu_setup());
	json_object_set_new(o, "mitigations", mitigations());
	json_object_set_new(o, "cmdline", line_of("/proc/cmdline"));
	config = setup_config_text(u.release);
	json_object_set_new(o, "config", config ? setup_config_options(config) : json_null());
	free(config);
	json_object_set_new(o, "tcp_congestion_control", line_of("/proc/sys/net/ipv4/tcp_congestion_control"));
	json_object_set_new(o, "irqbalance", json_boolean(running("irqbalance")));
	busy(o);
	for (int i = 0; i < ndevs; i++)
		json_array_append_new(nics, setup_nic(devs[i]));
	json_object_set_new(o, "nics", nics);
	json_object_set_new(o, "crypto", json_object());
	return o;
}

/* ---- another host's set-up, kept as data ---- */

static json_t *clean_str(const char *s, size_t n)
{
	char buf[4097];
	size_t l = n < sizeof(buf) - 1 ? n : sizeof(buf) - 1;

	memcpy(buf, s, l);
	buf[l] = '\0';
	msg_clean(buf, true);
	return json_string(buf);
}

static json_t *sanitize(const json_t *v, int depth)
{
	json_t *o = NULL, *m;
	const char *k;
	size_t i, n = 0;

	if (depth > 8)
		return NULL;
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		o = json_object();
		json_object_foreach((json_t *)v, k, m) {
			json_t *c = clean_str(k, strlen(k));
			json_t *x = n++ < 512 ? sanitize(m, depth + 1) : NULL;

			if (x)
				json_object_set_new(o, json_string_value(c), x);
			json_decref(c);
		}
		return o;
	case JSON_ARRAY:
		o = json_array();
		json_array_foreach(v, i, m) {
			json_t *x = i < 512 ? sanitize(m, depth + 1) : NULL;

			if (x)
				json_array_append_new(o, x);
		}
		return o;
	case JSON_STRING:
		return clean_str(json_string_value(v), json_string_length(v));
	case JSON_INTEGER:
	case JSON_REAL:
	case JSON_TRUE:
	case JSON_FALSE:
	case JSON_NULL:
		return json_deep_copy(v);
	}
	return NULL;
}

json_t *setup_sanitize(const json_t *v)
{
	return v ? sanitize(v, 0) : NULL;
}

/* ---- the conditions that make figures vary ---- */

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static void warn(json_t *w, const char *fmt, const char *where, const char *a)
{
	char line[600];

	snprintf(line, sizeof(line), fmt, where, a);
	json_array_append_new(w, json_string(line));
}

/* Are CPUs a and b two threads of one core? */
static bool smt_shared(const json_t *setup, int a, int b)
{
	const json_t *sib = json_object_get(json_object_get(setup, "cpu"), "siblings");
	char key[16];

	snprintf(key, sizeof(key), "%d", a);
	const char *l = json_string_value(json_object_get(sib, key));

	if (!l || a == b)
		return false;
	/* "0,2" or "0-1": is b in the list? */
	for (const char *p = l; *p;) {
		char *end;
		long x = strtol(p, &end, 10), y = x;

		if (end == p)
			break;
		if (*end == '-')
			y = strtol(end + 1, &end, 10);
		if (b >= x && b <= y)
			return true;
		p = *end ? end + 1 : end;
	}
	return false;
}

json_t *setup_conditions(const json_t *setup, int cpu_a, int cpu_b, const char *where)
{
	const json_t *cpu = json_object_get(setup, "cpu");
	const char *gov = str(cpu, "governor");
	json_t *w = json_array(), *busy_pct = json_object_get(setup, "busy_pct");

	if (gov && strcmp(gov, "performance"))
		warn(w, "the CPU frequency governor%s is %s: the clock follows the load (`run --tune` on the netns testbed, or `cpupower frequency-set -g performance`)",
		     where, gov);
	if (json_is_true(json_object_get(cpu, "boost")))
		warn(w, "boost (turbo)%s is %s: the clock follows temperature and load (`run --tune` on the netns testbed, or write 0 to /sys/devices/system/cpu/cpufreq/boost)",
		     where, "on");
	if (json_is_true(json_object_get(setup, "irqbalance")) && json_array_size(json_object_get(setup, "nics")))
		warn(w, "irqbalance runs%s%s: it moves the NIC's interrupts while a run measures (`systemctl stop irqbalance`, docs/peer-testbed.md)",
		     where, "");
	if (cpu_a >= 0 && cpu_b >= 0 && smt_shared(setup, cpu_a, cpu_b)) {
		char cpus[64];

		snprintf(cpus, sizeof(cpus), "%d and %d", cpu_a, cpu_b);
		warn(w, "the sender's and the receiver's CPUs%s (%s) are SMT siblings of one core: each slows the other (`echo off > /sys/devices/system/cpu/smt/control`)",
		     where, cpus);
	}
	if (json_is_number(busy_pct) && json_number_value(busy_pct) >= 10) {
		char pct[32];

		snprintf(pct, sizeof(pct), "%.0f%%", json_number_value(busy_pct));
		warn(w, "the host%s was busy before the run (%s of its CPU time): other work shares the CPUs and caches",
		     where, pct);
	}
	return w;
}
