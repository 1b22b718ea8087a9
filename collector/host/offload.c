// SPDX-License-Identifier: GPL-2.0
#include "offload.h"
#include "endpoint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "journal.h"
#include "log.h"
#include "offload_nl.h"

#define MAX_FEATURES 128

/* ethtool's short names (ethtool.c's off_flag_def) and what -k prints. */
static const struct {
	const char *short_name, *long_name;
} aliases[] = {
	{ "rx", "rx-checksumming" },         { "tx", "tx-checksumming" },
	{ "sg", "scatter-gather" },          { "tso", "tcp-segmentation-offload" },
	{ "ufo", "udp-fragmentation-offload" }, { "gso", "generic-segmentation-offload" },
	{ "gro", "generic-receive-offload" }, { "lro", "large-receive-offload" },
	{ "rxvlan", "rx-vlan-offload" },     { "txvlan", "tx-vlan-offload" },
	{ "ntuple", "ntuple-filters" },      { "rxhash", "receive-hashing" },
};

const char *offload_long_name(const char *name)
{
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(aliases[i].short_name, name))
			return aliases[i].long_name;
	return name;
}

int offload_parse(const char *text, struct feature_state *out, int max)
{
	int n = 0, group = -1;

	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char buf[256], *colon, *val;

		if (len < sizeof(buf)) {
			memcpy(buf, line, len);
			buf[len] = '\0';
			colon = strstr(buf, ": ");
			if (colon && strncmp(buf, "Features for", 12) && n < max) {
				char *name = buf + strspn(buf, " \t");

				*colon = '\0';
				val = colon + 2;
				if (!strncmp(val, "on", 2) || !strncmp(val, "off", 3)) {
					snprintf(out[n].name, sizeof(out[n].name), "%s", name);
					out[n].on = !strncmp(val, "on", 2);
					out[n].fixed = strstr(val, "[fixed]") != NULL;
					/* indented lines are the group's own features */
					if (name == buf)
						group = n;
					out[n].parent = name == buf ? -1 : group;
					n++;
				}
			}
		}
		line = end ? end + 1 : NULL;
	}
	return n;
}

/* `ethtool -k` of e's device, parsed; -1 said. */
static int read_features_at(const struct endpoint *e, struct feature_state *f)
{
	char *out = NULL, *err = NULL;
	int st = ep_run(e, (char *[]){ "ethtool", "-k", (char *)e->dev, NULL }, &out, &err);
	int n = -1;

	if (st == 0)
		n = offload_parse(out, f, MAX_FEATURES);
	else
		pr_warn("ethtool -k %s%s: %s", e->dev, ep_remote(e) ? " on the peer" : "", err ? err : "failed");
	free(out);
	free(err);
	return n;
}

static int read_features(const char *netns, const char *dev, struct feature_state *f)
{
	struct endpoint e = { .netns = netns, .dev = dev, .cpu = -1 };

	return read_features_at(&e, f);
}

static const struct feature_state *find(const struct feature_state *f, int n, const char *name)
{
	const char *l = offload_long_name(name);

	for (int i = 0; i < n; i++)
		if (!strcmp(f[i].name, l))
			return &f[i];
	return NULL;
}

/*
 * Did the setting take? A group (tso) can read "on" while every feature in
 * it is off ("[requested on]"), so the changeable members decide.
 */
static bool took(const struct feature_state *f, int n, const struct feature_state *cur, bool on)
{
	int idx = (int)(cur - f), members = 0;

	for (int i = idx + 1; i < n && f[i].parent == idx; i++) {
		if (f[i].fixed)
			continue;
		members++;
		if (f[i].on != on)
			return false;
	}
	return members ? true : cur->on == on;
}

static int check_against(const struct feature_state *f, int n, const char *dev,
			 const struct offload_list *ol, char *why, size_t whylen)
{
	for (int i = 0; i < ol->n; i++) {
		const struct offload_setting *s = &ol->v[i];
		const struct feature_state *cur = find(f, n, s->feature);

		if (!cur) {
			snprintf(why, whylen, "%s has no offload feature '%s'", dev, s->feature);
			return 1;
		}
		if (cur->fixed && cur->on != s->on) {
			snprintf(why, whylen, "%s cannot turn %s %s: fixed by the driver", dev,
				 s->feature, s->on ? "on" : "off");
			return 1;
		}
	}
	return 0;
}

int offload_check(const char *netns, const char *dev, const struct offload_list *ol,
		  char *why, size_t whylen)
{
	struct feature_state f[MAX_FEATURES];
	int n;

	if (ethnl_available()) {
		static struct ethnl_features nf;
		char err[256];

		if (ethnl_features_get(netns, dev, &nf, err, sizeof(err)) < 0) {
			snprintf(why, whylen, "cannot read the offloads of %s: %s", dev, err);
			return -1;
		}
		return offload_nl_check(&nf, dev, ol, why, whylen);
	}
	n = read_features(netns, dev, f);

	if (n < 0) {
		snprintf(why, whylen, "cannot read the offloads of %s", dev);
		return -1;
	}
	return check_against(f, n, dev, ol, why, whylen);
}

/* Through the ethtool program at e: on the peer, and here without ethtool netlink or for --dry-run. */
static int apply_by_program(const struct endpoint *e, const struct offload_list *ol, char *why, size_t whylen)
{
	const char *dev = e->dev;
	struct feature_state f[MAX_FEATURES];
	char *do_argv[4 + 2 * OFFLOAD_MAX], *undo_argv[4 + 2 * OFFLOAD_MAX], target[128];
	int nd = 0, nu = 0, n, rc;
	char *err = NULL;

	if (!ol->n)
		return 0;
	/* before reading them: the values to restore are those no other run has changed */
	snprintf(target, sizeof(target), "dev:%s", dev);
	/* not in a namespace of the run's own (this host's, the peer's): others may use it too */
	if (!e->netns && journal_hostwide(target, why, whylen) < 0)
		return -1;
	n = journal_dry_run() ? 0 : read_features_at(e, f);
	if (n < 0) {
		snprintf(why, whylen, "cannot read the offloads of %s", dev);
		return -1;
	}
	if (!journal_dry_run() && (rc = check_against(f, n, dev, ol, why, whylen)))
		return rc;

	do_argv[nd++] = undo_argv[nu++] = "ethtool";
	do_argv[nd++] = undo_argv[nu++] = "-K";
	do_argv[nd++] = undo_argv[nu++] = (char *)dev;
	for (int i = 0; i < ol->n; i++) {
		const struct feature_state *cur = n ? find(f, n, ol->v[i].feature) : NULL;

		do_argv[nd++] = (char *)ol->v[i].feature;
		do_argv[nd++] = ol->v[i].on ? "on" : "off";
		if (cur) {
			undo_argv[nu++] = (char *)ol->v[i].feature;
			undo_argv[nu++] = cur->on ? "on" : "off";
		}
	}
	do_argv[nd] = undo_argv[nu] = NULL;
	if (ep_change(e, do_argv, nu > 3 ? undo_argv : NULL, &err) < 0) {
		snprintf(why, whylen, "ethtool -K %s failed: %s", dev, err && *err ? err : "no message");
		free(err);
		return -1;
	}
	if (journal_dry_run())
		return 0;

	/* ethtool may accept a change the driver then overrides: read it back */
	n = read_features_at(e, f);
	for (int i = 0; i < ol->n && n > 0; i++) {
		const struct feature_state *cur = find(f, n, ol->v[i].feature);

		if (!cur || !took(f, n, cur, ol->v[i].on)) {
			snprintf(why, whylen, "%s: %s did not turn %s", dev, ol->v[i].feature,
				 ol->v[i].on ? "on" : "off");
			return -1;
		}
	}
	return 0;
}

int offload_apply(const struct endpoint *e, const struct offload_list *ol, char *why, size_t whylen)
{
	/*
	 * Here through ethtool netlink where the kernel has it; the ethtool
	 * program where it has not, on the peer, and for --dry-run, which
	 * prints its commands.
	 */
	if (ol->n && !journal_dry_run() && !ep_remote(e) && ethnl_available())
		return offload_nl_apply(e->netns, e->dev, ol, why, whylen);
	return apply_by_program(e, ol, why, whylen);
}
