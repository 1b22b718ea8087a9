// SPDX-License-Identifier: GPL-2.0
/*
 * Bringing a guest's results home. What the guest sends is data from an
 * untrusted source: read with the host's own tar reader (guest_tar.c) and
 * checked (guest_check.c) before anything of it is kept. The host names
 * the kernel: records and raw/ are keyed by the release it knows.
 */
#include "vm_home.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "files.h"
#include "guest_check.h"
#include "log.h"
#include "matrix.h"
#include "setup.h"
#include "vm_accel.h"
#include "vm_console.h"
#include "vm_guest.h"

static int append_line(const char *path, const char *line)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	size_t len = strlen(line);
	int err = 0;

	if (fd < 0)
		return -1;
	if (write(fd, line, len) != (ssize_t)len || write(fd, "\n", 1) != 1)
		err = -1;
	if (close(fd) < 0)
		err = -1;
	return err;
}

json_t *vm_info(const struct boot *b, const struct vm_kernel *k, const struct vm_kernel *peer)
{
	json_t *v = json_pack("{s:s, s:s, s:s, s:i}", "accel", b->kvm ? "kvm" : "tcg", "spec", k->spec,
			      "image", k->image, "vcpus", b->vcpus ? b->vcpus : nr_cpus());

	/* vm-pair: the receiver's kernel (the records' peer_kernel), booted alike */
	if (peer)
		json_object_set_new(v, "receiver", json_pack("{s:s, s:s, s:s}", "spec", peer->spec, "release",
							     peer->release, "image", peer->image));

	if (*b->retried)
		json_object_set_new(v, "boot_retry", json_string(b->retried));
	json_object_set_new(v, "clock", json_string(b->icount ? "virtual" : "real"));
	if (b->icount)
		json_object_set_new(v, "icount_shift", json_integer(RUN_ICOUNT_SHIFT));
	return v;
}

/* Did the guest write a record for this scenario? */
static bool has_scenario(json_t *seen, const char *name)
{
	return json_object_get(seen, name) != NULL;
}

int append_failed(const char *runs, const struct run_config *cfg, const char *release,
			 json_t *seen, const char *reason, json_t *vm)
{
	char start[32];
	time_t now = time(NULL);
	int n = 0;

	strftime(start, sizeof(start), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	for (int i = 0; i < cfg->nscenarios; i++) {
		if (has_scenario(seen, cfg->scenarios[i].name))
			continue;
		for (int r = cfg->repeat_from; r < cfg->repeat_from + (cfg->repeat > 0 ? cfg->repeat : 1); r++) {
			json_t *rec = json_pack("{s:i, s:s, s:s, s:i, s:s, s:s, s:s, s:s, s:O}",
						"version", 1, "kernel", release, "scenario",
						cfg->scenarios[i].name, "repeat", r, "status",
						"failed", "reason", reason, "start", start, "testbed",
						cfg->testbed, "vm", vm);
			const char *clock = json_string_value(json_object_get(vm, "clock"));

			json_object_set_new(rec, "clock", json_string(clock ? clock : vm_clock_guess(cfg)));
			char *line = json_dumps(rec, JSON_COMPACT);

			if (line && append_line(runs, line) == 0)
				n++;
			free(line);
			json_decref(rec);
		}
	}
	return n;
}

/*
 * Is this a run of cfg's (scenario, repeat), as this boot was asked for?
 * With --probe-overhead the guest also runs "<scenario>+noprobes" (matrix.c);
 * a counting repeat ("purpose": "count") is numbered within --count-repeats.
 */
static bool run_asked(const struct run_config *cfg, const char *scenario, json_t *rec)
{
	json_t *repeat = json_object_get(rec, "repeat"), *purpose = json_object_get(rec, "purpose");
	json_int_t r = json_integer_value(repeat);
	int nrep = cfg->repeat > 0 ? cfg->repeat : 1;
	size_t n;

	if (purpose) {
		if (!json_is_string(purpose) || strcmp(json_string_value(purpose), "count"))
			return false;
		nrep = cfg->count_repeats;
	}
	if (!scenario || !json_is_integer(repeat) || r < cfg->repeat_from || r >= cfg->repeat_from + nrep)
		return false;
	for (int i = 0; i < cfg->nscenarios; i++) {
		if (!strcmp(cfg->scenarios[i].name, scenario))
			return true;
		n = strlen(cfg->scenarios[i].name);
		if (cfg->probe_overhead && !strncmp(cfg->scenarios[i].name, scenario, n) &&
		    !strcmp(scenario + n, "+noprobes"))
			return true;
	}
	return false;
}

/*
 * Append the guest's records (buf: name's text) as the results reader and
 * guest_records_check pass them, for runs this boot was asked for; count
 * them by status; note their scenarios. The first record refused ends it:
 * -1 with why naming its line. Without out (a check before anything is
 * kept), nothing is appended, counted or noted.
 */
static int merge_runs(const char *name, const char *buf, size_t len, const struct run_config *cfg,
		      const char *release, const char *runs, json_t *vm, json_t *seen,
		      struct vm_stats *out, char *why, size_t whylen)
{
	/* vm-pair: the receiver's release, as this host named it; the sender's guest may not say otherwise */
	const char *peer_rel = json_string_value(json_object_get(json_object_get(vm, "receiver"), "release"));
	const char *last = len ? memrchr(buf, '\n', len) : NULL;
	size_t pos = 0;
	int nok;

	/* a line the guest had not finished when it stopped is no record */
	len = last ? (size_t)(last - buf) + 1 : 0;
	nok = guest_records_check(name, buf, len, release, why, whylen);
	for (int i = 0; i < nok; i++) {
		size_t end = (const char *)memchr(buf + pos, '\n', len - pos) - buf;
		json_t *rec = json_loadb(buf + pos, end - pos, 0, NULL);
		const char *status = json_string_value(json_object_get(rec, "status"));
		const char *scen = json_string_value(json_object_get(rec, "scenario"));
		char *text;

		pos = end + 1;
		if (!run_asked(cfg, scen, rec)) {
			fmt_buf(why, whylen, "%s:%d: scenario %s, repeat %lld is not a run this VM was asked for",
			       name, i + 1, scen ? scen : "?", (long long)json_integer_value(json_object_get(rec, "repeat")));
			json_decref(rec);
			break;
		}
		json_t *jpk = json_object_get(rec, "peer_kernel");
		const char *pk = json_string_value(jpk);

		/*
		 * The receiver is the one the host booted: a record that names
		 * another, or none (empty, or absent from a run that went ok), is
		 * not taken. Only a run that failed before it reached the
		 * receiver may say nothing of it.
		 */
		if (peer_rel && ((jpk && (!pk || strcmp(pk, peer_rel))) ||
				 (!jpk && status && !strcmp(status, "ok")))) {
			fmt_buf(why, whylen, "%s:%d: its peer_kernel is not the receiver's release %s", name, i + 1,
				peer_rel);
			json_decref(rec);
			break;
		}
		if (!out) { /* checked only */
			json_decref(rec);
			continue;
		}
		json_object_set(rec, "vm", vm);
		json_object_set_new(rec, "testbed", json_string(cfg->testbed));
		/* the guest measured on its own clock: the host knows which it was */
		record_clock(rec, !strcmp(json_string_value(json_object_get(vm, "clock")) ?: "", "virtual"),
			     RUN_ICOUNT_SHIFT);
		json_object_set_new(seen, scen, json_true());
		text = json_dumps(rec, JSON_COMPACT);
		if (text && append_line(runs, text) == 0) {
			/* a skipped run (the kernel cannot run it) is not a failure */
			if (status && !strcmp(status, "ok"))
				out->runs_ok++;
			else if (status && !strcmp(status, "skipped"))
				out->runs_skipped++;
			else
				out->runs_failed++;
		}
		free(text);
		json_decref(rec);
	}
	return *why ? -1 : 0;
}

/* The kernel entry: the guest's own (from its meta.json, checked), else what we know. */
json_t *kernel_entry(const struct vm_kernel *k, const char *release, json_t *ginfo,
			    json_t *gkernel, json_t *vm)
{
	char hash[65] = "";
	json_t *entry = gkernel ? json_incref(gkernel) : NULL;

	if (!entry) {
		entry = json_pack("{s:s}", "release", release);
		if (json_string_value(json_object_get(ginfo, "proc_version")))
			json_object_set(entry, "proc_version", json_object_get(ginfo, "proc_version"));
	}
	if (*k->config && vm_sha256_file(k->config, hash) == 0 &&
	    !json_object_get(entry, "config_sha256"))
		json_object_set_new(entry, "config_sha256", json_string(hash));
	/* a guest without /proc/config.gz: the options from the .config it was booted with */
	json_t *setup = json_object_get(entry, "setup");

	if (*k->config && json_is_object(setup) && json_is_null(json_object_get(setup, "config"))) {
		char *text = file_read(k->config, NULL);

		if (text)
			json_object_set_new(setup, "config", setup_config_options(text));
		free(text);
	}
	json_object_set(entry, "vm", vm);
	return entry;
}

/* The guest's tar, mapped (it may be large); NULL with why. */
static void *map_file(const char *path, size_t *len, char *why, size_t whylen)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	void *p = NULL;

	if (fd < 0) {
		fmt_buf(why, whylen, "%s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
		fmt_buf(why, whylen, "the guest sent nothing");
	else if (st.st_size > GUEST_TAR_MAX_STREAM)
		fmt_buf(why, whylen, "more than %ld MiB", GUEST_TAR_MAX_STREAM >> 20);
	else if ((p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED)
		fmt_buf(why, whylen, "%s", strerror(errno)), p = NULL;
	else
		*len = st.st_size;
	close(fd);
	return p;
}

/* Keep the console (at most CONSOLE_MAX of it) as raw/<release>/name; a warning if it cannot be. */
static void keep_console(int rawfd, const char *src, const char *name)
{
	int fd = open(src, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *buf = NULL, err[300];
	size_t max = 0, n = 0;
	ssize_t got;

	if (fd >= 0 && fstat(fd, &st) == 0) {
		max = st.st_size < CONSOLE_MAX ? (size_t)st.st_size : CONSOLE_MAX;
		buf = malloc(max + 1);
		if (st.st_size > CONSOLE_MAX)
			pr_warn("vm: %s: the guest wrote %lld bytes; its first %ld MiB are kept", name,
				(long long)st.st_size, CONSOLE_MAX >> 20);
	}
	while (buf && n < max && ((got = read(fd, buf + n, max - n)) > 0 || (got < 0 && errno == EINTR)))
		n += got > 0 ? got : 0;
	if (!buf)
		pr_warn("vm: cannot keep %s: %s", name, strerror(errno));
	else if (guest_write_file(rawfd, name, buf, n, err, sizeof(err)) < 0)
		pr_warn("vm: cannot keep %s: %s", name, err);
	if (fd >= 0)
		close(fd);
	free(buf);
}

/* Refuse what the guest sent: b->why says why, and nothing more of it is kept. */
static void refuse(struct boot *b, struct taken *t, const char *what, const char *why)
{
	fmt_buf(b->why, sizeof(b->why), "the guest's results were refused: %s%s", what, why);
	t->refused = true;
	json_decref(t->ginfo);
	t->ginfo = NULL;
}

/*
 * The guest's results, when it sent them: read as data, checked before
 * any is kept. The host names the kernel (uname -r as its image, tree or
 * package tells it): records and raw/ are keyed by it, and a guest that
 * says otherwise could write as another kernel of the run.
 */
static void take_results(struct boot *b, const struct vm_kernel *k, const struct vm_work *w,
			 struct taken *t)
{
	char why[512];
	const char *grel;

	t->refused = b->flood;
	if (!*b->why) {
		t->tarmap = map_file(w->tar, &t->tarlen, why, sizeof(why));
		if (!t->tarmap)
			fmt_buf(b->why, sizeof(b->why), "the guest's results did not arrive whole: %s", why);
		else if (guest_out_scan(t->tarmap, t->tarlen, &t->g, why, sizeof(why)) < 0)
			refuse(b, t, "results.tar: ", why);
	}
	if (t->g.info && !t->refused) {
		t->ginfo = json_loadb(t->g.info, t->g.info_len, JSON_REJECT_DUPLICATES, NULL);
		if (guest_info_check(t->ginfo, why, sizeof(why)) < 0)
			refuse(b, t, GUEST_INFO ": ", why);
	}
	grel = json_string_value(json_object_get(t->ginfo, "release"));
	if (t->ginfo && strcmp(grel, k->release)) {
		fmt_buf(why, sizeof(why), "release %s is not this kernel's own %s", grel, k->release);
		refuse(b, t, GUEST_INFO ": ", why);
	}
	if (t->g.meta && !t->refused &&
	    guest_meta_kernel(t->g.meta, t->g.meta_len, k->release, &t->gkernel, why, sizeof(why)) < 0) {
		fmt_buf(b->why, sizeof(b->why), "the guest's results were refused: %s", why);
		t->refused = true;
	}
}

/*
 * Keep the console and, from a guest not refused, its raw files and
 * guest.json under raw/<release>/, opened without following a link.
 */
static void keep_raw(const struct vm_dest *d, const struct vm_work *w, struct boot *b,
		     struct taken *t)
{
	char why[512], name[64];
	int resfd = open(d->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rawfd = -1;

	if (resfd < 0)
		fmt_buf(why, sizeof(why), "%s", strerror(errno));
	else
		rawfd = guest_open_dir(resfd, d->rawrel, why, sizeof(why));
	if (rawfd < 0)
		pr_warn("vm: %s/%s: %s", d->dir, d->rawrel, why);
	fmt_buf(name, sizeof(name), "console%s.log", d->boot_sfx);
	if (rawfd >= 0)
		keep_console(rawfd, w->con, name);
	/* vm-pair: the receiver's console beside the sender's */
	fmt_buf(name, sizeof(name), "console-receiver%s.log", d->boot_sfx);
	if (rawfd >= 0 && w->peer)
		keep_console(rawfd, w->rx.con, name);
	if (t->tarmap && !t->refused && rawfd >= 0) {
		if (guest_out_raw(t->tarmap, t->tarlen, rawfd, why, sizeof(why)) < 0) {
			fmt_buf(b->why, sizeof(b->why), "the guest's raw files were not kept: %s", why);
			t->refused = true;
		}
		/* a refused archive leaves nothing: not its timings either */
		fmt_buf(name, sizeof(name), "vm-guest%s.json", d->boot_sfx);
		if (t->g.info && !t->refused &&
		    guest_write_file(rawfd, name, t->g.info, t->g.info_len, why, sizeof(why)) < 0)
			pr_warn("vm: %s: %s", d->rawrel, why);
	}
	if (rawfd >= 0)
		close(rawfd);
	if (resfd >= 0)
		close(resfd);
}

/*
 * The guest's records into the host's runs.jsonl: from its tar, or else as
 * they were sent. Without out, only checked (bring_home: before its raw
 * files are kept); a record refused then refuses the guest.
 */
static void merge_guest_records(const struct run_config *cfg, const struct vm_kernel *k,
				const struct vm_dest *d, const struct vm_work *w, struct boot *b,
				struct taken *t, json_t *vm, json_t *seen, struct vm_stats *out)
{
	char why[512];

	if (t->refused)
		return;
	if (t->g.runs) {
		if (merge_runs(GUEST_RUNDIR "/runs.jsonl", t->g.runs, t->g.runs_len, cfg, k->release,
			       d->runs, vm, seen, out, why, sizeof(why)) < 0) {
			fmt_buf(b->why, sizeof(b->why), "the guest's record was refused: %s", why);
			t->refused = true;
		}
	} else if (!t->tarmap) {
		/* no tar: the records sent as they were written, if any: no more than the port may hold */
		size_t len = 0;
		struct stat st;
		char rwhy[160];
		char *buf = file_read_regular(w->live, LIVE_MAX, &len, rwhy, sizeof(rwhy));

		if (!buf && lstat(w->live, &st) == 0) {
			fmt_buf(b->why + strlen(b->why), sizeof(b->why) - strlen(b->why),
				"%sthe guest's records were refused: live.jsonl %s", *b->why ? "; " : "", rwhy);
			t->refused = true;
		} else if (buf && merge_runs("live.jsonl", buf, len, cfg, k->release, d->runs, vm, seen, out,
				      why, sizeof(why)) < 0) {
			fmt_buf(b->why + strlen(b->why), sizeof(b->why) - strlen(b->why),
			       "%sthe guest's record was refused: %s", *b->why ? "; " : "", why);
			t->refused = true;
		}
		free(buf);
	}
}

/*
 * Failed records for the runs the guest wrote none for, with the reason;
 * 0 when the guest ran the matrix, -1 when the boot failed.
 */
int conclude(const struct run_config *cfg, const struct vm_kernel *k,
		    const struct vm_dest *d, struct boot *b, const struct taken *t, json_t *vm,
		    json_t *seen, struct vm_stats *out)
{
	if (*b->why) {
		char reason[700], *tail;

		/* it may quote the guest or qemu: printable ASCII only, for the terminal and the records */
		guest_printable(b->why, strlen(b->why), b->why, sizeof(b->why));
		tail = console_tail(b->peer_fault ? &b->peer->con : &b->con);
		pr_warn("vm: %s: %s; the last %sconsole lines (all in %s/%s/console%s%s.log):\n%s", k->release,
			b->why, b->peer_fault ? "receiver's " : "", d->dir, d->rawrel, b->peer_fault ? "-receiver" : "",
			d->boot_sfx, tail ? tail : "");
		free(tail);
		fmt_buf(reason, sizeof(reason), "vm: %s", b->why);
		out->runs_failed += append_failed(d->runs, cfg, k->release, seen, reason, vm);
		return -1;
	}
	out->runs_failed += append_failed(d->runs, cfg, k->release, seen,
					  "vm: the guest's collector wrote no record for it", vm);
	if (json_integer_value(json_object_get(t->ginfo, "rc")) != 0)
		pr_warn("vm: %s: the collector in the guest exited with status %d; see %s/%s/console%s.log",
			k->release, (int)json_integer_value(json_object_get(t->ginfo, "rc")), d->dir,
			d->rawrel, d->boot_sfx);
	return 0;
}

void bring_home(const struct run_config *cfg, const struct vm_kernel *k, const struct vm_dest *d,
		const struct vm_work *w, struct boot *b, struct taken *t, json_t *vm, json_t *seen,
		struct vm_stats *out)
{
	take_results(b, k, w, t);
	/* every record checked before anything of the guest's is kept: a refused guest leaves no raw file */
	merge_guest_records(cfg, k, d, w, b, t, vm, seen, NULL);
	keep_raw(d, w, b, t);
	merge_guest_records(cfg, k, d, w, b, t, vm, seen, out);
}
