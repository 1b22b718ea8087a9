/* SPDX-License-Identifier: GPL-2.0 */
/* Small file helpers that several parts of ipsecperf share. */
#ifndef IPSECPERF_FILES_H
#define IPSECPERF_FILES_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The whole file, NUL-terminated; *len (if given) its length. Reads to EOF,
 * so /proc and tracefs files (which report size 0) work too. NULL with
 * errno set when it cannot be opened or read.
 */
/*
 * May s be one path component that input chose (a kernel's release, a file
 * a guest sent, a name in a results directory)? [A-Za-z0-9._+-], 1 to max
 * bytes, not "." or "..": it can then name nothing but itself.
 */
bool plain_name_ok(const char *s, size_t max);

char *file_read(const char *path, size_t *len);

/*
 * A regular file of at most max bytes, NUL-terminated (*len, if given, its
 * length), for input that others may have made. It is opened without
 * following a symlink and without waiting for a FIFO's writer, and checked
 * with fstat before it is read, so that a FIFO cannot hang the read nor
 * /dev/zero fill the memory. NULL with why set ("is not a regular file",
 * ...: the text after "PATH: ") when it is not such a file.
 */
char *file_read_regular(const char *path, size_t max, size_t *len, char *why, size_t whylen);

/*
 * Whether dir can be a new output folder (run -o, report -c): it does not
 * exist yet and its parent does (or may not, with parent_optional), or it
 * is an empty folder of this user that no one else can write to; and it
 * is not a symlink. 0, or -1 with why ("exists and is not empty", ...).
 * Changes nothing: --dry-run checks with it.
 */
int out_dir_check(const char *dir, bool parent_optional, char *why, size_t whylen);

/*
 * Make the folder out_dir_check() accepts (or take it, when it is empty)
 * and open it without following a symlink, checked again through the
 * descriptor. The descriptor (O_CLOEXEC), or -1 with why.
 */
int out_dir_open(const char *dir, char *why, size_t whylen);

/*
 * A data folder of ipsecperf: $ENV if set, else the first of rels (each
 * relative to the folder of the running program, e.g. "../scenarios") that
 * holds probe ("" for the folder itself), else fallback (when relative,
 * under the data folder of the install the program was built for,
 * PREFIX/share/ipsecperf). The result is kept in buf (of len bytes) and
 * returned.
 */
const char *data_dir(const char *env, const char *const rels[], const char *probe,
		     const char *fallback, char *buf, size_t len);

#endif
