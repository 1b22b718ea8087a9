// SPDX-License-Identifier: GPL-2.0
/* The running kernel's symbols and code: /proc/kallsyms and /proc/kcore. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files.h"
#include "ksyms.h"

static int cmp_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int ksyms_parse(struct ksyms *k, char *text)
{
	size_t cap = 0, nonzero = 0;
	char *line, *save = NULL;

	*k = (struct ksyms){ .text = text };
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *end, *type, *name, *mod = NULL;
		unsigned long long a = strtoull(line, &end, 16);

		if (end == line || *end != ' ')
			continue;
		type = end + 1;
		if (!*type || type[1] != ' ')
			continue;
		name = type + 2;
		end = strpbrk(name, " \t");
		if (end) {
			*end++ = '\0';
			mod = strchr(end, '[');
			if (mod) {
				mod++;
				end = strchr(mod, ']');
				if (end)
					*end = '\0';
			}
		}
		if (k->n == cap) {
			cap = cap ? 2 * cap : 4096;
			struct ksym *s = realloc(k->s, cap * sizeof(*s));

			if (!s)
				return -1;
			k->s = s;
		}
		k->s[k->n++] = (struct ksym){ .addr = a, .type = *type, .name = name, .mod = mod };
		nonzero += a != 0;
	}
	qsort(k->s, k->n, sizeof(*k->s), cmp_addr);
	return nonzero ? 0 : -1;
}

int ksyms_load(struct ksyms *k, const char *path, char *why, size_t wlen)
{
	char *buf;

	*k = (struct ksyms){ 0 };
	path = path ? path : "/proc/kallsyms";
	buf = file_read(path, NULL);
	if (!buf) {
		snprintf(why, wlen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	if (ksyms_parse(k, buf) < 0) {
		snprintf(why, wlen, "%s shows no addresses (kptr_restrict; needs root)", path);
		ksyms_free(k);
		return -1;
	}
	return 0;
}

void ksyms_free(struct ksyms *k)
{
	free(k->s);
	free(k->text);
	*k = (struct ksyms){ 0 };
}

static int is_text(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

const struct ksym *ksyms_find(const struct ksyms *k, const char *name)
{
	for (size_t i = 0; i < k->n; i++)
		if (is_text(k->s[i].type) && !strcmp(k->s[i].name, name))
			return &k->s[i];
	return NULL;
}

int ksyms_count(const struct ksyms *k, const char *name)
{
	int n = 0;

	for (size_t i = 0; i < k->n; i++)
		n += is_text(k->s[i].type) && !strcmp(k->s[i].name, name);
	return n;
}

int ksyms_range(const struct ksyms *k, const char *name, uint64_t *lo, uint64_t *hi)
{
	const struct ksym *s = ksyms_find(k, name);

	if (!s)
		return -1;
	*lo = s->addr;
	*hi = 0;
	for (const struct ksym *t = s + 1; t < k->s + k->n; t++)
		if (t->addr > s->addr) {
			*hi = t->addr;
			break;
		}
	if (!*hi || *hi - *lo > (1u << 20)) /* the last symbol, or a gap: assume at most 64 KiB */
		*hi = *lo + 65536;
	return 0;
}

size_t find_call_sites(const uint8_t *code, size_t len, uint64_t base, const uint64_t *targets,
		       size_t ntargets, size_t *offs, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i + 5 <= len; i++) {
		if (code[i] != 0xe8 && code[i] != 0xe9)
			continue;
		int32_t rel = (int32_t)((uint32_t)code[i + 1] | (uint32_t)code[i + 2] << 8 |
					(uint32_t)code[i + 3] << 16 | (uint32_t)code[i + 4] << 24);
		uint64_t to = base + i + 5 + (int64_t)rel;

		for (size_t t = 0; t < ntargets; t++)
			if (to <= targets[t] && targets[t] - to <= 16) {
				if (n < max)
					offs[n] = i;
				n++;
				break;
			}
	}
	return n;
}

int kcore_read(const char *path, uint64_t addr, void *buf, size_t len, char *why, size_t wlen)
{
	const char *p = path ? path : "/proc/kcore";
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	Elf64_Ehdr eh;
	int err = -1;

	if (fd < 0) {
		snprintf(why, wlen, "cannot read %s: %s%s", p, strerror(errno),
			 errno == ENOENT ? " (CONFIG_PROC_KCORE unset)" : "");
		return -1;
	}
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr)) {
		snprintf(why, wlen, "%s is not a 64-bit ELF core", p);
		goto out_close;
	}
	for (int i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + (off_t)i * sizeof(ph)) != sizeof(ph))
			break;
		if (ph.p_type != PT_LOAD || addr < ph.p_vaddr || addr + len > ph.p_vaddr + ph.p_memsz)
			continue;
		if (pread(fd, buf, len, ph.p_offset + (addr - ph.p_vaddr)) != (ssize_t)len) {
			snprintf(why, wlen, "cannot read %zu bytes at 0x%llx from %s: %s", len,
				 (unsigned long long)addr, p, strerror(errno));
			goto out_close;
		}
		err = 0;
		goto out_close;
	}
	snprintf(why, wlen, "0x%llx is not mapped in %s", (unsigned long long)addr, p);
out_close:
	close(fd);
	return err;
}
