/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An uncompressed cpio (newc) archive written straight to a file, for the
 * VM testbed's initramfs: files, directories, symlinks, device nodes, each
 * name once (parents made as needed; a name already written is skipped).
 * Errors stick in c->err; cpio_finish returns them.
 */
#ifndef IPSECPERF_CPIO_H
#define IPSECPERF_CPIO_H

#include <stddef.h>
#include <stdio.h>

struct cpio {
	FILE *f;
	unsigned int ino;
	unsigned long long off;
	char **names; /* entries written, to make parents once and skip repeats */
	int nnames, cap;
	int err;
};

void cpio_dir(struct cpio *c, const char *name);
void cpio_mem(struct cpio *c, const char *name, unsigned int mode, const void *buf, size_t len);
void cpio_symlink(struct cpio *c, const char *name, const char *target);
void cpio_node(struct cpio *c, const char *name, unsigned int mode, unsigned int maj, unsigned int min);
/* A host file (symlinks followed) as name; its mode kept. 0 or -1. */
int cpio_file(struct cpio *c, const char *name, const char *src);
/* The trailer, and the file closed: 0, or -1 when anything failed. */
int cpio_finish(struct cpio *c);
/* A host program as name, with the shared libraries its loader lists (at their host paths), as ldd does. */
int add_elf(struct cpio *c, const char *name, const char *src);

#endif
