/* SPDX-License-Identifier: GPL-2.0 */
/* Small file functions that several parts of ipsecperf share. */
#ifndef IPSECPERF_FILES_H
#define IPSECPERF_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * May s be one path component that input chose (a kernel's release, a file
 * a guest sent, a name in a results directory)? [A-Za-z0-9._+-], 1 to max
 * bytes, not "." or "..": it can then name nothing but itself.
 */
bool plain_name_ok(const char *s, size_t max);

/*
 * The whole file, NUL-terminated; *len (if given) its length. Reads to EOF,
 * so /proc and tracefs files (which report size 0) work too. NULL with
 * errno set when it cannot be opened or read.
 */
char *file_read(const char *path, size_t *len);

/* The same through fd, from the file's start (fd's offset is left alone,
 * but for a pipe, read from where it is). */
char *file_read_fd(int fd, size_t *len);

/* Write a whole file (made 0666 & ~umask, or truncated); 0 or -1. */
int file_write(const char *path, const void *buf, size_t len);

/* The first line of a file, without its newline, into out; 0 or -1. */
int file_read_line(const char *path, char *out, size_t outlen);

/*
 * The first line a program wrote into the log file path (its first 4 KiB,
 * after blank space), printable ASCII only (others shown as '?'), into
 * out; "" if none.
 */
void file_first_line(const char *path, char *out, size_t len);

/* Copy a file, its mode kept; 0 or -1 with errno. */
int copy_file(const char *src, const char *dst);

/* Is path (followed) a directory, a regular file? */
bool is_dir(const char *path);
bool is_file(const char *path);

/* mkdir -p: what it makes gets mode, what exists is left as it is; 0 or -1 with errno. */
int mkdir_p(const char *path, mode_t mode);

/* rm -rf, not following symlinks; 0 or -1. Refuses "" and "/". */
int rm_rf(const char *path);

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
