/* SPDX-License-Identifier: GPL-2.0 */
/* Small file helpers shared by the VM testbed's files (vm_*.c, guest.c). */
#ifndef IPSECPERF_VM_UTIL_H
#define IPSECPERF_VM_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

bool vm_is_dir(const char *path);
bool vm_is_file(const char *path);

/* mkdir -p; 0 or -1 with errno. */
int vm_mkdir_p(const char *path, mode_t mode);

/* rm -rf; 0 or -1. Refuses "" and "/". */
int vm_rm_rf(const char *path);

/* Copy a file (mode kept); 0 or -1 with errno. */
int vm_copy_file(const char *src, const char *dst);

/* Read a whole (small) file; NUL-terminated, caller frees; NULL on error. */
char *vm_read_file(const char *path, size_t *len);

/* Write a whole file; 0 or -1. */
int vm_write_file(const char *path, const void *buf, size_t len);

/* First line of a file, without its newline, into out; 0 or -1. */
int vm_read_line(const char *path, char *out, size_t outlen);

/*
 * Run argv (no shell) with the working directory dir (NULL: ours), its
 * output appended to *out when out is given, else inherited. Returns the
 * exit status, 128+signal, or -1 when it could not start.
 */
int vm_run_in(const char *dir, char *const argv[], char **out);

/*
 * snprintf for paths and messages whose truncation is harmless or checked
 * by the caller (the result is the same as snprintf's); a function of its
 * own keeps -Wformat-truncation quiet about paths that cannot be that long.
 */
int vm_fmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * The first line a program wrote into the log file path (its first 4 KiB),
 * printable ASCII only, into out; "" if none.
 */
void vm_first_line(const char *path, char *out, size_t len);

/* Seconds on CLOCK_MONOTONIC. */
double vm_now(void);

#endif
