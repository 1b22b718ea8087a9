// SPDX-License-Identifier: GPL-2.0
#include "measuring.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "journal_dir.h"
#include "log.h"

static int reg_fd = -1;
static char reg_name[96];
static long long win_open, win_close; /* this run's last window, ns; 0: none */
static json_t *notes;                 /* "pid" -> [{"scenario", "repeat"}...] */

int measuring_open(void)
{
	char why[PATH_MAX + 300];
	int dirfd = jdir_open(journal_dir(), true, why, sizeof(why));

	if (dirfd < 0) {
		pr_warn("run: %s; other runs measuring at the same time cannot be told", why);
		return -1;
	}
	snprintf(reg_name, sizeof(reg_name), "measuring-%d-%lld", (int)getpid(), proc_starttime(0));
	reg_fd = jdir_openat(dirfd, journal_dir(), reg_name, O_WRONLY | O_APPEND | O_CREAT | O_EXCL, 0600, why,
			     sizeof(why));
	close(dirfd);
	if (reg_fd < 0) {
		pr_warn("run: %s; other runs measuring at the same time cannot be told", why);
		return -1;
	}
	notes = json_object();
	return 0;
}

void measuring_window(bool open)
{
	long long t = mono_ns();

	if (reg_fd < 0)
		return;
	if (open) {
		win_open = t;
		win_close = 0;
	} else if (win_open) {
		win_close = t;
	}
	/* written before the window opens and after it closes: an overlap is never missed */
	if (dprintf(reg_fd, "%s %lld\n", open ? "open" : "close", t) < 0)
		pr_debug("measuring: cannot write %s: %s", reg_name, strerror(errno));
}

/* Did the run whose windows fd holds measure during [o, c]? */
static bool overlaps(int fd, bool alive, long long o, long long c)
{
	FILE *f = fdopen(fd, "r");
	char line[64], what[8];
	long long t, open = 0;
	bool hit = false;

	if (!f) {
		close(fd);
		return false;
	}
	while (!hit && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%7s %lld", what, &t) != 2)
			continue;
		if (!strcmp(what, "open")) {
			open = t;
		} else if (!strcmp(what, "close") && open) {
			hit = open < c && t > o;
			open = 0;
		}
	}
	/* a window still open: measuring now, if its run lives; else only if it opened inside ours */
	if (!hit && open)
		hit = alive ? open < c : open >= o && open < c;
	fclose(f);
	return hit;
}

/* The pids of other registered runs that measured during [o, c]. */
static json_t *others_during(long long o, long long c)
{
	char why[PATH_MAX + 300];
	int dirfd = jdir_open(journal_dir(), false, why, sizeof(why));
	json_t *pids = json_array();
	struct dirent *de;
	DIR *d;

	if (dirfd < 0)
		return pids;
	d = fdopendir(dup(dirfd));
	while (d && (de = readdir(d))) {
		long long start;
		int pid, fd, n = 0;

		if (sscanf(de->d_name, "measuring-%d-%lld%n", &pid, &start, &n) != 2 || de->d_name[n] ||
		    !strcmp(de->d_name, reg_name))
			continue;
		fd = jdir_openat(dirfd, journal_dir(), de->d_name, O_RDONLY, 0, why, sizeof(why));
		if (fd >= 0 && overlaps(fd, proc_starttime(pid) == start, o, c))
			json_array_append_new(pids, json_integer(pid));
	}
	if (d)
		closedir(d);
	close(dirfd);
	return pids;
}

void measuring_record(json_t *rec, const char *scenario, int repeat)
{
	json_t *pids;
	size_t i;
	json_t *v;

	if (reg_fd < 0 || !win_open || !win_close)
		return;
	pids = others_during(win_open, win_close);
	win_open = win_close = 0;
	json_array_foreach(pids, i, v) {
		char key[24];
		json_t *list;

		snprintf(key, sizeof(key), "%lld", (long long)json_integer_value(v));
		list = json_object_get(notes, key);
		if (!list) {
			list = json_array();
			json_object_set_new(notes, key, list);
		}
		json_array_append_new(list, json_pack("{s:s, s:i}", "scenario", scenario, "repeat", repeat));
	}
	json_object_set_new(rec, "concurrent_runs", pids);
}

json_t *measuring_report(void)
{
	json_t *out, *list;
	const char *key;

	if (!notes)
		return NULL;
	out = json_array();
	json_object_foreach(notes, key, list)
		json_array_append_new(out, json_pack("{s:i, s:O}", "pid", atoi(key), "during", list));
	return out;
}

/* "clear repeats 2-3, no-tso repeat 1": a run's disturbed repeats, scenario by scenario. */
static void during_text(json_t *list, char *buf, size_t len)
{
	size_t off = 0, n = json_array_size(list);

	buf[0] = '\0';
	for (size_t i = 0; i < n && off < len;) {
		const char *sc = json_string_value(json_object_get(json_array_get(list, i), "scenario"));
		size_t j = i;
		char reps[256] = "";
		size_t roff = 0;
		int count = 0;

		/* the notes come in run order: a scenario's repeats are together and rising */
		while (j < n && !strcmp(sc, json_string_value(json_object_get(json_array_get(list, j), "scenario")))) {
			int first = (int)json_integer_value(json_object_get(json_array_get(list, j), "repeat")), last = first;

			/* --probe-overhead measures each repeat twice: a repeat may come again */
			while (j + 1 < n &&
			       !strcmp(sc, json_string_value(json_object_get(json_array_get(list, j + 1), "scenario"))) &&
			       json_integer_value(json_object_get(json_array_get(list, j + 1), "repeat")) - last <= 1 &&
			       json_integer_value(json_object_get(json_array_get(list, j + 1), "repeat")) >= last)
				last = (int)json_integer_value(json_object_get(json_array_get(list, ++j), "repeat"));
			if (roff < sizeof(reps))
				roff += first == last ? snprintf(reps + roff, sizeof(reps) - roff, "%s%d", count ? ", " : "", first)
						      : snprintf(reps + roff, sizeof(reps) - roff, "%s%d-%d", count ? ", " : "", first, last);
			count += last - first + 1;
			j++;
		}
		off += snprintf(buf + off, len - off, "%s%s repeat%s %s", off ? ", " : "", sc, count > 1 ? "s" : "", reps);
		i = j;
	}
}

void measuring_warn(void)
{
	const char *key;
	json_t *list;

	json_object_foreach(notes, key, list) {
		char during[1024];

		during_text(list, during, sizeof(during));
		pr_warn("run: another ipsecperf run (pid %s) was measuring during %s: those figures may be disturbed",
			key, during);
	}
}

void measuring_close(void)
{
	char why[PATH_MAX + 300];
	int dirfd;

	if (reg_fd < 0)
		return;
	close(reg_fd);
	reg_fd = -1;
	dirfd = jdir_open(journal_dir(), false, why, sizeof(why));
	if (dirfd >= 0) {
		unlinkat(dirfd, reg_name, 0);
		close(dirfd);
	}
}

void measuring_cleanup_stale(int dirfd)
{
	DIR *d = fdopendir(dup(dirfd));
	struct dirent *de;

	if (d)
		rewinddir(d); /* a dup shares the offset of an fd that was read before */
	while (d && (de = readdir(d))) {
		long long start;
		int pid, n = 0;

		if (sscanf(de->d_name, "measuring-%d-%lld%n", &pid, &start, &n) == 2 && !de->d_name[n] &&
		    proc_starttime(pid) != start)
			unlinkat(dirfd, de->d_name, 0);
	}
	if (d)
		closedir(d);
}
