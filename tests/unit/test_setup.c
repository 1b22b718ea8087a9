// SPDX-License-Identifier: GPL-2.0
/*
 * The set-up as found (collector/host/setup.h): /proc/crypto's driver for
 * an SA's algorithm, the CONFIG_ options of a config, the conditions that
 * make figures vary, another host's set-up kept as data; and the median's
 * interval every report gives (analyze/stats.h).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "setup.h"
#include "stats.h"

/* Two instances of gcm's AEAD, one in use (refcnt 2); a cipher; an unused rfc4106. */
static const char proc_crypto[] =
	"name         : seqiv(rfc4106(gcm(aes)))\n"
	"driver       : seqiv(rfc4106-gcm-aesni)\n"
	"module       : seqiv\n"
	"priority     : 400\n"
	"refcnt       : 3\n"
	"type         : aead\n"
	"\n"
	"name         : rfc4106(gcm(aes))\n"
	"driver       : rfc4106-gcm-aesni\n"
	"module       : aesni_intel\n"
	"priority     : 400\n"
	"refcnt       : 2\n"
	"\n"
	"name         : rfc4106(gcm(aes))\n"
	"driver       : rfc4106(gcm_base(ctr(aes-generic),ghash-generic))\n"
	"module       : kernel\n"
	"priority     : 100\n"
	"refcnt       : 1\n"
	"\n"
	"name         : aes\n"
	"driver       : aes-aesni\n"
	"module       : aesni_intel\n"
	"priority     : 300\n"
	"refcnt       : 5\n";

static void crypto_in_use(void **state)
{
	json_t *a = setup_crypto_parse(proc_crypto, "rfc4106(gcm(aes))");

	(void)state;
	/* the outermost first; the entry not in use is left out */
	assert_int_equal(json_array_size(a), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(a, 0), "driver")),
			    "seqiv(rfc4106-gcm-aesni)");
	assert_string_equal(json_string_value(json_object_get(json_array_get(a, 1), "module")), "aesni_intel");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(a, 1), "priority")), 400);
	json_decref(a);
	a = setup_crypto_parse(proc_crypto, "authenc(digest_null,ecb(cipher_null))");
	assert_int_equal(json_array_size(a), 0);
	json_decref(a);
	/* no trailing newline, an entry cut short, an empty algorithm */
	a = setup_crypto_parse("name : x(aes)\nrefcnt : 2\ndriver : d", "aes");
	assert_int_equal(json_array_size(a), 1);
	json_decref(a);
	a = setup_crypto_parse(proc_crypto, "");
	assert_int_equal(json_array_size(a), 0);
	json_decref(a);
}

static void config_options(void **state)
{
	json_t *o = setup_config_options("# CONFIG_INET_ESP is not set\nCONFIG_XFRM_OFFLOAD=y\n"
					 "CONFIG_INET_ESP_OFFLOAD=m\nCONFIG_HZ=250\nCONFIG_HZ_250=y\nXCONFIG_TCP_AO=y\n");

	(void)state;
	assert_string_equal(json_string_value(json_object_get(o, "CONFIG_INET_ESP")), "n");
	assert_string_equal(json_string_value(json_object_get(o, "CONFIG_XFRM_OFFLOAD")), "y");
	assert_string_equal(json_string_value(json_object_get(o, "CONFIG_INET_ESP_OFFLOAD")), "m");
	/* CONFIG_HZ, not CONFIG_HZ_250; and only at a line's start */
	assert_string_equal(json_string_value(json_object_get(o, "CONFIG_HZ")), "250");
	assert_string_equal(json_string_value(json_object_get(o, "CONFIG_TCP_AO")), "n");
	json_decref(o);
}

/* The warnings setup_conditions gives, joined with '|'. */
static void conditions_of(const char *setup_json, int a, int b, char *out, size_t len)
{
	json_t *s = json_loads(setup_json, 0, NULL), *w = setup_conditions(s, a, b, " on peer"), *v;
	size_t i;

	out[0] = '\0';
	json_array_foreach(w, i, v)
		snprintf(out + strlen(out), len - strlen(out), "%s|", json_string_value(v));
	json_decref(w);
	json_decref(s);
}

static void conditions(void **state)
{
	char w[4096];

	(void)state;
	conditions_of("{\"cpu\": {\"governor\": \"performance\", \"boost\": false}, \"busy_pct\": 2}", 0, 1, w,
		      sizeof(w));
	assert_string_equal(w, "");
	conditions_of("{\"cpu\": {\"governor\": \"performance+powersave\", \"boost\": true}}", -1, -1, w, sizeof(w));
	assert_non_null(strstr(w, "governor on peer is performance+powersave"));
	assert_non_null(strstr(w, "boost (turbo) on peer is on"));
	/* irqbalance matters where there is a NIC */
	conditions_of("{\"irqbalance\": true, \"nics\": []}", -1, -1, w, sizeof(w));
	assert_string_equal(w, "");
	conditions_of("{\"irqbalance\": true, \"nics\": [{\"dev\": \"eth0\"}]}", -1, -1, w, sizeof(w));
	assert_non_null(strstr(w, "irqbalance runs on peer"));
	/* SMT: 0 and 2 share a core, 0 and 1 do not; ranges too */
	conditions_of("{\"cpu\": {\"siblings\": {\"0\": \"0,2\", \"1\": \"1,3\"}}}", 0, 2, w, sizeof(w));
	assert_non_null(strstr(w, "(0 and 2) are SMT siblings"));
	conditions_of("{\"cpu\": {\"siblings\": {\"0\": \"0,2\"}}}", 0, 1, w, sizeof(w));
	assert_string_equal(w, "");
	conditions_of("{\"cpu\": {\"siblings\": {\"4\": \"4-5\"}}}", 4, 5, w, sizeof(w));
	assert_non_null(strstr(w, "SMT siblings"));
	conditions_of("{\"busy_pct\": 37.4}", -1, -1, w, sizeof(w));
	assert_non_null(strstr(w, "busy before the run (37%"));
}

static void sanitize(void **state)
{
	json_t *in = json_pack("{s:s, s:[i, b, n, f], s:{s:s}}", "a\x1b[2J", "line\nfeed\x07", "list", 1, 1, 2.5,
			       "deep", "k", "v"), *out, *deep = json_array();

	(void)state;
	out = setup_sanitize(in);
	assert_non_null(json_object_get(out, "a?[2J"));
	assert_string_equal(json_string_value(json_object_get(out, "a?[2J")), "line feed?");
	assert_int_equal(json_array_size(json_object_get(out, "list")), 4);
	json_decref(out);
	/* nested past 8: what is deeper is left out */
	for (int i = 0; i < 12; i++)
		deep = json_pack("[o]", deep);
	json_object_set_new(in, "deep", deep);
	out = setup_sanitize(in);
	char *text = json_dumps(json_object_get(out, "deep"), JSON_COMPACT);

	assert_string_equal(text, "[[[[[[[[]]]]]]]]");
	free(text);
	json_decref(out);
	json_decref(in);
}

static void median_interval(void **state)
{
	double x5[] = { 5, 1, 4, 2, 3 }, x9[] = { 9, 1, 8, 2, 7, 3, 6, 4, 5 }, lo, hi, cover;

	(void)state;
	/* 5 runs: min-max, 1 - 2/32 */
	cover = stats_median_interval(x5, 5, &lo, &hi);
	assert_true(fabs(cover - 0.9375) < 1e-12);
	assert_true(lo == 1 && hi == 5);
	/* 9 runs: the second and eighth, 98% */
	cover = stats_median_interval(x9, 9, &lo, &hi);
	assert_true(lo == 2 && hi == 8 && cover > 0.95);
	assert_true(isnan(stats_median_interval(x5, 1, &lo, &hi)) && isnan(lo));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(crypto_in_use), cmocka_unit_test(config_options), cmocka_unit_test(conditions),
		cmocka_unit_test(sanitize),      cmocka_unit_test(median_interval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
