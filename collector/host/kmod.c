// SPDX-License-Identifier: GPL-2.0
#include "kmod.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>

#include "exec.h"
#include "files.h"
#include "journal.h"
#include "log.h"
#include "wait.h"

static int read_int_file(const char *path, int *out)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%d", out) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

/* Is name listed in the running kernel's modules.builtin (installed with its modules)? */
static bool in_modules_builtin(const char *name)
{
	struct utsname u;
	char path[512], *text;
	bool found;

	if (uname(&u) < 0)
		return false;
	snprintf(path, sizeof(path), "/lib/modules/%s/modules.builtin", u.release);
	text = file_read(path, NULL);
	found = text && kmod_builtin_list_has(text, name);
	free(text);
	return found;
}

/*
 * A function each of these modules defines, for a kernel whose module
 * lists were never installed (booted from a build tree, say): in
 * /proc/kallsyms without a [module] tag, the module's code is in vmlinux.
 * The GSO callback cannot be inlined away: the offload table points to it.
 */
static const struct {
	const char *module, *symbol;
} module_symbols[] = {
	{ "esp4_offload", "esp4_gso_segment" },
	{ "esp6_offload", "esp6_gso_segment" },
};

static bool builtin_by_symbol(const char *name)
{
	char owner[64];
	FILE *f;
	int found = 0;

	for (size_t i = 0; i < sizeof(module_symbols) / sizeof(module_symbols[0]); i++) {
		if (!kmod_same_name(name, strlen(name), module_symbols[i].module))
			continue;
		f = fopen("/proc/kallsyms", "r");
		if (!f)
			return false;
		found = kmod_kallsyms_owner(f, module_symbols[i].symbol, owner, sizeof(owner));
		fclose(f);
		break;
	}
	return found == 1 && !owner[0];
}

/*
 * From the kernel's own facts: a loaded module has /sys/module/NAME with
 * its initstate (and refcnt); a built-in one may have /sys/module/NAME
 * without (only when it has parameters or a version), is listed in
 * modules.builtin where the modules are installed, and its functions are
 * vmlinux's in /proc/kallsyms.
 */
enum kmod_state kmod_state(const char *name, int *refcnt)
{
	char path[256];
	struct stat st;

	if (refcnt)
		*refcnt = 0;
	if (!kmod_name_ok(name)) /* never a path elsewhere, never an option of modprobe */
		return KMOD_MISSING;
	snprintf(path, sizeof(path), "/sys/module/%s/initstate", name);
	if (stat(path, &st) == 0) {
		snprintf(path, sizeof(path), "/sys/module/%s/refcnt", name);
		if (refcnt)
			read_int_file(path, refcnt);
		return KMOD_LOADED;
	}
	snprintf(path, sizeof(path), "/sys/module/%s", name);
	if (stat(path, &st) == 0 || in_modules_builtin(name))
		return KMOD_BUILTIN;
	if (exec_have("modprobe") &&
	    exec_run(NULL, (char *[]){ "modprobe", "-n", "-q", (char *)name, NULL }, NULL, NULL) == 0)
		return KMOD_LOADABLE;
	/* last: reading kallsyms takes a while, and a loadable module cannot be built in too */
	if (builtin_by_symbol(name))
		return KMOD_BUILTIN;
	return KMOD_MISSING;
}

const char *kmod_state_name(enum kmod_state s)
{
	static const char *const names[] = { "missing", "loadable module", "loaded", "built in" };

	return names[s];
}

/* Loaded modules, newest first, from /proc/modules; their use counts into refcnts if given. */
static json_t *loaded_modules(json_t *refcnts)
{
	FILE *f = fopen("/proc/modules", "r");
	char line[1024];
	json_t *a;

	if (!f)
		return NULL;
	a = json_array();
	while (fgets(line, sizeof(line), f)) {
		char name[128];
		int ref;

		if (sscanf(line, "%127s %*s %d", name, &ref) == 2) {
			json_array_append_new(a, json_string(name));
			if (refcnts)
				json_object_set_new(refcnts, name, json_integer(ref));
		}
	}
	fclose(f);
	return a;
}

json_t *kmod_loaded(void)
{
	return loaded_modules(NULL);
}

static bool in_array(json_t *a, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach(a, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), s))
			return true;
	return false;
}

json_t *kmod_new_since(json_t *before, json_t *now)
{
	json_t *a = json_array(), *v;
	size_t i;

	json_array_foreach(now, i, v)
		if (json_is_string(v) && !in_array(before, json_string_value(v)))
			json_array_append(a, v);
	return a;
}

/* ---- the window: what this run loaded ---- */

static json_t *list_here(void *arg)
{
	(void)arg;
	return kmod_loaded();
}

static int journal_here(void *arg, json_t *rec)
{
	(void)arg;
	return journal_add(rec);
}

static int amend_here(void *arg, int seq, json_t *rec)
{
	(void)arg;
	return journal_amend(seq, rec);
}

void kmod_window_here(struct kmod_window *w)
{
	*w = (struct kmod_window){ .list = list_here, .journal = journal_here, .amend = amend_here };
}

int kmod_window_open(struct kmod_window *w)
{
	w->before = NULL;
	w->seq = 0;
	if (journal_dry_run())
		return 0;
	w->before = w->list(w->arg);
	if (!w->before)
		return 0; /* no loadable modules: nothing can be loaded on demand */
	if (w->journal(w->arg, json_pack("{s:s, s:O}", "kind", "modules", "before", w->before)) < 0) {
		json_decref(w->before);
		w->before = NULL;
		return -1;
	}
	w->seq = journal_last();
	return 0;
}

int kmod_window_close(struct kmod_window *w)
{
	json_t *now, *added;
	int err = 0;

	if (!w->before)
		return 0;
	now = w->list(w->arg);
	/* no list now (the peer was lost): the open record stays, for cleanup to name what appeared */
	if (!now) {
		json_decref(w->before);
		w->before = NULL;
		return -1;
	}
	added = kmod_new_since(w->before, now);
	if (json_array_size(added))
		err = w->amend(w->arg, w->seq, json_pack("{s:s, s:O}", "kind", "modules", "loaded", added));
	else
		err = journal_cancel(w->seq); /* nothing appeared: nothing to unload */
	json_decref(added);
	json_decref(now);
	json_decref(w->before);
	w->before = NULL;
	return err;
}

/*
 * Unload the modules this run loaded, each only while unused, until none
 * is left. Deleted SAs free their crypto transforms from a work queue, so
 * a module can stay busy for a moment after the SAs are gone: wait up to
 * 3 s for such references to drop. A module that another one still uses
 * goes once that one has gone (the list is newest first).
 */
static int unload_loaded(json_t *mine)
{
	int err = 0;

	for (int pass = 0; pass < 30; pass++) {
		json_t *refs = json_object();
		json_t *now = loaded_modules(refs);
		int removed = 0;
		char busy[512] = "";
		size_t off = 0, i;
		json_t *v;

		json_array_foreach(mine, i, v) {
			const char *name = json_string_value(v);
			char *msg = NULL;

			if (!name || !in_array(now, name))
				continue;
			if (json_integer_value(json_object_get(refs, name)) != 0) {
				if (off < sizeof(busy))
					off += snprintf(busy + off, sizeof(busy) - off, " %s", name);
				continue;
			}
			/* rmmod, not modprobe -r: the dependencies it had before are not ours */
			if (exec_run(NULL, (char *[]){ "rmmod", (char *)name, NULL }, NULL, &msg) == 0) {
				removed++;
			} else {
				if (off < sizeof(busy))
					off += snprintf(busy + off, sizeof(busy) - off, " %s", name);
				if (pass == 29) {
					msg_trim(msg);
					pr_warn("undo: rmmod %s failed: %s", name, msg && *msg ? msg : "no message");
					err = -1;
				}
			}
			free(msg);
		}
		json_decref(now);
		json_decref(refs);
		if (!busy[0])
			break;
		/* in use by something else by now (the kernel's default RNG keeps drbg): theirs to keep */
		if (pass == 29)
			pr_warn("undo: modules loaded during the run are still in use, left loaded:%s", busy);
		else if (!removed)
			wait_ms(100);
	}
	return err;
}

int kmod_undo(json_t *r)
{
	json_t *loaded = json_object_get(r, "loaded"), *before = json_object_get(r, "before");
	json_t *now, *added;
	char names[512] = "";
	size_t off = 0, i;
	json_t *v;

	if (json_is_array(loaded))
		return unload_loaded(loaded);
	if (!json_is_array(before))
		return -1;
	/* a window its run never closed: what appeared since may be anyone's */
	now = loaded_modules(NULL);
	added = kmod_new_since(before, now);
	json_array_foreach(added, i, v)
		if (off < sizeof(names))
			off += snprintf(names + off, sizeof(names) - off, " %s", json_string_value(v));
	json_decref(added);
	json_decref(now);
	if (!names[0])
		return 0;
	pr_warn("undo: a run died while loading kernel modules; these were loaded since, by it or by something else, and are left loaded (rmmod those that were the run's):%s",
		names);
	return JOURNAL_LEFT;
}

int kmod_set(const char *name, bool load, char *why, size_t len)
{
	int ref;
	enum kmod_state st = kmod_state(name, &ref); /* read-only: also in dry-run */
	char *err = NULL;
	int rc;

	if (journal_dry_run()) {
		/* what a run does where it can, and what this host would make of it */
		bool needed = load ? st != KMOD_LOADED && st != KMOD_BUILTIN : st == KMOD_LOADED || st == KMOD_BUILTIN;

		if (needed || st == KMOD_MISSING)
			printf("# %s here: %s%s\n", name, kmod_state_name(st),
			       (load ? st == KMOD_MISSING : st == KMOD_BUILTIN) ? " (a run here skips this scenario)" : "");
		if (needed && st != KMOD_BUILTIN)
			host_do(NULL, load ? (char *[]){ "modprobe", (char *)name, NULL }
					   : (char *[]){ "rmmod", (char *)name, NULL },
				load ? (char *[]){ "rmmod", (char *)name, NULL }
				     : (char *[]){ "modprobe", (char *)name, NULL }, NULL);
		return 0;
	}
	if (load) {
		if (st == KMOD_LOADED || st == KMOD_BUILTIN)
			return 0;
		if (st == KMOD_MISSING) {
			snprintf(why, len, "this kernel has no %s (neither built in nor a loadable module)", name);
			return 1;
		}
	} else {
		if (st == KMOD_MISSING || st == KMOD_LOADABLE)
			return 0;
		if (st == KMOD_BUILTIN) {
			snprintf(why, len, "%s is built into this kernel and cannot be unloaded", name);
			return 1;
		}
		if (ref > 0) {
			snprintf(why, len, "%s is loaded and in use (refcount %d): cannot unload it", name, ref);
			return 1;
		}
	}
	/* a load's undo is the window's around it (kmod.h); an unload's is loading it again */
	rc = host_do(NULL, load ? (char *[]){ "modprobe", (char *)name, NULL } : (char *[]){ "rmmod", (char *)name, NULL },
		     load ? NULL : (char *[]){ "modprobe", (char *)name, NULL }, &err);
	if (rc < 0)
		snprintf(why, len, "cannot %s %s: %s", load ? "load" : "unload", name,
			 err && *err ? err : load ? "modprobe failed" : "rmmod failed");
	free(err);
	return rc < 0 ? 1 : 0;
}
