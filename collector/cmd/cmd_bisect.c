// SPDX-License-Identifier: GPL-2.0
/* ipsecperf bisect: the commit that made a scenario slower (the work is in bisect*.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect.h"
#include "bisect_step.h"
#include "commands.h"
#include "log.h"
#include "run.h"

static const char help_bisect[] =
	"usage: ipsecperf bisect --good REV --bad REV [OPTIONS] TREE SCENARIO...\n"
	"\n"
	"Find the commit between REVs of the git kernel tree TREE that made\n"
	"SCENARIO slower, with `git bisect run`. The good revision is built\n"
	"first. Then each revision git picks is built incrementally\n"
	"(`ipsecperf kernel build TREE -O BUILDDIR --localversion\n"
	"-bisect-<tree>`, <tree> 12 digits of its source tree's hash), and its\n"
	"SCENARIOs are run --repeat times in the VM testbed in turn with the good\n"
	"revision's (`ipsecperf run --testbed vm --kernel GOOD --kernel NEW\n"
	"--interleave --clock auto`: a boot of each kernel per run, so that a\n"
	"drift of the host falls on both alike; where KVM cannot run guests,\n"
	"on the virtual clock, whose figures the host's load does not move)\n"
	"and compared with them (`ipsecperf compare\n"
	"--base-kernel --new-kernel`): it is bad when the --metric is worse by\n"
	"more than --threshold with p < --alpha, good otherwise, and skipped when\n"
	"it does not build, its runs fail or too few runs succeed to decide. A\n"
	"progress line says which step of about how many, the commit and the\n"
	"phase.\n"
	"\n"
	"Every build is kept in a cache, by its source tree (`git rev-parse\n"
	"HEAD^{tree}`), the .config it was built from and the release scheme, in\n"
	"$IPSECPERF_BISECT_CACHE (default /var/cache/ipsecperf/bisect-kernels):\n"
	"bzImage, vmlinux, the modules, kernel.release, .config and System.map,\n"
	"with a manifest of their SHA-256 sums, checked before a build is taken.\n"
	"A revision whose build is there is not built again (\"cached build of\n"
	"<tree>\"), so a bisect repeated costs only its runs. The last 16 builds\n"
	"used are kept ($IPSECPERF_BISECT_CACHE_KEEP, 2 to 1000); each is about\n"
	"the size of its bzImage, vmlinux and modules. --no-cache builds every\n"
	"revision anew.\n"
	"\n"
	"It ends with the first bad commit and a table of every step: commit,\n"
	"medians of the metric for the good revision and for it in that step's\n"
	"run, change, p and verdict, and the time of its build (or \"cached\")\n"
	"and its runs, plain text to paste into a mail. When only skipped\n"
	"revisions are left, it lists those the first bad commit may be, each\n"
	"with its verdict. The output folder keeps report.txt, steps.jsonl (one\n"
	"record per step), git.log and git-bisect.log (what git said; `git\n"
	"bisect replay` takes the latter) and a folder per step: build.log,\n"
	"run.log, results/ (a results directory of both kernels), compare.txt\n"
	"and compare.json.\n"
	"\n"
	"TREE must be the top of a git work tree with no uncommitted changes to\n"
	"tracked files and no bisect going on; BUILDDIR (without -O: TREE, or\n"
	"TREE/build as `run --kernel TREE` finds it) must hold the .config of\n"
	"`ipsecperf kernel config`, and a first build\n"
	"keeps every step's build short. At the end, and after Ctrl-C or\n"
	"SIGTERM, the tree is reset (`git bisect reset`: HEAD and branch as\n"
	"they were) and the steps' processes are stopped; after a SIGKILL,\n"
	"`ipsecperf cleanup` resets it. Every git it runs has `-c gc.auto=0`, so\n"
	"no git is left packing the tree after it. Bad usage changes nothing.\n";

static const char help_bisect_end[] =
	"With n runs against n the exact Mann-Whitney test cannot go below\n"
	"p = 2 / C(2n, n): 0.1 for 3, 0.029 for 4, 0.0079 for 5. A --repeat\n"
	"that cannot reach --alpha is refused.\n";

#define MAX_RUN_OPTS 32

struct bisect_args {
	struct bisect_opts o;
	char *run_opts[MAX_RUN_OPTS];
	int nrun;
	int clock; /* enum run_clock */
};

/* Options that every `run` of the bisect gets, as given (run checks them). */
static int pass_on(struct bisect_args *a, const char *name, const char *val)
{
	if (a->nrun + 2 > MAX_RUN_OPTS) {
		pr_warn("bisect: too many run options");
		return -1;
	}
	a->run_opts[a->nrun++] = (char *)name;
	if (val)
		a->run_opts[a->nrun++] = (char *)val;
	return 0;
}

static int opt_duration(void *a, const char *v) { return pass_on(a, "--duration", v); }
static int opt_omit(void *a, const char *v) { return pass_on(a, "--omit", v); }
static int opt_probe_set(void *a, const char *v) { return pass_on(a, "--probe-set", v); }
static int opt_scenario_dir(void *a, const char *v) { return pass_on(a, "--scenario-dir", v); }
static int opt_no_probes(void *a, const char *v) { (void)v; return pass_on(a, "--no-probes", NULL); }

#define BA struct bisect_args
static const struct opt_def bisect_opts[] = {
	OPT_STR("good", 0, BA, o.good, "REV", "a revision without the slowdown (required)"),
	OPT_STR("bad", 0, BA, o.bad, "REV", "a later revision with it (required)"),
	OPT_STR("metric", 'm', BA, o.metric, "M",
		"the metric that decides: throughput (default), cycles_per_byte (or cpb), or a counter's name"),
	OPT_DOUBLE("threshold", 0, BA, o.threshold, 0, 1000, "PCT", "bad means worse by more than PCT percent (default 5)"),
	OPT_DOUBLE("alpha", 0, BA, o.alpha, 1e-9, 0.5, "P", "significance level (default 0.05)"),
	OPT_INT("repeat", 'r', BA, o.repeat, 1, 1000, "N", "runs of each scenario per revision (default " RUN_DEFAULT_REPEAT_S ", as run)"),
	OPT_STR("build-dir", 'O', BA, o.build, "BUILDDIR", "build out of the tree, in BUILDDIR (make O=)"),
	OPT_INT("jobs", 'j', BA, o.jobs, 1, 1024, "N", "make -j N (default: the CPUs online)"),
	OPT_STR("output", 'o', BA, o.out, "DIR", "the output folder (default results/bisect-<UTC time>)"),
	OPT_FLAG("no-cache", 0, BA, o.no_cache, "build every revision, even one whose build is cached (the new build replaces it)"),
	OPT_CB("duration", 0, opt_duration, "S", "run's --duration: measured seconds per run"),
	OPT_CB("omit", 0, opt_omit, "S", "run's --omit: seconds left out at the start of a run"),
	OPT_CB_FLAG("no-probes", 0, opt_no_probes, "run's --no-probes: no kernel probes"),
	OPT_CB("probe-set", 0, opt_probe_set, "SET", "run's --probe-set"),
	OPT_CB("scenario-dir", 0, opt_scenario_dir, "DIR", "run's --scenario-dir: where SCENARIO names are found"),
	OPT_CHOICE("clock", 0, BA, clock, run_clock_names, "CLOCK",
		   "run's --clock: auto (default: the virtual clock where KVM cannot run guests, whose figures do not move with this host's load), real or virtual; docs/vm-testbed.md"),
	OPT_END,
};
#undef BA

static int cmd_bisect(int argc, char **argv)
{
	struct bisect_args a = { .o = { .metric = "throughput", .threshold = 5, .alpha = 0.05, .repeat = RUN_DEFAULT_REPEAT },
				 .clock = RUN_CLOCK_AUTO };
	int first = options_parse("bisect", bisect_opts, 0, argc, argv, &a);

	if (first < 0)
		return EXIT_USAGE;
	a.o.run_opts = a.run_opts;
	a.o.clock = run_clock_names[a.clock];
	a.o.nrun_opts = a.nrun;
	if (first < argc)
		a.o.tree = argv[first++];
	a.o.scenarios = argv + first;
	a.o.nscenarios = argc - first;
	return bisect_main(&a.o);
}

const struct command command_bisect = {
	.name = "bisect", .fn = cmd_bisect, .help = help_bisect, .opts = bisect_opts, .help_end = help_bisect_end,
	.exit_status = "  0   the first bad commit was found\n"
		       "  1   it was not: the good revision's kernel could not be had, only\n"
		       "      skipped revisions were left (the report names them), a step failed\n"
		       "  2   bad usage, nothing changed\n"
		       "  128+N  stopped by signal N, the tree reset\n",
	.examples = "  ipsecperf bisect --good v6.12 --bad HEAD ~/linux esp-null\n",
	.summary = "find the commit that made a scenario slower (git bisect run)",
};

static const char help_bisect_step[] =
	"usage: ipsecperf bisect-step STATE\n"
	"\n"
	"One step of `ipsecperf bisect`, which has `git bisect run` run it:\n"
	"build the revision checked out, run, compare with the good revision.\n"
	"Exit status 0 good, 1 bad, 125 skip, 128 or more: stop the bisect.\n";

static int cmd_bisect_step(int argc, char **argv)
{
	if (argc != 2) {
		pr_warn("bisect-step: run by `ipsecperf bisect`, not by hand");
		return 128;
	}
	return bisect_step_main(argv[1]);
}

const struct command command_bisect_step = {
	.name = "bisect-step", .fn = cmd_bisect_step, .help = help_bisect_step, .hidden = true,
	.summary = "one step of bisect, for git bisect run",
};
