// SPDX-License-Identifier: GPL-2.0
/*
 * Kernels for the VM testbed: resolving --kernel specs, fetching Debian
 * packages with apt-get download and unpacking them into a cache.
 */
#include "vm_kernel.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "exec.h"
#include "log.h"
#include "safefile.h"
#include "options.h"

#define COMPLETE_MARK ".ipsecperf-complete"

const char *vm_cache_dir(void)
{
	const char *d = getenv("IPSECPERF_CACHE");

	return d && *d ? d : "/var/cache/ipsecperf/kernels";
}

int vm_sha256_file(const char *path, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE], buf[65536];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx;
	ssize_t n;
	int fd, err = -1;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ctx = EVP_MD_CTX_new();
	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL))
		goto out;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (!EVP_DigestUpdate(ctx, buf, n))
			goto out;
	if (n < 0 || !EVP_DigestFinal_ex(ctx, md, &mdlen))
		goto out;
	for (unsigned int i = 0; i < mdlen && i < 32; i++)
		sprintf(out + 2 * i, "%02x", md[i]);
	out[64] = '\0';
	err = 0;
out:
	EVP_MD_CTX_free(ctx);
	close(fd);
	return err;
}

/* The x86 boot protocol: "HdrS" at 0x202, kernel_version pointer at 0x20e. */
int vm_image_release(const char *image, char *out, size_t outlen)
{
	unsigned char hdr[0x210];
	char ver[256];
	unsigned int off;
	size_t n;
	FILE *f = fopen(image, "rb");

	if (!f)
		return -1;
	if (fread(hdr, 1, sizeof(hdr), f) != sizeof(hdr) || memcmp(hdr + 0x202, "HdrS", 4))
		goto fail;
	off = (hdr[0x20e] | hdr[0x20f] << 8) + 0x200;
	if (fseek(f, off, SEEK_SET) < 0)
		goto fail;
	n = fread(ver, 1, sizeof(ver) - 1, f);
	ver[n] = '\0';
	ver[strcspn(ver, " ")] = '\0';
	if (!*ver)
		goto fail;
	fclose(f);
	fmt_buf(out, outlen, "%s", ver);
	return 0;
fail:
	fclose(f);
	return -1;
}

/* base/lib/modules/<one release> or base/usr/lib/modules/<one release>. */
static int find_moddir(const char *base, char *moddir, size_t len, char *rel, size_t rellen)
{
	static const char *const subs[] = { "lib/modules", "usr/lib/modules" };

	for (size_t i = 0; i < 2; i++) {
		char d[PATH_MAX];
		struct dirent *e;
		DIR *dir;

		fmt_buf(d, sizeof(d), "%s/%s", base, subs[i]);
		dir = opendir(d);
		if (!dir)
			continue;
		while ((e = readdir(dir))) {
			char cand[PATH_MAX];

			if (e->d_name[0] == '.')
				continue;
			fmt_buf(cand, sizeof(cand), "%s/%s/modules.order", d, e->d_name);
			if (!is_file(cand))
				continue;
			fmt_buf(moddir, len, "%s/%s", d, e->d_name);
			fmt_buf(rel, rellen, "%s", e->d_name);
			closedir(dir);
			return 0;
		}
		closedir(dir);
	}
	return -1;
}

/* An unpacked package: boot/vmlinuz-<rel>, lib/modules/<rel>, boot/config-<rel>. */
static int resolve_unpacked(const char *dir, struct vm_kernel *k)
{
	char rel[128];

	if (find_moddir(dir, k->moddir, sizeof(k->moddir), rel, sizeof(rel)) < 0)
		return -1;
	fmt_buf(k->image, sizeof(k->image), "%s/boot/vmlinuz-%s", dir, rel);
	if (!is_file(k->image))
		return -1;
	fmt_buf(k->release, sizeof(k->release), "%s", rel);
	fmt_buf(k->config, sizeof(k->config), "%s/boot/config-%s", dir, rel);
	if (!is_file(k->config))
		k->config[0] = '\0';
	return 0;
}

static int resolve_tree(const char *dir, struct vm_kernel *k)
{
	char p[PATH_MAX];

	fmt_buf(k->image, sizeof(k->image), "%s/arch/x86/boot/bzImage", dir);
	fmt_buf(p, sizeof(p), "%s/include/config/kernel.release", dir);
	if (file_read_line(p, k->release, sizeof(k->release)) < 0 &&
	    vm_image_release(k->image, k->release, sizeof(k->release)) < 0) {
		pr_warn("kernel %s: cannot tell its release (no include/config/kernel.release); build it first: make -C %s -j$(nproc)",
			dir, dir);
		return -1;
	}
	fmt_buf(k->config, sizeof(k->config), "%s/.config", dir);
	if (!is_file(k->config))
		k->config[0] = '\0';
	fmt_buf(p, sizeof(p), "%s/modules.order", dir);
	if (is_file(p))
		fmt_buf(k->tree, sizeof(k->tree), "%s", dir);
	fmt_buf(p, sizeof(p), "%s/vmlinux", dir);
	if (is_file(p))
		fmt_buf(k->vmlinux, sizeof(k->vmlinux), "%s", p);
	return 0;
}

/*
 * A package's name, or its .deb's without ".deb", names a folder of the
 * cache, which a new unpack replaces: one path component of Debian's
 * characters ('~' for backports' versions), never ".", ".." or a hidden
 * name (the cache's own .unpack-* and .download-*), nor an option.
 */
static bool kernel_name_ok(const char *name, size_t n)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+~-";

	return n > 0 && n < 200 && strspn(name, ok) >= n && name[0] != '.' && name[0] != '-';
}

#define KERNEL_NAME_RULE "letters, digits, '.', '_', '+', '~' and '-', not starting with '.' or '-'"

static int unpack_name(const char *deb, char *name, size_t len)
{
	const char *b = strrchr(deb, '/');
	size_t n;

	b = b ? b + 1 : deb;
	n = strlen(b);
	if (n < 5 || strcmp(b + n - 4, ".deb") || !kernel_name_ok(b, n - 4))
		return -1;
	fmt_buf(name, len, "%.*s", (int)(n - 4), b);
	return 0;
}

int vm_kernel_spec_check(const char *spec, char *why, size_t len)
{
	size_t n = strlen(spec);
	const char *shown = has_control_char(spec) ? "(a name with a control character)" : spec;
	char name[256];

	if (!strncmp(spec, "debian:", 7)) {
		if (kernel_name_ok(spec + 7, n - 7))
			return 0;
		fmt_buf(why, len, "kernel %s: a package name takes %s", shown, KERNEL_NAME_RULE);
		return -1;
	}
	if (n > 4 && !strcmp(spec + n - 4, ".deb") && unpack_name(spec, name, sizeof(name)) < 0) {
		fmt_buf(why, len, "kernel %s: a .deb's name (without .deb) takes %s", shown, KERNEL_NAME_RULE);
		return -1;
	}
	return 0;
}

int vm_kernel_unpack_deb(const char *deb, char *dir, size_t dirlen)
{
	char name[256], tmp[PATH_MAX], final[PATH_MAX], mark[PATH_MAX];
	char moddir[PATH_MAX], rel[128];
	const char *cache = vm_cache_dir();
	char *out = NULL;
	int st;

	if (unpack_name(deb, name, sizeof(name)) < 0) {
		pr_warn("kernel %s: not a .deb file name (NAME.deb, NAME of %s)", deb, KERNEL_NAME_RULE);
		return -1;
	}
	fmt_buf(final, sizeof(final), "%s/%s", cache, name);
	fmt_buf(mark, sizeof(mark), "%s/%s", final, COMPLETE_MARK);
	if (is_file(mark)) {
		fmt_buf(dir, dirlen, "%s", final);
		return 0;
	}
	if (mkdir_p(cache, 0755) < 0) {
		pr_warn("kernel cache %s: %s; set IPSECPERF_CACHE to a folder you can write", cache,
			strerror(errno));
		return -1;
	}
	fmt_buf(tmp, sizeof(tmp), "%s/.unpack-%s-%d", cache, name, (int)getpid());
	rm_rf(tmp);
	pr_info("kernel: unpacking %s into %s", deb, final);
	st = exec_in_dir(NULL, (char *[]){ "dpkg-deb", "-x", (char *)deb, tmp, NULL }, &out);
	if (st != 0) {
		pr_warn("kernel %s: dpkg-deb -x failed: %s", deb, out ? out : "no message");
		goto fail;
	}
	if (find_moddir(tmp, moddir, sizeof(moddir), rel, sizeof(rel)) < 0) {
		pr_warn("kernel %s: no lib/modules/<release>/modules.order inside; is it a linux-image package (not a meta-package)? `apt-cache search linux-image | grep cloud` lists versioned ones",
			deb);
		goto fail;
	}
	/* Debian runs depmod in postinst; the package itself has no modules.dep */
	free(out);
	out = NULL;
	{
		char base[PATH_MAX];
		size_t bl = strlen(moddir) - strlen(rel) - strlen("/lib/modules/");

		fmt_buf(base, sizeof(base), "%.*s", (int)bl, moddir);
		st = exec_in_dir(NULL, (char *[]){ "depmod", "-b", base, rel, NULL }, &out);
	}
	if (st != 0) {
		pr_warn("kernel %s: depmod failed: %s", deb, out ? out : "no message");
		goto fail;
	}
	fmt_buf(mark, sizeof(mark), "%s/%s", tmp, COMPLETE_MARK);
	if (file_write(mark, deb, strlen(deb)) < 0)
		goto fail;
	/* another run may have unpacked the same package meanwhile: keep its copy */
	fmt_buf(mark, sizeof(mark), "%s/%s", final, COMPLETE_MARK);
	if (is_file(mark)) {
		rm_rf(tmp);
		free(out);
		fmt_buf(dir, dirlen, "%s", final);
		return 0;
	}
	rm_rf(final);
	if (rename(tmp, final) < 0) {
		pr_warn("kernel cache: cannot rename %s to %s: %s", tmp, final, strerror(errno));
		goto fail;
	}
	free(out);
	fmt_buf(dir, dirlen, "%s", final);
	return 0;
fail:
	free(out);
	rm_rf(tmp);
	return -1;
}

static void package_name(const char *pkg, char *out, size_t len)
{
	if (strncmp(pkg, "linux-image-", 12))
		fmt_buf(out, len, "linux-image-%s", pkg);
	else
		fmt_buf(out, len, "%s", pkg);
}

int vm_kernel_fetch(const char *package, char *dir, size_t dirlen)
{
	char pkg[200], dl[PATH_MAX], deb[PATH_MAX] = "";
	const char *cache = vm_cache_dir();
	struct dirent *e;
	char *out = NULL;
	DIR *d;
	int st, err = -1;

	package_name(package, pkg, sizeof(pkg));
	if (!kernel_name_ok(package, strlen(package))) {
		pr_warn("kernel fetch: a package name takes %s", KERNEL_NAME_RULE);
		return -1;
	}
	if (mkdir_p(cache, 0755) < 0) {
		pr_warn("kernel cache %s: %s; set IPSECPERF_CACHE to a folder you can write", cache,
			strerror(errno));
		return -1;
	}
	fmt_buf(dl, sizeof(dl), "%s/.download-%d", cache, (int)getpid());
	rm_rf(dl);
	if (mkdir_p(dl, 0755) < 0)
		return -1;
	pr_info("kernel: apt-get download %s", pkg);
	st = exec_in_dir(dl, (char *[]){ "apt-get", "download", "-q", "-o", "APT::Sandbox::User=root",
				       pkg, NULL }, &out);
	if (st != 0) {
		pr_warn("kernel fetch %s: apt-get download failed: %s%s", pkg, out ? out : "",
			"(run apt-get update first; `apt-cache search linux-image | grep cloud` lists the packages)");
		goto out;
	}
	d = opendir(dl);
	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (n > 4 && !strcmp(e->d_name + n - 4, ".deb"))
			fmt_buf(deb, sizeof(deb), "%s/%s", dl, e->d_name);
	}
	if (d)
		closedir(d);
	if (!*deb) {
		pr_warn("kernel fetch %s: apt-get download left no .deb", pkg);
		goto out;
	}
	err = vm_kernel_unpack_deb(deb, dir, dirlen);
out:
	free(out);
	rm_rf(dl);
	return err;
}

/* The newest cached unpack of package pkg (pkg_VERSION_ARCH), if any. */
static int cached_package(const char *pkg, char *dir, size_t dirlen)
{
	const char *cache = vm_cache_dir();
	size_t pl = strlen(pkg);
	time_t best = 0;
	struct dirent *e;
	DIR *d = opendir(cache);

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char mark[PATH_MAX];
		struct stat st;

		if (strncmp(e->d_name, pkg, pl) || e->d_name[pl] != '_')
			continue;
		fmt_buf(mark, sizeof(mark), "%s/%s/%s", cache, e->d_name, COMPLETE_MARK);
		if (stat(mark, &st) < 0 || st.st_mtime < best)
			continue;
		best = st.st_mtime;
		fmt_buf(dir, dirlen, "%s/%s", cache, e->d_name);
	}
	closedir(d);
	return best ? 0 : -1;
}

/* debian:PACKAGE: the cached unpack, fetched first when there is none (and fetch allows). */
static int resolve_debian(const char *spec, struct vm_kernel *k, bool fetch)
{
	char dir[PATH_MAX], pkg[200];

	package_name(spec + 7, pkg, sizeof(pkg));
	if (cached_package(pkg, dir, sizeof(dir)) < 0 && !fetch) {
		pr_warn("kernel %s: not in the cache (%s), and nothing is downloaded here: `ipsecperf kernel fetch %s` first",
			spec, vm_cache_dir(), spec);
		return -1;
	}
	if (cached_package(pkg, dir, sizeof(dir)) < 0 && vm_kernel_fetch(pkg, dir, sizeof(dir)) < 0)
		return -1;
	if (resolve_unpacked(dir, k) < 0) {
		pr_warn("kernel %s: %s holds no boot/vmlinuz-* with lib/modules; remove it and fetch again",
			spec, dir);
		return -1;
	}
	return 0;
}

/* FILE.deb: unpacked into the cache. */
static int resolve_deb(const char *spec, struct vm_kernel *k)
{
	char dir[PATH_MAX];

	if (vm_kernel_unpack_deb(spec, dir, sizeof(dir)) < 0)
		return -1;
	if (resolve_unpacked(dir, k) < 0) {
		pr_warn("kernel %s: the package holds no boot/vmlinuz-* with lib/modules", spec);
		return -1;
	}
	return 0;
}

/*
 * A folder the user named, whose files (links followed) are read as root
 * and packed into the guest: only one that root alone can change, as
 * `kernel build` takes only such a tree. 0, or -1 after one line.
 */
static int kernel_dir_ours(const char *spec, const char *dir)
{
	char why[PATH_MAX + 128];

	if (safe_dir_ours(dir, why, sizeof(why)) == 0)
		return 0;
	pr_warn("kernel %s: %s; a kernel's files are read as root and packed into its guest, so its folder must be root's alone: review it and make it so (chown -R root:root %s; chmod -R go-w %s) in a folder only root can change",
		spec, why, dir, dir);
	return -1;
}

/* DIR: a built kernel tree, or an unpacked package. */
static int resolve_dir(const char *spec, struct vm_kernel *k)
{
	char p[PATH_MAX];

	if (kernel_dir_ours(spec, spec) < 0)
		return -1;

	fmt_buf(p, sizeof(p), "%s/arch/x86/boot/bzImage", spec);
	if (is_file(p))
		return resolve_tree(spec, k);
	/* a source tree built out of tree into its build/ (kernel build -O TREE/build) */
	fmt_buf(p, sizeof(p), "%s/build/arch/x86/boot/bzImage", spec);
	if (is_file(p)) {
		fmt_buf(p, sizeof(p), "%s/build", spec);
		return resolve_tree(p, k);
	}
	if (resolve_unpacked(spec, k) == 0)
		return 0;
	fmt_buf(p, sizeof(p), "%s/Kconfig", spec);
	if (is_file(p)) {
		pr_warn("kernel %s: a kernel source tree, not built: `ipsecperf kernel config -O %s/build %s` and `ipsecperf kernel build -O %s/build %s` build it",
			spec, spec, spec, spec, spec);
		return -1;
	}
	pr_warn("kernel %s: neither a built kernel tree (arch/x86/boot/bzImage) nor an unpacked package (boot/vmlinuz-*, lib/modules/*)",
		spec);
	return -1;
}

/* The config of an image's kernel: /boot/config-<release>, or the build tree's of its modules. */
static void image_config(struct vm_kernel *k)
{
	fmt_buf(k->config, sizeof(k->config), "/boot/config-%s", k->release);
	if (is_file(k->config))
		return;
	k->config[0] = '\0';
	if (*k->moddir) {
		fmt_buf(k->config, sizeof(k->config), "%s/build/.config", k->moddir);
		if (!is_file(k->config))
			k->config[0] = '\0';
	}
}

/* IMAGE[:MODDIR]: a bzImage, its modules by default those installed for its release. */
static int resolve_image(const char *spec, struct vm_kernel *k)
{
	const char *colon = is_file(spec) ? NULL : strrchr(spec, ':');
	char rel[128] = "";

	fmt_buf(k->image, sizeof(k->image), "%.*s", colon ? (int)(colon - spec) : (int)strlen(spec), spec);
	if (!is_file(k->image)) {
		pr_warn("kernel %s: no such file or folder; give a bzImage[:modules folder], a kernel build tree, a .deb or debian:PACKAGE",
			spec);
		return -1;
	}
	if (vm_image_release(k->image, rel, sizeof(rel)) < 0) {
		pr_warn("kernel %s: %s is not an x86 bzImage", spec, k->image);
		return -1;
	}
	fmt_buf(k->release, sizeof(k->release), "%s", rel);
	if (colon) {
		fmt_buf(k->moddir, sizeof(k->moddir), "%s", colon + 1);
	} else {
		/* a kernel installed on this host but not running */
		fmt_buf(k->moddir, sizeof(k->moddir), "/lib/modules/%s", rel);
		if (!is_dir(k->moddir))
			k->moddir[0] = '\0';
	}
	if (*k->moddir && !is_dir(k->moddir)) {
		pr_warn("kernel %s: modules folder %s: no such folder", spec, k->moddir);
		return -1;
	}
	if (*k->moddir && kernel_dir_ours(spec, k->moddir) < 0)
		return -1;
	image_config(k);
	if (!*k->moddir)
		pr_warn("kernel %s: no modules folder (give IMAGE:MODDIR); only built-in features will be there",
			spec);
	return 0;
}

static int resolve_spec(const char *spec, struct vm_kernel *k, bool fetch)
{
	size_t n = strlen(spec);

	fmt_buf(k->spec, sizeof(k->spec), "%s", spec);
	if (!strncmp(spec, "debian:", 7))
		return resolve_debian(spec, k, fetch);
	if (n > 4 && !strcmp(spec + n - 4, ".deb") && is_file(spec))
		return resolve_deb(spec, k);
	if (is_dir(spec))
		return resolve_dir(spec, k);
	return resolve_image(spec, k);
}

int vm_kernel_resolve(const char *spec, struct vm_kernel *k)
{
	return vm_kernel_resolve_fetch(spec, k, true);
}

int vm_kernel_resolve_fetch(const char *spec, struct vm_kernel *k, bool fetch)
{
	memset(k, 0, sizeof(*k));
	if (!spec) /* never; said so for GCC, whose UBSan build warns of a null %s */
		return -1;
	if (resolve_spec(spec, k, fetch) < 0)
		return -1;
	/* a kernel that is not a tree: the DWARF of Debian's -dbg package of its release, if installed here */
	if (!*k->vmlinux && plain_name_ok(k->release, sizeof(k->release) - 1)) {
		char p[PATH_MAX];

		fmt_buf(p, sizeof(p), "/usr/lib/debug/boot/vmlinux-%s", k->release);
		if (is_file(p))
			fmt_buf(k->vmlinux, sizeof(k->vmlinux), "%s", p);
	}
	return 0;
}
