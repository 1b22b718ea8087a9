// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for probes/: call-site finding over code bytes, kallsyms
 * parsing and ranges, reading /proc/kcore's ELF layout, the per-packet
 * bases and ratios, the --probe-overhead ratio, and the anchors of
 * inlined functions (DWARF of fixture_inline, built beside this test, and
 * their text form); whether a kernel's BTF lets esp_gro_merged tell a
 * decrypted packet (else it is unavailable, not 0).
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

#include <bpf/btf.h>
#include <fcntl.h>
#include <gelf.h>

#include "ipsecperf.skel.h"
#include "anchors.h"
#include "kcount.h"
#include "kdwarf.h"
#include "ksyms.h"
#include "perfcount.h"
#include "probes.h"
#include "probes_int.h"
#include "snmp.h"

#define BASE 0xffffffff81400000ull
#define MEMMOVE 0xffffffff82261600ull

static void put_rel(uint8_t *code, size_t at, uint8_t op, uint64_t target)
{
	int32_t rel = (int32_t)(target - (BASE + at + 5));

	code[at] = op;
	memcpy(code + at + 1, &rel, 4); /* x86 is little-endian, as is this host */
}

/*
 * The table of counters: every slot named once, every counter attached
 * somehow, and every program it names in the BPF object (opened, not loaded).
 */
static void test_counter_table(void **state)
{
	struct ipsecperf_bpf *skel = ipsecperf_bpf__open();

	(void)state;
	assert_non_null(skel);
	for (int c = 0; c < IPP_NR_COUNTERS; c++) {
		const struct probe_counter *pc = &probe_counters[c];

		assert_non_null(pc->name);
		for (int d = 0; d < c; d++)
			assert_string_not_equal(probe_counters[d].name, pc->name);
		if (pc->flags & PC_KPROBE)
			assert_true(pc->attach || pc->prog);
		else
			assert_true(pc->flags & (PC_KMEM | PC_XMIT));
		if (pc->prog && !bpf_object__find_program_by_name(skel->obj, pc->prog))
			fail_msg("counter %s: no program %s in ipsecperf.bpf.c", pc->name, pc->prog);
		assert_true(pc->bytes == 0 || (pc->bytes >= IPP_NR_COUNTERS && pc->bytes < IPP_NR_SLOTS));
	}
	assert_string_equal(probe_counters[IPP_ESP_OUTPUT].name, "esp_output");
	assert_string_equal(probe_counters[IPP_XMIT_SEGS].name, "xmit_segs");
	ipsecperf_bpf__destroy(skel);
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

/* The peer's counters and probe cost are rebuilt field by field: its own keys, types and text never reach the record. */
static void test_counters_taken(void **state)
{
	const char *sent_text =
		"{\"esp_output\": {\"count\": 7, \"per_packet\": 1.0, \"per_esp_packet\": 1, \"symbol\": \"kprobe \\u001b[31m\\u202eexe\","
		"  \"per_sa\": {\"0x0000abcd\": 7, \"../x\": 1, \"0x1\": 2, \"0x0000abce\": -3},"
		"  \"per_cpu\": [3, 4], \"per_cpu_load\": [5, -1],"
		"  \"evil\": {\"deep\": [[[\"\\u001b]0;x\\u0007\"]]]}, \"count_load\": \"9\"},"
		" \"xmit_skbs\": {\"count\": -5, \"per_packet\": \"x\", \"symbol\": 3,"
		"  \"kernel\": {\"count\": 4, \"symbol\": \"tx_packets\", \"x\": 1}},"
		" \"not_a_counter\": {\"count\": 1}}";
	const char *cost_text = "{\"runs\": 10, \"ns\": 2000, \"ns_per_run\": 200.0, \"extra\": \"\\u001b[2J\","
				"\"programs\": {\"esp_output\": {\"runs\": 10, \"ns\": 2000, \"ns_per_run\": 200.0, \"x\": 1},"
				" \"a b\": {\"runs\": 1}, \"../../x\": {\"runs\": 1}}}";
	json_t *sent = json_loads(sent_text, 0, NULL), *cost = json_loads(cost_text, 0, NULL), *c, *o, *u, *t;
	const char *name;

	(void)state;
	assert_non_null(sent);
	assert_non_null(cost);
	c = probes_counters_taken(sent);
	assert_int_equal(json_object_size(c), IPP_NR_COUNTERS);
	assert_null(json_object_get(c, "not_a_counter"));
	o = json_object_get(c, "esp_output");
	assert_int_equal(json_integer_value(json_object_get(o, "count")), 7);
	assert_true(json_is_real(json_object_get(o, "per_esp_packet")));
	assert_string_equal(json_string_value(json_object_get(o, "symbol")), "kprobe ?[31m???exe");
	assert_null(json_object_get(o, "evil"));
	assert_true(json_is_null(json_object_get(o, "count_load")));
	assert_int_equal(json_object_size(json_object_get(o, "per_sa")), 2);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(o, "per_sa"), "0x0000abcd")), 7);
	assert_true(json_is_null(json_object_get(json_object_get(o, "per_sa"), "0x0000abce")));
	/* per CPU: counts, or nothing (a negative count) */
	assert_int_equal(json_array_size(json_object_get(o, "per_cpu")), 2);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(o, "per_cpu"), 1)), 4);
	assert_true(json_is_null(json_object_get(o, "per_cpu_load")));
	o = json_object_get(c, "xmit_skbs");
	assert_true(json_is_null(json_object_get(o, "count")) && json_is_null(json_object_get(o, "per_packet")));
	assert_string_equal(json_string_value(json_object_get(o, "symbol")), "unavailable: the peer did not say");
	assert_int_equal(json_object_size(json_object_get(o, "kernel")), 2);
	o = json_object_get(c, "kmalloc_esp_output");
	assert_string_equal(json_string_value(json_object_get(o, "symbol")), "unavailable: the peer's agent did not count it");
	json_decref(c);
	t = probes_cost_taken(cost);
	assert_null(json_object_get(t, "extra"));
	assert_int_equal(json_object_size(json_object_get(t, "programs")), 1);
	assert_int_equal(json_object_size(json_object_get(json_object_get(t, "programs"), "esp_output")), 3);
	u = json_string("x");
	assert_null(probes_cost_taken(u));
	json_decref(u);
	json_decref(t);
	/* what this program sends is taken as it is */
	u = probes_counters_unavailable("no probe set");
	c = probes_counters_taken(u);
	json_object_foreach(u, name, o)
		assert_true(json_equal(o, json_object_get(c, name)));
	json_decref(c);
	json_decref(u);
	json_decref(sent);
	json_decref(cost);
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


static char fixture[4096]; /* fixture_inline, beside this program */

/* A function symbol's address (and size) in an ELF file; 0 if absent. */
static uint64_t elf_sym(Elf *elf, const char *name, size_t *size)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;

			if (gelf_getsym(d, (int)i, &s) && GELF_ST_TYPE(s.st_info) == STT_FUNC &&
			    !strcmp(elf_strptr(elf, sh.sh_link, s.st_name), name)) {
				if (size)
					*size = s.st_size;
				return s.st_value;
			}
		}
	}
	return 0;
}

/* len bytes of code at addr, from the section that holds it. */
static int elf_code(Elf *elf, uint64_t addr, uint8_t *buf, size_t len)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || addr < sh.sh_addr ||
		    addr + len > sh.sh_addr + sh.sh_size || !(d = elf_getdata(scn, NULL)))
			continue;
		memcpy(buf, (uint8_t *)d->d_buf + (addr - sh.sh_addr), len);
		return 0;
	}
	return -1;
}

/*
 * The ranges of the two inlined copies of inner() in outer(): the call
 * scan restricted to them finds exactly the call each copy makes, not
 * outer's own; each entry pc lies in its instance's ranges.
 */
static void test_kdwarf(void **state)
{
	static const char *const names[] = { "inner", "no_such_function" };
	struct anchors *a = calloc(1, sizeof(*a));
	uint64_t outer, target;
	uint8_t code[4096];
	size_t offs[8], size = 0;
	char why[256];
	Elf *elf;
	int fd;

	(void)state;
	assert_non_null(a);
	if (kdwarf_anchors(fixture, names, 2, a, why, sizeof(why)) != 2)
		fail_msg("%s: %d instances: %s", fixture, a->n, why);
	assert_string_equal(a->source, fixture);
	assert_int_equal(a->build_id_len, 20);
	elf_version(EV_CURRENT);
	fd = open(fixture, O_RDONLY);
	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	outer = elf_sym(elf, "outer", &size);
	target = elf_sym(elf, "target", NULL);
	assert_true(outer && target && size && size <= sizeof(code));
	assert_int_equal(elf_code(elf, outer, code, size), 0);
	/* outer calls target three times in all */
	assert_int_equal(find_call_sites(code, size, outer, &target, 1, offs, 8), 3);
	for (int i = 0; i < a->n; i++) {
		const struct anchor_inst *in = &a->inst[i];
		size_t n = 0;
		bool entry_in = false;

		assert_string_equal(in->name, "inner");
		assert_string_equal(in->func, "outer");
		assert_string_equal(in->entry_sym, "outer");
		assert_true(in->nr >= 1);
		for (int r = 0; r < in->nr; r++) {
			assert_string_equal(in->r[r].sym, "outer");
			assert_true(in->r[r].lo < in->r[r].hi && in->r[r].hi <= size);
			n += find_call_sites(code + in->r[r].lo, in->r[r].hi - in->r[r].lo, outer + in->r[r].lo,
					     &target, 1, offs, 8);
			entry_in |= in->entry_off >= in->r[r].lo && in->entry_off < in->r[r].hi;
		}
		assert_int_equal(n, 1);
		assert_true(entry_in);
	}
	elf_end(elf);
	close(fd);

	/* the text form carries them whole */
	struct anchors *b = calloc(1, sizeof(*b));
	char *text = anchors_format(a);

	assert_non_null(b);
	assert_non_null(text);
	assert_int_equal(anchors_parse(text, b, why, sizeof(why)), 0);
	assert_memory_equal(a, b, sizeof(*a));
	free(text);

	/* not an ELF file; no DWARF */
	assert_int_equal(kdwarf_anchors("/proc/self/status", names, 2, a, why, sizeof(why)), -1);
	assert_int_equal(kdwarf_anchors("/nonexistent", names, 2, a, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "cannot open /nonexistent"));
	free(a);
	free(b);
}

static void test_anchors_text(void **state)
{
	static const char good[] = "ipsecperf-anchors 1\n"
				   "build-id 0a1b2c\n"
				   "source /var/cache/ipsecperf/build/6.12-base/vmlinux\n"
				   "inline xfrm4_transport_output xfrm_output_one xfrm_output_one 0x1c3\n"
				   "range xfrm_output_one 0x1c3 0x220\n"
				   "range xfrm_output_one.cold 0x0 0x14\n"
				   "inline esp_alloc_tmp esp_output esp_output 0x40\n"
				   "range esp_output 0x40 0x90\n";
	static const char *const bad[] = {
		"",
		"ipsecperf-anchors 2\nbuild-id 0a\n",
		"ipsecperf-anchors 1\n",                                   /* no build id */
		"ipsecperf-anchors 1\nbuild-id 0a",                       /* no newline */
		"ipsecperf-anchors 1\nbuild-id 0a\nrange f 0x0 0x4\n",     /* range first */
		"ipsecperf-anchors 1\nbuild-id 0a\ninline a b c 0x0\n",    /* no range */
		"ipsecperf-anchors 1\nbuild-id 0a\ninline a/b b c 0x0\nrange c 0x0 0x4\n",
		"ipsecperf-anchors 1\nbuild-id 0a\ninline a b ../c 0x0\nrange c 0x0 0x4\n",
		"ipsecperf-anchors 1\nbuild-id 0a\ninline a b c 0x0\nrange c 0x4 0x4\n",
		"ipsecperf-anchors 1\nbuild-id 0a\ninline a b c 0x0\nrange c 0x0 0x100001\n",
		"ipsecperf-anchors 1\nbuild-id 0a\ninline a b c 0x0\nrange c 0x0 0xffffffffffffffff\n",
		"ipsecperf-anchors 1\nbuild-id 0a\ninline a b c -0x1\nrange c 0x0 0x4\n",
		"ipsecperf-anchors 1\nbuild-id 0a\ninline a b c 16\nrange c 0x0 0x4\n",
		"ipsecperf-anchors 1\nbuild-id 0a\ninline a b c 0x0 \nrange c 0x0 0x4\n",
		"ipsecperf-anchors 1\nbuild-id 0a\ninline a  b c 0x0\nrange c 0x0 0x4\n",
		"ipsecperf-anchors 1\nbuild-id 0a\ninline a b c 0x0 extra\nrange c 0x0 0x4\n",
		"ipsecperf-anchors 1\nbuild-id 0a\nsource /tmp/x y\n",
		"ipsecperf-anchors 1\nbuild-id 0a\nsource $(reboot)\n",
		"ipsecperf-anchors 1\nbuild-id 0a\nbuild-id 0b\n",
		"ipsecperf-anchors 1\nbuild-id 0g\n",
		"ipsecperf-anchors 1\nbuild-id 0a0\n",
		"ipsecperf-anchors 1\nbuild-id 0a\nexec /bin/sh\n",
		"ipsecperf-anchors 1\r\nbuild-id 0a\n",
	};
	struct anchors *a = calloc(1, sizeof(*a));
	char why[256], *text, *many;

	(void)state;
	assert_non_null(a);
	assert_int_equal(anchors_parse(good, a, why, sizeof(why)), 0);
	assert_int_equal(a->build_id_len, 3);
	assert_int_equal(a->n, 2);
	assert_string_equal(a->inst[0].func, "xfrm_output_one");
	assert_int_equal(a->inst[0].entry_off, 0x1c3);
	assert_int_equal(a->inst[0].nr, 2);
	assert_string_equal(a->inst[0].r[1].sym, "xfrm_output_one.cold");
	assert_int_equal(a->inst[0].r[1].hi, 0x14);
	text = anchors_format(a);
	assert_string_equal(text, good);
	free(text);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = anchors_parse(bad[i], a, why, sizeof(why));

		if (rc != -1)
			fail_msg("accepted bad input %zu: %s", i, bad[i]);
		assert_int_equal(a->n, 0);
	}
	/* bounded counts: a 33rd inline, a 9th range, a name of 64 bytes */
	many = malloc(65536);
	assert_non_null(many);
	strcpy(many, "ipsecperf-anchors 1\nbuild-id 0a\n");
	for (int i = 0; i < ANCHOR_MAX_INST + 1; i++)
		strcat(many, "inline a b c 0x0\nrange c 0x0 0x4\n");
	assert_int_equal(anchors_parse(many, a, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "more than 32 inline lines"));
	strcpy(many, "ipsecperf-anchors 1\nbuild-id 0a\ninline a b c 0x0\n");
	for (int i = 0; i < ANCHOR_MAX_RANGES + 1; i++)
		strcat(many, "range c 0x0 0x4\n");
	assert_int_equal(anchors_parse(many, a, why, sizeof(why)), -1);
	snprintf(many, 65536, "ipsecperf-anchors 1\nbuild-id 0a\ninline %064d b c 0x0\nrange c 0x0 0x4\n", 0);
	assert_int_equal(anchors_parse(many, a, why, sizeof(why)), -1);
	snprintf(many, 65536, "ipsecperf-anchors 1\nbuild-id 0a\ninline %063d b c 0x0\nrange c 0x0 0x4\n", 0);
	assert_int_equal(anchors_parse(many, a, why, sizeof(why)), 0);
	free(many);
	free(a);
}

static void test_note_build_id(void **state)
{
	/* a "Linux" note, then the GNU build id: as /sys/kernel/notes holds them */
	uint8_t notes[] = { 6, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 'L', 'i', 'n', 'u', 'x', 0, 0, 0, 1, 2, 3, 4,
			    4, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0, 0xaa, 0xbb, 0xcc, 0 };
	uint8_t id[64];
	char hex[16];

	(void)state;
	assert_int_equal(anchors_note_build_id(notes, sizeof(notes), id, sizeof(id)), 3);
	anchors_hex(id, 3, hex, sizeof(hex));
	assert_string_equal(hex, "aabbcc");
	/* cut short, or a size that runs past the end */
	assert_int_equal(anchors_note_build_id(notes, sizeof(notes) - 4, id, sizeof(id)), 0);
	notes[4] = 0xff;
	assert_int_equal(anchors_note_build_id(notes, sizeof(notes), id, sizeof(id)), 0);
	assert_int_equal(anchors_kernel_build_id("/nonexistent", id, sizeof(id), hex, sizeof(hex)), 0);
}

/* /proc/net/snmp as 6.1 to 6.18 print it: a names line, then a values line, per group */
static void test_snmp(void **state)
{
	const char *text =
		"Ip: Forwarding DefaultTTL InReceives\n"
		"Ip: 2 64 10599\n"
		"Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
		"Tcp: 1 200 120000 -1 25 4 1 0 0 10321 5645 17 0 2 0\n"
		"Udp: InDatagrams OutSegs\n"
		"Udp: 276 99\n";
	uint64_t v = 0;

	(void)state;
	assert_int_equal(snmp_field(text, "Tcp", "OutSegs", &v), 0);
	assert_int_equal(v, 5645);
	assert_int_equal(snmp_field(text, "Tcp", "RetransSegs", &v), 0);
	assert_int_equal(v, 17);
	assert_int_equal(snmp_field(text, "Udp", "OutSegs", &v), 0); /* a field name in two groups */
	assert_int_equal(v, 99);
	assert_int_equal(snmp_field(text, "Tcp", "MaxConn", &v), -1); /* -1: not a count */
	assert_int_equal(snmp_field(text, "Tcp", "Nope", &v), -1);
	assert_int_equal(snmp_field(text, "Icmp", "InMsgs", &v), -1);
	assert_int_equal(snmp_field("Tcp: OutSegs\n", "Tcp", "OutSegs", &v), -1); /* no values line */
	assert_int_equal(snmp_field("Tcp: OutSegs\nTcp: 12x\n", "Tcp", "OutSegs", &v), -1);
	assert_int_equal(snmp_field("Tcpx: OutSegs\nTcpx: 1\n", "Tcp", "OutSegs", &v), -1);
	assert_int_equal(kcount_tcp_segs(text, &v), 0);
	assert_int_equal(v, 5645 + 17);
	assert_int_equal(kcount_tcp_segs("Tcp: OutSegs\nTcp: 3\n", &v), -1);
	assert_int_equal(probe_set_parse("default"), PROBE_SET_DEFAULT);
	assert_int_equal(probe_set_parse("all"), PROBE_SET_ALL);
	assert_int_equal(probe_set_parse("tracepoints"), PROBE_SET_TRACEPOINTS);
	assert_int_equal(probe_set_parse("kernel"), PROBE_SET_KERNEL);
	assert_int_equal(probe_set_parse("esp"), PROBE_SET_ESP);
	assert_int_equal(probe_set_parse("ALL"), -1);
	assert_int_equal(probe_set_parse(NULL), -1);
}

/* BTF built by hand: without SKB_EXT_SEC_PATH or sk_buff.active_extensions, esp_gro_merged cannot count. */
static void test_gro_merged_btf(void **state)
{
	struct btf *btf = btf__new_empty();
	char why[256];
	int u8, un;

	(void)state;
	assert_non_null(btf);
	assert_int_equal(probes_btf_sec_path(btf, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "SKB_EXT_SEC_PATH"));
	assert_true(btf__add_enum(btf, "skb_ext_id", 4) > 0);
	assert_int_equal(btf__add_enum_value(btf, "SKB_EXT_BRIDGE_NF", 0), 0);
	assert_int_equal(probes_btf_sec_path(btf, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "SKB_EXT_SEC_PATH"));
	btf__free(btf);

	btf = btf__new_empty();
	assert_true(btf__add_enum(btf, "skb_ext_id", 4) > 0);
	assert_int_equal(btf__add_enum_value(btf, "SKB_EXT_BRIDGE_NF", 0), 0);
	assert_int_equal(btf__add_enum_value(btf, "SKB_EXT_SEC_PATH", 1), 0);
	assert_int_equal(probes_btf_sec_path(btf, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "active_extensions"));
	u8 = btf__add_int(btf, "u8", 1, 0);
	assert_true(u8 > 0);
	/* the member inside an anonymous union, as CO-RE finds it */
	un = btf__add_union(btf, NULL, 1);
	assert_true(un > 0);
	assert_int_equal(btf__add_field(btf, "active_extensions", u8, 0, 0), 0);
	assert_true(btf__add_struct(btf, "sk_buff", 8) > 0);
	assert_int_equal(btf__add_field(btf, "len", u8, 0, 0), 0);
	assert_int_equal(btf__add_field(btf, NULL, un, 8, 0), 0);
	assert_int_equal(probes_btf_sec_path(btf, why, sizeof(why)), 0);
	btf__free(btf);

	/* this host's kernel has XFRM */
	btf = btf__load_vmlinux_btf();
	if (btf)
		assert_int_equal(probes_btf_sec_path(btf, why, sizeof(why)), 0);
	btf__free(btf);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counter_table),
		cmocka_unit_test(test_call_sites),
		cmocka_unit_test(test_ksyms),
		cmocka_unit_test(test_kcore),
		cmocka_unit_test(test_bases),
		cmocka_unit_test(test_sa_window),
		cmocka_unit_test(test_dev_filter),
		cmocka_unit_test(test_counters_taken),
		cmocka_unit_test(test_overhead_ratio),
		cmocka_unit_test(test_kdwarf),
		cmocka_unit_test(test_anchors_text),
		cmocka_unit_test(test_note_build_id),
		cmocka_unit_test(test_snmp),
		cmocka_unit_test(test_gro_merged_btf),
	};
	const char *slash = argc > 0 ? strrchr(argv[0], '/') : NULL;

	snprintf(fixture, sizeof(fixture), "%.*sfixture_inline", slash ? (int)(slash - argv[0] + 1) : 0,
		 slash ? argv[0] : "");

	return cmocka_run_group_tests(tests, NULL, NULL);
}
