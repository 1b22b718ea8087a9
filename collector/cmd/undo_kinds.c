// SPDX-License-Identifier: GPL-2.0
/* The journal's kinds of record that other modules make. Add a row for a new kind. */
#include "bisect_util.h"
#include "ethtool_nl.h"
#include "ipsec.h"
#include "journal.h"
#include "kmod.h"
#include "remote.h"
#include "rtnl.h"
#include "undo_kinds.h"

static const struct journal_kind kinds[] = {
	{ "xfrm-state", ipsec_undo_state },   /* ipsec.c: delete an SA by spi/dst */
	{ "xfrm-policy", ipsec_undo_policy }, /* ipsec.c: delete a policy by selector/dir */
	{ "modules", kmod_undo },             /* kmod.c: unload the modules a run loaded */
	{ "remote-argv", remote_undo_argv },  /* remote.c: a command on the peer, through ssh */
	{ "netns", rtnl_undo_netns },         /* rtnl.c: delete a namespace we made */
	{ "ethtool-features", ethnl_undo_features }, /* ethtool_nl.c: set offloads back */
	{ "bisect", bisect_undo },            /* bisect_util.c: git bisect reset, scratch removed */
};

void undo_kinds_register(void)
{
	journal_register_kinds(kinds, sizeof(kinds) / sizeof(kinds[0]));
}
