// SPDX-License-Identifier: GPL-2.0
/*
 * Whether a module is built in, from the kernel's own lists
 * (modules.builtin, /proc/kallsyms: collector/host/kmod.c), and the check that a
 * run with esp-gso = off did not take the ESP GSO path all the same
 * (collector/run/ipsec.c: the probes' esp_output and esp_output_tail, else the SA's
 * packets against its sequence numbers).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ipsec.h"
#include "kmod.h"

static void test_builtin_list(void **state)
{
	const char *text = "kernel/net/ipv4/esp4_offload.ko\n"
			   "kernel/net/ipv4/xfrm4_tunnel.ko\n"
			   "kernel/drivers/net/virtio-net.ko";

	(void)state;
	assert_true(kmod_builtin_list_has(text, "esp4_offload"));
	assert_true(kmod_builtin_list_has(text, "esp4-offload")); /* '-' and '_' are one */
	assert_true(kmod_builtin_list_has(text, "virtio_net"));  /* the last line, without its newline */
	assert_false(kmod_builtin_list_has(text, "esp4"));        /* not a prefix */
	assert_false(kmod_builtin_list_has(text, "offload"));     /* not a suffix */
	assert_false(kmod_builtin_list_has(text, "esp6_offload"));
	assert_false(kmod_builtin_list_has("", "esp4_offload"));
	assert_false(kmod_builtin_list_has("kernel/net/ipv4/esp4_offload.ko.xz\n", "esp4_offload"));
	assert_true(kmod_builtin_list_has("esp4_offload.ko\n", "esp4_offload")); /* no folder */
}

static int owner_of(const char *text, const char *sym, char *owner, size_t len)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc;

	assert_non_null(f);
	rc = kmod_kallsyms_owner(f, sym, owner, len);
	fclose(f);
	return rc;
}

/* What another host asks about is a module's name, never an option of modprobe nor a path under /sys/module. */
static void test_name_ok(void **state)
{
	static const char *const yes[] = { "esp4", "esp4_offload", "xfrm-user", "aes_ni_intel", "x" };
	static const char *const no[] = { "", "-v", "--config=/etc/shadow", "../../../etc", "esp4/..", "a b", "esp4\n",
					  "e$p", "01234567890123456789012345678901234567890123456789012345" };

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		assert_true(kmod_name_ok(yes[i]));
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (kmod_name_ok(no[i]))
			fail_msg("kmod_name_ok(\"%s\")", no[i]);
	/* and kmod_state takes a name it refuses for a module that is not there, looking nowhere */
	assert_int_equal(kmod_state("../../../etc", NULL), KMOD_MISSING);
	assert_int_equal(kmod_state("-v", NULL), KMOD_MISSING);
}

static void test_kallsyms_owner(void **state)
{
	const char *vmlinux = "ffffffff81000000 T _stext\n"
			      "ffffffff81a00010 t esp4_gso_segment_x\n"
			      "ffffffff81a00020 t esp4_gso_segment\n"
			      "ffffffff81a00040 t esp_xmit\n";
	const char *module = "ffffffff81000000 T _stext\n"
			     "ffffffffc0a00020 t esp4_gso_segment\t[esp4_offload]\n";
	const char *lto = "ffffffff81a00020 t esp4_gso_segment.llvm.1234\n";
	char owner[64] = "x";

	(void)state;
	assert_int_equal(owner_of(vmlinux, "esp4_gso_segment", owner, sizeof(owner)), 1);
	assert_string_equal(owner, ""); /* vmlinux's: built in */
	assert_int_equal(owner_of(module, "esp4_gso_segment", owner, sizeof(owner)), 1);
	assert_string_equal(owner, "esp4_offload");
	assert_int_equal(owner_of(lto, "esp4_gso_segment", owner, sizeof(owner)), 1);
	assert_string_equal(owner, "");
	assert_int_equal(owner_of(vmlinux, "esp6_gso_segment", owner, sizeof(owner)), 0);
	assert_int_equal(owner_of("garbage\n\n ffff t\n", "esp4_gso_segment", owner, sizeof(owner)), 0);
	assert_int_equal(owner_of("", "esp4_gso_segment", owner, sizeof(owner)), 0);
}

static json_t *rec_of(const char *text)
{
	json_error_t e;
	json_t *r = json_loads(text, 0, &e);

	if (!r)
		fail_msg("bad test JSON: %s", e.text);
	return r;
}

static const struct ipsec_config gso_off = { .on = true, .esp_gso = false };
static const struct ipsec_config gso_on = { .on = true, .esp_gso = true };

/* the four SAs of a run: the data's out SA first */
#define SAS(key, p, w)                                                                                              \
	"\"" key "\": [{\"spi\": \"0x00001000\", \"dir\": \"out\", \"packets\": " #p ", \"wire_packets\": " #w "},"   \
	"{\"spi\": \"0x00001000\", \"dir\": \"in\", \"packets\": " #w ", \"wire_packets\": " #w "},"                  \
	"{\"spi\": \"0x00002000\", \"dir\": \"out\", \"packets\": 9000, \"wire_packets\": 9000},"                     \
	"{\"spi\": \"0x00002000\", \"dir\": \"in\", \"packets\": 9000, \"wire_packets\": 9000}]"

static int check(const struct ipsec_config *c, const char *text, char *why, size_t len)
{
	json_t *r = rec_of(text);
	int rc;

	why[0] = '\0';
	rc = ipsec_path_check(c, r, why, len);
	json_decref(r);
	return rc;
}

static void test_path_check_sa(void **state)
{
	char why[512];

	(void)state;
	/* off the GSO path: one sequence number per packet */
	assert_int_equal(check(&gso_off, "{" SAS("sa", 20000, 20000) "}", why, sizeof(why)), 0);
	/* a packet split by the window's edges is not GSO */
	assert_int_equal(check(&gso_off, "{" SAS("sa", 20000, 20002) "}", why, sizeof(why)), 0);
	/* the GSO path: an SA packet is a GSO packet of many segments */
	assert_int_equal(check(&gso_off, "{" SAS("sa", 5000, 120000) "}", why, sizeof(why)), 1);
	assert_non_null(strstr(why, "esp-gso = off, but ESP took the GSO path"));
	assert_non_null(strstr(why, "SA 0x00001000 sent 120000 ESP packets for 5000"));
	assert_non_null(strstr(why, "CONFIG_INET_ESP_OFFLOAD=y"));
	/* the whole load, when the record has it, decides over the window */
	assert_int_equal(check(&gso_off, "{" SAS("sa_load", 20000, 20000) "," SAS("sa", 5000, 120000) "}", why,
			       sizeof(why)),
			 0);
	assert_int_equal(check(&gso_off, "{" SAS("sa_load", 5000, 120000) "," SAS("sa", 20000, 20000) "}", why,
			       sizeof(why)),
			 1);
	/* fewer sequence numbers than packets (cannot be GSO) */
	assert_int_equal(check(&gso_off, "{" SAS("sa", 20000, 100) "}", why, sizeof(why)), 0);
	/* esp-gso = on, or no IPsec: GSO is what it asks for, or beside the point */
	assert_int_equal(check(&gso_on, "{" SAS("sa", 5000, 120000) "}", why, sizeof(why)), 0);
	assert_int_equal(check(&(struct ipsec_config){ .on = false }, "{" SAS("sa", 5000, 120000) "}", why,
			       sizeof(why)),
			 0);
	/* nothing to go by */
	assert_int_equal(check(&gso_off, "{}", why, sizeof(why)), 0);
	assert_int_equal(check(&gso_off, "{\"sa\": 3, \"counters\": []}", why, sizeof(why)), 0);
}

static void test_path_check_probes(void **state)
{
	char why[512];

	(void)state;
	/* esp_output never ran, its tail did: esp_xmit's path, even where the SAs cannot tell (no GSO packets) */
	assert_int_equal(check(&gso_off,
			       "{\"counters\": {\"esp_output\": {\"count\": 0, \"count_load\": 0},"
			       "\"esp_output_tail\": {\"count\": 900, \"count_load\": 1000}}," SAS("sa", 1000, 1000) "}",
			       why, sizeof(why)),
			 1);
	assert_non_null(strstr(why, "esp_output_tail ran 1000 times, esp_output never"));
	/* off the GSO path: esp_output calls its tail */
	assert_int_equal(check(&gso_off,
			       "{\"counters\": {\"esp_output\": {\"count\": 900, \"count_load\": 1000},"
			       "\"esp_output_tail\": {\"count\": 900, \"count_load\": 1000}}," SAS("sa", 1000, 1000) "}",
			       why, sizeof(why)),
			 0);
	/* the window only (no count_load) */
	assert_int_equal(check(&gso_off,
			       "{\"counters\": {\"esp_output\": {\"count\": 0}, \"esp_output_tail\": {\"count\": 7}}}", why,
			       sizeof(why)),
			 1);
	/* unavailable counters (null) say nothing: IPv6 or no probes */
	assert_int_equal(check(&gso_off,
			       "{\"counters\": {\"esp_output\": {\"count\": null}, \"esp_output_tail\": {\"count\": 7}}}",
			       why, sizeof(why)),
			 0);
	assert_int_equal(check(&gso_off,
			       "{\"counters\": {\"esp_output\": {\"count\": 0}, \"esp_output_tail\": {\"count\": 0}}}", why,
			       sizeof(why)),
			 0);
	/* esp-null-gso: exactly this is expected */
	assert_int_equal(check(&gso_on,
			       "{\"counters\": {\"esp_output\": {\"count\": 0}, \"esp_output_tail\": {\"count\": 7}}}", why,
			       sizeof(why)),
			 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin_list),
		cmocka_unit_test(test_name_ok),
		cmocka_unit_test(test_kallsyms_owner),
		cmocka_unit_test(test_path_check_sa),
		cmocka_unit_test(test_path_check_probes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
