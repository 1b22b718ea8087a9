/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Probe anchors from a kernel's debug info: where functions that were
 * inlined (and so have no symbol) lie inside the functions that hold
 * them, as offsets from a symbol of the running kernel's kallsyms, so
 * that KASLR does not matter. kdwarf.c finds them in a vmlinux's DWARF;
 * the text form here carries them into a VM guest, which has no vmlinux
 * (docs/probes.md, "Inlined functions"). The text is data a guest reads:
 * parsed strictly, never used as a path.
 */
#ifndef IPSECPERF_ANCHORS_H
#define IPSECPERF_ANCHORS_H

#include <stddef.h>
#include <stdint.h>

#define ANCHOR_NAME_MAX 64      /* a symbol name, [A-Za-z0-9_.], with its NUL */
#define ANCHOR_MAX_RANGES 32    /* address ranges of one inlined instance */
#define ANCHOR_MAX_INST 32      /* inlined instances in one set */
#define ANCHOR_MAX_OFF 0x100000 /* an offset from a symbol: at most 1 MiB */
#define ANCHOR_BUILD_ID_MAX 64  /* bytes (sha1 is 20) */

/* [lo, hi) as offsets from the symbol sym */
struct anchor_range {
	char sym[ANCHOR_NAME_MAX];
	uint64_t lo, hi;
};

/* One place where the function name was inlined into the function func. */
struct anchor_inst {
	char name[ANCHOR_NAME_MAX];  /* the inlined function */
	char func[ANCHOR_NAME_MAX];  /* the concrete function it lies in (DWARF's name) */
	char entry_sym[ANCHOR_NAME_MAX]; /* its entry pc: entry_sym+entry_off */
	uint64_t entry_off;
	struct anchor_range r[ANCHOR_MAX_RANGES];
	int nr;
};

struct anchors {
	uint8_t build_id[ANCHOR_BUILD_ID_MAX]; /* the vmlinux's GNU build id */
	size_t build_id_len;
	char source[160];       /* where the DWARF came from, for the how-strings: shown, never opened */
	struct anchor_inst inst[ANCHOR_MAX_INST];
	int n;
};

/* The text form (version line, build-id, source, inline and range lines); malloc'd, NULL on ENOMEM. */
char *anchors_format(const struct anchors *a);
/*
 * Parse the text form strictly: every line known and well formed, names
 * [A-Za-z0-9_.], offsets hex within ANCHOR_MAX_OFF, counts within the
 * limits. 0, or -1 with why (naming the line).
 */
int anchors_parse(const char *text, struct anchors *a, char *why, size_t wlen);

/* The build id as hex into out (2 * len + 1 bytes). */
void anchors_hex(const uint8_t *id, size_t len, char *out, size_t outlen);
/*
 * The GNU build id from ELF notes as /sys/kernel/notes holds them (a raw
 * run of Elf_Nhdr records); its length, or 0 when there is none.
 */
size_t anchors_note_build_id(const uint8_t *notes, size_t len, uint8_t *id, size_t idmax);
/* The running kernel's build id (path: NULL for /sys/kernel/notes); its length, or 0 with why. */
size_t anchors_kernel_build_id(const char *path, uint8_t *id, size_t idmax, char *why, size_t wlen);

/* May s be a symbol name here? [A-Za-z0-9_.], 1 to ANCHOR_NAME_MAX - 1 bytes. */
int anchors_name_ok(const char *s);

#endif
