// SPDX-License-Identifier: GPL-2.0
/* A scenario's [link] mtu on one end of the link (link_mtu.h). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "endpoint.h"
#include "journal.h"
#include "link_mtu.h"

int link_mtu_read(const struct endpoint *e, char *why, size_t len)
{
	char *out = NULL, *err = NULL;
	int st = ep_run(e, (char *[]){ "ip", "-j", "addr", "show", "dev", (char *)e->dev, NULL }, &out, &err);
	/* what the peer printed is data: one object with an integer "mtu", or no MTU */
	json_t *a = st == 0 && out ? json_loads(out, 0, NULL) : NULL;
	json_t *mtu = json_object_get(json_array_get(a, 0), "mtu");
	int v = json_is_integer(mtu) && json_integer_value(mtu) > 0 && json_integer_value(mtu) <= 65535 ?
			(int)json_integer_value(mtu) : -1;

	if (v < 0)
		snprintf(why, len, "cannot read the MTU of %s: %s", e->dev,
			 st != 0 ? (err && *err ? err : "ip failed") : "ip -j addr show gave no mtu");
	json_decref(a);
	free(out);
	free(err);
	return v;
}

int link_mtu_apply(const struct endpoint *e, int mtu, const char *where, char *why, size_t len)
{
	char want[16], was[16], target[128], *err = NULL;
	int old;

	if (!mtu)
		return 0;
	snprintf(want, sizeof(want), "%d", mtu);
	if (journal_dry_run()) /* nothing to read: the namespaces are not made */
		return ep_change(e, (char *[]){ "ip", "link", "set", "dev", (char *)e->dev, "mtu", want, NULL }, NULL,
				 NULL) < 0 ? -1 : 0;
	/* a device outside our namespaces is shared: its MTU to restore is one no other run has changed */
	snprintf(target, sizeof(target), "dev:%s", e->dev);
	if (!e->netns && journal_hostwide(target, why, len) < 0)
		return -1;
	old = link_mtu_read(e, why, len);
	if (old < 0)
		return -1;
	if (old == mtu)
		return 0;
	snprintf(was, sizeof(was), "%d", old);
	if (ep_change(e, (char *[]){ "ip", "link", "set", "dev", (char *)e->dev, "mtu", want, NULL },
		      (char *[]){ "ip", "link", "set", "dev", (char *)e->dev, "mtu", was, NULL }, &err) < 0) {
		/* the device's own refusal (its min_mtu, max_mtu), or the peer's: this link cannot run it */
		snprintf(why, len, "%s%s refuses MTU %d: %s", e->dev, where, mtu, err && *err ? err : "ip link set failed");
		for (char *p = why; *p; p++)
			if (*p == '\n')
				*p = ' ';
		free(err);
		return 1;
	}
	free(err);
	return 0;
}
