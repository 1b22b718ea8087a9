// SPDX-License-Identifier: GPL-2.0
/* `ipsecperf kernel`: the kernels the VM testbed boots. */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "kbuild.h"
#include "kconfig.h"
#include "scenario.h"
#include "signals.h"
#include "log.h"
#include "vm_kernel.h"
#include "files.h"

static const char help_kernel[] =
	"usage: ipsecperf kernel fetch debian:PACKAGE...\n"
	"       ipsecperf kernel list [-f FMT]\n"
	"       ipsecperf kernel show [-f FMT] KERNEL...\n"
	"       ipsecperf kernel config [--merge] [-O BUILDDIR] [TREE]\n"
	"       ipsecperf kernel build [-j N] [-O BUILDDIR] [--localversion STR] [TREE]\n"
	"\n"
	"Kernels for `ipsecperf run --testbed vm --kernel KERNEL`.\n"
	"\n"
	"fetch   download Debian linux-image packages with `apt-get download` and\n"
	"        unpack them into the cache (the \"linux-image-\" prefix may be\n"
	"        left out: debian:6.1.0-57-cloud-amd64). Needs `apt-get update`.\n"
	"        `apt-cache search linux-image | grep cloud` lists candidates.\n"
	"list    the cached kernels, as specs --kernel accepts\n"
	"show    how a KERNEL spec resolves, from what is here (it downloads\n"
	"        nothing): image, modules, release, config hash;\n"
	"        for a kernel with a .config, every option the VM testbed needs that\n"
	"        it lacks, with the scenarios it costs\n"
	"config  write into a kernel source TREE (or BUILDDIR) the smallest .config\n"
	"        every scenario and probe can run on: allnoconfig, then the options\n"
	"        `kernel show` checks (TCP_AO where the tree has it, DEBUG_INFO_BTF,\n"
	"        esp4_offload as a module) and what they stand on (SMP, PCI, virtio):\n"
	"        no GPU, USB, sound or disk drivers; about 10 minutes to build on 2\n"
	"        CPUs (docs/measurements.md). TREE is the current folder when not\n"
	"        given, for config and build alike. The list\n"
	"        is kept as BUILDDIR/ipsecperf-guest.config. --merge keeps the\n"
	"        .config there and adds only what it lacks.\n"
	"build   make the bzImage and the modules, incrementally, the output in\n"
	"        BUILDDIR/ipsecperf-build.log (or TREE's), with a progress line;\n"
	"        then `run --testbed vm --kernel BUILDDIR` (or TREE) boots it.\n"
	"        Give each build of one tree its own --localversion: records are\n"
	"        keyed by the kernel's release.\n"
	"\n"
	"KERNEL is one of:\n"
	"  debian:PACKAGE     a Debian package, fetched into the cache when run\n"
	"                     misses it\n"
	"  FILE.deb           a linux-image .deb, unpacked into the cache\n"
	"  TREE               a built kernel tree (arch/x86/boot/bzImage, .config,\n"
	"                     modules.order): test a patched kernel with this\n"
	"  DIR                an unpacked package (boot/vmlinuz-*, lib/modules/*)\n"
	"  IMAGE[:MODDIR]     a bzImage and its lib/modules/<release> folder\n"
	"\n"
	"The cache is $IPSECPERF_CACHE, or /var/cache/ipsecperf/kernels.\n"
	"See docs/vm-testbed.md.\n"
	"\n"
	"With -f json, list prints [{\"spec\", \"release\", \"dir\"}, ...] and show\n"
	"[{\"spec\", \"image\", \"release\", \"modules\", \"config\",\n"
	"\"config_sha256\", \"missing\"}, ...], a missing one null; \"missing\" lists\n"
	"what the VM testbed needs and the configuration lacks, one line each.\n";

struct kernel_args {
	int json;
	int jobs;
	const char *out, *localversion;
	bool merge, quiet;
};

static const struct opt_def kernel_opts[] = {
	OPT_FORMAT(struct kernel_args, json),
	OPT_INT("jobs", 'j', struct kernel_args, jobs, 1, 1024, "N", "build: make -jN (default: the CPUs online)"),
	OPT_STR("build-dir", 'O', struct kernel_args, out, "BUILDDIR",
		"config, build: build out of the tree, in BUILDDIR (make O=)"),
	OPT_STR("localversion", 0, struct kernel_args, localversion, "STR",
		"build: appended to the release (make LOCALVERSION=)"),
	OPT_FLAG("merge", 0, struct kernel_args, merge, "config: keep the .config, add what it lacks"),
	OPT_FLAG("quiet", 'q', struct kernel_args, quiet, "config, build: no progress line"),
	OPT_END,
};

/* s, or JSON null when it is empty */
static json_t *str_or_null(const char *s)
{
	return *s ? json_string(s) : json_null();
}

static int print_json(json_t *v)
{
	int err = !v || json_dumpf(v, stdout, JSON_INDENT(2)) < 0 || fputc('\n', stdout) == EOF;

	json_decref(v);
	return err ? EXIT_FAIL : EXIT_OK;
}

/* Names the cache cannot take are bad usage, told before anything is fetched. */
static int check_specs(int argc, char **argv, const char *prefix)
{
	for (int i = 0; i < argc; i++) {
		char spec[300], why[512];

		fmt_buf(spec, sizeof(spec), "%s%s", strncmp(argv[i], prefix, strlen(prefix)) ? prefix : "", argv[i]);
		if (vm_kernel_spec_check(spec, why, sizeof(why)) < 0) {
			pr_warn("%s", why);
			return -1;
		}
	}
	return 0;
}

static int kernel_fetch(int argc, char **argv)
{
	int err = 0;

	if (argc < 1) {
		pr_warn("kernel fetch: name a package, e.g. debian:linux-image-6.1.0-57-cloud-amd64");
		return EXIT_USAGE;
	}
	if (check_specs(argc, argv, "debian:") < 0)
		return EXIT_USAGE;
	for (int i = 0; i < argc; i++) {
		const char *pkg = argv[i];
		char dir[4096];

		if (!strncmp(pkg, "debian:", 7))
			pkg += 7;
		if (vm_kernel_fetch(pkg, dir, sizeof(dir)) < 0) {
			err = EXIT_FAIL;
			continue;
		}
		printf("%s\n", dir);
	}
	return err;
}

static int kernel_list(int json)
{
	const char *cache = vm_cache_dir();
	struct dirent **ents;
	int n = scandir(cache, &ents, NULL, alphasort);
	json_t *all = json ? json_array() : NULL;

	if (n < 0)
		return json ? print_json(all) : 0; /* nothing cached yet */
	for (int i = 0; i < n; i++) {
		char dir[4096];
		struct vm_kernel k;

		fmt_buf(dir, sizeof(dir), "%s/%s", cache, ents[i]->d_name);
		if (ents[i]->d_name[0] != '.' && is_dir(dir)) {
			char pkg[256];

			fmt_buf(pkg, sizeof(pkg), "%s", ents[i]->d_name);
			pkg[strcspn(pkg, "_")] = '\0';
			if (vm_kernel_resolve(dir, &k) != 0)
				;
			else if (all)
				json_array_append_new(all, json_pack("{s:s+, s:s, s:s}", "spec", "debian:", pkg,
								     "release", k.release, "dir", dir));
			else
				printf("debian:%-44s %s\n", pkg, k.release);
		}
		free(ents[i]);
	}
	free(ents);
	return all ? print_json(all) : 0;
}

/*
 * What the kernel's .config lacks for the VM testbed, as text lines (to
 * print, or for JSON); NULL when there is no .config or it cannot be read.
 */
static char *missing_report(const char *config)
{
	struct scenario *scs = NULL;
	struct kconfig kc;
	char why[512], *buf = NULL;
	size_t len = 0;
	int nsc = 0;
	FILE *f;

	if (!*config || kconfig_read(config, &kc, why, sizeof(why)) < 0)
		return NULL;
	if (scenario_load_all(&scs, &nsc, why, sizeof(why)) < 0)
		pr_warn("kernel show: %s; the options the scenarios need are not checked", why);
	if ((f = open_memstream(&buf, &len))) {
		kbuild_report_missing(&kc, scs, nsc, f, KREPORT_ALL);
		fclose(f);
	}
	for (int i = 0; i < nsc; i++)
		scenario_free(&scs[i]);
	free(scs);
	kconfig_free(&kc);
	return buf;
}

/* The report's lines as a JSON array of strings, indentation dropped. */
static json_t *missing_json(const char *report)
{
	json_t *a = json_array();
	char *copy = strdup(report ? report : ""), *save = NULL;

	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		json_array_append_new(a, json_string(l + strspn(l, " ")));
	free(copy);
	return a;
}

static int kernel_show(int argc, char **argv, int json)
{
	json_t *all = json ? json_array() : NULL;
	int err = 0;

	if (argc < 1) {
		pr_warn("kernel show: name a KERNEL; see `ipsecperf help kernel`");
		json_decref(all);
		return EXIT_USAGE;
	}
	if (check_specs(argc, argv, "") < 0) {
		json_decref(all);
		return EXIT_USAGE;
	}
	for (int i = 0; i < argc; i++) {
		struct vm_kernel k;
		char hash[65] = "";

		/* what is here: never a download (`kernel fetch` does that) */
		if (vm_kernel_resolve_fetch(argv[i], &k, false) < 0) {
			err = EXIT_FAIL;
			continue;
		}
		if (*k.config)
			vm_sha256_file(k.config, hash);
		char *miss = missing_report(k.config);

		if (all) {
			json_array_append_new(all, json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o}", "spec", k.spec,
							     "image", k.image, "release", k.release, "modules",
							     str_or_null(*k.tree ? k.tree : k.moddir), "config",
							     str_or_null(k.config), "config_sha256", str_or_null(hash),
							     "missing", miss ? missing_json(miss) : json_null()));
			free(miss);
			continue;
		}
		printf("kernel:  %s\nimage:   %s\nrelease: %s\nmodules: %s\nconfig:  %s%s%s%s\n",
		       k.spec, k.image, k.release,
		       *k.tree ? k.tree : *k.moddir ? k.moddir : "(none)",
		       *k.config ? k.config : "(none)", *hash ? " (sha256 " : "", hash,
		       *hash ? ")" : "");
		if (miss)
			printf("missing: %s\n%s", *miss ? "what the VM testbed needs and this configuration lacks:"
						   : "nothing the VM testbed needs", miss);
		printf("\n");
		free(miss);
	}
	if (all && print_json(all) != EXIT_OK)
		err = EXIT_FAIL;
	return err;
}

/* `kernel config TREE` and `kernel build TREE` */
static int kernel_make(const char *action, int argc, char **argv, const struct kernel_args *a)
{
	bool config = !strcmp(action, "config");
	struct kbuild b = { .jobs = a->jobs, .out = a->out, .localversion = a->localversion,
			    .merge = a->merge, .quiet = a->quiet };

	if (argc > 1) {
		pr_warn("kernel %s: name one kernel source TREE, only one", action);
		return EXIT_USAGE;
	}
	if (a->json || (config && (a->jobs || a->localversion)) || (!config && a->merge)) {
		pr_warn("kernel %s: %s is not an option of %s; see `ipsecperf help kernel`", action,
			a->json ? "-f" : config ? (a->jobs ? "-j" : "--localversion") : "--merge", action);
		return EXIT_USAGE;
	}
	/* none: the tree here, as vng builds the current directory (by its full path, as if named) */
	static char here[PATH_MAX];

	if (!argc && !getcwd(here, sizeof(here))) {
		pr_warn("kernel %s: the current folder: %s; name the TREE", action, strerror(errno));
		return EXIT_USAGE;
	}
	b.tree = argc ? argv[0] : here;
	signals_install(); /* Ctrl-C stops make and its jobs, then we exit */
	return config ? kbuild_config(&b) : kbuild_build(&b);
}

static int cmd_kernel(int argc, char **argv)
{
	struct kernel_args a = { 0 };
	int first = options_parse("kernel", kernel_opts, 0, argc, argv, &a);
	const char *action;

	if (first < 0)
		return EXIT_USAGE;
	action = first < argc ? argv[first++] : NULL;
	if (!action || (strcmp(action, "fetch") && strcmp(action, "list") && strcmp(action, "show") &&
			strcmp(action, "config") && strcmp(action, "build"))) {
		pr_warn("kernel: %s%s%s: fetch, list, show, config or build; see `ipsecperf help kernel`",
			action ? "unknown action '" : "name an action", action ? action : "", action ? "'" : "");
		return EXIT_USAGE;
	}
	if (!strcmp(action, "config") || !strcmp(action, "build"))
		return kernel_make(action, argc - first, argv + first, &a);
	if (a.jobs || a.out || a.localversion || a.merge || a.quiet) {
		pr_warn("kernel %s: -j, -O, -q, --localversion and --merge are for config and build", action);
		return EXIT_USAGE;
	}
	if (!strcmp(action, "fetch")) {
		if (a.json) {
			pr_warn("kernel fetch: prints the folders it fills, one a line; -f is for list and show");
			return EXIT_USAGE;
		}
		return kernel_fetch(argc - first, argv + first);
	}
	if (!strcmp(action, "list")) {
		if (first < argc) {
			pr_warn("kernel list: takes no arguments, not '%s'", argv[first]);
			return EXIT_USAGE;
		}
		return kernel_list(a.json);
	}
	return kernel_show(argc - first, argv + first, a.json);
}

const struct command command_kernel = {
	.name = "kernel", .fn = cmd_kernel, .help = help_kernel, .opts = kernel_opts,
	.exit_status = "  0   done\n"
		       "  1   a kernel could not be fetched, found or built (said why)\n"
		       "  2   bad usage\n"
		       "  128+N  stopped by signal N (config, build)\n",
	.examples = "  ipsecperf kernel fetch debian:linux-image-6.1.0-57-cloud-amd64\n"
		    "  cd ~/linux && ipsecperf kernel config -O build\n"
		    "  cd ~/linux && ipsecperf kernel build -O build    # then --kernel ~/linux/build\n"
		    "  ipsecperf kernel show ~/linux/build\n",
	.summary = "kernels for the VM testbeds: fetch, list, show, config, build",
};
