/* SPDX-License-Identifier: GPL-2.0 */
/* Small file functions that several parts of ipsecperf share. */
#ifndef IPSECPERF_FILES_H
#define IPSECPERF_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
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
 * Open name (relative to dirfd, or a path with AT_FDCWD) with flags
 * (O_RDONLY, O_WRONLY, ...; O_CLOEXEC and O_NOCTTY are added) only if it
 * is a regular file: it is first looked at without being opened (O_PATH,
 * no symlink followed), and opened, once its type is known, through that
 * same descriptor. So a FIFO or a device node (a watchdog, a tape, a
 * terminal) is never opened, not even for an instant, and the file cannot
 * be swapped between the look and the open. Returns the descriptor with
 * *st its stat, FILE_NOT_REGULAR (-2, *st says what it is), or -1 with
 * errno (ELOOP: a symbolic link).
 */
#define FILE_NOT_REGULAR (-2)
int file_open_regular_at(int dirfd, const char *name, int flags, struct stat *st);

/*
 * An output file for writing (made with mode & ~umask): a new one is
 * created with O_EXCL and O_NOFOLLOW; one that exists is taken only if it
 * is a regular file of one link (then truncated), never through a symbolic
 * link and never opening anything else. The descriptor, or -1 with why
 * ("is a symbolic link", ...).
 */
int file_open_out_at(int dirfd, const char *name, mode_t mode, char *why, size_t whylen);

/*
 * A regular file of at most max bytes, NUL-terminated (*len, if given, its
 * length), for input that others may have made. It is opened with
 * file_open_regular_at(), so that a symlink is not followed and a FIFO or
 * a device node (/dev/zero, a watchdog) is never opened. NULL with why set ("is not a regular file",
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
