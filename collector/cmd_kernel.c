// SPDX-License-Identifier: GPL-2.0
/* `ipsecperf kernel`: the kernels the VM testbed boots. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "log.h"
#include "vm.h"
#include "vm_util.h"

const char help_kernel[] =
	"usage: ipsecperf kernel fetch debian:PACKAGE...\n"
	"       ipsecperf kernel list\n"
	"       ipsecperf kernel show KERNEL...\n"
	"\n"
	"Kernels for `ipsecperf run --testbed vm --kernel KERNEL`.\n"
	"\n"
	"fetch   download Debian linux-image packages with `apt-get download` and\n"
	"        unpack them into the cache (the \"linux-image-\" prefix may be\n"
	"        left out: debian:6.1.0-57-cloud-amd64). Needs `apt-get update`.\n"
	"        `apt-cache search linux-image | grep cloud` lists candidates.\n"
	"list    the cached kernels, as specs --kernel accepts\n"
	"show    how a KERNEL spec resolves: image, modules, release, config hash\n"
	"\n"
	"KERNEL is one of:\n"
	"  debian:PACKAGE     a Debian package, fetched into the cache when missing\n"
	"  FILE.deb           a linux-image .deb, unpacked into the cache\n"
	"  TREE               a built kernel tree (arch/x86/boot/bzImage, .config,\n"
	"                     modules.order): test a patched kernel with this\n"
	"  DIR                an unpacked package (boot/vmlinuz-*, lib/modules/*)\n"
	"  IMAGE[:MODDIR]     a bzImage and its lib/modules/<release> folder\n"
	"\n"
	"The cache is $IPSECPERF_CACHE, or /var/cache/ipsecperf/kernels.\n"
	"See docs/vm-testbed.md.\n";

/* Names the cache cannot take are bad usage, told before anything is fetched. */
static int check_specs(int argc, char **argv, const char *prefix)
{
	for (int i = 0; i < argc; i++) {
		char spec[300], why[512];

		vm_fmt(spec, sizeof(spec), "%s%s", strncmp(argv[i], prefix, strlen(prefix)) ? prefix : "", argv[i]);
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

static int kernel_list(void)
{
	const char *cache = vm_cache_dir();
	struct dirent **ents;
	int n = scandir(cache, &ents, NULL, alphasort);

	if (n < 0)
		return 0; /* nothing cached yet */
	for (int i = 0; i < n; i++) {
		char dir[4096];
		struct vm_kernel k;

		vm_fmt(dir, sizeof(dir), "%s/%s", cache, ents[i]->d_name);
		if (ents[i]->d_name[0] != '.' && vm_is_dir(dir)) {
			char pkg[256];

			vm_fmt(pkg, sizeof(pkg), "%s", ents[i]->d_name);
			pkg[strcspn(pkg, "_")] = '\0';
			if (vm_kernel_resolve(dir, &k) == 0)
				printf("debian:%-44s %s\n", pkg, k.release);
		}
		free(ents[i]);
	}
	free(ents);
	return 0;
}

static int kernel_show(int argc, char **argv)
{
	int err = 0;

	if (argc < 1) {
		pr_warn("kernel show: name a KERNEL; see `ipsecperf help kernel`");
		return EXIT_USAGE;
	}
	if (check_specs(argc, argv, "") < 0)
		return EXIT_USAGE;
	for (int i = 0; i < argc; i++) {
		struct vm_kernel k;
		char hash[65] = "";

		if (vm_kernel_resolve(argv[i], &k) < 0) {
			err = EXIT_FAIL;
			continue;
		}
		if (*k.config)
			vm_sha256_file(k.config, hash);
		printf("kernel:  %s\nimage:   %s\nrelease: %s\nmodules: %s\nconfig:  %s%s%s%s\n\n",
		       k.spec, k.image, k.release,
		       *k.tree ? k.tree : *k.moddir ? k.moddir : "(none)",
		       *k.config ? k.config : "(none)", *hash ? " (sha256 " : "", hash,
		       *hash ? ")" : "");
	}
	return err;
}

int cmd_kernel(int argc, char **argv)
{
	if (argc < 2) {
		fputs(help_kernel, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "fetch"))
		return kernel_fetch(argc - 2, argv + 2);
	if (!strcmp(argv[1], "list") && argc > 2) {
		pr_warn("kernel list: takes no arguments; see `ipsecperf help kernel`");
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "list"))
		return kernel_list();
	if (!strcmp(argv[1], "show"))
		return kernel_show(argc - 2, argv + 2);
	pr_warn("kernel: unknown action '%s'; see `ipsecperf help kernel`", argv[1]);
	return EXIT_USAGE;
}
