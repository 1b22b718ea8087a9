// SPDX-License-Identifier: GPL-2.0
/* The kernels a bisect built, by tree, .config and release scheme (bisect_cache.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <openssl/evp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bisect_cache.h"
#include "files.h"
#include "log.h"
#include "safefile.h"

#define MANIFEST "manifest.json"
#define MANIFEST_MAX (4 << 20)
#define FORMAT 1

/* the files of a build folder a run boots, modules aside; the first three are needed */
static const char *const kernel_files[] = { ".config", "include/config/kernel.release", "arch/x86/boot/bzImage",
					    "vmlinux", "System.map", "modules.order", "modules.builtin",
					    "modules.builtin.modinfo", NULL };
#define NEEDED 3

const char *bisect_cache_dir(void)
{
	const char *d = getenv("IPSECPERF_BISECT_CACHE");

	return d && *d == '/' ? d : "/var/cache/ipsecperf/bisect-kernels";
}

int bisect_cache_keep(void)
{
	const char *v = getenv("IPSECPERF_BISECT_CACHE_KEEP");
	int n = v ? atoi(v) : 0;

	return n >= 2 && n <= 1000 ? n : BISECT_CACHE_KEEP;
}

static void hex(const unsigned char *md, unsigned int n, char *out)
{
	for (unsigned int i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", md[i]);
	out[2 * n] = '\0';
}

/* SHA-256 of what fd reads to its end, and its size; 0 or -1. */
static int hash_fd(int fd, char out[65], long long *size)
{
	unsigned char md[EVP_MAX_MD_SIZE], buf[1 << 16];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	ssize_t n;
	int err = -1;

	*size = 0;
	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL))
		goto out;
	while ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR)) {
		if (n < 0)
			continue;
		if (!EVP_DigestUpdate(ctx, buf, n))
			goto out;
		*size += n;
	}
	if (n == 0 && EVP_DigestFinal_ex(ctx, md, &mdlen) && mdlen == 32) {
		hex(md, mdlen, out);
		err = 0;
	}
out:
	EVP_MD_CTX_free(ctx);
	return err;
}

static int hash_text(const char *text, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	if (!EVP_Digest(text, strlen(text), md, &mdlen, EVP_sha256(), NULL) || mdlen != 32)
		return -1;
	hex(md, mdlen, out);
	return 0;
}

int bisect_key_make(const char *tree, const char *config, struct bisect_key *k)
{
	char text[256], h[65];
	long long size;
	int fd;

	*k = (struct bisect_key){ 0 };
	if (strlen(tree) != 40 || strspn(tree, "0123456789abcdef") != 40) {
		pr_warn("bisect: '%.60s' is not a tree's hash", tree);
		return -1;
	}
	fd = safe_open(config, O_RDONLY, 0); /* in the build folder */
	if (fd < 0 || hash_fd(fd, k->config_sha, &size) < 0) {
		pr_warn("bisect: cannot read %s: %s", config, safe_open_error(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	memcpy(k->tree, tree, 41);
	fmt_buf(k->localversion, sizeof(k->localversion), "-bisect-%.12s", tree);
	fmt_buf(text, sizeof(text), "%d %s\n%s\n", FORMAT, BISECT_LV_SCHEME, k->config_sha);
	if (hash_text(text, h) < 0)
		return -1;
	fmt_buf(k->name, sizeof(k->name), "%s-%.12s", tree, h);
	return 0;
}

/* ---- taking an entry ---- */

/* A folder of this user that no one else can write to, not a symlink. */
static bool ours(const char *path, char *why, size_t wlen)
{
	struct stat st;

	if (lstat(path, &st) < 0) {
		fmt_buf(why, wlen, "%s: %s", path, strerror(errno));
		return false;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) {
		fmt_buf(why, wlen, "%s is not a folder of uid %d that only it can write", path, (int)geteuid());
		return false;
	}
	return true;
}

/* A manifest's path: relative, no "." or ".." component, printable, short. */
static bool rel_ok(const char *rel)
{
	const char *p = rel;

	if (!*rel || *rel == '/' || strlen(rel) > 512)
		return false;
	for (const char *c = rel; *c; c++)
		if ((unsigned char)*c <= 0x20 || *c == 0x7f)
			return false;
	while (*p) {
		size_t n = strcspn(p, "/");

		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += n + (p[n] == '/');
	}
	return rel[strlen(rel) - 1] != '/';
}

/* One file of an entry against its manifest line: a regular file of that size and sum. */
static int check_file(const char *dir, json_t *f, json_t *seen, char *why, size_t wlen)
{
	const char *rel = json_string_value(json_object_get(f, "path"));
	const char *sum = json_string_value(json_object_get(f, "sha256"));
	json_int_t want = json_integer_value(json_object_get(f, "size"));
	char path[PATH_MAX], got[65];
	long long size;
	struct stat st;
	int fd;

	if (!rel || !sum || !rel_ok(rel) || json_object_get(seen, rel)) {
		fmt_buf(why, wlen, "a manifest line names no file, or one twice");
		return -1;
	}
	fmt_buf(path, sizeof(path), "%s/%s", dir, rel);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size != want ||
	    hash_fd(fd, got, &size) < 0 || size != want || strcmp(got, sum)) {
		fmt_buf(why, wlen, "%s %s", rel, fd < 0 ? strerror(errno) : "is not the file its manifest names");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	json_object_set_new(seen, rel, json_true());
	return 0;
}

/* Every file under dir/rel is a manifest's (seen) or the manifest; folders only besides. */
static int walk(const char *dir, const char *rel, json_t *seen, int *nfiles, int depth, char *why, size_t wlen)
{
	char path[PATH_MAX], sub[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int ret = 0;

	fmt_buf(path, sizeof(path), "%s%s%s", dir, *rel ? "/" : "", rel);
	d = depth < 16 ? opendir(path) : NULL;
	if (!d) {
		fmt_buf(why, wlen, "cannot read %s", path);
		return -1;
	}
	while (ret == 0 && (e = readdir(d))) {
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		fmt_buf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", e->d_name);
		fmt_buf(path, sizeof(path), "%s/%s", dir, sub);
		if (lstat(path, &st) < 0) {
			ret = -1;
		} else if (S_ISDIR(st.st_mode)) {
			ret = walk(dir, sub, seen, nfiles, depth + 1, why, wlen);
			continue;
		} else if (S_ISREG(st.st_mode) && (json_object_get(seen, sub) || !strcmp(sub, MANIFEST))) {
			++*nfiles;
			continue;
		}
		ret = -1;
		fmt_buf(why, wlen, "%s is not in its manifest", sub);
	}
	closedir(d);
	return ret;
}

static const char *jstr(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* The manifest of dir, checked against the key and every file; its release into release. */
static int check_entry(const struct bisect_key *k, const char *dir, char *release, size_t rlen, char *why,
		       size_t wlen)
{
	char path[PATH_MAX], r[128] = "", w[256];
	json_t *m, *files, *f, *seen = json_object();
	char *text;
	size_t i;
	int nfiles = 0, ret = -1;

	fmt_buf(path, sizeof(path), "%s/%s", dir, MANIFEST);
	text = file_read_regular(path, MANIFEST_MAX, NULL, w, sizeof(w));
	m = text ? json_loads(text, 0, NULL) : NULL;
	free(text);
	files = json_object_get(m, "files");
	if (!json_is_array(files) || json_integer_value(json_object_get(m, "format")) != FORMAT ||
	    strcmp(k->tree, jstr(m, "tree")) || strcmp(k->config_sha, jstr(m, "config_sha256")) ||
	    strcmp(k->localversion, jstr(m, "localversion"))) {
		fmt_buf(why, wlen, "%s: %s", MANIFEST, m ? "not this key's" : "missing or not JSON");
		goto out;
	}
	json_array_foreach(files, i, f)
		if (check_file(dir, f, seen, why, wlen) < 0)
			goto out;
	for (i = 0; i < NEEDED; i++)
		if (!json_object_get(seen, kernel_files[i])) {
			fmt_buf(why, wlen, "no %s", kernel_files[i]);
			goto out;
		}
	if (walk(dir, "", seen, &nfiles, 0, why, wlen) < 0)
		goto out;
	fmt_buf(path, sizeof(path), "%s/include/config/kernel.release", dir);
	if (file_read_line(path, r, sizeof(r)) < 0 || !plain_name_ok(r, sizeof(r) - 1) ||
	    strcmp(r, jstr(m, "release"))) {
		fmt_buf(why, wlen, "its release is not its manifest's");
		goto out;
	}
	fmt_buf(release, rlen, "%s", r);
	ret = 0;
out:
	json_decref(seen);
	json_decref(m);
	return ret;
}

/* The cache's lock (closing it unlocks), or -1. */
static int lock_cache(const char *cache)
{
	char path[PATH_MAX];
	int fd;

	fmt_buf(path, sizeof(path), "%s/.lock", cache);
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR) {
			close(fd);
			return -1;
		}
	return fd;
}

void bisect_cache_touch(const char *dir)
{
	utimensat(AT_FDCWD, dir, NULL, AT_SYMLINK_NOFOLLOW);
}

int bisect_cache_get(const struct bisect_key *k, char *dir, size_t dlen, char *release, size_t rlen, char *why,
		     size_t wlen)
{
	const char *cache = bisect_cache_dir();
	char path[PATH_MAX], w[PATH_MAX + 128];
	int lock, ret;

	fmt_buf(path, sizeof(path), "%s/%s", cache, k->name);
	if (access(path, F_OK) < 0)
		return 1;
	if (!ours(cache, w, sizeof(w)) || !ours(path, w, sizeof(w)) ||
	    check_entry(k, path, release, rlen, w, sizeof(w)) < 0) {
		fmt_buf(why, wlen, "%s: %s", path, w);
		/* a folder of someone else's is left alone; it is not taken either */
		if (ours(cache, w, sizeof(w)))
			rm_rf(path);
		return 2;
	}
	lock = lock_cache(cache);
	/* under the lock, so that no prune removes it after it is marked used */
	ret = utimensat(AT_FDCWD, path, NULL, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : 1;
	if (lock >= 0)
		close(lock);
	fmt_buf(dir, dlen, "%s", path);
	return ret;
}

/* ---- making an entry ---- */

/* Copy src to dst (new), its sum and size into the manifest's files; 0 or -1 with errno. */
static int copy_hashed(const char *src, const char *dst, const char *rel, json_t *files)
{
	unsigned char md[EVP_MAX_MD_SIZE], buf[1 << 16];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	long long size = 0;
	char sum[65];
	struct stat st;
	ssize_t n = -1;
	int in = safe_open(src, O_RDONLY, 0), out = -1, err = -1; /* from the build folder */

	if (!ctx || in < 0 || fstat(in, &st) < 0 || !S_ISREG(st.st_mode) ||
	    !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL))
		goto out;
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, (st.st_mode & 0111) ? 0755 : 0644);
	while (out >= 0 && ((n = read(in, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))) {
		for (ssize_t off = 0; n > 0 && off < n;) {
			ssize_t w = write(out, buf + off, n - off);

			if (w < 0 && errno != EINTR)
				goto out;
			off += w > 0 ? w : 0;
		}
		if (n > 0 && !EVP_DigestUpdate(ctx, buf, n))
			goto out;
		size += n > 0 ? n : 0;
	}
	if (out < 0 || n != 0 || !EVP_DigestFinal_ex(ctx, md, &mdlen))
		goto out;
	hex(md, mdlen, sum);
	json_array_append_new(files, json_pack("{s:s, s:I, s:s}", "path", rel, "size", (json_int_t)size, "sha256",
					       sum));
	err = 0;
out:
	if (out >= 0 && close(out) < 0)
		err = -1;
	if (in >= 0)
		close(in);
	EVP_MD_CTX_free(ctx);
	return err;
}

/* build/rel into part/rel; a file that is not there is an error only when needed. */
static int add_file(const char *build, const char *part, const char *rel, bool needed, json_t *files, char *why,
		    size_t wlen)
{
	char src[PATH_MAX], dst[PATH_MAX];
	char *slash;

	fmt_buf(src, sizeof(src), "%s/%s", build, rel);
	if (!is_file(src)) {
		if (needed)
			fmt_buf(why, wlen, "%s: %s", src, strerror(errno ? errno : ENOENT));
		return needed ? -1 : 0;
	}
	fmt_buf(dst, sizeof(dst), "%s/%s", part, rel);
	slash = strrchr(dst, '/');
	*slash = '\0';
	if (mkdir_p(dst, 0755) < 0) {
		fmt_buf(why, wlen, "cannot make %s: %s", dst, strerror(errno));
		return -1;
	}
	*slash = '/';
	if (copy_hashed(src, dst, rel, files) < 0) {
		fmt_buf(why, wlen, "cannot copy %s to %s: %s", src, dst, strerror(errno));
		return -1;
	}
	return 0;
}

/* The modules modules.order names (path.o: path.ko), as the VM takes them from a tree. */
static int add_modules(const char *build, const char *part, json_t *files, char *why, size_t wlen)
{
	char path[PATH_MAX], *text, *save = NULL;

	fmt_buf(path, sizeof(path), "%s/modules.order", build);
	text = file_read(path, NULL);
	if (!text)
		return 0;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t n = strlen(line);
		char ko[PATH_MAX];

		if (n > 2 && !strcmp(line + n - 2, ".o"))
			line[n - 2] = '\0';
		else if (n > 3 && !strcmp(line + n - 3, ".ko"))
			line[n - 3] = '\0';
		else
			continue;
		fmt_buf(ko, sizeof(ko), "%s.ko", line);
		if (!rel_ok(ko) || add_file(build, part, ko, false, files, why, wlen) < 0) {
			if (!rel_ok(ko))
				fmt_buf(why, wlen, "modules.order names '%.100s'", line);
			free(text);
			return -1;
		}
	}
	free(text);
	return 0;
}

/* Another process's folder .part-NAME-PID (or .old-...) whose process is gone. */
static bool stale_part(const char *name)
{
	const char *dash = strrchr(name, '-');
	long pid = dash ? strtol(dash + 1, NULL, 10) : 0;

	if (strncmp(name, ".part-", 6) && strncmp(name, ".old-", 5))
		return false;
	return pid <= 0 || (kill((pid_t)pid, 0) < 0 && errno == ESRCH);
}

struct used {
	char name[64];
	struct timespec t;
};

static int newer_first(const void *a, const void *b)
{
	const struct used *x = a, *y = b;

	if (x->t.tv_sec != y->t.tv_sec)
		return x->t.tv_sec < y->t.tv_sec ? 1 : -1;
	return x->t.tv_nsec < y->t.tv_nsec ? 1 : x->t.tv_nsec > y->t.tv_nsec ? -1 : 0;
}

/* Keep the last keep entries used (the cache locked); stale half-made ones go too. */
static void prune(const char *cache, int keep)
{
	struct used *u = NULL;
	struct dirent *e;
	int n = 0, cap = 0;
	DIR *d = opendir(cache);

	while (d && (e = readdir(d))) {
		char path[PATH_MAX];
		struct stat st;

		fmt_buf(path, sizeof(path), "%s/%s", cache, e->d_name);
		if (e->d_name[0] == '.') {
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && stale_part(e->d_name))
				rm_rf(path);
			continue;
		}
		if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode) || strlen(e->d_name) >= sizeof(u->name))
			continue;
		if (n == cap) {
			struct used *nu = realloc(u, (cap = cap ? 2 * cap : 32) * sizeof(*u));

			if (!nu)
				break;
			u = nu;
		}
		fmt_buf(u[n].name, sizeof(u[n].name), "%s", e->d_name);
		u[n++].t = st.st_mtim;
	}
	if (d)
		closedir(d);
	if (u)
		qsort(u, n, sizeof(*u), newer_first);
	for (int i = keep; i < n; i++) {
		char path[PATH_MAX];

		fmt_buf(path, sizeof(path), "%s/%s", cache, u[i].name);
		rm_rf(path);
	}
	free(u);
}

/* part, whole, into place as cache/name (an entry there is swapped out and removed). */
static int install(const char *cache, const char *part, const char *name, char *why, size_t wlen)
{
	char final[PATH_MAX];
	int lock = lock_cache(cache), ret = 0;

	fmt_buf(final, sizeof(final), "%s/%s", cache, name);
	if (lock < 0) {
		fmt_buf(why, wlen, "cannot lock %s/.lock: %s", cache, strerror(errno));
		return -1;
	}
	if (rename(part, final) < 0) {
		if ((errno == EEXIST || errno == ENOTEMPTY) && renameat2(AT_FDCWD, part, AT_FDCWD, final,
									 RENAME_EXCHANGE) == 0) {
			rm_rf(part); /* the entry it replaced */
		} else {
			fmt_buf(why, wlen, "cannot rename %s to %s: %s", part, final, strerror(errno));
			ret = -1;
		}
	}
	if (ret == 0) {
		bisect_cache_touch(final);
		prune(cache, bisect_cache_keep());
	}
	close(lock);
	return ret;
}

/* What a run needs from build into part, and its manifest; the release into release. */
static int fill(const struct bisect_key *k, const char *build, const char *part, const char *commit,
		char *release, size_t rlen, char *why, size_t wlen)
{
	json_t *files = json_array(), *m;
	char path[PATH_MAX], r[128] = "";
	int err;

	for (int i = 0; kernel_files[i]; i++)
		if (add_file(build, part, kernel_files[i], i < NEEDED, files, why, wlen) < 0) {
			json_decref(files);
			return -1;
		}
	if (add_modules(build, part, files, why, wlen) < 0) {
		json_decref(files);
		return -1;
	}
	fmt_buf(path, sizeof(path), "%s/include/config/kernel.release", part);
	if (file_read_line(path, r, sizeof(r)) < 0 || !plain_name_ok(r, sizeof(r) - 1)) {
		fmt_buf(why, wlen, "%s/include/config/kernel.release names no release", build);
		json_decref(files);
		return -1;
	}
	m = json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:o}", "format", FORMAT, "tree", k->tree,
		      "config_sha256", k->config_sha, "localversion", k->localversion, "release", r, "commit",
		      commit, "built_from", build, "time", (json_int_t)time(NULL), "files", files);
	fmt_buf(path, sizeof(path), "%s/%s", part, MANIFEST);
	err = !m || json_dump_file(m, path, JSON_INDENT(1)) < 0;
	json_decref(m);
	if (err) {
		fmt_buf(why, wlen, "cannot write %s", path);
		return -1;
	}
	fmt_buf(release, rlen, "%s", r);
	return 0;
}

int bisect_cache_put(const struct bisect_key *k, const char *build, const char *commit, char *dir, size_t dlen,
		     char *release, size_t rlen, char *why, size_t wlen)
{
	const char *cache = bisect_cache_dir();
	char part[PATH_MAX], w[PATH_MAX];

	if (mkdir_p(cache, 0755) < 0) {
		fmt_buf(why, wlen, "cannot make %s: %s", cache, strerror(errno));
		return -1;
	}
	if (!ours(cache, w, sizeof(w))) {
		fmt_buf(why, wlen, "%s", w);
		return -1;
	}
	fmt_buf(part, sizeof(part), "%s/.part-%s-%d", cache, k->name, (int)getpid());
	rm_rf(part);
	if (mkdir(part, 0755) < 0) {
		fmt_buf(why, wlen, "cannot make %s: %s", part, strerror(errno));
		return -1;
	}
	if (fill(k, build, part, commit, release, rlen, why, wlen) < 0 || install(cache, part, k->name, why, wlen) < 0) {
		rm_rf(part);
		return -1;
	}
	fmt_buf(dir, dlen, "%s/%s", cache, k->name);
	return 0;
}
