// SPDX-License-Identifier: GPL-2.0
/*
 * The host's reader of the tar stream a guest sends back (guest_tar.h): a
 * parser over bytes in memory, which decides what is taken, and a writer
 * that puts a file under a folder without following links or replacing
 * anything, which decides how.
 */
#include "guest_tar.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "log.h"

#define BLOCK 512

bool guest_name_ok(const char *s)
{
	return plain_name_ok(s, GUEST_NAME_MAX);
}

const char *guest_printable(const char *s, size_t n, char *out, size_t outlen)
{
	size_t o = 0;

	if (!outlen)
		return out;
	for (size_t i = 0; i < n && o + 1 < outlen; i++)
		out[o++] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	out[o] = '\0';
	return out;
}

/* ---- reading ---- */

/* A numeric field: octal digits, maybe after spaces, then only spaces or NULs. */
static int octal(const unsigned char *f, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	while (i < n && f[i] == ' ')
		i++;
	for (; i < n && f[i] >= '0' && f[i] <= '7'; i++) {
		if (v >> 60)
			return -1;
		v = v * 8 + (f[i] - '0');
	}
	for (; i < n; i++)
		if (f[i] != ' ' && f[i] != '\0')
			return -1; /* base-256 (GNU) too: no size that large is taken */
	*out = v;
	return 0;
}

/* The header's sum with its checksum field read as spaces; old tars summed signed bytes. */
static bool checksum_ok(const unsigned char *h)
{
	uint64_t want;
	unsigned long sum = 0;
	long ssum = 0;

	if (octal(h + 148, 8, &want) < 0)
		return false;
	for (int i = 0; i < BLOCK; i++) {
		unsigned char c = i >= 148 && i < 156 ? ' ' : h[i];

		sum += c;
		ssum += (signed char)c;
	}
	return want == sum || (long)want == ssum;
}

static bool zero_block(const unsigned char *h)
{
	for (int i = 0; i < BLOCK; i++)
		if (h[i])
			return false;
	return true;
}

static const char *type_name(char type, char *buf, size_t len)
{
	switch (type) {
	case '1': return "a hard link";
	case '2': return "a symbolic link";
	case '3': return "a character device";
	case '4': return "a block device";
	case '6': return "a FIFO";
	case '7': return "a contiguous file";
	case 'x': return "a pax extended header";
	case 'g': return "a pax global header";
	case 'K': return "a GNU long link name";
	}
	snprintf(buf, len, "an entry of type 0x%02x", (unsigned char)type);
	return buf;
}

/*
 * Check a path in place: drop a leading "./" (busybox writes "./guest.json")
 * and a trailing "/"; then every component must be a plain name. Returns
 * the path to use, "" for the archive's top folder itself, or NULL.
 */
static char *clean_path(char *p, char *why, size_t whylen)
{
	char *c, *slash;
	size_t n;
	int depth = 0;

	if (*p == '/') {
		msg_err(why, whylen, "an absolute path");
		return NULL;
	}
	while (p[0] == '.' && p[1] == '/')
		p += 2;
	if (!strcmp(p, "."))
		p++;
	n = strlen(p);
	if (n && p[n - 1] == '/')
		p[--n] = '\0';
	if (!n)
		return p;
	if (n > GUEST_TAR_MAX_PATH) {
		msg_err(why, whylen, "a path longer than %d bytes", GUEST_TAR_MAX_PATH);
		return NULL;
	}
	for (c = p; c; c = slash ? slash + 1 : NULL) {
		char show[GUEST_NAME_MAX + 8];
		bool ok;

		slash = strchr(c, '/');
		if (slash)
			*slash = '\0';
		ok = guest_name_ok(c);
		if (!ok)
			guest_printable(c, strlen(c), show, sizeof(show));
		if (slash)
			*slash = '/';
		if (!ok) {
			msg_err(why, whylen, "'%s' is not a plain name ([A-Za-z0-9._+-], not . or ..)", show);
			return NULL;
		}
		if (++depth > GUEST_TAR_MAX_DEPTH) {
			msg_err(why, whylen, "more than %d folders deep", GUEST_TAR_MAX_DEPTH);
			return NULL;
		}
	}
	return p;
}

/* Where a walk over the archive is, between its entries. */
struct tar_walk {
	const unsigned char *b;
	size_t len, off;
	size_t total;    /* bytes of the files so far */
	int entries;     /* files and folders so far */
	int idx;         /* the header being read, from 1 */
	bool have_long;  /* longname is the next entry's name */
	char longname[GUEST_TAR_MAX_PATH + 2];
	guest_tar_fn fn;
	void *ctx;
	char *err;
	size_t errlen;
};

/*
 * Check the header at the walk's offset: magic, checksum, an octal size
 * under the cap, its data inside the archive. Sets the size and the span
 * (header and data, in whole blocks). Returns 0, or -1 with err.
 */
static int read_header(struct tar_walk *w, uint64_t *size, size_t *span)
{
	const unsigned char *h = w->b + w->off;
	int idx = w->idx;

	if (memcmp(h + 257, "ustar", 5))
		return msg_err(w->err, w->errlen, "entry %d: not a ustar or GNU tar header", idx);
	if (!checksum_ok(h))
		return msg_err(w->err, w->errlen, "entry %d: the header's checksum is wrong", idx);
	if (octal(h + 124, 12, size) < 0)
		return msg_err(w->err, w->errlen, "entry %d: the size field is not an octal number", idx);
	if (*size > GUEST_TAR_MAX_FILE)
		return msg_err(w->err, w->errlen, "entry %d: %llu bytes, more than the %ld MiB a file may have",
			       idx, (unsigned long long)*size, GUEST_TAR_MAX_FILE >> 20);
	*span = BLOCK + (*size + BLOCK - 1) / BLOCK * BLOCK;
	if (*span > w->len - w->off)
		return msg_err(w->err, w->errlen, "entry %d: the archive is cut short", idx);
	return 0;
}

/* GNU 'L': this entry's data is the next one's name. Returns 0 or -1. */
static int take_long_name(struct tar_walk *w, uint64_t size)
{
	if (size > GUEST_TAR_MAX_PATH + 1)
		return msg_err(w->err, w->errlen, "entry %d: a long name of %llu bytes (at most %d)",
			       w->idx, (unsigned long long)size, GUEST_TAR_MAX_PATH);
	memcpy(w->longname, w->b + w->off + BLOCK, size);
	w->longname[size] = '\0';
	w->have_long = true;
	return 0;
}

/* The entry's path as the archive gives it: a long name, prefix/name or name. */
static void entry_path(struct tar_walk *w, const unsigned char *h, char *path, size_t n)
{
	if (w->have_long)
		snprintf(path, n, "%s", w->longname);
	else if (!memcmp(h + 257, "ustar\0", 6) && h[345]) /* POSIX: prefix/name */
		snprintf(path, n, "%.*s/%.*s", (int)strnlen((const char *)h + 345, 155),
			 h + 345, (int)strnlen((const char *)h, 100), h);
	else
		snprintf(path, n, "%.*s", (int)strnlen((const char *)h, 100), h);
	w->have_long = false;
}

/*
 * A file or folder entry: its type and path checked, the caps counted, then
 * handed to fn. Returns 0 (also for "./", the folder it is all unpacked
 * into, which is not handed on) or -1 with err.
 */
static int take_entry(struct tar_walk *w, uint64_t size)
{
	const unsigned char *h = w->b + w->off;
	char path[GUEST_TAR_MAX_PATH + 160], why[256], show[96], tbuf[40], *p;
	struct guest_tar_entry e = { 0 };
	char type = (char)h[156];
	int idx = w->idx;

	entry_path(w, h, path, sizeof(path));
	guest_printable(path, strlen(path), show, sizeof(show));
	if (type == '5')
		e.dir = true;
	else if (type != '0' && type != '\0')
		return msg_err(w->err, w->errlen, "entry %d (%s): %s; only regular files and folders are taken",
			       idx, show, type_name(type, tbuf, sizeof(tbuf)));
	if (e.dir && size)
		return msg_err(w->err, w->errlen, "entry %d (%s): a folder with data", idx, show);
	p = clean_path(path, why, sizeof(why));
	if (!p)
		return msg_err(w->err, w->errlen, "entry %d (%s): %s", idx, show, why);
	if (!*p) {
		if (!e.dir)
			return msg_err(w->err, w->errlen, "entry %d (%s): a file without a name", idx, show);
		return 0;
	}
	if (++w->entries > GUEST_TAR_MAX_ENTRIES)
		return msg_err(w->err, w->errlen, "entry %d: more than %d files and folders", idx,
			       GUEST_TAR_MAX_ENTRIES);
	w->total += size;
	if (w->total > (size_t)GUEST_TAR_MAX_TOTAL)
		return msg_err(w->err, w->errlen, "entry %d (%s): more than %ld MiB in all", idx, show,
			       GUEST_TAR_MAX_TOTAL >> 20);
	e.path = p;
	e.data = h + BLOCK;
	e.size = size;
	why[0] = '\0';
	if (w->fn && w->fn(&e, w->ctx, why, sizeof(why)) < 0)
		return msg_err(w->err, w->errlen, "entry %d (%s): %s", idx, show, why);
	return 0;
}

int guest_tar_parse(const void *buf, size_t len, guest_tar_fn fn, void *ctx, char *err,
		    size_t errlen)
{
	struct tar_walk w = { .b = buf, .len = len, .fn = fn, .ctx = ctx, .err = err, .errlen = errlen };

	if (errlen)
		err[0] = '\0';
	for (;;) {
		uint64_t size = 0;
		size_t span = 0;
		int rc;

		/* an archive that ends at a block boundary without its zero blocks is whole */
		if (len - w.off < BLOCK) {
			if (len == w.off && !w.have_long)
				break;
			return msg_err(err, errlen, "entry %d: the archive is cut short", w.idx + 1);
		}
		if (zero_block(w.b + w.off)) {
			if (w.have_long)
				return msg_err(err, errlen, "entry %d: a long name and no entry for it", w.idx);
			break; /* the end; what follows is padding */
		}
		w.idx++;
		if (read_header(&w, &size, &span) < 0)
			return -1;
		if (w.b[w.off + 156] == 'L')
			rc = take_long_name(&w, size);
		else
			rc = take_entry(&w, size);
		if (rc < 0)
			return -1;
		w.off += span;
	}
	return w.entries;
}

/* ---- writing ---- */

int guest_open_dir(int dirfd, const char *rel, char *err, size_t errlen)
{
	char buf[GUEST_TAR_MAX_PATH + 1], *pos = buf, *comp;
	int fd;

	if (strlen(rel) >= sizeof(buf))
		return msg_err(err, errlen, "%.40s...: a path longer than %d bytes", rel, GUEST_TAR_MAX_PATH);
	memcpy(buf, rel, strlen(rel) + 1);
	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return msg_err(err, errlen, "cannot open the folder to write into: %s", strerror(errno));
	while (*buf && (comp = strsep(&pos, "/"))) {
		int next;

		if (!guest_name_ok(comp)) {
			close(fd);
			return msg_err(err, errlen, "%s: not a plain name", rel);
		}
		if (mkdirat(fd, comp, 0755) < 0 && errno != EEXIST) {
			msg_err(err, errlen, "cannot make %s: %s", rel, strerror(errno));
			close(fd);
			return -1;
		}
		next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			if (errno == ELOOP || errno == ENOTDIR)
				msg_err(err, errlen, "%s: %s is a symbolic link or not a folder; never followed",
				     rel, comp);
			else
				msg_err(err, errlen, "%s: %s", rel, strerror(errno));
			close(fd);
			return -1;
		}
		close(fd);
		fd = next;
	}
	return fd;
}

int guest_write_file(int dirfd, const char *rel, const void *data, size_t len, char *err,
		     size_t errlen)
{
	char parent[GUEST_TAR_MAX_PATH + 1];
	const char *slash = strrchr(rel, '/'), *name = slash ? slash + 1 : rel;
	const char *p = data;
	int pfd, fd, e = 0;

	if (strlen(rel) >= sizeof(parent))
		return msg_err(err, errlen, "%.40s...: a path longer than %d bytes", rel, GUEST_TAR_MAX_PATH);
	snprintf(parent, sizeof(parent), "%.*s", slash ? (int)(slash - rel) : 0, rel);
	if (!guest_name_ok(name))
		return msg_err(err, errlen, "%s: not a plain name", rel);
	pfd = guest_open_dir(dirfd, parent, err, errlen);
	if (pfd < 0)
		return -1;
	fd = openat(pfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		if (errno == EEXIST)
			msg_err(err, errlen, "%s exists already; it is not replaced", rel);
		else
			msg_err(err, errlen, "cannot create %s: %s", rel, strerror(errno));
		close(pfd);
		return -1;
	}
	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			e = errno ? errno : EIO;
			break;
		}
		p += w;
		len -= w;
	}
	if (close(fd) < 0 && !e)
		e = errno;
	close(pfd);
	if (e)
		return msg_err(err, errlen, "cannot write %s: %s", rel, strerror(e));
	return 0;
}
