// SPDX-License-Identifier: GPL-2.0
/* Module names: what one may be, and where the kernel lists them (kmod.h). */
#include <stdio.h>
#include <string.h>

#include "kmod.h"

bool kmod_name_ok(const char *name)
{
	size_t n = strlen(name);

	return n && n < KMOD_NAME_MAX && name[0] != '-' &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == n;
}

/* Module names are spelled with '_' or '-' alike (modprobe treats them as one). */
bool kmod_same_name(const char *a, size_t alen, const char *b)
{
	size_t i;

	for (i = 0; i < alen && b[i]; i++)
		if (a[i] != b[i] && !((a[i] == '-' || a[i] == '_') && (b[i] == '-' || b[i] == '_')))
			return false;
	return i == alen && !b[i];
}

bool kmod_builtin_list_has(const char *text, const char *name)
{
	for (const char *line = text; line && *line;) {
		size_t n = strcspn(line, "\n");
		const char *slash = memrchr(line, '/', n), *base = slash ? slash + 1 : line;
		size_t blen = n - (base - line);

		if (blen > 3 && !memcmp(base + blen - 3, ".ko", 3) && kmod_same_name(base, blen - 3, name))
			return true;
		line += n + (line[n] == '\n');
	}
	return false;
}

int kmod_kallsyms_owner(FILE *f, const char *sym, char *owner, size_t len)
{
	char line[512];
	size_t sl = strlen(sym);

	while (fgets(line, sizeof(line), f)) {
		char *name, *save = NULL, *mod;

		if (!strtok_r(line, " \t\n", &save) || !strtok_r(NULL, " \t\n", &save))
			continue;
		name = strtok_r(NULL, " \t\n", &save);
		/* an LTO build may add a suffix to a static function: "sym.llvm.123" */
		if (!name || strncmp(name, sym, sl) || (name[sl] && name[sl] != '.'))
			continue;
		mod = strtok_r(NULL, " \t\n", &save);
		if (mod && mod[0] == '[') {
			mod[strcspn(mod, "]")] = '\0';
			snprintf(owner, len, "%s", mod + 1);
		} else {
			snprintf(owner, len, "%s", "");
		}
		return 1;
	}
	return 0;
}
