/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host's own reader of the tar stream a VM guest sends back on its
 * serial port (vm_guest.h), in place of `tar -x` run as root: a guest is
 * not trusted (docs/security.md), so its archive is data.
 *
 * Only regular files and folders are taken. Every path is relative and
 * each of its components a plain name ([A-Za-z0-9._+-], not "." or "..");
 * a leading "./" is allowed, as busybox writes it. Links, devices, FIFOs,
 * pax headers and anything else refuse the whole archive: the guest's
 * busybox tar of /out never writes them, so a guest that sends one is not
 * trusted with the rest either. Modes, owners and times in the headers are
 * ignored; the host writes files 0644 and folders 0755 (guest_write_file).
 */
#ifndef IPSECPERF_GUEST_TAR_H
#define IPSECPERF_GUEST_TAR_H

#include <stdbool.h>
#include <stddef.h>

#define GUEST_TAR_MAX_FILE (256L << 20)   /* one file */
#define GUEST_TAR_MAX_TOTAL (1024L << 20) /* all files together */
#define GUEST_TAR_MAX_ENTRIES 4096        /* files and folders */
#define GUEST_TAR_MAX_PATH 255
#define GUEST_TAR_MAX_DEPTH 8
#define GUEST_NAME_MAX 100                /* one path component, a release */
/* the largest stream the caps allow: data, a header and padding per entry */
#define GUEST_TAR_MAX_STREAM (GUEST_TAR_MAX_TOTAL + GUEST_TAR_MAX_ENTRIES * 2048L + 1024)

/* A plain file name: [A-Za-z0-9._+-]{1,GUEST_NAME_MAX}, not "." or "..". */
bool guest_name_ok(const char *s);

/*
 * s (n bytes) for a message: bytes outside printable ASCII become '?', at
 * most outlen - 1 of them. Returns out.
 */
const char *guest_printable(const char *s, size_t n, char *out, size_t outlen);

struct guest_tar_entry {
	const char *path;           /* checked, relative, no "./" and no trailing "/" */
	bool dir;                   /* a folder; else a regular file */
	const unsigned char *data;  /* a file's bytes, inside the archive */
	size_t size;
};

/* Called for each entry; returns 0, or -1 with a message in err. */
typedef int (*guest_tar_fn)(const struct guest_tar_entry *e, void *ctx, char *err, size_t errlen);

/*
 * Read a whole tar stream held in memory (ustar or GNU headers, GNU long
 * names), calling fn (may be NULL) for each file and folder in order. Pure:
 * no file is touched. Returns the number of entries, or -1 with one line in
 * err ("entry N (PATH): why") when the archive breaks a rule above or a cap,
 * or fn refuses an entry.
 */
int guest_tar_parse(const void *buf, size_t len, guest_tar_fn fn, void *ctx, char *err,
		    size_t errlen);

/*
 * The folder rel (plain names joined by '/') under dirfd, made 0755 where
 * missing, opened without following a symbolic link at any step. Returns
 * its descriptor, or -1 with a message in err.
 */
int guest_open_dir(int dirfd, const char *rel, char *err, size_t errlen);

/*
 * Write a new regular file rel under dirfd (missing folders made as by
 * guest_open_dir), mode 0644 (less the umask), O_EXCL|O_NOFOLLOW: never
 * through a symbolic link, never over an existing file. 0, or -1 with a
 * message in err.
 */
int guest_write_file(int dirfd, const char *rel, const void *data, size_t len, char *err,
		     size_t errlen);

#endif
