/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The running kernel's symbols (/proc/kallsyms) and code (/proc/kcore):
 * what the loader needs to decide, by looking, where each probe can go.
 */
#ifndef IPSECPERF_KSYMS_H
#define IPSECPERF_KSYMS_H

#include <stddef.h>
#include <stdint.h>

struct ksym {
	uint64_t addr;
	char type;   /* t/T, d/D, ... as kallsyms prints it */
	char *name;
	char *mod;   /* module name, or NULL for the kernel itself */
};

struct ksyms {
	struct ksym *s; /* sorted by address */
	size_t n;
	char *text;     /* storage the names point into */
};

/* Parse kallsyms text (the buffer is kept); 0, or -1 if no symbol has an address. */
int ksyms_parse(struct ksyms *k, char *text);
/* Read /proc/kallsyms (or path); -1 with why when unreadable or addresses are hidden. */
int ksyms_load(struct ksyms *k, const char *path, char *why, size_t wlen);
void ksyms_free(struct ksyms *k);

/* A text symbol by name (the first one in address order); NULL if absent. */
const struct ksym *ksyms_find(const struct ksyms *k, const char *name);
/* How many text symbols carry name (static functions may repeat). */
int ksyms_count(const struct ksyms *k, const char *name);
/* [*lo, *hi): from the symbol to the next higher address; -1 if absent. */
int ksyms_range(const struct ksyms *k, const char *name, uint64_t *lo, uint64_t *hi);

/*
 * Offsets of the direct calls (e8 rel32) and tail jumps (e9 rel32) in code
 * (which the kernel runs at base) whose target is one of targets[], or
 * lies within 16 bytes before one (the __pfx_ padding and call-depth
 * thunks). The scan is bytewise: a false match would have to hit a target
 * exactly, and the kernel refuses a kprobe that is not on an instruction
 * boundary anyway. Returns how many offsets it found (at most max stored).
 */
size_t find_call_sites(const uint8_t *code, size_t len, uint64_t base, const uint64_t *targets,
		       size_t ntargets, size_t *offs, size_t max);

/* Read len bytes of kernel memory at addr from /proc/kcore (or path). */
int kcore_read(const char *path, uint64_t addr, void *buf, size_t len, char *why, size_t wlen);

#endif
