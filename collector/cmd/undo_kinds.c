// SPDX-License-Identifier: GPL-2.0
/* The journal's kinds of record that other modules make. Add a row for a new kind. */
#include "bisect_util.h"
#include "enclink.h"
#include "ethtool_nl.h"
#include "ipsec.h"
#include "journal.h"
#include "kmod.h"
#include "log.h"
#include "remote.h"
#include "rtnl.h"
#include "tune.h"
#include "undo_kinds.h"

/*
 * What each kind sets back that every run shares (journal.h,
 * journal_target): a run refuses to change it while a dead run's journal
 * holds such a change.
 */
static const char *features_target(json_t *r, char *buf, size_t len)
{
	const char *dev = json_string_value(json_object_get(r, "dev"));

	if (json_object_get(r, "netns"))
		return NULL; /* a device in a run's own namespace */
	fmt_buf(buf, len, "dev:%s", dev ? dev : "?");
	return buf;
}

static const char *modules_target(json_t *r, char *buf, size_t len)
{
	(void)r;
	fmt_buf(buf, len, "modules");
	return buf;
}

static const char *remote_target(json_t *r, char *buf, size_t len)
{
	return journal_argv_target(json_object_get(r, "argv"), buf, len);
}

static const char *sysfs_target(json_t *r, char *buf, size_t len)
{
	(void)r;
	fmt_buf(buf, len, "cpufreq");
	return buf;
}

static const struct journal_kind kinds[] = {
	{ "xfrm-state", ipsec_undo_state, NULL },   /* ipsec.c: delete an SA by spi/dst */
	{ "xfrm-policy", ipsec_undo_policy, NULL }, /* ipsec.c: delete a policy by selector/dir */
	{ "modules", kmod_undo, modules_target },   /* kmod.c: unload the modules a run loaded */
	{ "remote-argv", remote_undo_argv, remote_target }, /* remote.c: a command on the peer, through ssh */
	{ "netns", rtnl_undo_netns, NULL },         /* rtnl.c: delete a namespace we made */
	{ "ethtool-features", ethnl_undo_features, features_target }, /* ethtool_nl.c: set offloads back */
	{ "bisect", bisect_undo, NULL },            /* bisect_util.c: git bisect reset, scratch removed */
	{ "sysfs", tune_undo, sysfs_target },      /* tune.c: a CPU's governor or boost back as it was */
	{ "enclink", enclink_undo, features_target }, /* enclink.c: delete a WireGuard or MACsec device we made */
};

void undo_kinds_register(void)
{
	journal_register_kinds(kinds, sizeof(kinds) / sizeof(kinds[0]));
}
