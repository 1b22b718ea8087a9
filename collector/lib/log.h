/* SPDX-License-Identifier: GPL-2.0 */
/* Messages: "ipsecperf: <what>: <why>" on stderr, one line each. */
#ifndef IPSECPERF_LOG_H
#define IPSECPERF_LOG_H

#include <stdbool.h>
#include <stddef.h>

extern int log_verbose; /* -v count */

void pr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Cut trailing newlines and blanks off a tool's stderr (s may be NULL), so
 * that it fits in one "ipsecperf: <what>: <why>" line.
 */
void msg_trim(char *s);

/*
 * Make another host's text (s may be NULL) safe for a terminal and for
 * the results: control characters (C0 but newline and tab, DEL, C1),
 * bidirectional controls and zero-width characters (which reorder or hide
 * what is shown) and bytes that are not UTF-8 become '?' (one a byte), in
 * place; with one_line, newlines and tabs become blanks too (a field of
 * meta.json or a record).
 */
void msg_clean(char *s, bool one_line);

/*
 * Cut s back to whole UTF-8 characters, where a snprintf that truncated it
 * may have split the last one (a byte that is not UTF-8 there goes too).
 */
void msg_cut_utf8(char *s);

/*
 * The last n lines of the file at path (a failed build's or run's log) on
 * stderr, each after indent, made safe for a terminal as by msg_clean;
 * nothing when it cannot be read.
 */
void log_tail(const char *path, int n, const char *indent);

/*
 * Write a message into err (as snprintf, errlen may be 0) and return -1,
 * for parsers that report into a caller's buffer: return msg_err(...).
 */
int msg_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * snprintf for paths and messages whose truncation is harmless or checked
 * by the caller (the result is the same as snprintf's); a function of its
 * own keeps -Wformat-truncation quiet about paths that cannot be that long.
 */
int fmt_buf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Exit statuses of every command (docs/user-guide.md). */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,  /* a run failed, or compare found a regression */
	EXIT_USAGE = 2, /* bad usage or input */
};

#endif
