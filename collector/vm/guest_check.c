// SPDX-License-Identifier: GPL-2.0
/* Checks on what a VM guest sends back (guest_check.h). */
#include "guest_check.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "guest_tar.h"
#include "log.h"
#include "results.h"
#include "vm_guest.h"

/* ---- the archive ---- */

static int scan_one(const struct guest_tar_entry *e, void *ctx, char *why, size_t whylen)
{
	struct guest_out *g = ctx;
	const char **data = NULL;
	size_t *len = NULL;

	(void)why;
	(void)whylen;
	if (e->dir)
		return 0;
	if (!strcmp(e->path, GUEST_INFO))
		data = &g->info, len = &g->info_len;
	else if (!strcmp(e->path, GUEST_RUNDIR "/runs.jsonl"))
		data = &g->runs, len = &g->runs_len;
	else if (!strcmp(e->path, GUEST_RUNDIR "/meta.json"))
		data = &g->meta, len = &g->meta_len;
	else if (!strncmp(e->path, GUEST_RUNDIR "/raw/", strlen(GUEST_RUNDIR "/raw/")))
		g->nraw++;
	/* anything else in /out is not the host's business, and not taken */
	if (data) {
		*data = (const char *)e->data;
		*len = e->size;
	}
	return 0;
}

int guest_out_scan(const void *tar, size_t len, struct guest_out *g, char *why, size_t whylen)
{
	memset(g, 0, sizeof(*g));
	return guest_tar_parse(tar, len, scan_one, g, why, whylen) < 0 ? -1 : 0;
}

/*
 * The names the host writes beside the guest's raw files in raw/<release>/
 * (vm_home.c's keep_raw): console[-receiver][-rN].log, vm-guest[-rN].json. A
 * guest may not plant one for a later boot of the same kernel.
 */
bool guest_raw_name_reserved(const char *name)
{
	const char *p;

	if (!strncmp(name, "console", 7))
		p = name + 7 + (strncmp(name + 7, "-receiver", 9) ? 0 : 9);
	else if (!strncmp(name, "vm-guest", 8))
		p = name + 8;
	else
		return false;
	if (!strncmp(p, "-r", 2) && p[2] >= '0' && p[2] <= '9')
		p += 2 + strspn(p + 2, "0123456789");
	return !strcmp(p, !strncmp(name, "console", 7) ? ".log" : ".json");
}

static int raw_one(const struct guest_tar_entry *e, void *ctx, char *why, size_t whylen)
{
	const char *pfx = GUEST_RUNDIR "/raw/", *rel;
	int rawfd = *(int *)ctx, fd;

	if (strncmp(e->path, pfx, strlen(pfx)))
		return 0;
	rel = e->path + strlen(pfx);
	if (!strchr(rel, '/') && guest_raw_name_reserved(rel))
		return msg_err(why, whylen, "%s is a name the host writes itself", rel);
	if (!e->dir)
		return guest_write_file(rawfd, rel, e->data, e->size, why, whylen);
	fd = guest_open_dir(rawfd, rel, why, whylen);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* Every entry of the staging folder sfd moved into rawfd, none over a name there; 0 or -1 with why. */
static int stage_commit(int sfd, int rawfd, char *why, size_t whylen)
{
	DIR *d = fdopendir(dup(sfd));
	struct dirent *de;
	struct stat st;
	int rc = 0;

	if (!d)
		return msg_err(why, whylen, "the staging folder: %s", strerror(errno));
	for (int pass = 0; pass < 2 && !rc; pass++) {
		rewinddir(d);
		while (!rc && (de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			/* first every name checked, then moved: nothing moves unless all can */
			if (!pass && fstatat(rawfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
				rc = msg_err(why, whylen, "%s exists already", de->d_name);
			else if (pass && renameat2(sfd, de->d_name, rawfd, de->d_name, RENAME_NOREPLACE) < 0)
				rc = msg_err(why, whylen, "%s: %s", de->d_name, strerror(errno));
		}
	}
	closedir(d);
	return rc;
}

int guest_out_raw(const void *tar, size_t len, int rawfd, char *why, size_t whylen)
{
	/* a blank: no name of the guest's (guest_name_ok) is this one */
	char stage[48], path[96];
	int sfd, rc;

	fmt_buf(stage, sizeof(stage), ".staging %d", (int)getpid());
	fmt_buf(path, sizeof(path), "/proc/self/fd/%d/%s", rawfd, stage);
	rm_rf(path); /* a crashed run's */
	if (mkdirat(rawfd, stage, 0755) < 0 ||
	    (sfd = openat(rawfd, stage, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return msg_err(why, whylen, "a staging folder: %s", strerror(errno));
	rc = guest_tar_parse(tar, len, raw_one, &sfd, why, whylen) < 0 ? -1 : 0;
	if (!rc)
		rc = stage_commit(sfd, rawfd, why, whylen);
	close(sfd);
	/* refused: nothing of the archive stays; taken: the folder is empty */
	rm_rf(path);
	return rc;
}

/* ---- JSON ---- */

static int str_clean(const char *s, size_t n, char *why, size_t whylen)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];

		/* C1 controls are U+0080-U+009F, 0xc2 0x80-0x9f in UTF-8 (U+009B is a CSI) */
		if (c < 0x20 || c == 0x7f ||
		    (c == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 &&
		     (unsigned char)s[i + 1] <= 0x9f))
			return msg_err(why, whylen, "a string holds a control character (0x%02x at byte %zu)",
				    c == 0xc2 ? (unsigned char)s[i + 1] : c, i);
	}
	return 0;
}

static int clean(json_t *v, int depth, char *why, size_t whylen)
{
	const char *key;
	json_t *m;
	size_t i;

	if (depth > GUEST_JSON_DEPTH)
		return msg_err(why, whylen, "nested more than %d deep", GUEST_JSON_DEPTH);
	switch (json_typeof(v)) {
	case JSON_STRING:
		return str_clean(json_string_value(v), json_string_length(v), why, whylen);
	case JSON_OBJECT:
		json_object_foreach(v, key, m)
			if (str_clean(key, strlen(key), why, whylen) < 0 || clean(m, depth + 1, why, whylen) < 0)
				return -1;
		return 0;
	case JSON_ARRAY:
		json_array_foreach(v, i, m)
			if (clean(m, depth + 1, why, whylen) < 0)
				return -1;
		return 0;
	default:
		return 0;
	}
}

int guest_json_clean(json_t *v, char *why, size_t whylen)
{
	return v ? clean(v, 0, why, whylen) : 0;
}

int guest_info_check(json_t *info, char *why, size_t whylen)
{
	json_t *rel = json_object_get(info, "release"), *pv = json_object_get(info, "proc_version");
	char show[GUEST_NAME_MAX + 8];

	if (!json_is_object(info))
		return msg_err(why, whylen, "not a JSON object");
	if (!json_is_string(rel))
		return msg_err(why, whylen, "\"release\" is missing or not a string");
	if (!guest_name_ok(json_string_value(rel)))
		return msg_err(why, whylen, "\"release\" '%s' is not a plain name ([A-Za-z0-9._+-], not . or .., at most %d)",
			    guest_printable(json_string_value(rel), json_string_length(rel), show, sizeof(show)),
			    GUEST_NAME_MAX);
	if (!json_is_integer(json_object_get(info, "rc")))
		return msg_err(why, whylen, "\"rc\" is missing or not an integer");
	if (pv && (!json_is_string(pv) || json_string_length(pv) > GUEST_PROC_VERSION_MAX))
		return msg_err(why, whylen, "\"proc_version\" is not a string of at most %d bytes",
			    GUEST_PROC_VERSION_MAX);
	return guest_json_clean(info, why, whylen);
}

int guest_meta_kernel(const char *buf, size_t len, const char *release, json_t **entry,
		      char *why, size_t whylen)
{
	struct results_meta m;
	json_t *root, *list, *e = NULL;
	const char *r;
	char err[512], w[256];
	int rc = 0;

	*entry = NULL;
	if (results_parse_meta(GUEST_RUNDIR "/meta.json", buf, len, &m, err, sizeof(err)) < 0)
		return msg_err(why, whylen, "%s", err);
	results_meta_free(&m);
	root = json_loadb(buf, len, 0, NULL);
	list = json_object_get(root, "kernels");
	if (json_is_array(list))
		e = json_array_get(list, 0);
	else
		e = json_object_get(root, "kernel");
	if (!json_is_object(e))
		goto out;
	r = json_string_value(json_object_get(e, "release"));
	if (guest_json_clean(e, w, sizeof(w)) < 0)
		rc = msg_err(why, whylen, GUEST_RUNDIR "/meta.json: its kernel: %s", w);
	else if (r && strcmp(r, release))
		rc = msg_err(why, whylen, GUEST_RUNDIR "/meta.json: its kernel is release %.*s, not the guest's own %s",
			  GUEST_NAME_MAX, r, release);
	else
		*entry = json_deep_copy(e);
out:
	json_decref(root);
	return rc;
}

int guest_records_check(const char *name, const char *buf, size_t len, const char *release,
			char *why, size_t whylen)
{
	struct results r = { 0 };
	size_t pos = 0;
	int n;

	/* the reader stops at the first bad line; the lines before it are records */
	if (results_parse_runs(name, buf, len, &r, why, whylen) == 0)
		why[0] = '\0';
	for (n = 0; n < r.nruns; n++) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - buf) : len;
		json_t *o = json_loadb(buf + pos, end - pos, 0, NULL);
		char w[256], show[GUEST_NAME_MAX + 8];
		int bad = 0;

		if (strcmp(r.runs[n].kernel, release))
			bad = msg_err(why, whylen, "%s:%d: kernel '%s' is not the guest's own release %s", name,
				   n + 1, guest_printable(r.runs[n].kernel, strlen(r.runs[n].kernel), show,
							  sizeof(show)), release);
		else if (guest_json_clean(o, w, sizeof(w)) < 0)
			bad = msg_err(why, whylen, "%s:%d: %s", name, n + 1, w);
		json_decref(o);
		if (bad)
			break;
		pos = end + 1;
	}
	results_free(&r);
	return n;
}
