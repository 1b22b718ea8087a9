// SPDX-License-Identifier: GPL-2.0
/*
 * collector/kbuild/kconfig.c: reading a .config, which scenario needs which option
 * (from its algorithm names and features), what "satisfied" means for an
 * option that must stay a module, and what kernel show reports missing.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "files.h"
#include "kbuild.h"
#include "kbuild_int.h"
#include "kconfig.h"
#include "log.h"
#include "scenario.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_values_and_skips_comments),
		cmocka_unit_test(crypto_follows_the_algorithm_names),
		cmocka_unit_test(tcp_auth_options),
		cmocka_unit_test(offload_must_stay_a_module),
		cmocka_unit_test(report_names_costs),
		cmocka_unit_test(build_log_never_through_a_link),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
