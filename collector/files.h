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
