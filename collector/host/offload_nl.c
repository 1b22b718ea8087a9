// SPDX-License-Identifier: GPL-2.0
#include "offload_nl.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "journal.h"
#include "log.h"

/* ethtool's off_flag_def: short name, what -k prints, the kernel features it stands for. */
static const struct {
	const char *short_name, *long_name, *pattern;
} groups[] = {
	{ "rx", "rx-checksumming", "rx-checksum" },
	{ "tx", "tx-checksumming", "tx-checksum-*" },
	{ "sg", "scatter-gather", "tx-scatter-gather*" },
	{ "tso", "tcp-segmentation-offload", "tx-tcp*-segmentation" },
	{ "ufo", "udp-fragmentation-offload", "tx-udp-fragmentation" },
	{ "gso", "generic-segmentation-offload", "tx-generic-segmentation" },
	{ "gro", "generic-receive-offload", "rx-gro" },
	{ "lro", "large-receive-offload", "rx-lro" },
	{ "rxvlan", "rx-vlan-offload", "rx-vlan-hw-parse" },
	{ "txvlan", "tx-vlan-offload", "tx-vlan-hw-insert" },
	{ "ntuple", "ntuple-filters", "rx-ntuple-filter" },
	{ "rxhash", "receive-hashing", "rx-hashing" },
};

int offload_nl_members(const struct ethnl_features *f, const char *feature, int idx[])
{
	const char *pattern = feature;
	int n = 0;

	for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
		if (!strcmp(feature, groups[g].short_name) || !strcmp(feature, groups[g].long_name))
			pattern = groups[g].pattern;
	for (int i = 0; i < f->n && i < ETHNL_FEATURES_MAX; i++)
		if (f->name[i][0] && fnmatch(pattern, f->name[i], 0) == 0)
			idx[n++] = i;
	return n;
}

/* What `ethtool -k` prints for the group: on when a member is; fixed when none can change. */
static void group_state(const struct ethnl_features *f, const int idx[], int n, bool *on, bool *fixed)
{
	*on = false;
	*fixed = true;
	for (int k = 0; k < n; k++) {
		*on |= ethnl_bit(f->active, idx[k]);
		*fixed &= !ethnl_changeable(f, idx[k]);
	}
}

int offload_nl_check(const struct ethnl_features *f, const char *dev, const struct offload_list *ol,
		     char *why, size_t whylen)
{
	int idx[ETHNL_FEATURES_MAX];

	for (int i = 0; i < ol->n; i++) {
		const struct offload_setting *s = &ol->v[i];
		int n = offload_nl_members(f, s->feature, idx);
		bool on, fixed;

		if (!n) {
			snprintf(why, whylen, "%s has no offload feature '%s'", dev, s->feature);
			return 1;
		}
		group_state(f, idx, n, &on, &fixed);
		if (fixed && on != s->on) {
			snprintf(why, whylen, "%s cannot turn %s %s: fixed by the driver", dev,
				 s->feature, s->on ? "on" : "off");
			return 1;
		}
	}
	return 0;
}

/*
 * Did the setting take? The changeable members decide (a group can be
 * wanted on while the kernel keeps it off, "[requested on]"); with none,
 * the group as -k prints it.
 */
static bool took(const struct ethnl_features *f, const char *feature, bool want)
{
	int idx[ETHNL_FEATURES_MAX], n = offload_nl_members(f, feature, idx), members = 0;
	bool on, fixed;

	for (int k = 0; k < n; k++) {
		if (!ethnl_changeable(f, idx[k]))
			continue;
		members++;
		if (ethnl_bit(f->active, idx[k]) != want)
			return false;
	}
	group_state(f, idx, n, &on, &fixed);
	return members ? true : n && on == want;
}

/* The changes to make (names, values), their old values into the undo record's "wanted". */
static int plan(const struct ethnl_features *f, const struct offload_list *ol, json_t *rec,
		const char *nm[], bool on[])
{
	json_t *old = json_object_get(rec, "wanted");
	int idx[ETHNL_FEATURES_MAX], n = 0;

	for (int i = 0; i < ol->n; i++) {
		int m = offload_nl_members(f, ol->v[i].feature, idx);

		for (int k = 0; k < m && n < ETHNL_FEATURES_MAX; k++) {
			const char *name = f->name[idx[k]];
			bool was = ethnl_bit(f->wanted, idx[k]);

			if (!ethnl_changeable(f, idx[k]) || was == ol->v[i].on ||
			    json_object_get(old, name))
				continue;
			json_object_set_new(old, name, json_boolean(was));
			nm[n] = name;
			on[n++] = ol->v[i].on;
		}
	}
	return n;
}

/* -v: the ethtool command a person would type for the same change. */
static void show(const char *netns, const char *dev, const struct offload_list *ol)
{
	char *argv[4 + 2 * OFFLOAD_MAX];
	int n = 0;

	if (!log_verbose)
		return;
	argv[n++] = "ethtool";
	argv[n++] = "-K";
	argv[n++] = (char *)dev;
	for (int i = 0; i < ol->n; i++) {
		argv[n++] = (char *)ol->v[i].feature;
		argv[n++] = ol->v[i].on ? "on" : "off";
	}
	argv[n] = NULL;
	fputs("ipsecperf: + ", stderr);
	exec_print(stderr, netns, argv);
}

int offload_nl_apply(const char *netns, const char *dev, const struct offload_list *ol,
		     char *why, size_t whylen)
{
	static struct ethnl_features f; /* 4 kB */
	const char *nm[ETHNL_FEATURES_MAX];
	bool on[ETHNL_FEATURES_MAX];
	char err[256], target[128];
	json_t *rec;
	int n, rc;

	/* before reading them: the values to restore are those no other run has changed */
	snprintf(target, sizeof(target), "dev:%s", dev);
	if (!netns && journal_hostwide(target, why, whylen) < 0)
		return -1;
	if (ethnl_features_get(netns, dev, &f, err, sizeof(err)) < 0) {
		snprintf(why, whylen, "cannot read the offloads of %s: %s", dev, err);
		return -1;
	}
	if ((rc = offload_nl_check(&f, dev, ol, why, whylen)))
		return rc;
	show(netns, dev, ol);
	rec = ethnl_features_record(netns, dev);
	n = plan(&f, ol, rec, nm, on);
	if (!n) {
		json_decref(rec);
		return 0;
	}
	/* the names point into f, which the read-back below overwrites: set first */
	if (journal_add(rec) < 0) {
		snprintf(why, whylen, "cannot journal the offloads of %s", dev);
		return -1;
	}
	if (ethnl_features_set(netns, dev, nm, on, n, err, sizeof(err)) < 0) {
		snprintf(why, whylen, "ethtool -K %s failed: %s", dev, err);
		return -1;
	}
	if (ethnl_features_get(netns, dev, &f, err, sizeof(err)) < 0) {
		snprintf(why, whylen, "cannot read the offloads of %s: %s", dev, err);
		return -1;
	}
	for (int i = 0; i < ol->n; i++)
		if (!took(&f, ol->v[i].feature, ol->v[i].on)) {
			snprintf(why, whylen, "%s: %s did not turn %s", dev, ol->v[i].feature,
				 ol->v[i].on ? "on" : "off");
			return -1;
		}
	return 0;
}
