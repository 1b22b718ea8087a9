/* SPDX-License-Identifier: GPL-2.0 */
/* Small file helpers that several parts of ipsecperf share. */
#ifndef IPSECPERF_FILES_H
#define IPSECPERF_FILES_H

#include <stddef.h>

/*
 * The whole file, NUL-terminated; *len (if given) its length. Reads to EOF,
 * so /proc and tracefs files (which report size 0) work too. NULL with
 * errno set when it cannot be opened or read.
 */
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
 * A data folder of ipsecperf: $ENV if set, else the first of rels (each
 * relative to the folder of the running program, e.g. "../scenarios") that
 * holds probe ("" for the folder itself), else fallback. The result is
 * kept in buf (of len bytes) and returned.
 */
const char *data_dir(const char *env, const char *const rels[], const char *probe,
		     const char *fallback, char *buf, size_t len);

#endif
