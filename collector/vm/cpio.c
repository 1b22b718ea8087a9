// SPDX-License-Identifier: GPL-2.0
#include "cpio.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec.h"
#include "files.h"
#include "log.h"

static void cpio_parents(struct cpio *c, const char *name);

static bool cpio_has(struct cpio *c, const char *name)
{
	for (int i = 0; i < c->nnames; i++)
		if (!strcmp(c->names[i], name))
			return true;
	return false;
}

static void cpio_remember(struct cpio *c, const char *name)
{
	if (c->nnames == c->cap) {
		int ncap = c->cap ? c->cap * 2 : 256;
		char **nn = realloc(c->names, ncap * sizeof(*nn));

		if (!nn) {
			c->err = -1;
			return;
		}
		c->names = nn;
		c->cap = ncap;
	}
	c->names[c->nnames++] = strdup(name);
}

static void cpio_pad(struct cpio *c)
{
	static const char zero[4];
	unsigned int pad = (4 - c->off % 4) % 4;

	if (pad && fwrite(zero, 1, pad, c->f) != pad)
		c->err = -1;
	c->off += pad;
}

static void cpio_header(struct cpio *c, const char *name, unsigned int mode, size_t size,
			unsigned int rmaj, unsigned int rmin)
{
	size_t nl = strlen(name) + 1;
	int n = fprintf(c->f, "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X",
			++c->ino, mode, 0u, 0u, 1u, 0u, size, 0u, 0u, rmaj, rmin, nl, 0u);

	if (n != 110 || fwrite(name, 1, nl, c->f) != nl)
		c->err = -1;
	c->off += 110 + nl;
	cpio_pad(c);
}

void cpio_dir(struct cpio *c, const char *name);

/* Make the parents of name (which has no leading '/'). */
static void cpio_parents(struct cpio *c, const char *name)
{
	char buf[PATH_MAX];

	fmt_buf(buf, sizeof(buf), "%s", name);
	for (char *p = buf; (p = strchr(p, '/')); p++) {
		*p = '\0';
		cpio_dir(c, buf);
		*p = '/';
	}
}

void cpio_dir(struct cpio *c, const char *name)
{
	if (cpio_has(c, name))
		return;
	cpio_parents(c, name);
	cpio_header(c, name, 040755, 0, 0, 0);
	cpio_remember(c, name);
}

void cpio_mem(struct cpio *c, const char *name, unsigned int mode, const void *buf,
		     size_t len)
{
	if (cpio_has(c, name))
		return;
	cpio_parents(c, name);
	cpio_header(c, name, 0100000 | mode, len, 0, 0);
	if (len && fwrite(buf, 1, len, c->f) != len)
		c->err = -1;
	c->off += len;
	cpio_pad(c);
	cpio_remember(c, name);
}

void cpio_symlink(struct cpio *c, const char *name, const char *target)
{
	size_t len = strlen(target);

	if (cpio_has(c, name))
		return;
	cpio_parents(c, name);
	cpio_header(c, name, 0120777, len, 0, 0);
	if (fwrite(target, 1, len, c->f) != len)
		c->err = -1;
	c->off += len;
	cpio_pad(c);
	cpio_remember(c, name);
}

void cpio_node(struct cpio *c, const char *name, unsigned int mode, unsigned int maj,
		      unsigned int min)
{
	if (cpio_has(c, name))
		return;
	cpio_parents(c, name);
	cpio_header(c, name, mode, 0, maj, min);
	cpio_remember(c, name);
}

/* A host file (symlinks followed) as name; its mode kept. */
int cpio_file(struct cpio *c, const char *name, const char *src)
{
	char buf[65536];
	struct stat st;
	size_t left;
	int fd;

	if (cpio_has(c, name))
		return 0;
	fd = open(src, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		pr_warn("vm: initramfs: cannot read %s: %s", src, strerror(errno ? errno : EINVAL));
		if (fd >= 0)
			close(fd);
		c->err = -1;
		return -1;
	}
	cpio_parents(c, name);
	cpio_header(c, name, 0100000 | (st.st_mode & 07777), st.st_size, 0, 0);
	for (left = st.st_size; left;) {
		ssize_t n = read(fd, buf, left < sizeof(buf) ? left : sizeof(buf));

		if (n <= 0) {
			c->err = -1;
			break;
		}
		if (fwrite(buf, 1, n, c->f) != (size_t)n)
			c->err = -1;
		left -= n;
	}
	close(fd);
	c->off += st.st_size;
	cpio_pad(c);
	cpio_remember(c, name);
	return c->err;
}

int cpio_finish(struct cpio *c)
{
	cpio_header(c, "TRAILER!!!", 0, 0, 0, 0);
	for (int i = 0; i < c->nnames; i++)
		free(c->names[i]);
	free(c->names);
	if (fclose(c->f) != 0)
		c->err = -1;
	return c->err;
}

/* ---- programs and their libraries ---- */

/*
 * The program interpreter (PT_INTERP) of a 64-bit ELF file: 1 with it in
 * buf, 0 for a static program (none), -1 when src is not such a file.
 */
static int elf_interp(const char *src, char *buf, size_t len)
{
	int fd = open(src, O_RDONLY | O_CLOEXEC), rc = -1;
	Elf64_Ehdr eh;

	if (fd < 0)
		return -1;
	if (pread(fd, &eh, sizeof(eh), 0) == sizeof(eh) && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr)) {
		rc = 0;
		for (int i = 0; i < eh.e_phnum; i++) {
			Elf64_Phdr ph;

			if (pread(fd, &ph, sizeof(ph), eh.e_phoff + (off_t)i * sizeof(ph)) != sizeof(ph)) {
				rc = -1;
				break;
			}
			if (ph.p_type != PT_INTERP)
				continue;
			rc = -1;
			if (ph.p_filesz > 1 && ph.p_filesz <= len &&
			    pread(fd, buf, ph.p_filesz, ph.p_offset) == (ssize_t)ph.p_filesz && buf[ph.p_filesz - 1] == '\0')
				rc = 1;
			break;
		}
	}
	close(fd);
	return rc;
}

/*
 * What the dynamic loader of src lists: ldd's own way (the loader with
 * --list), without ldd's shell script, which took 40 ms a program and the
 * initramfs has some twenty; ldd where that does not work. NULL for a
 * static program.
 */
static char *elf_libs(const char *src)
{
	char interp[PATH_MAX], *out = NULL;
	int kind = elf_interp(src, interp, sizeof(interp));

	if (kind == 0)
		return NULL;
	if (kind == 1 && exec_in_dir(NULL, (char *[]){ interp, "--list", (char *)src, NULL }, &out) == 0)
		return out;
	free(out);
	out = NULL;
	/* ldd exits 1 for a static program: then there is nothing more to add */
	if (exec_in_dir(NULL, (char *[]){ "ldd", (char *)src, NULL }, &out) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* Add a host program at the path it has on the host, with the libraries its loader lists. */
int add_elf(struct cpio *c, const char *name, const char *src)
{
	char *out, *line, *save = NULL;
	int err;

	err = cpio_file(c, name, src);
	if (err)
		return err;
	out = elf_libs(src);
	if (!out)
		return 0;
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *arrow = strstr(line, "=> "), *p = arrow ? arrow + 3 : line;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '/')
			continue; /* linux-vdso.so.1, or "not found" */
		p[strcspn(p, " (")] = '\0';
		if (cpio_file(c, p + 1, p) < 0) {
			err = -1;
			break;
		}
	}
	free(out);
	return err;
}
