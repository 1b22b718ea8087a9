// SPDX-License-Identifier: GPL-2.0
/*
 * Probe anchors' text form and the running kernel's build id. The form,
 * one record a line, fields split by one space:
 *
 *   ipsecperf-anchors 1
 *   build-id HEX
 *   source TEXT                       (where the DWARF came from; shown only)
 *   inline NAME FUNC SYM 0xOFF        (NAME inlined into FUNC, entry at SYM+0xOFF)
 *   range SYM 0xLO 0xHI               (one range of the inline line before it)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anchors.h"
#include "files.h"

#define ANCHORS_MAGIC "ipsecperf-anchors 1"
#define ANCHORS_MAX_LINES (4 + ANCHOR_MAX_INST * (1 + ANCHOR_MAX_RANGES))

int anchors_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= ANCHOR_NAME_MAX)
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") == n;
}

static int source_ok(const char *s)
{
	size_t n = strlen(s);

	return n && n < sizeof(((struct anchors *)0)->source) &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+:-") == n;
}

void anchors_hex(const uint8_t *id, size_t len, char *out, size_t outlen)
{
	size_t o = 0;

	if (!outlen)
		return;
	for (size_t i = 0; i < len && o + 2 < outlen; i++, o += 2)
		snprintf(out + o, 3, "%02x", id[i]);
	out[o] = '\0';
}

char *anchors_format(const struct anchors *a)
{
	size_t cap = 256 + (size_t)a->n * (4 * ANCHOR_NAME_MAX + 40) * (1 + ANCHOR_MAX_RANGES);
	char *s = malloc(cap), hex[2 * ANCHOR_BUILD_ID_MAX + 1];
	size_t o = 0;

	if (!s)
		return NULL;
	anchors_hex(a->build_id, a->build_id_len, hex, sizeof(hex));
	o += snprintf(s + o, cap - o, "%s\nbuild-id %s\nsource %s\n", ANCHORS_MAGIC, hex, a->source);
	for (int i = 0; i < a->n; i++) {
		const struct anchor_inst *in = &a->inst[i];

		o += snprintf(s + o, cap - o, "inline %s %s %s 0x%llx\n", in->name, in->func, in->entry_sym,
			      (unsigned long long)in->entry_off);
		for (int r = 0; r < in->nr; r++)
			o += snprintf(s + o, cap - o, "range %s 0x%llx 0x%llx\n", in->r[r].sym,
				      (unsigned long long)in->r[r].lo, (unsigned long long)in->r[r].hi);
	}
	return s;
}

/* "0x" and 1 to 6 hex digits, at most ANCHOR_MAX_OFF */
static int parse_off(const char *t, uint64_t *v)
{
	size_t n;

	if (strncmp(t, "0x", 2))
		return -1;
	t += 2;
	n = strlen(t);
	if (!n || n > 6 || strspn(t, "0123456789abcdef") != n)
		return -1;
	*v = strtoull(t, NULL, 16);
	return *v <= ANCHOR_MAX_OFF ? 0 : -1;
}

static int parse_hex_id(const char *t, struct anchors *a)
{
	size_t n = strlen(t);

	if (!n || n % 2 || n > 2 * ANCHOR_BUILD_ID_MAX || strspn(t, "0123456789abcdef") != n)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		char b[3] = { t[2 * i], t[2 * i + 1], 0 };

		a->build_id[i] = (uint8_t)strtoul(b, NULL, 16);
	}
	a->build_id_len = n / 2;
	return 0;
}

/* Split line into at most max fields at single spaces; -1 on an empty field or too many. */
static int split(char *line, char **f, int max)
{
	int n = 0;

	for (char *p = line, *sp;; p = sp + 1) {
		if (n == max)
			return -1;
		f[n++] = p;
		sp = strchr(p, ' ');
		if (sp)
			*sp = '\0';
		if (!*p)
			return -1;
		if (!sp)
			return n;
	}
}

static int parse_line(char *line, int ln, struct anchors *a, char *why, size_t wlen)
{
	char *f[6];
	int nf = split(line, f, 6);

	if (nf < 0)
		goto bad;
	if (!strcmp(f[0], "build-id") && nf == 2) {
		if (a->build_id_len || parse_hex_id(f[1], a) < 0)
			goto bad;
	} else if (!strcmp(f[0], "source") && nf == 2) {
		if (*a->source || !source_ok(f[1]))
			goto bad;
		snprintf(a->source, sizeof(a->source), "%s", f[1]);
	} else if (!strcmp(f[0], "inline") && nf == 5) {
		struct anchor_inst *in = &a->inst[a->n];

		if (a->n == ANCHOR_MAX_INST) {
			snprintf(why, wlen, "line %d: more than %d inline lines", ln, ANCHOR_MAX_INST);
			return -1;
		}
		if (!anchors_name_ok(f[1]) || !anchors_name_ok(f[2]) || !anchors_name_ok(f[3]) ||
		    parse_off(f[4], &in->entry_off) < 0)
			goto bad;
		*in = (struct anchor_inst){ .entry_off = in->entry_off };
		snprintf(in->name, sizeof(in->name), "%s", f[1]);
		snprintf(in->func, sizeof(in->func), "%s", f[2]);
		snprintf(in->entry_sym, sizeof(in->entry_sym), "%s", f[3]);
		a->n++;
	} else if (!strcmp(f[0], "range") && nf == 4) {
		struct anchor_inst *in = a->n ? &a->inst[a->n - 1] : NULL;
		struct anchor_range *r;

		if (!in) {
			snprintf(why, wlen, "line %d: a range before any inline line", ln);
			return -1;
		}
		if (in->nr == ANCHOR_MAX_RANGES) {
			snprintf(why, wlen, "line %d: more than %d ranges for %s", ln, ANCHOR_MAX_RANGES, in->name);
			return -1;
		}
		r = &in->r[in->nr];
		if (!anchors_name_ok(f[1]) || parse_off(f[2], &r->lo) < 0 || parse_off(f[3], &r->hi) < 0 ||
		    r->lo >= r->hi)
			goto bad;
		snprintf(r->sym, sizeof(r->sym), "%s", f[1]);
		in->nr++;
	} else {
		goto bad;
	}
	return 0;
bad:
	snprintf(why, wlen, "line %d is not a well-formed anchor line", ln);
	return -1;
}

int anchors_parse(const char *text, struct anchors *a, char *why, size_t wlen)
{
	char *copy = strdup(text), *line, *next;
	int ln = 0, err = -1;

	memset(a, 0, sizeof(*a));
	if (!copy) {
		snprintf(why, wlen, "out of memory");
		return -1;
	}
	for (line = copy; *line; line = next) {
		next = strchr(line, '\n');
		if (!next) {
			snprintf(why, wlen, "line %d has no newline", ln + 1);
			goto out;
		}
		*next++ = '\0';
		if (++ln > ANCHORS_MAX_LINES) {
			snprintf(why, wlen, "more than %d lines", ANCHORS_MAX_LINES);
			goto out;
		}
		if (ln == 1) {
			if (strcmp(line, ANCHORS_MAGIC)) {
				snprintf(why, wlen, "line 1 is not \"%s\"", ANCHORS_MAGIC);
				goto out;
			}
			continue;
		}
		if (parse_line(line, ln, a, why, wlen) < 0)
			goto out;
	}
	if (!ln) {
		snprintf(why, wlen, "empty");
		goto out;
	}
	if (!a->build_id_len) {
		snprintf(why, wlen, "no build-id line");
		goto out;
	}
	for (int i = 0; i < a->n; i++)
		if (!a->inst[i].nr) {
			snprintf(why, wlen, "inline %s in %s has no range", a->inst[i].name, a->inst[i].func);
			goto out;
		}
	err = 0;
out:
	free(copy);
	if (err)
		memset(a, 0, sizeof(*a));
	return err;
}

size_t anchors_note_build_id(const uint8_t *notes, size_t len, uint8_t *id, size_t idmax)
{
	size_t o = 0;

	/* Elf32_Nhdr and Elf64_Nhdr are alike: three 4-byte words, name and desc 4-aligned */
	while (o + 12 <= len) {
		uint32_t nsz, dsz, type;
		size_t name, desc;

		memcpy(&nsz, notes + o, 4);
		memcpy(&dsz, notes + o + 4, 4);
		memcpy(&type, notes + o + 8, 4);
		name = o + 12;
		if (nsz > len || dsz > len)
			return 0;
		desc = name + ((nsz + 3u) & ~3u);
		if (desc > len || dsz > len - desc)
			return 0;
		if (type == 3 /* NT_GNU_BUILD_ID */ && nsz == 4 && !memcmp(notes + name, "GNU", 4) &&
		    dsz && dsz <= idmax) {
			memcpy(id, notes + desc, dsz);
			return dsz;
		}
		o = desc + ((dsz + 3u) & ~3u);
	}
	return 0;
}

size_t anchors_kernel_build_id(const char *path, uint8_t *id, size_t idmax, char *why, size_t wlen)
{
	const char *p = path ? path : "/sys/kernel/notes";
	size_t len = 0, n;
	char *notes = file_read(p, &len);

	if (!notes) {
		snprintf(why, wlen, "cannot read %s: %s", p, strerror(errno));
		return 0;
	}
	n = anchors_note_build_id((const uint8_t *)notes, len, id, idmax);
	free(notes);
	if (!n)
		snprintf(why, wlen, "%s holds no GNU build id", p);
	return n;
}
