/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A kernel's .config as the VM testbed needs it: what a file sets, and
 * which of the options the guest, the scenarios and the probes need are
 * missing, with what each would cost.
 */
#ifndef IPSECPERF_KCONFIG_H
#define IPSECPERF_KCONFIG_H

#include <stdbool.h>
#include <stddef.h>

struct scenario;

/* A .config read into memory: "NAME=value" lines, the CONFIG_ prefix dropped. */
struct kconfig {
	char **names, **values;
	size_t n;
};

int kconfig_read(const char *path, struct kconfig *kc, char *why, size_t wlen);
void kconfig_free(struct kconfig *kc);
/* "y", "m", a string or number as written; NULL when unset or absent */
const char *kconfig_get(const struct kconfig *kc, const char *name);

/* Who loses what when an option is missing. */
enum kneed_who {
	KNEED_BOOT,     /* the guest cannot boot or send its results: every run */
	KNEED_TESTBED,  /* the two namespaces and their veth: every run */
	KNEED_SCENARIO, /* the scenarios named in kneed.cost */
	KNEED_PROBES,   /* the BPF probes, or some of their counters */
	KNEED_SPEED,    /* only how fast the guest boots */
	KNEED_PAIR,     /* the vm-pair testbed's link between its two guests: its every run */
};

/* One option the VM testbed wants, as `kernel config` sets it. */
struct kneed {
	const char *name;  /* without CONFIG_ */
	char want;         /* 'y' (a module does too), or 'm': must stay a module */
	enum kneed_who who;
	const char *what;  /* what it is for, in a few words */
	const char *set;   /* what `kernel config` switches on for it, when not name */
};

/* Every option `kernel config` sets, in the order it sets them; ends with a NULL name. */
extern const struct kneed kneeds[];

/*
 * An option `kernel config` switches on because a need depends on it or
 * the guest's machine has it, not because a run checks for it; ends with
 * a NULL name.
 */
struct kbase {
	const char *name; /* without CONFIG_ */
	const char *why;
};
extern const struct kbase kbase[];

/* Does scenario sc need n (KNEED_SCENARIO options only)? */
bool kneed_needed_by(const struct kneed *n, const struct scenario *sc);

/*
 * Does kc satisfy n for sc (NULL: for every use)? why gets what is wrong,
 * such as "not set" or "=y, so it cannot be unloaded", when it does not.
 */
bool kneed_ok(const struct kconfig *kc, const struct kneed *n, const struct scenario *sc,
	      char *why, size_t wlen);

/* Does the source tree define the option (a "config NAME" line in a Kconfig file)? */
bool kconfig_tree_has(const char *tree, const char *name);

#endif
