// SPDX-License-Identifier: GPL-2.0
/* ipsecperf compare: kernels across results directories (the work is analyze/compare.c). */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "compare.h"
#include "log.h"
#include "provenance.h"
#include "results.h"
#include "until_ci.h"

const char help_compare[] =
	"usage: ipsecperf compare [OPTIONS] BASE NEW\n"
	"       ipsecperf compare [OPTIONS] BASE... -- NEW...\n"
	"       ipsecperf compare [OPTIONS] [DIR]\n"
	"       ipsecperf compare --simulate [--trials N] [--seed S] [--threshold PCT]\n"
	"\n"
	"Compare results directories, kernel by kernel: for each scenario and\n"
	"metric (throughput, cycles per byte, each per-packet counter) the base and\n"
	"new medians with their CV, the change in percent, whether that is better\n"
	"or worse for the metric, and its p-value from a test suited to small\n"
	"samples: Mann-Whitney U, exact (default), or Welch's t. The table reads\n"
	"like the kernel test robot's. Several directories a side (one per CI\n"
	"job or machine) are pooled, each one's provenance shown apart. One DIR\n"
	"(none: the newest under results/) compares its two kernels, the first\n"
	"run as base (or those --base-kernel and --new-kernel name).\n"
	"\n"
	"First compare checks that the runs were measured alike: the same host,\n"
	"CPU model and count, testbed, accelerator, duration, warm-up, load,\n"
	"scenario definitions, --profile, the probe set, ipsecperf and iperf3\n"
	"versions, the flows at once (run --flows). Each field that differs is\n"
	"one note, and compare stops (exit 2) unless the field is allowed with\n"
	"--allow-mismatch. BASE and NEW holding the same runs is an error too.\n"
	"The fields' names: host, cpu_model, cpu_count, testbed, accel,\n"
	"duration, omit, load, scenario, profile, probe_set, tool_version,\n"
	"iperf3_version, flows.\n"
	"\n"
	"Options may come before or after the directories; a \"--\" between\n"
	"directories separates BASE from NEW.\n";

static const char help_compare_end[] =
	"Flags: R a regression (fails the gate), I an improvement beyond the\n"
	"threshold on a selected metric, - and + significantly worse and better.\n"
	"Every note (mismatches, fields not recorded, too few runs, run order,\n"
	"--common) is in the text and in -f json and junit.\n"
	"\n"
	"Kernels are paired by name; when each side has exactly one kernel, those\n"
	"two are paired. Runs whose status is not ok are left out and counted.\n"
	"With n = 3 against 3 the exact Mann-Whitney test cannot go below\n"
	"p = 0.10, so nothing can be called significant: use --repeat 5 (run's\n"
	"default) or more.\n";

#define MAX_METRICS 64

struct compare_args {
	struct compare_opts o;
	const char *metrics[MAX_METRICS];
	char *copies[MAX_METRICS]; /* the -m values, cut at their commas */
	int ncopies, test, format;
	bool sim, sim_ci;
	double trials, seed;
};

static const char *const compare_tests[] = { "mw", "welch", NULL };
static const char *const compare_formats[] = { "text", "md", "csv", "json", "junit", "html", NULL };

static int opt_metric(void *arg, const char *val)
{
	struct compare_args *a = arg;
	char *copy, *tok, *save;

	if (a->ncopies == MAX_METRICS || !(copy = strdup(val))) {
		pr_warn("compare: too many --metric options");
		return -1;
	}
	a->copies[a->ncopies++] = copy;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "all"))
			a->o.all_metrics = true;
		else if (a->o.nmetrics < MAX_METRICS)
			a->metrics[a->o.nmetrics++] = tok;
	}
	return 0;
}

static int opt_allow(void *arg, const char *val)
{
	return prov_parse_allow("compare", val, &((struct compare_args *)arg)->o.allow);
}

#define CA struct compare_args
static const struct opt_def compare_opts[] = {
	OPT_CB("metric", 'm', opt_metric, "LIST",
	       "metrics that decide the exit status, comma separated (repeatable): throughput, cycles_per_byte (or cpb), a counter name, or all (default: throughput, cycles_per_byte)"),
	OPT_DOUBLE("threshold", 't', CA, o.threshold, 0, 1000, "PCT", "a regression must exceed PCT percent (default 5)"),
	OPT_DOUBLE("alpha", 'a', CA, o.alpha, 1e-9, 0.5, "P", "significance level (default 0.05)"),
	OPT_CHOICE("test", 0, CA, test, compare_tests, "TEST", "mw (Mann-Whitney U, default) or welch (Welch's t)"),
	OPT_STR("base-kernel", 0, CA, o.base_kernel, "K", "use only kernel K's runs of BASE"),
	OPT_STR("new-kernel", 0, CA, o.new_kernel, "K",
		"use only kernel K's runs of NEW; with BASE = NEW, this compares two kernels of one run"),
	OPT_FLAG("common", 0, CA, o.common,
		 "compare the scenarios both sides have; without it, different scenario sets are an error"),
	OPT_CB("allow-mismatch", 0, opt_allow, "FIELD,...",
	       "compare although these fields differ (repeatable): the names above, or all"),
	OPT_CHOICE("format", 'f', CA, format, compare_formats, "FMT",
		   "text (default, 72 columns), md, csv, json, junit (JUnit XML for CI: one testcase per kernel, scenario and selected metric; docs/ci.md) or html (one self-contained page: every run a dot, base against new)"),
	OPT_FLAG("simulate", 0, CA, sim,
		 "print the false-positive and detection rates of the gate for simulated runs (see docs/compare.md)"),
	OPT_FLAG("simulate-until-ci", 0, CA, sim_ci,
		 "instead: how many repeats `run --until-ci` takes and how often its interval covers the true median (docs/methodology.md)"),
	OPT_DOUBLE("trials", 0, CA, trials, 1, 1e8, "N", "simulated comparisons per row (default 20000)"),
	OPT_DOUBLE("seed", 0, CA, seed, 0, 1e15, "S", "seed of the simulation (default 1)"),
	OPT_END,
};
#undef CA

static int simulation(const struct compare_args *a, int noperands)
{
	if (noperands) {
		pr_warn("compare: --%s takes no directories", a->sim_ci ? "simulate-until-ci" : "simulate");
		return EXIT_USAGE;
	}
	if (a->sim_ci)
		return until_ci_simulate(stdout, (int)a->trials, (unsigned long long)a->seed) < 0 ? EXIT_FAIL : EXIT_OK;
	return compare_simulate_table(stdout, (int)a->trials, (unsigned long long)a->seed, a->o.alpha,
				      a->o.threshold) < 0 ? EXIT_FAIL : EXIT_OK;
}

/*
 * compare DIR: two kernels of one directory, the first as base and the
 * second as new (or as --base-kernel and --new-kernel say). 0 with the
 * kernels set in o, or -1 after one line.
 */
static int one_dir(struct compare_opts *o, const char *dir, char *kb, char *kn, size_t len)
{
	struct results r;
	char err[1024];
	const char **kernels = NULL;
	int nk = 0, ret = -1;

	if (results_dir_expected("compare", dir) < 0)
		return -1;
	if (results_load(dir, &r, err, sizeof(err)) < 0) {
		pr_warn("compare: %s", err);
		return -1;
	}
	if (results_kernels(&r, &kernels, &nk) < 0) {
		pr_warn("compare: out of memory");
	} else if (o->base_kernel && o->new_kernel) {
		ret = 0;
	} else if (nk == 2 && !o->base_kernel && !o->new_kernel) {
		snprintf(kb, len, "%s", kernels[0]);
		snprintf(kn, len, "%s", kernels[1]);
		o->base_kernel = kb;
		o->new_kernel = kn;
		ret = 0;
	} else if (nk < 2) {
		pr_warn("compare: %s holds one kernel's runs; compare it with another: ipsecperf compare BASE NEW", dir);
	} else {
		pr_warn("compare: %s holds %d kernels; name two: ipsecperf compare --base-kernel %s --new-kernel %s %s",
			dir, nk, kernels[0], kernels[1], dir);
	}
	if (ret == 0)
		pr_info("compare: %s, kernel %s (base) against %s (new)", dir, o->base_kernel, o->new_kernel);
	free(kernels);
	results_free(&r);
	return ret;
}

/* BASE NEW, or BASE... -- NEW...: the number of BASE directories, or -1 after one line. */
static int split_sides(int n, char **dirs)
{
	int nbase = 0;

	while (nbase < n && strcmp(dirs[nbase], "--"))
		nbase++;
	if (nbase == n) {
		if (n == 1)
			return 1; /* one directory: both sides (one_dir) */
		if (n != 2) {
			pr_warn("compare: two results directories expected; usage: ipsecperf compare [OPTIONS] BASE NEW, or BASE... -- NEW...");
			return -1;
		}
		return 1;
	}
	if (!nbase || nbase + 1 == n) {
		pr_warn("compare: results directories expected on both sides of --; usage: ipsecperf compare [OPTIONS] BASE... -- NEW...");
		return -1;
	}
	return nbase;
}

static int cmd_compare(int argc, char **argv)
{
	struct compare_args a = { .o = { .threshold = 5, .alpha = 0.05 }, .trials = 20000, .seed = 1 };
	int first = options_parse("compare", compare_opts, OPTS_SEPARATOR, argc, argv, &a);
	int ret = EXIT_USAGE, n = argc - first, nbase;
	bool sep;

	a.o.metrics = a.metrics;
	a.o.test = a.test == 1 ? TEST_WELCH : TEST_MW;
	a.o.format = compare_formats[a.format];
	if (first < 0)
		goto out;
	if (a.sim || a.sim_ci) {
		ret = simulation(&a, n);
		goto out;
	}
	if (n <= 1) { /* one directory, or the newest: two of its kernels */
		static char newest[PATH_MAX];
		char kb[256], kn[256];
		char *dir = n ? argv[first] : newest;

		if ((!n && results_default_dir("compare", newest, sizeof(newest)) < 0) ||
		    one_dir(&a.o, dir, kb, kn, sizeof(kb)) < 0)
			goto out;
		ret = compare_run(&a.o, &dir, 1, &dir, 1);
		goto out;
	}
	nbase = split_sides(n, argv + first);
	if (nbase < 0)
		goto out;
	/* the NEW side starts after the "--", if there is one */
	sep = !strcmp(argv[first + nbase], "--");
	if (results_dirs_expected("compare", n, argv + first) < 0)
		goto out;
	ret = compare_run(&a.o, argv + first, nbase, argv + first + nbase + sep, n - nbase - sep);
out:
	for (int i = 0; i < a.ncopies; i++)
		free(a.copies[i]);
	return ret;
}

const struct command command_compare = {
	.name = "compare", .fn = cmd_compare, .help = help_compare, .opts = compare_opts, .help_end = help_compare_end,
	.exit_status = "  0   no regression (a selected metric worse by more than the threshold\n"
		       "      with p < alpha)\n"
		       "  1   a regression\n"
		       "  2   bad usage or input, or sides that are not comparable\n",
	.examples = "  ipsecperf compare results/BASE results/NEW\n"
		    "  ipsecperf compare results/DIR     # its two kernels (run --interleave)\n"
		    "  ipsecperf compare -f junit -m throughput A1 A2 -- B1 B2 > compare.xml\n",
	.summary = "compare kernels across results directories; exit 1 on a regression",
};
