// SPDX-License-Identifier: GPL-2.0
/*
 * Results are untrusted input: a string with a control character is
 * refused or scrubbed, a file is read without following a link and up to
 * a size; and the helpers the readers of runs.jsonl and meta.json share.
 */
#include "results.h"
#include "results_int.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "log.h"

int results_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

char *results_strdup(const char *s)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d) {
		perror("ipsecperf: strdup");
		abort();
	}
	return d;
}

const char *results_json_kind(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE: case JSON_FALSE: return "a boolean";
	case JSON_NULL: return "null";
	}
	return "?";
}

/* ---- strings are data ---- */

const char *results_bad_char(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (c < 0x20 || c == 0x7f)
			return s + i;
		/* U+0080-U+009F: C1 controls, U+009B is a terminal's CSI */
		if (c == 0xc2 && i + 1 < len && (unsigned char)s[i + 1] >= 0x80 &&
		    (unsigned char)s[i + 1] <= 0x9f)
			return s + i;
	}
	return NULL;
}

/* "0x0a at byte 7" for the message about a control character */
const char *results_bad_char_what(const char *s, const char *p, char *buf, size_t len)
{
	if ((unsigned char)*p == 0xc2)
		snprintf(buf, len, "U+%04X at byte %zu", (unsigned char)p[1], (size_t)(p - s));
	else
		snprintf(buf, len, "0x%02x at byte %zu", (unsigned char)*p, (size_t)(p - s));
	return buf;
}

const char *results_printable(const char *s, char *buf, size_t len)
{
	size_t o = 0, n = strlen(s);

	for (size_t i = 0; i < n && o + 5 < len; i++) {
		const char *p = results_bad_char(s + i, n - i);

		if (p == s + i || (unsigned char)s[i] == '\\')
			o += snprintf(buf + o, len - o, "\\x%02x", (unsigned char)s[i]);
		else
			buf[o++] = s[i];
	}
	buf[o < len ? o : len - 1] = '\0';
	return buf;
}

void results_scrub(json_t *v)
{
	const char *k;
	json_t *x;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach(v, k, x)
			results_scrub(x);
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			results_scrub(x);
	} else if (json_is_string(v)) {
		size_t n = json_string_length(v), o = 0;
		const char *s = json_string_value(v);
		char *t;

		if (!results_bad_char(s, n) || !(t = malloc(n + 1)))
			return;
		for (i = 0; i < n; i++) {
			const char *p = results_bad_char(s + i, n - i);

			t[o++] = p == s + i ? ' ' : s[i];
			i += p == s + i && (unsigned char)s[i] == 0xc2; /* a C1 control is two bytes */
		}
		json_string_setn(v, t, o);
		free(t);
	}
}

int results_check_field(const char *file, int line, const char *field, const char *s, size_t len,
			char *err, size_t errlen)
{
	const char *p = results_bad_char(s, len);
	char what[48], at[16] = "";

	if (!p)
		return 0;
	if (line > 0)
		snprintf(at, sizeof(at), ":%d", line);
	return results_fail(err, errlen, "%s%s: %s holds a control character (%s); ipsecperf never writes one, so it is refused",
		    file, at, field, results_bad_char_what(s, p, what, sizeof(what)));
}

void results_warn_torn(const char *path, const struct results *r)
{
	if (r->torn_line)
		pr_warn("%s:%d: the last record is incomplete (no newline at the end: a run killed while writing it?); using the %d records before it",
			path, r->torn_line, r->nruns);
}

bool results_name_ok(const char *s)
{
	return plain_name_ok(s, 255);
}

/* ---- reading files ---- */

char *results_read(const char *dir, const char *rel, size_t *len, char *err, size_t errlen)
{
	return results_read_max(dir, rel, RESULTS_MAX_FILE, len, err, errlen);
}

char *results_read_max(const char *dir, const char *rel, long max, size_t *len, char *err, size_t errlen)
{
	char *copy = strdup(rel), *pos = copy, *comp, *buf = NULL;
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct stat st;
	size_t n = 0;

	if (fd < 0 || !copy) {
		results_fail(err, errlen, "%s: %s", dir, copy ? strerror(errno) : "out of memory");
		goto out;
	}
	/*
	 * each component a plain name, looked at without following a link;
	 * only the last, once it is known to be a regular file, is opened
	 * (a FIFO or a device node a tarball recreated is never opened)
	 */
	while ((comp = strsep(&pos, "/"))) {
		bool last = !pos;
		int next;

		if (!results_name_ok(comp)) {
			results_fail(err, errlen, "%s/%s: '%s' is not a plain file name ([A-Za-z0-9._+-])", dir, rel,
			     comp);
			goto out;
		}
		next = last ? file_open_regular_at(fd, comp, O_RDONLY, &st) :
			      openat(fd, comp, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
		if (next == FILE_NOT_REGULAR) {
			results_fail(err, errlen, "%s/%s: not a regular file", dir, rel);
			goto out;
		}
		if (next < 0) {
			if (errno == ELOOP || (errno == ENOTDIR && !last))
				results_fail(err, errlen, "%s/%s: %s is a symbolic link or not a directory; results are read without following links",
				     dir, rel, comp);
			else
				results_fail(err, errlen, "%s/%s: %s", dir, rel, strerror(errno));
			goto out;
		}
		close(fd);
		fd = next;
	}
	if (st.st_size > max) {
		results_fail(err, errlen, "%s/%s: larger than %ld MiB; refusing to read it", dir, rel, max >> 20);
		goto out;
	}
	buf = malloc(st.st_size + 1);
	if (!buf) {
		results_fail(err, errlen, "%s/%s: out of memory", dir, rel);
		goto out;
	}
	/* no more than fstat said: a file that grows meanwhile is read as it was */
	while (n < (size_t)st.st_size) {
		ssize_t got = read(fd, buf + n, st.st_size - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			results_fail(err, errlen, "%s/%s: %s", dir, rel, strerror(errno));
			free(buf);
			buf = NULL;
			goto out;
		}
		if (!got)
			break;
		n += got;
	}
	buf[n] = '\0';
	*len = n;
out:
	if (fd >= 0)
		close(fd);
	free(copy);
	return buf;
}
