// SPDX-License-Identifier: GPL-2.0
/* A scenario's encrypted link over a testbed's two ends (enclink_run.h). */
#include "enclink_run.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "endpoint_enclink.h"
#include "endpoint_xfrm.h"
#include "journal.h"
#include "kmod.h"
#include "link_mtu.h"
#include "remote.h"
#include "scenario.h"
#include "secret.h"

static const char *const role[2] = { "sender", "receiver" };

/* why, said of e when e is the peer ("the peer: ..."), unless it says so already. */
static void where_prefix(const struct endpoint *e, char *why, size_t len)
{
	char tmp[600];

	if (!ep_remote(e) || !strncmp(why, "the peer", 8))
		return;
	snprintf(tmp, sizeof(tmp), "%s", why);
	snprintf(why, len, "the peer: %s", tmp);
}

/* Are the two ends two kernels (the peer testbed's hosts), or one? */
static int hosts(const struct enclink_run *el)
{
	return ep_remote(el->link[0]) != ep_remote(el->link[1]) || el->link[0]->host != el->link[1]->host;
}

/* The devices' settings, before anything is made: names, addresses, MTU. */
static int plan(struct enclink_run *el, const struct scenario *sc, char *why, size_t len)
{
	bool v6 = strchr(el->link[0]->addr, ':') != NULL;
	int link_mtu = sc->mtu;

	el->cipher = sc->enclink.cipher;
	if (el->k->overhead && !link_mtu && !journal_dry_run()) {
		for (int i = 0; i < 2; i++) {
			int m = link_mtu_read(el->link[i], why, len);

			if (m < 0)
				return -1;
			link_mtu = i == 0 || m < link_mtu ? m : link_mtu;
		}
	}
	if (!link_mtu)
		link_mtu = 1500;
	el->mtu = el->k->overhead ? link_mtu - el->k->overhead : 0;
	if (el->k->overhead && el->mtu < (v6 ? 1280 : 576)) {
		snprintf(why, len, "the link's MTU %d leaves %s %d bytes, too few for %s", link_mtu, el->k->title,
			 el->mtu, v6 ? "IPv6" : "IPv4");
		return 1;
	}
	for (int i = 0; i < 2; i++) {
		el->ep[i] = *el->link[i];
		el->ep[i].addr = v6 ? (i ? ENCLINK_ADDR6_RX : ENCLINK_ADDR6_TX) : (i ? ENCLINK_ADDR4_RX : ENCLINK_ADDR4_TX);
		el->ep[i].dev = el->k->dev;
		el->d[i] = (struct enclink_dev){ .netns = ep_remote(el->link[i]) ? NULL : el->link[i]->netns,
						 .dev = el->k->dev, .lower = el->link[i]->dev, .cipher = el->cipher,
						 .mtu = el->mtu, .addr = el->ep[i].addr, .plen = v6 ? 64 : 24,
						 .link_addr = el->link[i]->addr };
	}
	return 0;
}

/* The module at e: 0 loaded (inside the window); 1 this kernel has none (skip, why); -1 lost. */
static int module_at(const struct enclink_run *el, const struct endpoint *e, char *why, size_t len)
{
	const struct enclink_kind *k = el->k;
	enum kmod_state st;
	int rc;

	if (!journal_dry_run()) {
		if (ep_kmod_state(e, k->module, &st, why, len) < 0)
			return -1;
		if (st == KMOD_MISSING) {
			snprintf(why, len, "this kernel has no %s: %s is neither loaded, built in nor a loadable module (%s)",
				 k->title, k->module, k->config);
			where_prefix(e, why, len);
			return 1;
		}
	}
	rc = ep_kmod_set(e, k->module, true, why, len);
	if (rc)
		where_prefix(e, why, len);
	return rc;
}

/* Make end i's device, its undo journaled first: 0, 1 (skip, why) or -1 (why). */
static int make_end(struct enclink_run *el, int i, const uint8_t *key, size_t klen, struct enclink_pub *pub,
		    char *why, size_t len)
{
	const struct endpoint *e = el->link[i];
	const char *ns = el->d[i].netns;
	char kind[32], kmsg[300];
	int there = ep_enclink_exists(e, el->k->dev, kind, sizeof(kind)), rc;

	if (there != 0) {
		if (there > 0)
			snprintf(why, len, "a device %s (%s) is there already%s%s, not made by this run: left as it is",
				 el->k->dev, *kind ? kind : "no kind", ns ? " in " : "", ns ? ns : "");
		else
			snprintf(why, len, "cannot tell whether %s is there: %s", el->k->dev, strerror(-there));
		where_prefix(e, why, len);
		return there > 0 ? 1 : -1;
	}
	if (ep_journal_undo(e, enclink_undo_record(el->k, ns, el->k->dev)) < 0) {
		snprintf(why, len, "cannot write the journal");
		return -1;
	}
	rc = ep_enclink_add(e, el->k, &el->d[i], key, klen, pub, kmsg, sizeof(kmsg));
	if (rc == 0)
		return 0;
	/* a kernel that has the module but cannot make the device (a cipher it lacks): skip */
	snprintf(why, len, "cannot make %s's %s device %s: %s", role[i], el->k->title, el->k->dev, kmsg);
	where_prefix(e, why, len);
	return rc == -EOPNOTSUPP || rc == -ENOENT || rc == -ENOPKG ? 1 : -1;
}

/* Both devices, then each end the other's peer; keys held only here, wiped before returning. */
static int make_both(struct enclink_run *el, char *why, size_t len)
{
	uint8_t key[2][ENCLINK_KEY_MAX];
	struct enclink_pub pub[2];
	size_t klen = el->k->key_len(el->cipher);
	int rc = 0;

	if (!klen || klen > ENCLINK_KEY_MAX) {
		snprintf(why, len, "%s: no key length for %s", el->k->title, el->cipher);
		return -1;
	}
	secret_hold(); /* until the keys, here, in netlink messages and in the agent's request lines, are wiped */
	if (getrandom(key[0], klen, 0) != (ssize_t)klen || getrandom(key[1], klen, 0) != (ssize_t)klen) {
		snprintf(why, len, "getrandom: %s", strerror(errno));
		rc = -1;
	}
	for (int i = 0; i < 2 && rc == 0; i++)
		rc = make_end(el, i, key[i], klen, &pub[i], why, len);
	for (int i = 0; i < 2 && rc == 0; i++) {
		char kmsg[300];
		struct enclink_other o = { .pub = &pub[!i], .link_addr = el->link[!i]->addr, .addr = el->ep[!i].addr,
					   .key = el->k->shares_keys ? key[!i] : NULL, .klen = klen };

		if (ep_enclink_peer(el->link[i], el->k, &el->d[i], &o, kmsg, sizeof(kmsg)) < 0) {
			snprintf(why, len, "cannot make the %s the %s's %s peer: %s", role[!i], role[i], el->k->title, kmsg);
			where_prefix(el->link[i], why, len);
			rc = -1;
		}
	}
	explicit_bzero(key, sizeof(key));
	secret_release();
	return rc;
}

/* The modules windows of the ends' kernels (one, or one a host), around what loads modules. */
static int in_windows(struct enclink_run *el, char *why, size_t len)
{
	struct kmod_window win[2];
	int rc = 0, k;

	if (journal_hostwide("modules", why, len) < 0)
		return -1;
	for (k = 0; k <= hosts(el) && rc == 0; k++) {
		ep_kmod_window(el->link[k], &win[k]);
		if (kmod_window_open(&win[k]) < 0) {
			snprintf(why, len, "cannot write the journal");
			rc = -1;
		}
	}
	int opened = rc ? k - 1 : k;

	for (int i = 0; i <= hosts(el) && rc == 0; i++)
		rc = module_at(el, el->link[i], why, len);
	if (rc == 0)
		rc = make_both(el, why, len);
	for (k = 0; k < opened; k++)
		if (kmod_window_close(&win[k]) < 0 && rc == 0) {
			snprintf(why, len, "cannot write the journal");
			rc = -1;
		}
	return rc;
}

static void dry_run(const struct enclink_run *el)
{
	printf("# %s (%s) between %s and %s: keys from getrandom(), never shown; each end's public part goes to the other\n",
	       el->k->title, el->cipher, el->ep[0].addr, el->ep[1].addr);
	for (int step = 0; step < 2; step++)
		for (int i = 0; i < 2; i++) {
			if (ep_remote(el->link[i]))
				printf("# on %s, by `%s peer-agent`: the same\n", el->link[i]->host->ssh_dest, el->link[i]->prog);
			else
				el->k->print(stdout, &el->d[i], &el->d[!i], i, step);
		}
}

int enclink_apply(const struct endpoint *tx, const struct endpoint *rx, const struct scenario *sc,
		  struct enclink_run *el, char *why, size_t len)
{
	int rc;

	memset(el, 0, sizeof(*el));
	el->k = enclink_find(sc->enclink.kind);
	if (!el->k)
		return 0;
	el->link[0] = tx;
	el->link[1] = rx;
	rc = plan(el, sc, why, len);
	if (rc == 0 && journal_dry_run()) {
		for (int i = 0; i <= hosts(el) && rc == 0; i++)
			rc = module_at(el, el->link[i], why, len);
		if (rc == 0)
			dry_run(el);
	} else if (rc == 0) {
		rc = in_windows(el, why, len);
		/* an MTU the kernel chose (MACsec's): as it is, for the record */
		if (rc == 0 && !el->mtu) {
			int m = link_mtu_read(&el->ep[0], why, len);

			el->mtu = m > 0 ? m : 0;
		}
	}
	if (rc)
		el->k = NULL; /* the load runs nowhere; the scenario is skipped or failed */
	return rc;
}

void enclink_load_ends(const struct enclink_run *el, const struct endpoint **tx, const struct endpoint **rx)
{
	if (el && el->k) {
		*tx = &el->ep[0];
		*rx = &el->ep[1];
	}
}

void enclink_begin(struct enclink_run *el)
{
	el->err0 = 0;
	for (int i = 0; el->k && i < 2 && !el->err0; i++)
		el->err0 = ep_enclink_counters(el->link[i], el->k, &el->d[i], &el->c0[i], el->why0, sizeof(el->why0));
}

/* One end's entry: its role and what each counter counted since the start. */
static json_t *end_entry(const struct enclink_run *el, int i, const struct enclink_counters *c1)
{
	struct enclink_counters d;

	for (int j = 0; j < ENCLINK_COUNTERS; j++)
		d.v[j] = c1->v[j] - el->c0[i].v[j];
	json_t *o = enclink_counters_json(el->k, &d);

	json_object_set_new(o, "end", json_string(role[i]));
	return o;
}

int enclink_record(struct enclink_run *el, json_t *rec, char *why, size_t len)
{
	struct enclink_counters c1[2];
	json_t *ends = json_array(), *bytes = json_object_get(rec, "bytes");
	uint64_t rx_bytes = 0, tx_packets = 0;
	int rc = 0;

	if (!el->k) {
		json_decref(ends);
		return 0;
	}
	for (int i = 0; i < 2 && rc == 0; i++) {
		char kmsg[300];

		if (el->err0 || ep_enclink_counters(el->link[i], el->k, &el->d[i], &c1[i], kmsg, sizeof(kmsg)) < 0) {
			snprintf(why, len, "cannot read the %s's %s counters: %s", role[i], el->k->title,
				 el->err0 ? el->why0 : kmsg);
			rc = -1;
			break;
		}
		json_array_append_new(ends, end_entry(el, i, &c1[i]));
		tx_packets += c1[i].v[0] - el->c0[i].v[0];
		rx_bytes += c1[i].v[3] - el->c0[i].v[3];
	}
	json_object_set_new(rec, "encrypted_link", json_pack("{s:s, s:s, s:s, s:i, s:o}", "kind", el->k->name, "cipher",
							     el->cipher, "dev", el->k->dev, "mtu", el->mtu, "ends", ends));
	/* the devices took in, headers and all, at least what the load received: it went through them */
	if (rc == 0 && (!tx_packets || (json_is_integer(bytes) && rx_bytes < (uint64_t)json_integer_value(bytes)))) {
		snprintf(why, len, "the load did not go through %s: its devices took in %llu bytes, the load received %lld",
			 el->k->dev, (unsigned long long)rx_bytes, (long long)json_integer_value(bytes));
		rc = -1;
	}
	return rc;
}
