// SPDX-License-Identifier: GPL-2.0
/*
 * `ipsecperf report --profile DIR...`: the top functions of each scenario
 * and their difference against a base scenario, from the folded stacks
 * `ipsecperf run --profile` wrote; merged folded stacks per scenario for
 * flame-graph tools (with --folded DIR).
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "log.h"
#include "options.h"
#include "profile.h"
#include "profile_flame.h"
#include "profile_load.h"
#include "results.h"
#include "summary.h"

/* ---- tables ---- */

#define NAMEW 40

static const char *short_name(const char *name, char *buf, size_t len, bool *kernel)
{
	char tmp[512];
	const char *d = prof_func_display(name, kernel, tmp, sizeof(tmp));

	if (strlen(d) > NAMEW)
		snprintf(buf, len, "%.*s~", NAMEW - 1, d);
	else
		snprintf(buf, len, "%s", d);
	return buf;
}

static void print_top(FILE *f, const struct pgroup *g, int top, bool with_kernel)
{
	const struct prof_summary *s = &g->merged;
	uint64_t busy = s->samples - s->idle;

	char line[1024];
	size_t off;

	snprintf(line, sizeof(line), "%s%s%s: %d run%s, %llu samples at %d Hz (%llu busy, %llu idle)", g->scenario,
		 with_kernel ? " on " : "", with_kernel ? g->kernel : "", g->nruns, g->nruns == 1 ? "" : "s",
		 (unsigned long long)s->samples, g->hz, (unsigned long long)busy, (unsigned long long)s->idle);
	fputc('\n', f);
	fputs_wrapped(f, line, 0, 4);
	if (isfinite(s->cpb))
		fprintf(f, "cycles/byte of the run%s: %.2f (mean)\n", g->nruns == 1 ? "" : "s", s->cpb);
	{
		struct prof_func *cmds;
		size_t ncmds;

		if (prof_commands(&g->folded, &cmds, &ncmds) == 0 && ncmds) {
			off = snprintf(line, sizeof(line), "busy samples by command:");
			for (size_t i = 0; i < ncmds && i < 5 && off < sizeof(line); i++)
				off += snprintf(line + off, sizeof(line) - off, "%s %s %.1f%%", i ? "," : "",
						cmds[i].name, 100 * cmds[i].share);
			if (ncmds > 5 && off < sizeof(line))
				snprintf(line + off, sizeof(line) - off, ", ...");
			fputs_wrapped(f, line, 0, 4);
			prof_funcs_free(cmds, ncmds);
		}
	}
	fprintf(f, "%6s %6s %8s  %s\n", "self%", "total%", "cyc/B", "function");
	for (size_t i = 0; i < s->n && (int)i < top; i++) {
		char buf[NAMEW + 8], cpb[32];
		bool kernel;
		const struct prof_func *fn = &s->f[i];

		short_name(fn->name, buf, sizeof(buf), &kernel);
		snprintf(cpb, sizeof(cpb), isfinite(fn->cpb) ? "%.3f" : "-", fn->cpb);
		fprintf(f, "%5.1f%% %5.1f%% %8s  %-*s %s\n", 100 * fn->share, 100 * fn->total_share, cpb,
			NAMEW, buf, kernel ? "k" : "u");
	}
}

static void diff_row(FILE *f, const struct prof_diff_row *d)
{
	char buf[NAMEW + 8];
	bool kernel;

	short_name(d->name, buf, sizeof(buf), &kernel);
	fprintf(f, "%8.3f %8.3f %+8.3f  %-*s %s\n", d->base_cpb, d->cpb, d->gain, NAMEW, buf,
		kernel ? "k" : "u");
}

/* a figure for JSON: null when it is not a number */
static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* One scenario's top table for -f json: as a record's profile.top, and more. */
static json_t *group_json(const struct pgroup *g, int top)
{
	json_t *o = prof_summary_json(&g->merged, top), *cmds = json_array();
	struct prof_func *c;
	size_t nc;

	if (prof_commands(&g->folded, &c, &nc) == 0) {
		for (size_t i = 0; i < nc; i++)
			json_array_append_new(cmds, json_pack("{s:s, s:f}", "command", c[i].name, "share", c[i].share));
		prof_funcs_free(c, nc);
	}
	json_object_update_new(o, json_pack("{s:s, s:s, s:i, s:i, s:o, s:o}", "kernel", g->kernel, "scenario",
					    g->scenario, "runs", g->nruns, "hz", g->hz, "cycles_per_byte",
					    num(g->merged.cpb), "commands", cmds));
	return o;
}

static json_t *diff_json(const struct prof_diff_row *d)
{
	char buf[512];
	bool kernel;
	const char *name = prof_func_display(d->name, &kernel, buf, sizeof(buf));

	return json_pack("{s:s, s:b, s:o, s:o, s:o}", "function", name, "kernel", kernel, "base_cycles_per_byte",
			 num(d->base_cpb), "cycles_per_byte", num(d->cpb), "gain", num(d->gain));
}

/*
 * The rows a difference shows, sorted by gain: the gains, up to top, then
 * the five largest losses (rows[loss_from..n), the largest last).
 */
static void diff_pick(const struct prof_diff_row *rows, size_t n, int top, size_t *ngain, size_t *loss_from)
{
	size_t shown = 0, first = n;

	while (shown < n && (int)shown < top && rows[shown].gain > 0)
		shown++;
	for (size_t k = 0; shown < n && k < 5 && k < n && rows[n - 1 - k].gain < 0; k++)
		first = n - 1 - k;
	*ngain = shown;
	*loss_from = first;
}

/* g against base: printed, or with diffs (-f json) appended there. */
static int print_diff(FILE *f, json_t *diffs, const struct pgroup *base, const struct pgroup *g, int top,
		      bool with_kernel)
{
	bool by_kernel = !strcmp(base->scenario, g->scenario);
	const char *cb = by_kernel ? base->kernel : base->scenario, *cg = by_kernel ? g->kernel : g->scenario;
	struct prof_diff_row *rows;
	size_t n, ngain, loss_from;
	char line[1024];

	if (prof_diff(&base->merged, &g->merged, &rows, &n) < 0)
		return -1;
	diff_pick(rows, n, top, &ngain, &loss_from);
	if (diffs) {
		json_t *gains = json_array(), *losses = json_array();

		for (size_t i = 0; i < ngain; i++)
			json_array_append_new(gains, diff_json(&rows[i]));
		for (size_t i = n; i-- > loss_from;)
			json_array_append_new(losses, diff_json(&rows[i]));
		json_array_append_new(diffs, json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o}", "kernel",
						       g->kernel, "scenario", g->scenario, "base_kernel", base->kernel,
						       "base_scenario", base->scenario, "base_cycles_per_byte",
						       num(base->merged.cpb), "cycles_per_byte", num(g->merged.cpb),
						       "gains", gains, "losses", losses));
		free(rows);
		return 0;
	}
	if (by_kernel)
		snprintf(line, sizeof(line), "%s on %s against %s: cycles/byte per function (self), by gain",
			 g->scenario, g->kernel, base->kernel);
	else
		snprintf(line, sizeof(line), "%s against %s%s%s: cycles/byte per function (self), by gain",
			 g->scenario, base->scenario, with_kernel ? " on " : "", with_kernel ? g->kernel : "");
	fputc('\n', f);
	fputs_wrapped(f, line, 0, 4);
	if (!isfinite(base->merged.cpb) || !isfinite(g->merged.cpb)) {
		fprintf(f, "(no cycles per byte in the records: nothing to compare)\n");
		free(rows);
		return 0;
	}
	fprintf(f, "%8.8s %8.8s %8s  %s\n", cb, cg, "gain", "function");
	for (size_t i = 0; i < ngain; i++)
		diff_row(f, &rows[i]);
	if (loss_from < n)
		fprintf(f, "largest losses:\n");
	for (size_t i = n; i-- > loss_from;)
		diff_row(f, &rows[i]);
	fprintf(f, "%8.3f %8.3f %+8.3f  %s\n", base->merged.cpb, g->merged.cpb,
		g->merged.cpb - base->merged.cpb, "(all: the runs' cycles/byte)");
	free(rows);
	return 0;
}

/*
 * name as a part of a file name (after "profile-", so never "." or ".."):
 * [A-Za-z0-9._+-] kept, anything else '_'
 */
static void file_part(char *out, size_t len, const char *name)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < len; i++)
		out[i] = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-", name[i]) ?
				 name[i] : '_';
	out[i] = '\0';
}

/*
 * profile-<kernel>-<scenario>.folded in the folder dfd (named dir in
 * messages): the names made plain, so that none becomes a path (one
 * already written, in the set written, gets the group's number); a new
 * file, or a regular one of one link replaced, never written through a
 * symbolic link and never opening anything else (a FIFO, a device node).
 */
static int write_folded(int dfd, const char *dir, const struct preport *r, int i, bool with_kernel,
			json_t *written, char *path, size_t len)
{
	const struct pgroup *g = &r->g[i];
	char name[600], k[256], sc[256], why[256];
	int fd;
	FILE *f = NULL;

	file_part(k, sizeof(k), g->kernel);
	file_part(sc, sizeof(sc), g->scenario);
	if (with_kernel)
		snprintf(name, sizeof(name), "profile-%s-%s", k, sc);
	else
		snprintf(name, sizeof(name), "profile-%s", sc);
	if (json_object_get(written, name))
		snprintf(name + strlen(name), sizeof(name) - strlen(name), "-%d", i + 1);
	json_object_set_new(written, name, json_true());
	snprintf(path, len, "%s/%s.folded", dir, name);
	fd = file_open_out_at(dfd, strrchr(path, '/') + 1, 0644, why, sizeof(why));
	if (fd < 0) {
		pr_warn("report: %s: %s; not written", path, why);
		return -1;
	}
	f = fdopen(fd, "w");
	if (!f || prof_folded_write(f, &g->folded) < 0 || fclose(f) != 0) {
		pr_warn("report: %s: %s", path, strerror(errno));
		if (!f)
			close(fd);
		return -1;
	}
	return 0;
}

/* --base and --base-kernel (NULL: not given) name a profiled scenario and kernel: 0, or -1 said why. */
static int check_bases(const struct preport *r, const char *base_name, const char *base_kernel)
{
	bool found = false;

	for (int i = 0; i < r->ng && base_name; i++)
		found |= !strcmp(r->g[i].scenario, base_name);
	if (base_name && !found) {
		pr_warn("report: --base %s: no profiled runs of that scenario; there are: %s%s", base_name,
			r->g[0].scenario, r->ng > 1 ? " ..." : "");
		return -1;
	}
	found = false;
	for (int i = 0; i < r->ng && base_kernel; i++)
		found |= !strcmp(r->g[i].kernel, base_kernel);
	if (base_kernel && !found) {
		pr_warn("report: --base-kernel %s: no profiled runs of that kernel (uname -r, as in the records)",
			base_kernel);
		return -1;
	}
	return 0;
}

/* Each group's top functions: into out's "groups" (with what was skipped), or printed. */
static void report_groups(const struct preport *r, int top, bool with_kernel, json_t *out)
{
	if (out) {
		json_t *groups = json_array();

		for (int i = 0; i < r->ng; i++)
			json_array_append_new(groups, group_json(&r->g[i], top));
		json_object_set_new(out, "groups", groups);
		json_object_set_new(out, "skipped", json_integer(r->skipped));
		json_object_set_new(out, "first_skipped", r->first_skip ? json_string(r->first_skip) : json_null());
		return;
	}
	printf("CPU profiles (perf cpu-clock, all CPUs, measured window only).\n"
	       "self%%: samples with the function as the leaf, of the busy samples;\n"
	       "total%%: with it anywhere on the stack; cyc/B: self%% x cycles/byte.\n"
	       "k: kernel, u: user space.\n");
	if (r->skipped) {
		char line[8300];

		snprintf(line, sizeof(line), "%d ok run%s without a profile left out (first: %s)", r->skipped,
			 r->skipped == 1 ? "" : "s", r->first_skip);
		fputs_wrapped(stdout, line, 0, 4);
	}
	for (int i = 0; i < r->ng; i++)
		print_top(stdout, &r->g[i], top, with_kernel);
}

/*
 * The groups against their bases (into diffs, or printed): with
 * --base-kernel each other kernel's scenario against the same scenario on
 * that kernel; then, unless only --base-kernel was given, each scenario
 * against base_name on the same kernel. Returns EXIT_OK or EXIT_FAIL.
 */
static int report_diffs(const struct preport *r, const char *base_name, const char *base_kernel,
			bool base_given, int top, bool with_kernel, json_t *diffs)
{
	int ret = EXIT_OK;

	for (int i = 0; i < r->ng && base_kernel; i++) {
		const struct pgroup *base = preport_group(r, base_kernel, r->g[i].scenario);

		if (strcmp(r->g[i].kernel, base_kernel) && base &&
		    print_diff(stdout, diffs, base, &r->g[i], top, with_kernel) < 0)
			ret = EXIT_FAIL;
	}
	for (int i = 0; i < r->ng && (!base_kernel || base_given); i++) {
		const struct pgroup *base = preport_group(r, r->g[i].kernel, base_name);

		if (strcmp(r->g[i].scenario, base_name) && base &&
		    print_diff(stdout, diffs, base, &r->g[i], top, with_kernel) < 0)
			ret = EXIT_FAIL;
	}
	return ret;
}

/*
 * With --folded DIR, every group's folded stacks into DIR; their paths
 * into folded, or printed. Without, nothing is written: a read command
 * never writes into the results folders it reads, which may be others'.
 * EXIT_OK or EXIT_FAIL.
 */
static int report_folded(const struct preport *r, const char *dir, bool with_kernel, json_t *folded)
{
	json_t *written = json_object();
	char path[4096];
	int ret = EXIT_OK, dfd;

	if (!dir) {
		if (!folded)
			fputs("\nmerged folded stacks (for flame graph tools): --folded DIR writes them;\n"
			      "-f svg draws a flame graph\n", stdout);
		json_decref(written);
		return EXIT_OK;
	}
	/* the folder itself, as -c's: never reached through a symbolic link */
	dfd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		pr_warn("report: --folded %s: %s", dir, errno == ENOTDIR || errno == ELOOP ?
			"not a folder, or a symbolic link; give an existing folder" : strerror(errno));
		json_decref(written);
		return EXIT_FAIL;
	}
	if (!folded) {
		snprintf(path, sizeof(path), "folded stacks in %s (for flame graph tools; -f svg draws one):", dir);
		fputc('\n', stdout);
		fputs_wrapped(stdout, path, 0, 4);
	}
	for (int i = 0; i < r->ng; i++) {
		if (!written || write_folded(dfd, dir, r, i, with_kernel, written, path, sizeof(path)) < 0)
			ret = EXIT_FAIL;
		else if (folded)
			json_array_append_new(folded, json_string(path));
		else
			printf("  %s\n", strrchr(path, '/') + 1);
	}
	close(dfd);
	json_decref(written);
	return ret;
}

/* The group -f svg draws: --scenario and --kernel, else the first that is not the base. */
static const struct pgroup *svg_group(const struct preport *r, const struct report_profile_opts *o)
{
	for (int i = 0; i < r->ng; i++) {
		const struct pgroup *g = &r->g[i];

		if ((o->scenario && strcmp(g->scenario, o->scenario)) || (o->kernel && strcmp(g->kernel, o->kernel)))
			continue;
		if ((!o->scenario && o->base && !strcmp(g->scenario, o->base)) ||
		    (!o->kernel && o->base_kernel && !strcmp(g->kernel, o->base_kernel)))
			continue;
		return g;
	}
	return NULL;
}

/*
 * -f svg: one flame graph, of --scenario on --kernel, or with --base
 * (--base-kernel) its difference against that scenario (kernel).
 */
static int report_svg(const struct preport *r, const struct report_profile_opts *o)
{
	const struct pgroup *g = svg_group(r, o), *base = NULL;
	FILE *f;
	int ret;

	if (!g) {
		pr_warn("report: -f svg: no profiled runs of %s%s%s%s to draw", o->scenario ? o->scenario : "a scenario",
			o->kernel ? " on " : "", o->kernel ? o->kernel : "",
			o->base || o->base_kernel ? " other than the base" : "");
		return EXIT_USAGE;
	}
	if (o->base_kernel || o->base) {
		base = o->base_kernel ? preport_group(r, o->base_kernel, g->scenario) : preport_group(r, g->kernel, o->base);
		if (!base || base == g) {
			pr_warn("report: -f svg: %s on %s: %s", g->scenario, g->kernel,
				base ? "the same as its base; choose another with --scenario or --kernel" :
				       "no profiled runs of the base to set it against");
			return EXIT_USAGE;
		}
	}
	f = stdout;
	if (o->output) {
		char why[256];
		int fd = file_open_out_at(AT_FDCWD, o->output, 0666, why, sizeof(why));

		f = fd < 0 ? NULL : fdopen(fd, "w");
		if (!f) {
			pr_warn("report: %s: %s", o->output, fd < 0 ? why : strerror(errno));
			if (fd >= 0)
				close(fd);
			return EXIT_FAIL;
		}
	}
	ret = profile_flame_svg(f, base, g, "flamegraph", true);
	if ((o->output ? fclose(f) : fflush(f)) != 0)
		ret = -1;
	if (ret < 0) {
		pr_warn("report: cannot write %s", o->output ? o->output : "standard output");
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

int report_profile_run(const struct report_profile_opts *o, char *const dirs[], int ndirs)
{
	const char *base_name = o->base;
	struct preport r;
	bool with_kernel;
	char err[8192];
	int ret = profile_load(&r, dirs, ndirs, err, sizeof(err));
	json_t *out, *diffs = NULL, *folded = NULL;

	if (ret != EXIT_OK) {
		pr_warn("report: %s", err);
		return ret;
	}
	with_kernel = r.with_kernel;
	if (check_bases(&r, o->base, o->base_kernel) < 0) {
		preport_free(&r);
		return EXIT_USAGE;
	}
	if (o->svg) {
		ret = report_svg(&r, o);
		preport_free(&r);
		return ret;
	}
	if (!base_name)
		base_name = r.g[0].scenario;
	out = o->json ? json_object() : NULL;
	if (out) {
		diffs = json_array();
		folded = json_array();
	}
	report_groups(&r, o->top, with_kernel, out);
	ret = report_diffs(&r, base_name, o->base_kernel, o->base != NULL, o->top, with_kernel, diffs);
	if (report_folded(&r, o->folded, with_kernel, folded) != EXIT_OK)
		ret = EXIT_FAIL;
	if (out) {
		json_object_set_new(out, "diffs", diffs);
		json_object_set_new(out, "folded", folded);
		if (json_dumpf(out, stdout, JSON_INDENT(2)) < 0 || fputc('\n', stdout) == EOF)
			ret = EXIT_FAIL;
		json_decref(out);
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		pr_warn("report: cannot write standard output");
		ret = EXIT_FAIL;
	}
	preport_free(&r);
	return ret;
}
