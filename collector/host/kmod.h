/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel modules: their state, probed (never from version numbers), and
 * the modules a run loads, unloaded again by its journal.
 *
 * What a run loads is what appeared in /proc/modules between a window's
 * open and its close: around its own modprobe and the SAs it adds (for
 * which the kernel loads esp4, xfrm_user and crypto modules on demand).
 * The window is held under the host-wide lock (journal_hostwide), so no
 * other ipsecperf run loads a module inside it. Opening journals a
 * "modules" record with the list before; closing amends it to the modules
 * that appeared ("loaded"), keeping its place in the undo order: after
 * the SAs that use them are deleted. The undo of
 * "loaded" unloads exactly those, each with rmmod (its dependencies loaded
 * by others stay) and only while unused. A "before" record that was never
 * closed (the run died inside its window) cannot tell its run's modules
 * from those others loaded since: it names them and leaves them loaded.
 *
 * A façade of kmod.c (states, the window, loads and undos) and
 * kmod_names.c (module names and the kernel's lists of them).
 */
#ifndef IPSECPERF_KMOD_H
#define IPSECPERF_KMOD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* MODULE_NAME_LEN: the kernel's longest module name is one less */
#define KMOD_NAME_MAX 56

/*
 * May name be a module's (1 to 55 of [A-Za-z0-9_-], not starting with
 * '-')? What another host asks about is checked with it before it reaches
 * a path under /sys/module or modprobe's argv (kmod_state refuses others).
 */
bool kmod_name_ok(const char *name);

/* Module names are spelled with '_' or '-' alike (modprobe treats them as one): a (alen bytes) and b. */
bool kmod_same_name(const char *a, size_t alen, const char *b);

enum kmod_state { KMOD_MISSING, KMOD_LOADABLE, KMOD_LOADED, KMOD_BUILTIN };
/*
 * A module's state in the running kernel, from its own facts (sysfs,
 * modules.builtin, kallsyms: kmod.c). Built in counts as present; it
 * cannot be unloaded. A name kmod_name_ok refuses is missing.
 */
enum kmod_state kmod_state(const char *name, int *refcnt);
const char *kmod_state_name(enum kmod_state s);

/* Does a modules.builtin text ("kernel/net/ipv4/esp4_offload.ko" a line) list name ('-' == '_')? */
bool kmod_builtin_list_has(const char *text, const char *name);

/*
 * Find function sym in /proc/kallsyms text f: 1 with the module that
 * holds it in owner ("" for vmlinux: built in), 0 when it is not there.
 */
int kmod_kallsyms_owner(FILE *f, const char *sym, char *owner, size_t len);

/* Names of loaded modules, newest first (/proc/modules); NULL on a kernel without modules. */
json_t *kmod_loaded(void);

/* The names in now that are not in before, in now's order. */
json_t *kmod_new_since(json_t *before, json_t *now);

/*
 * A window on one host: list() gives its loaded modules (NULL: none, a
 * kernel without modules), journal() journals an undo record for that
 * host, amend() replaces record seq with one (journal_amend; both steal
 * the record); this host's are kmod_window_here().
 */
struct kmod_window {
	json_t *(*list)(void *arg);
	int (*journal)(void *arg, json_t *rec);
	int (*amend)(void *arg, int seq, json_t *rec);
	void *arg;
	json_t *before;
	int seq;
};

void kmod_window_here(struct kmod_window *w);
/* 0, or -1 (the journal cannot be written). Nothing in dry-run. */
int kmod_window_open(struct kmod_window *w);
/* Journal what appeared since the open; 0 or -1. Safe to call without an open. */
int kmod_window_close(struct kmod_window *w);

/*
 * Load (journaled by the window around it) or unload (journaled: modprobe
 * again) a module on this host, for a scenario that needs it loaded or
 * not. 0, or 1 (skip) with why.
 */
int kmod_set(const char *name, bool load, char *why, size_t len);

/* The undo of a "modules" record (a row in collector/cmd/undo_kinds.c). */
int kmod_undo(json_t *r);

#endif
