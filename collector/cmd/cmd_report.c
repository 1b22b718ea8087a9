// SPDX-License-Identifier: GPL-2.0
/* ipsecperf report [--profile]: reports on results directories (the work is analyze/report*.c, profile_report.c). */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "commands.h"
#include "log.h"
#include "profile.h"
#include "provenance.h"
#include "report.h"
#include "results.h"

static const char help_report[] =
	"usage: ipsecperf report [OPTIONS] [DIR...]\n"
	"\n"
	"Report on one or more results directories (written by `ipsecperf run`;\n"
	"none: the newest under results/, saying which).\n"
	"Several DIRs are merged, so runs of different kernels sit side by side;\n"
	"runs of one kernel and scenario from several DIRs (one per CI job or\n"
	"machine) are pooled, but only if they were measured alike (host, CPU,\n"
	"testbed, accelerator, duration, warm-up, load, scenario definition,\n"
	"--profile, probe set, tool versions: see `ipsecperf help compare`);\n"
	"else exit 2.\n"
	"Every figure carries n (ok runs), the median and its interval (the\n"
	"distribution-free one compare uses: min-max up to 8 runs) and the\n"
	"coefficient of variation (CV). A scenario whose CV exceeds 5% gets a\n"
	"warning. The text report starts with the set-up as found (CPU, its\n"
	"frequency policy, kernel, config, crypto drivers, NICs, each end's) and\n"
	"ends with how to reproduce it.\n";

static const char help_report_end[] =
	"Charts: throughput and cycles per byte per scenario (bars: median,\n"
	"whiskers: its interval, one bar per kernel), and one per per-packet counter.\n"
	"The gnuplot template is bars.gp in analyze/templates (installed: in\n"
	"share/ipsecperf/templates, or $IPSECPERF_TEMPLATES); see docs/reports.md.\n";

static const char exit_report[] =
	"  0   reported\n"
	"  1   the report or a chart could not be written\n"
	"  2   bad usage or input (the message names the file and line)\n";

struct report_args {
	int format;
	const char *output, *charts;
	unsigned allow;
	bool side_by_side, profile, summary;
};

static int opt_allow(void *arg, const char *val)
{
	return prov_parse_allow("report", val, &((struct report_args *)arg)->allow);
}

#define RA struct report_args
static const struct opt_def report_opts[] = {
	OPT_CHOICE("format", 'f', RA, format, report_format_names, "FMT",
		   "text (default: ASCII, 72 columns, for a netdev mail), md, csv, json or html (one self-contained page)",
		   .choices_hidden = 1u << 5 /* markdown: md's other name */),
	OPT_STR("output", 'o', RA, output, "FILE", "write the report to FILE instead of standard output"),
	OPT_STR("charts", 'c', RA, charts, "DIR",
		"also draw the charts with gnuplot into DIR (new, or empty; no symlink): PNG and SVG, with their data files and scripts to re-plot"),
	OPT_CB("allow-mismatch", 0, opt_allow, "FIELD,...",
	       "pool although these fields differ (the names of `ipsecperf help compare`, or all)"),
	OPT_FLAG("summary", 's', RA, summary,
		 "text: the mail to netdev: the set-up, the figures, the per-packet counters and how to reproduce them (docs/peer-testbed.md)"),
	OPT_FLAG("side-by-side", 0, RA, side_by_side, "text: also the kernels side by side, as `run` prints it after a VM matrix of several kernels"),
	OPT_FLAG("profile", 0, RA, profile,
		 "instead: the CPU profiles of `run --profile`, top functions per scenario and their difference against a base (`ipsecperf report --profile --help`; docs/profiling.md)"),
	OPT_END,
};
#undef RA

static int cmd_report(int argc, char **argv)
{
	struct report_args a = { 0 };
	int first = options_parse("report", report_opts, 0, argc, argv, &a);
	struct report_opts o;

	if (first < 0)
		return EXIT_USAGE;
	if (a.profile) /* main.c dispatches --profile; an abbreviation of it lands here */
		return command_report_profile.fn(argc, argv);
	if (first >= argc) { /* the newest run's, as perf report takes perf.data */
		static char newest[PATH_MAX];
		static char *one[] = { newest, NULL };

		if (results_default_dir("report", newest, sizeof(newest)) < 0)
			return EXIT_USAGE;
		argv = one;
		argc = 1;
		first = 0;
	}
	if (a.summary && (a.format != 0 || a.side_by_side)) {
		pr_warn("report: --summary is a text report of its own: not with %s", a.side_by_side ? "--side-by-side" : "-f");
		return EXIT_USAGE;
	}
	if (results_dirs_expected("report", argc - first, argv + first) < 0)
		return EXIT_USAGE;
	o = (struct report_opts){ .format = report_format_names[a.format], .output = a.output, .charts = a.charts,
				  .allow = a.allow, .side_by_side = a.side_by_side, .summary = a.summary };
	return report_run(&o, argv + first, argc - first);
}

const struct command command_report = {
	.name = "report", .fn = cmd_report, .help = help_report, .opts = report_opts, .help_end = help_report_end,
	.exit_status = exit_report,
	.examples = "  ipsecperf report --summary     # the newest run's, for a netdev mail\n"
		    "  ipsecperf report results/20261129T190000-netns-demo\n"
		    "  ipsecperf report -f html -o report.html -c charts/ results/A results/B\n",
	.summary = "report on results directories: text, md, csv, json, html, charts",
	.mode_flag = "--profile", .mode = &command_report_profile,
};

/* ---- report --profile ---- */

static const char help_report_profile[] =
	"usage: ipsecperf report --profile [--base SCENARIO | --base-kernel K]\n"
	"                                  [--top N] [--folded DIR] [-f FMT] DIR...\n"
	"\n"
	"From the profiles `ipsecperf run --profile` recorded: per scenario (and\n"
	"kernel) the functions with the most samples, each with its share of the\n"
	"busy samples and its cycles per byte (share x the run's cycles per byte,\n"
	"averaged over the runs); then, for every other scenario, the difference\n"
	"against the base scenario (default: the first), sorted by the gain in\n"
	"cycles per byte. With --folded DIR, merged folded stacks (FlameGraph's\n"
	"format) are written to profile-<scenario>.folded there\n"
	"(profile-<kernel>-<scenario>.folded with several kernels); nothing is\n"
	"ever written into the results DIRs read.\n"
	"\n"
	"-f svg draws one flame graph instead (no tables, no folded files): of\n"
	"--scenario on --kernel (default: the first profiled), frames as wide as\n"
	"their cycles per byte; with --base (or --base-kernel) the difference\n"
	"against that scenario (kernel), coloured by the change. `report -f html`\n"
	"draws them all into its page.\n";

static const char help_report_profile_end[] =
	"See docs/profiling.md for how to read the tables and the flame graphs.\n";

static const char *const profile_formats[] = { "text", "json", "svg", NULL };

struct profile_args {
	struct report_profile_opts o;
	bool profile;
	int format;
};

#define PA struct profile_args
static const struct opt_def report_profile_opts[] = {
	OPT_FLAG("profile", 0, PA, profile, "this page: the profiles, not the figures"),
	OPT_STR("base", 0, PA, o.base, "SCENARIO", "the scenario others are compared with"),
	OPT_STR("base-kernel", 0, PA, o.base_kernel, "K",
		"instead, each kernel's scenarios against the same scenario on kernel K (uname -r; DIRs of several kernels)"),
	OPT_INT("top", 0, PA, o.top, 1, 10000, "N", "functions per table (default 15)"),
	OPT_STR("folded", 0, PA, o.folded, "DIR", "write the merged folded stacks into DIR (an existing folder; default: none written)"),
	OPT_CHOICE("format", 'f', PA, format, profile_formats, "FMT",
		   "text (default, 72 columns), json: {\"groups\": [the top tables], \"diffs\": [the differences], \"folded\": [the files written]} (docs/profiling.md), or svg: one flame graph"),
	OPT_STR("scenario", 0, PA, o.scenario, "SCENARIO", "-f svg: the scenario drawn (default: the first profiled, or the first other than --base)"),
	OPT_STR("kernel", 0, PA, o.kernel, "K", "-f svg: the kernel drawn (uname -r; default: the first, or the first other than --base-kernel)"),
	OPT_STR("output", 'o', PA, o.output, "FILE", "-f svg: write the SVG to FILE instead of standard output"),
	OPT_END,
};
#undef PA

static int cmd_report_profile(int argc, char **argv)
{
	struct profile_args a = { .o.top = 15 };
	int first = options_parse("report --profile", report_profile_opts, 0, argc, argv, &a);

	if (first < 0)
		return EXIT_USAGE;
	if (first >= argc) {
		pr_warn("report: no results directory given; usage: ipsecperf report --profile [--base SCENARIO] DIR...");
		return EXIT_USAGE;
	}
	if (results_dirs_expected("report", argc - first, argv + first) < 0)
		return EXIT_USAGE;
	a.o.json = a.format == 1;
	a.o.svg = a.format == 2;
	if (!a.o.svg && (a.o.scenario || a.o.kernel || a.o.output)) {
		pr_warn("report: --profile: --scenario, --kernel and -o choose and write a flame graph: only with -f svg");
		return EXIT_USAGE;
	}
	return report_profile_run(&a.o, argv + first, argc - first);
}

const struct command command_report_profile = {
	.name = "report --profile", .fn = cmd_report_profile, .help = help_report_profile,
	.opts = report_profile_opts, .help_end = help_report_profile_end, .exit_status = exit_report,
	.examples = "  ipsecperf report --profile --base no-gso results/DIR\n"
		    "  ipsecperf report --profile -f svg --scenario esp-null -o e.svg DIR\n"
		    "  ipsecperf report --profile -f svg --base no-gso -o diff.svg DIR\n",
	.summary = "the CPU profiles of `run --profile`",
};
