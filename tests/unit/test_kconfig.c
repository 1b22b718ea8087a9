// SPDX-License-Identifier: GPL-2.0
/*
 * collector/kbuild/kconfig.c: reading a .config, which scenario needs which option
 * (from its algorithm names and features), what "satisfied" means for an
 * option that must stay a module, and what kernel show reports missing;
 * a kernel tree must be root's alone (to be built, or booted with
 * --kernel), and what ipsecperf opens in it (the
 * build lock, the logs, the stamp, ipsecperf-guest.config) is never a
 * link, a device or a FIFO: the type is checked before anything is opened.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>

#include "exec.h"
#include "files.h"
#include "kbuild.h"
#include "kbuild_int.h"
#include "kconfig.h"
#include "log.h"
#include "scenario.h"
#include "vm_kernel.h"

static const struct kneed *need(const char *name)
{
	for (const struct kneed *k = kneeds; k->name; k++)
		if (!strcmp(k->name, name))
			return k;
	fail_msg("no %s in kneeds", name);
	return NULL;
}

static int read_text(const char *text, struct kconfig *kc)
{
	char path[] = "/tmp/ipsecperf-unit-kconfig-XXXXXX", why[256];
	int fd = mkstemp(path), rc;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	rc = kconfig_read(path, kc, why, sizeof(why));
	unlink(path);
	return rc;
}

static void reads_values_and_skips_comments(void **state)
{
	struct kconfig kc;

	(void)state;
	assert_int_equal(read_text("# comment\nCONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=m\n"
				   "CONFIG_LOCALVERSION=\"-x\"\nnot a line\n", &kc), 0);
	assert_string_equal(kconfig_get(&kc, "A"), "y");
	assert_null(kconfig_get(&kc, "B"));
	assert_string_equal(kconfig_get(&kc, "C"), "m");
	assert_string_equal(kconfig_get(&kc, "LOCALVERSION"), "\"-x\"");
	assert_null(kconfig_get(&kc, "CONFIG_A"));
	kconfig_free(&kc);
}

static struct scenario esp(const char *enc, const char *auth, const char *aead, bool gso)
{
	struct scenario sc = { .name = "x" };

	sc.ipsec.on = true;
	sc.ipsec.esp_gso = gso;
	snprintf(sc.ipsec.enc, sizeof(sc.ipsec.enc), "%s", enc);
	snprintf(sc.ipsec.auth, sizeof(sc.ipsec.auth), "%s", auth);
	snprintf(sc.ipsec.aead, sizeof(sc.ipsec.aead), "%s", aead);
	return sc;
}

static void crypto_follows_the_algorithm_names(void **state)
{
	struct scenario null = esp("ecb(cipher_null)", "digest_null", "", false);
	struct scenario cbc = esp("cbc(aes)", "hmac(sha256)", "", false);
	struct scenario gcm = esp("", "", "rfc4106(gcm(aes))", false);
	struct scenario clear = { .name = "clear" };

	(void)state;
	assert_true(kneed_needed_by(need("CRYPTO_NULL"), &null));
	assert_true(kneed_needed_by(need("CRYPTO_ECB"), &null));
	assert_true(kneed_needed_by(need("CRYPTO_AUTHENC"), &null));
	assert_false(kneed_needed_by(need("CRYPTO_AES"), &null));
	assert_true(kneed_needed_by(need("CRYPTO_CBC"), &cbc));
	assert_true(kneed_needed_by(need("CRYPTO_SHA256"), &cbc));
	assert_true(kneed_needed_by(need("CRYPTO_HMAC"), &cbc));
	assert_false(kneed_needed_by(need("CRYPTO_SHA1"), &cbc)); /* "sha1" is no part of "sha256" */
	assert_true(kneed_needed_by(need("CRYPTO_GCM"), &gcm));
	assert_true(kneed_needed_by(need("CRYPTO_SEQIV"), &gcm));
	assert_false(kneed_needed_by(need("CRYPTO_AUTHENC"), &gcm));
	assert_false(kneed_needed_by(need("INET_ESP"), &clear));
	assert_false(kneed_needed_by(need("NET_NS"), &null)); /* not a scenario option */
}

static void tcp_auth_options(void **state)
{
	struct scenario md5 = { .name = "md5" }, ao = { .name = "ao" };

	(void)state;
	strcpy(md5.tcp_auth.method, "md5");
	strcpy(ao.tcp_auth.method, "ao");
	assert_true(kneed_needed_by(need("TCP_MD5SIG"), &md5));
	assert_false(kneed_needed_by(need("TCP_AO"), &md5));
	assert_true(kneed_needed_by(need("TCP_AO"), &ao));
	assert_true(kneed_needed_by(need("IPV6"), &ao));
	assert_true(kneed_needed_by(need("CRYPTO_SHA1"), &ao)); /* the default hmac(sha1) */
	assert_true(kneed_needed_by(need("CRYPTO_HMAC"), &ao));
}

/* esp4_offload: built in costs esp-null, absent costs esp-null-gso, a module serves both */
static void offload_must_stay_a_module(void **state)
{
	struct scenario off = esp("ecb(cipher_null)", "digest_null", "", false);
	struct scenario on = esp("ecb(cipher_null)", "digest_null", "", true);
	const struct kneed *k = need("INET_ESP_OFFLOAD");
	struct kconfig y, m, n;
	char why[128];

	(void)state;
	assert_int_equal(read_text("CONFIG_INET_ESP_OFFLOAD=y\n", &y), 0);
	assert_int_equal(read_text("CONFIG_INET_ESP_OFFLOAD=m\n", &m), 0);
	assert_int_equal(read_text("CONFIG_X=y\n", &n), 0);
	assert_false(kneed_ok(&y, k, &off, why, sizeof(why)));
	assert_non_null(strstr(why, "cannot be unloaded"));
	assert_true(kneed_ok(&y, k, &on, why, sizeof(why)));
	assert_true(kneed_ok(&m, k, &off, why, sizeof(why)));
	assert_true(kneed_ok(&m, k, &on, why, sizeof(why)));
	assert_true(kneed_ok(&n, k, &off, why, sizeof(why)));
	assert_false(kneed_ok(&n, k, &on, why, sizeof(why)));
	assert_false(kneed_ok(&y, k, NULL, why, sizeof(why)));
	kconfig_free(&y);
	kconfig_free(&m);
	kconfig_free(&n);
}

/* What kernel show prints: the boot options cost every run, the rest name their scenarios. */
static void report_names_costs(void **state)
{
	struct scenario scs[2] = { esp("ecb(cipher_null)", "digest_null", "", false), { .name = "tcp-ao" } };
	struct kconfig kc;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int costly;

	(void)state;
	strcpy(scs[0].name, "esp-null");
	strcpy(scs[1].tcp_auth.method, "ao");
	assert_int_equal(read_text("CONFIG_SERIAL_8250=y\nCONFIG_INET_ESP=y\nCONFIG_INET_ESP_OFFLOAD=y\n", &kc), 0);
	f = open_memstream(&buf, &len);
	costly = kbuild_report_missing(&kc, scs, 2, f, KREPORT_ALL);
	fclose(f);
	assert_non_null(strstr(buf, "CONFIG_SERIAL_8250_CONSOLE not set"));
	assert_non_null(strstr(buf, "every run"));
	assert_null(strstr(buf, "CONFIG_SERIAL_8250 not set"));
	assert_non_null(strstr(buf, "CONFIG_INET_ESP_OFFLOAD is built in (=y), so it cannot be unloaded"));
	assert_non_null(strstr(buf, "CONFIG_TCP_AO not set (TCP-AO (RFC 5925)): costs tcp-ao\n"));
	assert_null(strstr(buf, "CONFIG_INET_ESP not")); /* it is there */
	assert_true(costly > 2);
	free(buf);

	f = open_memstream(&buf, &len);
	costly = kbuild_report_missing(&kc, scs, 2, f, KREPORT_BOOT);
	fclose(f);
	assert_null(strstr(buf, "TCP_AO")); /* boot only */
	assert_true(costly >= 1);
	free(buf);
	kconfig_free(&kc);
}

/* The build's log in a tree another user may own: a symbolic or hard link to another file is refused, that file untouched. */
static void build_log_never_through_a_link(void **state)
{
	(void)state;
	char dir[] = "/tmp/ipsecperf-unit-XXXXXX", victim[128], log[128], *text;

	assert_non_null(mkdtemp(dir));
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(log, sizeof(log), "%s/ipsecperf-build.log", dir);
	assert_int_equal(file_write(victim, "root's\n", 7), 0);
	for (int append = 0; append < 2; append++) {
		for (int hard = 0; hard < 2; hard++) {
			unlink(log);
			assert_int_equal(hard ? link(victim, log) : symlink(victim, log), 0);
			kbuild_make((char *[]){ "echo", "from make", NULL }, log, append, true, "test");
			text = file_read(victim, NULL);
			assert_string_equal(text, "root's\n");
			free(text);
		}
	}
	/* a plain log of its own is written */
	unlink(log);
	assert_int_equal(kbuild_make((char *[]){ "echo", "from make", NULL }, log, false, true, "test"), 0);
	text = file_read(log, NULL);
	assert_non_null(strstr(text, "from make"));
	free(text);
	assert_int_equal(rm_rf(dir), 0);
}

/* A folder with what kbuild_check looks for in an x86 kernel tree. */
static void fake_tree(const char *dir)
{
	char p[256];

	for (const char *const *d = (const char *const[]){ "scripts", "arch", "arch/x86", NULL }; *d; d++) {
		snprintf(p, sizeof(p), "%s/%s", dir, *d);
		assert_int_equal(mkdir(p, 0755), 0);
	}
	for (const char *const *f = (const char *const[]){ "Makefile", "Kconfig", "scripts/config", "arch/x86/Kconfig",
							    NULL }; *f; f++) {
		snprintf(p, sizeof(p), "%s/%s", dir, *f);
		assert_int_equal(file_write(p, "x\n", 2), 0);
	}
}

/* A tree someone else owns or can write runs their code as root when it is built: refused, with the fix. */
static void tree_must_be_roots(void **state)
{
	char top[] = "/tmp/ipsecperf-unit-XXXXXX", tree[128], why[4400];
	struct kbuild b = { .jobs = 1 };

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_non_null(mkdtemp(top));
	snprintf(tree, sizeof(tree), "%s/linux", top);
	assert_int_equal(mkdir(tree, 0755), 0);
	fake_tree(tree);
	b.tree = tree;
	assert_int_equal(kbuild_check(&b, why, sizeof(why)), 0);
	assert_int_equal(chown(tree, 65534, 65534), 0);
	assert_int_equal(kbuild_check(&b, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "is owned by uid 65534"));
	assert_non_null(strstr(why, "chown -R root:root"));
	assert_int_equal(chown(tree, 0, 0), 0);
	assert_int_equal(chmod(tree, 0777), 0);
	assert_int_equal(kbuild_check(&b, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "can be written by its group or others"));
	/* a folder above it that others can write (not sticky): they could swap the tree */
	assert_int_equal(chmod(tree, 0755), 0);
	assert_int_equal(chmod(top, 0777), 0);
	assert_int_equal(kbuild_check(&b, why, sizeof(why)), -1);
	assert_non_null(strstr(why, top));
	assert_int_equal(chmod(top, 01777), 0); /* sticky, as /tmp: fine */
	assert_int_equal(kbuild_check(&b, why, sizeof(why)), 0);

	/* run --kernel: a build folder of someone else's is refused before anything of it is read */
	struct vm_kernel k;
	char p[256];

	snprintf(p, sizeof(p), "%s/arch/x86/boot", tree);
	assert_int_equal(mkdir_p(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/arch/x86/boot/bzImage", tree);
	assert_int_equal(file_write(p, "x", 1), 0);
	assert_int_equal(chown(tree, 65534, 65534), 0);
	assert_int_equal(vm_kernel_resolve(tree, &k), -1);
	assert_int_equal(rm_rf(top), 0);
}

/* How many times something opened path since the watch wd was set (IN_OPEN). */
static int opens(int ino)
{
	char buf[4096];
	ssize_t n = read(ino, buf, sizeof(buf));
	int k = 0;

	for (ssize_t off = 0; n > 0 && off < n; k++)
		off += sizeof(struct inotify_event) + ((struct inotify_event *)(buf + off))->len;
	return k;
}

/*
 * The build lock in a folder others may write: a device (a copy of
 * /dev/null), a FIFO, a symlink or a hard link planted there is refused
 * and never opened (inotify sees no open); a plain file is taken.
 */
static void build_lock_type_checked_first(void **state)
{
	char dir[] = "/tmp/ipsecperf-unit-XXXXXX", lock[128], victim[128];
	int ino = inotify_init1(IN_NONBLOCK), fd;

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_non_null(mkdtemp(dir));
	snprintf(lock, sizeof(lock), "%s/ipsecperf-build.lock", dir);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	assert_int_equal(file_write(victim, "root's\n", 7), 0);
	for (int kind = 0; kind < 4; kind++) {
		unlink(lock);
		if (kind == 0)
			assert_int_equal(mknod(lock, S_IFCHR | 0600, makedev(1, 3)), 0);
		else if (kind == 1)
			assert_int_equal(mkfifo(lock, 0600), 0);
		else if (kind == 2)
			assert_int_equal(symlink(victim, lock), 0);
		else
			assert_int_equal(link(victim, lock), 0);
		assert_true(inotify_add_watch(ino, kind == 2 ? victim : lock, IN_OPEN) >= 0);
		opens(ino);
		fd = kbuild_lock(dir, "test", false);
		if (fd >= 0)
			close(fd);
		assert_int_equal(fd, -1);
		assert_int_equal(opens(ino), 0);
	}
	unlink(lock);
	fd = kbuild_lock(dir, "test", false);
	assert_true(fd >= 0);
	close(fd);
	close(ino);
	assert_int_equal(rm_rf(dir), 0);
}

/*
 * kernel config writes ipsecperf-guest.config into the build folder: a
 * symlink planted there is not written through (the file it names is
 * untouched). make is a stand-in that fails at once.
 */
static void guest_config_not_through_a_link(void **state)
{
	char top[] = "/tmp/ipsecperf-unit-XXXXXX", tree[128], bin[128], path[300], victim[128], *text;
	const char *old_path = getenv("PATH");
	struct kbuild b = { .jobs = 1, .quiet = true };

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_non_null(mkdtemp(top));
	snprintf(tree, sizeof(tree), "%s/linux", top);
	snprintf(bin, sizeof(bin), "%s/bin", top);
	snprintf(victim, sizeof(victim), "%s/victim", top);
	assert_int_equal(mkdir(tree, 0755), 0);
	assert_int_equal(mkdir(bin, 0755), 0);
	fake_tree(tree);
	snprintf(path, sizeof(path), "%s/make", bin);
	assert_int_equal(file_write(path, "#!/bin/sh\nexit 1\n", 18), 0);
	assert_int_equal(chmod(path, 0755), 0);
	assert_int_equal(file_write(victim, "root's\n", 7), 0);
	snprintf(path, sizeof(path), "%s/ipsecperf-guest.config", tree);
	assert_int_equal(symlink(victim, path), 0);
	snprintf(path, sizeof(path), "%s:%s", bin, old_path ? old_path : "/usr/bin:/bin");
	setenv("PATH", path, 1);
	b.tree = tree;
	if (!exec_have("gcc") || !exec_have("flex") || !exec_have("bison") || !exec_have("bc") || !exec_have("pahole")) {
		setenv("PATH", old_path, 1);
		rm_rf(top);
		skip();
	}
	assert_int_equal(kbuild_config(&b), EXIT_FAIL);
	setenv("PATH", old_path, 1);
	text = file_read(victim, NULL);
	assert_string_equal(text, "root's\n");
	free(text);
	assert_int_equal(rm_rf(top), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_values_and_skips_comments),
		cmocka_unit_test(crypto_follows_the_algorithm_names),
		cmocka_unit_test(tcp_auth_options),
		cmocka_unit_test(offload_must_stay_a_module),
		cmocka_unit_test(report_names_costs),
		cmocka_unit_test(build_log_never_through_a_link),
		cmocka_unit_test(tree_must_be_roots),
		cmocka_unit_test(build_lock_type_checked_first),
		cmocka_unit_test(guest_config_not_through_a_link),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
