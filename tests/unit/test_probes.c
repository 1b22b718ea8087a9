// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for probes/: call-site finding over code bytes, kallsyms
 * parsing and ranges, reading /proc/kcore's ELF layout, the per-packet
 * bases and ratios, and the --probe-overhead ratio.
 */
#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "ksyms.h"
#include "perfcount.h"
#include "probes.h"

#define BASE 0xffffffff81400000ull
#define MEMMOVE 0xffffffff82261600ull

static void put_rel(uint8_t *code, size_t at, uint8_t op, uint64_t target)
{
	int32_t rel = (int32_t)(target - (BASE + at + 5));

	code[at] = op;
	memcpy(code + at + 1, &rel, 4); /* x86 is little-endian, as is this host */
}

static void test_call_sites(void **state)
{
	uint8_t code[96];
	uint64_t targets[] = { MEMMOVE };
	size_t offs[8];

	(void)state;
	memset(code, 0x90, sizeof(code));
	put_rel(code, 4, 0xe8, MEMMOVE);          /* call memmove: found */
	put_rel(code, 12, 0xe8, MEMMOVE + 0x40);  /* call something after it: not */
	put_rel(code, 20, 0xe8, MEMMOVE - 16);    /* call __pfx_memmove / a thunk: found */
	put_rel(code, 28, 0xe8, MEMMOVE - 17);    /* the function before: not */
	put_rel(code, 36, 0xe9, MEMMOVE);         /* tail jump to memmove: found */
	code[44] = 0x48; code[45] = 0xb8;         /* mov $imm64, %rax holding an e8 byte */
	code[46] = 0xe8; code[47] = 0x01; code[48] = 0x02; code[49] = 0x03; code[50] = 0x04;
	put_rel(code, 60, 0xe8, MEMMOVE + 1);     /* into memmove, not its start: not */
	put_rel(code, 91, 0xe8, MEMMOVE);         /* fits exactly at the end: found */

	size_t n = find_call_sites(code, sizeof(code), BASE, targets, 1, offs, 8);

	assert_int_equal(n, 4);
	assert_int_equal(offs[0], 4);
	assert_int_equal(offs[1], 20);
	assert_int_equal(offs[2], 36);
	assert_int_equal(offs[3], 91);
	/* a call cut off by the end of the range is not read past it */
	assert_int_equal(find_call_sites(code, 95, BASE, targets, 1, offs, 8), 3);
	/* more sites than room: all counted, max stored */
	assert_int_equal(find_call_sites(code, sizeof(code), BASE, targets, 1, offs, 2), 4);
	assert_int_equal(offs[1], 20);
	/* a backward call (negative rel32) */
	uint64_t back[] = { BASE - 0x1000 };

	memset(code, 0x90, sizeof(code));
	put_rel(code, 10, 0xe8, BASE - 0x1000);
	n = find_call_sites(code, sizeof(code), BASE, back, 1, offs, 8);
	assert_int_equal(n, 1);
	assert_int_equal(offs[0], 10);
	assert_int_equal(find_call_sites(code, 3, BASE, back, 1, offs, 8), 0);
}

static void test_ksyms(void **state)
{
	char *text = strdup("ffffffff81e99910 T skb_segment\n"
			    "ffffffffc0a01000 t esp_output_tail\t[esp4]\n"
			    "ffffffffc0a00800 t esp_alloc_tmp\t[esp4]\n"
			    "ffffffff81e99900 t __pfx_skb_segment\n"
			    "ffffffff81e9b000 T skb_segment_list\n"
			    "ffffffff822616c0 T memmove\n"
			    "ffffffff822616c0 T __memmove\n"
			    "ffffffff82261a00 D some_data\n"
			    "ffffffffc0a01400 t esp_output\t[esp4]\n"
			    "ffffffffc0b00000 t esp_output\t[other]\n"
			    "garbage line\n");
	struct ksyms k;
	uint64_t lo, hi;
	const struct ksym *s;

	(void)state;
	assert_int_equal(ksyms_parse(&k, text), 0);
	assert_int_equal(k.n, 10);
	for (size_t i = 1; i < k.n; i++)
		assert_true(k.s[i - 1].addr <= k.s[i].addr);
	s = ksyms_find(&k, "esp_output_tail");
	assert_non_null(s);
	assert_string_equal(s->mod, "esp4");
	assert_null(ksyms_find(&k, "some_data")); /* data, not text */
	assert_null(ksyms_find(&k, "esp_output_head"));
	assert_int_equal(ksyms_count(&k, "esp_output"), 2);
	assert_null(ksyms_find(&k, "skb_segment")->mod);
	assert_int_equal(ksyms_range(&k, "skb_segment", &lo, &hi), 0);
	assert_true(lo == 0xffffffff81e99910ull && hi == 0xffffffff81e9b000ull);
	assert_int_equal(ksyms_range(&k, "esp_alloc_tmp", &lo, &hi), 0);
	assert_true(hi == 0xffffffffc0a01000ull);
	/* memmove and __memmove share an address: the range ends at the next higher one */
	assert_int_equal(ksyms_range(&k, "memmove", &lo, &hi), 0);
	assert_true(hi == 0xffffffff82261a00ull);
	/* a gap of more than 1 MiB: an assumed 64 KiB */
	assert_int_equal(ksyms_range(&k, "skb_segment_list", &lo, &hi), 0);
	assert_true(hi == lo + 65536);
	/* the last symbol: an assumed 64 KiB */
	assert_int_equal(ksyms_range(&k, "esp_output", &lo, &hi), 0);
	assert_true(lo == 0xffffffffc0a01400ull && hi == 0xffffffffc0b00000ull);
	assert_int_equal(ksyms_range(&k, "nope", &lo, &hi), -1);
	ksyms_free(&k);

	/* kptr_restrict: every address zero */
	assert_int_equal(ksyms_parse(&k, strdup("0000000000000000 T memmove\n0000000000000000 t x\n")), -1);
	ksyms_free(&k);
}

static void test_kcore(void **state)
{
	char path[] = "/tmp/ipsecperf-test-kcore-XXXXXX";
	int fd = mkstemp(path);
	Elf64_Ehdr eh = { 0 };
	Elf64_Phdr ph[2] = { 0 };
	uint8_t data[64], buf[8];
	char why[256];

	(void)state;
	assert_true(fd >= 0);
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_type = ET_CORE;
	eh.e_phoff = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = 2;
	ph[0].p_type = PT_NOTE;
	ph[1].p_type = PT_LOAD;
	ph[1].p_vaddr = BASE;
	ph[1].p_offset = 4096;
	ph[1].p_memsz = ph[1].p_filesz = sizeof(data);
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)i;
	assert_true(write(fd, &eh, sizeof(eh)) == sizeof(eh));
	assert_true(write(fd, ph, sizeof(ph)) == sizeof(ph));
	assert_true(pwrite(fd, data, sizeof(data), 4096) == sizeof(data));
	close(fd);

	assert_int_equal(kcore_read(path, BASE + 10, buf, sizeof(buf), why, sizeof(why)), 0);
	assert_int_equal(buf[0], 10);
	assert_int_equal(buf[7], 17);
	/* past the segment's end */
	assert_int_equal(kcore_read(path, BASE + 60, buf, sizeof(buf), why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not mapped"));
	assert_int_equal(kcore_read("/nonexistent/kcore", BASE, buf, 1, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "CONFIG_PROC_KCORE"));
	unlink(path);
}

static void test_bases(void **state)
{
	json_t *sa = json_loads("[{\"spi\":\"0x1\",\"dir\":\"out\",\"packets\":100,\"wire_packets\":2900},"
				"{\"spi\":\"0x2\",\"dir\":\"in\",\"packets\":7,\"wire_packets\":7},"
				"{\"spi\":\"0x3\",\"dir\":\"out\",\"packets\":50,\"wire_packets\":50}]", 0, NULL);
	struct probe_bases b;

	(void)state;
	probe_bases_from_sa(&b, sa, true, 3000);
	assert_true(b.has_esp && b.has_super && b.has_tcp);
	assert_int_equal(b.esp_packets, 2950);
	assert_int_equal(b.superpackets, 150);
	assert_int_equal(b.tcp_segments, 3000);
	assert_true(probe_ratio(2950, b.esp_packets, b.has_esp) == 1.0);
	assert_true(probe_ratio(150, b.esp_packets, true) > 0.0508 && probe_ratio(150, 2950, true) < 0.0509);
	assert_true(probe_ratio(5, 0, true) < 0);  /* no packets: no ratio */
	assert_true(probe_ratio(5, 10, false) < 0);
	json_decref(sa);

	/* a clear scenario: no SAs */
	sa = json_array();
	probe_bases_from_sa(&b, sa, false, 0);
	assert_false(b.has_esp || b.has_super || b.has_tcp);
	probe_bases_from_sa(&b, NULL, true, 10);
	assert_true(b.has_tcp && !b.has_esp);
	json_decref(sa);
}

static void test_sa_window(void **state)
{
	json_t *open = json_loads("[{\"spi\":\"0x1\",\"dir\":\"out\",\"netns\":\"tx\",\"packets\":10,\"bytes\":100,\"wire_packets\":12},"
				  "{\"spi\":\"0x1\",\"dir\":\"in\",\"netns\":\"rx\",\"packets\":9,\"bytes\":90,\"wire_packets\":9}]", 0, NULL);
	json_t *close = json_loads("[{\"spi\":\"0x1\",\"dir\":\"out\",\"netns\":\"tx\",\"src\":\"a\",\"packets\":15,\"bytes\":160,\"wire_packets\":40},"
				   "{\"spi\":\"0x1\",\"dir\":\"in\",\"netns\":\"rx\",\"packets\":20,\"bytes\":200,\"wire_packets\":20},"
				   "{\"spi\":\"0x2\",\"dir\":\"out\",\"netns\":\"rx\",\"packets\":3,\"bytes\":30,\"wire_packets\":3}]", 0, NULL);
	json_t *w;

	(void)state;
	assert_non_null(open);
	assert_non_null(close);
	w = probe_sa_window(open, close);
	assert_int_equal(json_array_size(w), 3);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(w, 0), "packets")), 5);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(w, 0), "bytes")), 60);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(w, 0), "wire_packets")), 28);
	assert_string_equal(json_string_value(json_object_get(json_array_get(w, 0), "src")), "a");
	/* matched by direction too, not only SPI */
	assert_int_equal(json_integer_value(json_object_get(json_array_get(w, 1), "packets")), 11);
	/* not there at the open: kept as read at the close */
	assert_int_equal(json_integer_value(json_object_get(json_array_get(w, 2), "packets")), 3);
	json_decref(w);
	json_decref(open);
	json_decref(close);
}

static void test_dev_filter(void **state)
{
	char buf[256];

	(void)state;
	assert_int_equal(perfcount_dev_filter(buf, sizeof(buf), (const char *const[]){ "ipp-tx", "ipp-rx", NULL }, NULL), 0);
	assert_string_equal(buf, "(name == \"ipp-tx\" || name == \"ipp-rx\")");
	assert_int_equal(perfcount_dev_filter(buf, sizeof(buf), (const char *const[]){ "eth0", NULL }, "gso_size != 0"), 0);
	assert_string_equal(buf, "(name == \"eth0\") && gso_size != 0");
	assert_int_equal(perfcount_dev_filter(buf, sizeof(buf), NULL, "gso_size != 0"), 0);
	assert_string_equal(buf, "gso_size != 0");
	assert_int_equal(perfcount_dev_filter(buf, sizeof(buf), NULL, NULL), 0);
	assert_string_equal(buf, "");
	assert_int_equal(perfcount_dev_filter(buf, 10, (const char *const[]){ "ipp-tx", NULL }, NULL), -1);
}

static void test_overhead_ratio(void **state)
{
	json_t *on = json_pack("[f,f,f]", 9.0, 10.0, 100.0), *off = json_pack("[f,f]", 10.0, 10.5);

	(void)state;
	assert_true(probe_overhead_ratio(on, off) > 0.9756 && probe_overhead_ratio(on, off) < 0.9757);
	json_array_clear(off);
	assert_true(probe_overhead_ratio(on, off) < 0);
	json_decref(on);
	json_decref(off);

	json_t *u = probes_counters_unavailable("why");

	assert_int_equal(json_object_size(u), IPP_NR_COUNTERS);
	assert_true(json_is_null(json_object_get(json_object_get(u, "xmit_segs"), "count")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(u, "esp_output"), "symbol")),
			    "unavailable: why");
	json_decref(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_call_sites),
		cmocka_unit_test(test_ksyms),
		cmocka_unit_test(test_kcore),
		cmocka_unit_test(test_bases),
		cmocka_unit_test(test_sa_window),
		cmocka_unit_test(test_dev_filter),
		cmocka_unit_test(test_overhead_ratio),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
