// SPDX-License-Identifier: GPL-2.0
/*
 * The encrypted links' devices as others ask for them (enclink.h): the
 * journal's undo, and the peer agent's requests made into calls of the
 * kind's functions on the peer's own namespace.
 * A key pinned to the agent may send any request, so every name is checked
 * as a name, every number for its range before it is narrowed to an int,
 * and every key for its length before anything is made; keys are wiped
 * once used.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "enclink.h"
#include "hex.h"
#include "journal.h"
#include "log.h"
#include "netns_call.h"
#include "rtnl_link.h"

static const char *str(json_t *req, const char *key)
{
	const char *v = json_string_value(json_object_get(req, key));

	return v ? v : "";
}

bool enclink_agent_op(const char *op)
{
	return op && (!strcmp(op, "enclink-exists") || !strcmp(op, "enclink-add") || !strcmp(op, "enclink-peer") ||
		      !strcmp(op, "enclink-get"));
}

/* The request's key as a whole number from 0 to max (absent: 0), else -1: checked before it is an int. */
static int number(json_t *req, const char *key, int max)
{
	json_t *v = json_object_get(req, key);

	if (!v)
		return 0;
	return json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= max
		       ? (int)json_integer_value(v)
		       : -1;
}

/* The device of a request: its kind and names, all checked; NULL with why. */
static const struct enclink_kind *dev_of(json_t *req, struct enclink_dev *d, char *why, size_t len)
{
	const struct enclink_kind *k = enclink_find(str(req, "kind"));

	*d = (struct enclink_dev){ .dev = str(req, "dev"), .lower = str(req, "lower"), .cipher = str(req, "cipher"),
				   .mtu = number(req, "mtu", 65535), .addr = str(req, "addr"),
				   .plen = number(req, "plen", 128), .link_addr = str(req, "link_addr") };
	if (!k)
		snprintf(why, len, "no encrypted link of kind '%.40s'", str(req, "kind"));
	else if (!ifname_ok(d->dev) || !ifname_ok(d->lower))
		snprintf(why, len, "'%.20s' or '%.20s' is not a device name", d->dev, d->lower);
	else if (!enclink_takes(k, d->cipher))
		snprintf(why, len, "%s takes no cipher '%.40s'", k->title, d->cipher);
	else if (d->mtu < 0 || d->plen < 0)
		snprintf(why, len, "%s is not a whole number from 0 to %d", d->mtu < 0 ? "MTU" : "the prefix length",
			 d->mtu < 0 ? 65535 : 128);
	else
		return k;
	return NULL;
}

/* The request's "key" (wiped in the request): its length, or -1 when it is not klen bytes of hex. */
static int key_of(json_t *req, uint8_t *key, size_t klen)
{
	json_t *j = json_object_get(req, "key");
	int n = json_is_string(j) ? hex_decode(json_string_value(j), key, ENCLINK_KEY_MAX) : -1;

	if (json_is_string(j))
		explicit_bzero((char *)json_string_value(j), strlen(json_string_value(j)));
	return n >= 0 && (size_t)n == klen ? n : -1;
}

static json_t *done(int err, const char *kmsg)
{
	return json_pack("{s:b, s:i, s:s}", "ok", 1, "err", err, "kmsg", kmsg);
}

static json_t *add(json_t *req, const struct enclink_kind *k, const struct enclink_dev *d)
{
	uint8_t key[ENCLINK_KEY_MAX];
	struct enclink_pub pub = { .id_len = 0 };
	char why[300] = "", id[2 * ENCLINK_ID_MAX + 1];
	size_t klen = k->key_len(d->cipher);
	int err;
	json_t *a;

	if (key_of(req, key, klen) < 0) {
		explicit_bzero(key, sizeof(key));
		return json_pack("{s:b, s:s}", "ok", 0, "error", "enclink-add: the key is missing, not hex or not its length");
	}
	err = k->add(d, key, klen, &pub, why, sizeof(why));
	explicit_bzero(key, sizeof(key));
	hex_encode(pub.id, pub.id_len, id, sizeof(id));
	a = done(err, why);
	json_object_set_new(a, "id", json_string(id));
	json_object_set_new(a, "port", json_integer(pub.port));
	return a;
}

static json_t *peer(json_t *req, const struct enclink_kind *k, const struct enclink_dev *d)
{
	uint8_t key[ENCLINK_KEY_MAX];
	struct enclink_pub pub = { .port = number(req, "port", 65535) }; /* the other end's: 0 where the kind has none */
	struct enclink_other o = { .pub = &pub, .link_addr = str(req, "other_link_addr"), .addr = str(req, "other_addr") };
	int n = hex_decode(str(req, "id"), pub.id, sizeof(pub.id)), err;
	char why[300] = "";

	if (pub.port < 0)
		return json_pack("{s:b, s:s}", "ok", 0, "error", "enclink-peer: the other end's port is not one (0 to 65535)");
	if (n < 0)
		return json_pack("{s:b, s:s}", "ok", 0, "error", "enclink-peer: the other end's id is not hex");
	pub.id_len = (size_t)n;
	if (k->shares_keys) {
		o.klen = k->key_len(d->cipher);
		if (key_of(req, key, o.klen) < 0) {
			explicit_bzero(key, sizeof(key));
			return json_pack("{s:b, s:s}", "ok", 0, "error", "enclink-peer: the key is missing, not hex or not its length");
		}
		o.key = key;
	}
	err = k->peer(d, &o, why, sizeof(why));
	explicit_bzero(key, sizeof(key));
	return done(err, why);
}

static json_t *get(const struct enclink_kind *k, const struct enclink_dev *d)
{
	struct enclink_counters c;
	char why[300] = "";
	int err = k->counters(d, &c, why, sizeof(why));
	json_t *a = done(err, why);

	if (!err)
		json_object_set_new(a, "counters", enclink_counters_json(k, &c));
	return a;
}

json_t *enclink_agent_answer(json_t *req)
{
	const char *op = str(req, "op");
	struct enclink_dev d;
	const struct enclink_kind *k;
	char why[200], kind[32];

	if (!strcmp(op, "enclink-exists")) {
		int there = ifname_ok(str(req, "dev")) ? rtnl_link_kind(NULL, str(req, "dev"), kind, sizeof(kind)) : -EINVAL;

		return json_pack("{s:b, s:i, s:b, s:s}", "ok", 1, "err", there < 0 ? there : 0, "there", there == 1,
				 "link", there == 1 ? kind : "");
	}
	k = dev_of(req, &d, why, sizeof(why));
	if (!k)
		return json_pack("{s:b, s:s}", "ok", 0, "error", why);
	if (!strcmp(op, "enclink-add"))
		return add(req, k, &d);
	if (!strcmp(op, "enclink-peer"))
		return peer(req, k, &d);
	return get(k, &d);
}

json_t *enclink_undo_record(const struct enclink_kind *k, const char *netns, const char *dev)
{
	json_t *r = json_pack("{s:s, s:s, s:s}", "kind", "enclink", "link", k->name, "dev", dev);

	if (r && netns)
		json_object_set_new(r, "netns", json_string(netns));
	return r;
}

int enclink_undo(json_t *r)
{
	const struct enclink_kind *k = enclink_find(json_string_value(json_object_get(r, "link")));
	const char *dev = json_string_value(json_object_get(r, "dev"));
	const char *ns = json_string_value(json_object_get(r, "netns"));
	char why[256];
	int rc;

	if (!k || !dev || !ifname_ok(dev) || (json_object_get(r, "netns") && !netns_ok(ns))) {
		pr_warn("undo: an encrypted link's record without a known kind, a device or a namespace by name: left");
		return JOURNAL_LEFT;
	}
	rc = rtnl_link_del(ns, dev, k->link, why, sizeof(why));
	if (rc == -EPERM) {
		pr_warn("undo: %s: not deleted", why);
		return JOURNAL_LEFT;
	}
	if (rc < 0)
		pr_warn("undo: delete %s%s%s: %s", dev, ns ? " in " : "", ns ? ns : "", why);
	return rc < 0 ? -1 : 0;
}
