// SPDX-License-Identifier: GPL-2.0
/*
 * Inlined instances from a kernel's DWARF (libdw), named by the symbols
 * of its ELF symbol table (libelf). Only compile units that define one of
 * the wanted functions are walked: without LTO a static inline function
 * is inlined only within its own unit, and walking every function of
 * every unit of a vmlinux would take long.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kdwarf.h"

struct fsym {
	uint64_t addr, size;
	const char *name;
};

struct kdw {
	const char *const *names;
	int nnames;
	struct fsym *syms; /* the FUNC symbols, by address */
	size_t nsyms;
	struct anchors *a;
	int skipped;       /* ranges no symbol could name */
	char *why;
	size_t wlen;
	bool full;
};

static int cmp_sym(const void *x, const void *y)
{
	const struct fsym *a = x, *b = y;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int read_symtab(Elf *elf, struct kdw *k)
{
	Elf_Scn *scn = NULL;
	size_t cap = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / (sh.sh_entsize ? sh.sh_entsize : 1); i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC || !s.st_value ||
			    !(name = elf_strptr(elf, sh.sh_link, s.st_name)) || !*name)
				continue;
			if (k->nsyms == cap) {
				struct fsym *n = realloc(k->syms, (cap = cap ? 2 * cap : 8192) * sizeof(*n));

				if (!n)
					return -1;
				k->syms = n;
			}
			k->syms[k->nsyms++] = (struct fsym){ s.st_value, s.st_size, name };
		}
	}
	qsort(k->syms, k->nsyms, sizeof(*k->syms), cmp_sym);
	return k->nsyms ? 0 : -1;
}

/*
 * The symbol that holds addr, if kallsyms would find it by its name: the
 * first symbol of that name in address order, and a name the anchors'
 * text form takes.
 */
static const struct fsym *sym_of(const struct kdw *k, uint64_t addr)
{
	size_t lo = 0, hi = k->nsyms;
	const struct fsym *s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &k->syms[lo - 1];
	if (addr - s->addr >= (s->size ? s->size : ANCHOR_MAX_OFF) || !anchors_name_ok(s->name))
		return NULL;
	for (size_t i = 0; i < k->nsyms; i++)
		if (!strcmp(k->syms[i].name, s->name))
			return &k->syms[i] == s || k->syms[i].addr == s->addr ? s : NULL;
	return NULL;
}

static bool wanted(const struct kdw *k, const char *name)
{
	for (int i = 0; i < k->nnames; i++)
		if (!strcmp(k->names[i], name))
			return true;
	return false;
}

/* Add [lo, hi) to in, merged with a range it touches in the same symbol. */
static int add_range(struct kdw *k, struct anchor_inst *in, uint64_t lo, uint64_t hi)
{
	const struct fsym *s = sym_of(k, lo);

	if (!s || hi - s->addr > (s->size ? s->size : ANCHOR_MAX_OFF)) {
		k->skipped++;
		return 0;
	}
	lo -= s->addr;
	hi -= s->addr;
	for (int i = 0; i < in->nr; i++)
		if (!strcmp(in->r[i].sym, s->name) && lo <= in->r[i].hi && hi >= in->r[i].lo) {
			in->r[i].lo = lo < in->r[i].lo ? lo : in->r[i].lo;
			in->r[i].hi = hi > in->r[i].hi ? hi : in->r[i].hi;
			return 0;
		}
	if (in->nr == ANCHOR_MAX_RANGES)
		return -1;
	snprintf(in->r[in->nr].sym, sizeof(in->r[in->nr].sym), "%s", s->name);
	in->r[in->nr].lo = lo;
	in->r[in->nr].hi = hi;
	in->nr++;
	return 0;
}

static void record(struct kdw *k, Dwarf_Die *die, const char *name, const char *func)
{
	struct anchor_inst *in;
	const struct fsym *s;
	Dwarf_Addr base, lo, hi, entry = 0;
	ptrdiff_t off = 0;
	bool have_entry;

	if (k->full)
		return;
	if (k->a->n == ANCHOR_MAX_INST) {
		snprintf(k->why, k->wlen, "more than %d inlined instances", ANCHOR_MAX_INST);
		k->full = true;
		return;
	}
	in = &k->a->inst[k->a->n];
	*in = (struct anchor_inst){ 0 };
	snprintf(in->name, sizeof(in->name), "%s", name);
	snprintf(in->func, sizeof(in->func), "%s", func);
	have_entry = dwarf_entrypc(die, &entry) == 0;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (hi <= lo)
			continue;
		if (!have_entry) { /* no entry_pc nor low_pc: the first range's start */
			entry = lo;
			have_entry = true;
		}
		if (add_range(k, in, lo, hi) < 0) {
			snprintf(k->why, k->wlen, "%s in %s has more than %d address ranges", name, func,
				 ANCHOR_MAX_RANGES);
			k->full = true;
			return;
		}
	}
	s = have_entry ? sym_of(k, entry) : NULL;
	if (!s || !in->nr) {
		k->skipped++;
		return;
	}
	snprintf(in->entry_sym, sizeof(in->entry_sym), "%s", s->name);
	in->entry_off = entry - s->addr;
	k->a->n++;
}

/* The inlined instances of wanted functions under die, in the concrete function func. */
static void walk(struct kdw *k, Dwarf_Die *die, const char *func)
{
	Dwarf_Die c;

	if (dwarf_child(die, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);

		if (tag == DW_TAG_inlined_subroutine) {
			const char *n = dwarf_diename(&c);

			if (n && wanted(k, n))
				record(k, &c, n, func);
			walk(k, &c, func);
		} else if (tag == DW_TAG_lexical_block) {
			walk(k, &c, func);
		}
	} while (!k->full && dwarf_siblingof(&c, &c) == 0);
}

/* Does the unit define (or declare an abstract instance of) a wanted function? */
static bool unit_wanted(struct kdw *k, Dwarf_Die *cu)
{
	Dwarf_Die c;

	if (dwarf_child(cu, &c) != 0)
		return false;
	do {
		const char *n;

		if (dwarf_tag(&c) == DW_TAG_subprogram && (n = dwarf_diename(&c)) && wanted(k, n))
			return true;
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

static void walk_unit(struct kdw *k, Dwarf_Die *cu)
{
	Dwarf_Die c;

	if (!unit_wanted(k, cu) || dwarf_child(cu, &c) != 0)
		return;
	do {
		const char *n;

		/* a concrete function: it has code (an out-of-line copy of an inline one too) */
		if (dwarf_tag(&c) == DW_TAG_subprogram && (n = dwarf_diename(&c)) &&
		    (dwarf_hasattr(&c, DW_AT_low_pc) || dwarf_hasattr(&c, DW_AT_ranges)))
			walk(k, &c, n);
	} while (!k->full && dwarf_siblingof(&c, &c) == 0);
}

static size_t elf_build_id(Elf *elf, uint8_t *id, size_t idmax)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)))
			continue;
		n = anchors_note_build_id(d->d_buf, d->d_size, id, idmax);
		if (n)
			return n;
	}
	return 0;
}

int kdwarf_anchors(const char *path, const char *const *names, int nnames, struct anchors *a,
		   char *why, size_t wlen)
{
	struct kdw k = { .names = names, .nnames = nnames, .a = a, .why = why, .wlen = wlen };
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf *dw;
	Elf *elf;
	int fd, err = -1;

	memset(a, 0, sizeof(*a));
	*why = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, wlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	dw = dwarf_begin(fd, DWARF_C_READ);
	if (!dw) {
		snprintf(why, wlen, "%s has no DWARF: %s", path, dwarf_errmsg(-1));
		goto out_close;
	}
	elf = dwarf_getelf(dw);
	a->build_id_len = elf ? elf_build_id(elf, a->build_id, sizeof(a->build_id)) : 0;
	if (!a->build_id_len) {
		snprintf(why, wlen, "%s has no GNU build id (nothing to check a running kernel against)", path);
		goto out_end;
	}
	if (read_symtab(elf, &k) < 0) {
		snprintf(why, wlen, "%s has no symbol table of functions", path);
		goto out_end;
	}
	if (strlen(path) < sizeof(a->source) &&
	    strspn(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+:-") == strlen(path))
		snprintf(a->source, sizeof(a->source), "%s", path);
	else
		snprintf(a->source, sizeof(a->source), "vmlinux");
	while (!k.full && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + hsize, &cu))
			walk_unit(&k, &cu);
		off = next;
	}
	if (k.full)
		goto out_end;
	err = a->n;
out_end:
	free(k.syms);
	dwarf_end(dw);
out_close:
	close(fd);
	return err;
}

int kdwarf_probe_anchors(const char *path, struct anchors *a, char *why, size_t wlen)
{
	static const char *const names[] = { "xfrm4_transport_output", "xfrm_outer_mode_output",
					     "esp_alloc_tmp", "esp_output_tail" };

	return kdwarf_anchors(path, names, 4, a, why, wlen);
}
