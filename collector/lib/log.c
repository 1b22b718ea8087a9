// SPDX-License-Identifier: GPL-2.0
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"

int log_verbose;

static void vlog(const char *prefix, const char *fmt, va_list ap)
{
	fputs("ipsecperf: ", stderr);
	if (prefix)
		fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void pr_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(NULL, fmt, ap);
	va_end(ap);
}

void pr_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(NULL, fmt, ap);
	va_end(ap);
}

void pr_debug(const char *fmt, ...)
{
	va_list ap;

	if (!log_verbose)
		return;
	va_start(ap, fmt);
	vlog("debug: ", fmt, ap);
	va_end(ap);
}

void msg_trim(char *s)
{
	size_t n = s ? strlen(s) : 0;

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
		s[--n] = '\0';
}

/* The length of the UTF-8 sequence at s (n bytes left), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 && s[0] <= 0xef ? 3 :
		     s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;

	if (!len || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* no overlong forms, no surrogates, nothing past U+10FFFF */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) || (s[0] == 0xf0 && s[1] < 0x90) ||
	    (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return len;
}

/*
 * Is the character at p (len bytes, UTF-8) one that changes how the text
 * around it shows without showing itself: a bidirectional control (U+061C,
 * U+200E-U+200F, U+202A-U+202E, U+2066-U+2069) or a zero-width or
 * invisible one (U+180E, U+200B-U+200D, U+2028-U+2029, U+2060-U+2065,
 * U+206A-U+206F, U+FEFF)?
 */
static bool invisible(const unsigned char *p, size_t len)
{
	if (len == 2)
		return p[0] == 0xd8 && p[1] == 0x9c;
	if (len != 3)
		return false;
	if (p[0] == 0xe2 && p[1] == 0x80)
		return (p[2] >= 0x8b && p[2] <= 0x8f) || (p[2] >= 0xa8 && p[2] <= 0xae);
	if (p[0] == 0xe2 && p[1] == 0x81)
		return p[2] >= 0xa0 && p[2] <= 0xaf;
	return (p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf) || (p[0] == 0xe1 && p[1] == 0xa0 && p[2] == 0x8e);
}

void msg_clean(char *s, bool one_line)
{
	unsigned char *p = (unsigned char *)s;
	size_t n = s ? strlen(s) : 0;

	for (size_t i = 0; i < n;) {
		size_t len = utf8_len(p + i, n - i);

		if (!len || (len == 1 && ((p[i] < 0x20 && p[i] != '\n' && p[i] != '\t') || p[i] == 0x7f)) ||
		    (len == 2 && p[i] == 0xc2 && p[i + 1] <= 0x9f) || /* C1: U+0080-U+009F (U+009B is a CSI) */
		    invisible(p + i, len)) {
			len = len ? len : 1;
			memset(p + i, '?', len);
		} else if (one_line && (p[i] == '\n' || p[i] == '\t')) {
			p[i] = ' ';
		}
		i += len;
	}
}

void msg_cut_utf8(char *s)
{
	size_t n = strlen(s), i = n;

	/* back to the last character's first byte: at most 3 continuation bytes before it */
	while (i > 0 && n - i < 4 && ((unsigned char)s[i - 1] & 0xc0) == 0x80)
		i--;
	if (i > 0 && utf8_len((unsigned char *)s + i - 1, n - i + 1) != n - i + 1)
		s[(unsigned char)s[i - 1] < 0x80 ? i : i - 1] = '\0';
}

void log_tail(const char *path, int n, const char *indent)
{
	char *text = file_read(path, NULL);
	size_t len;
	char *start;
	int lines = 0;

	if (!text)
		return;
	msg_clean(text, false);
	len = strlen(text);
	while (len && text[len - 1] == '\n')
		text[--len] = '\0';
	start = text + len;
	while (start > text && lines < n)
		if (*--start == '\n')
			lines++;
	if (*start == '\n')
		start++;
	for (char *line = start, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		fprintf(stderr, "%s%s\n", indent, line);
	}
	free(text);
}

int msg_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

int fmt_buf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n;
}
