// SPDX-License-Identifier: GPL-2.0
#include "results_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cpu.h"
#include "exec.h"
#include "files.h"
#include "log.h"
#include "probes.h"
#include "results.h"
#include "setup.h"
#include "version.h"

void iso8601_now(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
}

void writer_default_dir(char *buf, size_t len, const char *testbed, const char *tag)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	snprintf(buf, len, "results/%04d%02d%02dT%02d%02d%02d-%s-%s", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, testbed, tag);
}

/* sha256 of a kernel config's text, or null */
static json_t *config_hash(const char *text)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	char hex[2 * EVP_MAX_MD_SIZE + 1];

	if (!text)
		return json_null();
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	EVP_DigestUpdate(ctx, text, strlen(text));
	EVP_DigestFinal_ex(ctx, md, &mdlen);
	EVP_MD_CTX_free(ctx);
	for (unsigned int i = 0; i < mdlen; i++)
		sprintf(hex + 2 * i, "%02x", md[i]);
	return json_string(hex);
}

static char *first_line(const char *path)
{
	FILE *f = fopen(path, "r");
	char buf[1024] = "";

	if (!f)
		return strdup("");
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return strdup(buf);
}

json_t *kernel_info(void)
{
	struct utsname u;
	char *version = first_line("/proc/version");
	json_t *k;

	uname(&u);
	char *config = setup_config_text(u.release);

	k = json_pack("{s:s, s:s, s:o}", "release", u.release, "version", version, "config_sha256",
		      config_hash(config));
	free(config);
	free(version);
	return k;
}

static json_t *cpu_model(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	json_t *m = NULL;

	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
			char *v = strchr(line, ':') + 2;

			v[strcspn(v, "\n")] = '\0';
			m = json_string(v);
			break;
		}
	}
	if (f)
		fclose(f);
	return m ? m : json_string("unknown");
}

static json_t *tool_version(char *const argv[])
{
	char *out = NULL;
	json_t *v;

	if (exec_run(NULL, argv, &out, NULL) < 0 || !out) {
		free(out);
		return json_null();
	}
	out[strcspn(out, "\n")] = '\0';
	v = json_string(out);
	free(out);
	return v ? v : json_null();
}

int json_write_file(const char *path, json_t *v)
{
	char tmp[PATH_MAX + 40];
	int fd, err;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	/* never through a symlink someone left in the results directory */
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	err = fd < 0 || json_dumpfd(v, fd, JSON_INDENT(2) | JSON_SORT_KEYS) < 0;
	if (fd >= 0 && close(fd) < 0)
		err = 1;
	if (err || rename(tmp, path) < 0) {
		pr_warn("cannot write %s: %s", path, strerror(errno));
		if (fd >= 0)
			unlink(tmp);
		return -1;
	}
	return 0;
}

int writer_write_meta(struct results_writer *res)
{
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/meta.json", res->dir);
	return json_write_file(path, res->meta);
}

/* The results directory of cfg: -o DIR, or results/<UTC>-<testbed>-<tag>. */
static void writer_dir(char *buf, size_t len, const struct run_config *cfg, const char *testbed)
{
	if (cfg->outdir)
		snprintf(buf, len, "%s", cfg->outdir);
	else
		writer_default_dir(buf, len, testbed, cfg->tag);
}

int writer_check(const struct run_config *cfg, const char *testbed)
{
	char dir[PATH_MAX], why[256];

	writer_dir(dir, sizeof(dir), cfg, testbed);
	/* results/ itself is made when missing; the parent of an -o DIR must exist */
	if (out_dir_check(dir, !cfg->outdir, why, sizeof(why)) < 0) {
		pr_warn("results: %s: %s; choose another with -o", dir, why);
		return -1;
	}
	return 0;
}

int writer_open(struct results_writer *res, const struct run_config *cfg, const char *testbed)
{
	char why[256];
	struct utsname u;
	int dfd;
	json_t *cmdline, *scen;

	memset(res, 0, sizeof(*res));
	res->runs_fd = -1;
	writer_dir(res->dir, sizeof(res->dir), cfg, testbed);
	if (!cfg->outdir && mkdir("results", 0755) < 0 && errno != EEXIST) {
		pr_warn("results: cannot create results: %s; choose a directory with -o", strerror(errno));
		return -1;
	}
	dfd = out_dir_open(res->dir, why, sizeof(why));
	if (dfd < 0) {
		pr_warn("results: %s: %s; choose another with -o", res->dir, why);
		return -1;
	}
	if (mkdirat(dfd, "raw", 0755) < 0) {
		pr_warn("results: cannot create %s/raw: %s", res->dir, strerror(errno));
		close(dfd);
		return -1;
	}
	/* the whole command line, so that it can be pasted back into a shell */
	cmdline = json_pack("[s]", "ipsecperf");
	scen = json_array();
	for (int i = 0; i < cfg->argc; i++)
		json_array_append_new(cmdline, json_string(cfg->argv[i]));
	for (int i = 0; i < cfg->nscenarios; i++)
		json_array_append_new(scen, json_pack("{s:s, s:s, s:s}", "name", cfg->scenarios[i].name,
						      "file", cfg->scenarios[i].path, "text",
						      cfg->scenarios[i].text ? cfg->scenarios[i].text : ""));
	uname(&u);
	res->meta = json_pack(
		"{s:i, s:s, s:s, s:s, s:o, s:s, s:o, s:i, s:s, s:[o], s:o, s:o, s:{s:i, s:i, s:i}, s:o, s:f, s:s}",
		"version", 1, "tool_version", IPSECPERF_VERSION_FULL, "tool_semver", IPSECPERF_VERSION,
		"tool_git", IPSECPERF_GITDESC, "command", cmdline, "host", u.nodename,
		"cpu_model", cpu_model(), "cpu_count", cpu_count(), "testbed", testbed, "kernels",
		kernel_info(), "iperf3_version", tool_version((char *[]){ "iperf3", "--version", NULL }),
		"scenarios", scen, "params", "duration_s", cfg->duration_s, "omit_s", cfg->omit_s,
		"repeat", cfg->repeat, "addresses", json_pack("[s, s]", cfg->addr_tx, cfg->addr_rx),
		"tsc_hz", tsc_hz(), "machine", u.machine);
	/* the clock the runs are measured on: this host's (the vm testbed's guests may say virtual) */
	if (res->meta)
		json_object_set_new(res->meta, "clock", json_string("real"));
	/* the probe set changes what a run costs and counts: compare and report check it */
	if (res->meta)
		json_object_set_new(json_object_get(res->meta, "params"), "probe_set",
				    json_string(cfg->no_probes ? "none" : probe_set_names[cfg->probe_set]));
	/* the set-up this run measures on (setup.h), with the kernel it describes */
	if (res->meta)
		json_object_set_new(json_array_get(json_object_get(res->meta, "kernels"), 0), "setup",
				    setup_collect(NULL, 0));
	if (res->meta) /* --congestion, or null: the kernel's default (the set-up's tcp_congestion_control) */
		json_object_set_new(json_object_get(res->meta, "params"), "congestion",
				    cfg->congestion ? json_string(cfg->congestion) : json_null());
	if (res->meta && cfg->until_ci > 0) /* adaptive repeats: the rule, next to --repeat */
		json_object_set_new(json_object_get(res->meta, "params"), "until_ci",
				    json_pack("{s:f, s:i}", "target_pct", cfg->until_ci, "max_repeat", cfg->max_repeat));
	if (!res->meta || writer_write_meta(res) < 0) {
		close(dfd);
		return -1;
	}
	res->runs_fd = openat(dfd, "runs.jsonl", O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC,
			      0644);
	close(dfd);
	if (res->runs_fd < 0) {
		pr_warn("results: cannot create %s/runs.jsonl: %s", res->dir, strerror(errno));
		return -1;
	}
	return 0;
}

int writer_append(struct results_writer *res, json_t *record)
{
	char *line;
	int err = 0;

	results_scrub(record); /* a tool's multi-line message in a reason */
	line = json_dumps(record, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));

	if (!line || dprintf(res->runs_fd, "%s\n", line) < 0 || fsync(res->runs_fd) < 0) {
		pr_warn("results: cannot append to %s/runs.jsonl: %s", res->dir, strerror(errno));
		err = -1;
	}
	free(line);
	return err;
}

int writer_append_run(struct results_writer *res, json_t *rec)
{
	const char *status = json_string_value(json_object_get(rec, "status"));
	int failed = status && !strcmp(status, "failed");

	writer_append(res, rec);
	json_decref(rec);
	return failed;
}

json_t *writer_setup(struct results_writer *res, bool receiver)
{
	json_t *k = json_array_get(json_object_get(res->meta, "kernels"), 0), *s;
	const char *key = receiver ? "setup_receiver" : "setup";

	if (!k)
		return NULL;
	if (!(s = json_object_get(k, key))) {
		s = json_object();
		json_object_set_new(k, key, s);
	}
	return s;
}

void writer_conditions(struct results_writer *res, const json_t *setup, int cpu_a, int cpu_b, const char *where)
{
	json_t *c, *w, *v;
	size_t i;

	if (!res->meta || !setup)
		return;
	if (!(c = json_object_get(res->meta, "conditions"))) {
		c = json_pack("{s:[], s:[]}", "warnings", "tuned");
		json_object_set_new(res->meta, "conditions", c);
	}
	w = setup_conditions(setup, cpu_a, cpu_b, where);
	json_array_foreach(w, i, v) {
		pr_warn("run: warning: %s", json_string_value(v));
		json_array_append(json_object_get(c, "warnings"), v);
	}
	json_decref(w);
	writer_write_meta(res);
}

/* what serves alg on one end, into that end's setup.crypto */
static void crypto_into(struct results_writer *res, bool receiver, const char *alg, json_t *v)
{
	json_t *s = v ? writer_setup(res, receiver) : NULL, *c;

	if (!s)
		return;
	if (!json_is_object(c = json_object_get(s, "crypto"))) {
		c = json_object();
		json_object_set_new(s, "crypto", c);
	}
	json_object_set(c, alg, v);
}

void writer_crypto(struct results_writer *res, const char *alg, json_t *here, json_t *far)
{
	if (res->meta) {
		crypto_into(res, false, alg, here);
		crypto_into(res, true, alg, far);
		writer_write_meta(res);
	}
	json_decref(here);
	json_decref(far);
}

void writer_close(struct results_writer *res)
{
	if (res->runs_fd >= 0)
		close(res->runs_fd);
	res->runs_fd = -1;
	json_decref(res->meta);
	res->meta = NULL;
}
