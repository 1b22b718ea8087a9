// SPDX-License-Identifier: GPL-2.0
/* The encrypted links at an endpoint, here or through the peer's agent (endpoint_enclink.h). */
#include "endpoint_enclink.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hex.h"
#include "log.h"
#include "peer_run.h"
#include "rtnl_link.h"

/* The request's line with "key" (hex) spliced in before its last '}' (wiped by the caller), or NULL. */
static char *line_with_key(json_t *req, const uint8_t *key, size_t klen, char *line, size_t len)
{
	char hex[2 * ENCLINK_KEY_MAX + 1];
	char *head = json_dumps(req, JSON_COMPACT);

	if (!head || klen > ENCLINK_KEY_MAX) {
		free(head);
		return NULL;
	}
	head[strlen(head) - 1] = '\0';
	hex_encode(key, klen, hex, sizeof(hex));
	snprintf(line, len, klen ? "%s,\"key\":\"%s\"}" : "%s}", head, hex);
	explicit_bzero(hex, sizeof(hex));
	free(head);
	return line;
}

/* One request to e's agent (req consumed, key spliced in if klen): its answer, or NULL with *err. */
static json_t *ask(const struct endpoint *e, json_t *req, const uint8_t *key, size_t klen, int *err, char *why,
		   size_t len)
{
	char line[2048];
	json_t *r = NULL;

	if (!e->agent || !line_with_key(req, key, klen, line, sizeof(line))) {
		json_decref(req);
		*err = -EOPNOTSUPP;
		msg_err(why, len, "the peer's agent cannot be asked");
		return NULL;
	}
	json_decref(req);
	r = peer_answer(e->agent(e->arg, line));
	explicit_bzero(line, sizeof(line));
	if (!r) {
		*err = -EPIPE;
		msg_err(why, len, "%.300s", ep_lost(e) ?: "the agent did not answer");
		return NULL;
	}
	if (!json_is_integer(json_object_get(r, "err"))) {
		/* an agent that does not know the request: an older ipsecperf on the peer */
		*err = -EOPNOTSUPP;
		msg_err(why, len, "the peer: %.200s (install this ipsecperf there)",
			json_string_value(json_object_get(r, "error")) ?: "no answer to an encrypted link's request");
		json_decref(r);
		return NULL;
	}
	*err = (int)json_integer_value(json_object_get(r, "err"));
	if (*err > 0 || *err < -4095)
		*err = -EPROTO;
	if (*err)
		msg_err(why, len, "the peer: %.300s", json_string_value(json_object_get(r, "kmsg")) ?: "failed");
	return r;
}

static json_t *dev_req(const char *op, const struct enclink_kind *k, const struct enclink_dev *d)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:s, s:i, s:s}", "op", op, "kind", k->name, "dev", d->dev,
			 "lower", d->lower, "cipher", d->cipher, "mtu", d->mtu, "addr", d->addr, "plen", d->plen,
			 "link_addr", d->link_addr);
}

int ep_enclink_exists(const struct endpoint *e, const char *dev, char *kind, size_t len)
{
	char why[200];
	int err;
	json_t *r;

	if (!ep_remote(e))
		return rtnl_link_kind(e->netns, dev, kind, len);
	r = ask(e, json_pack("{s:s, s:s}", "op", "enclink-exists", "dev", dev), NULL, 0, &err, why, sizeof(why));
	if (!r || err) {
		json_decref(r);
		return err ? err : -EPROTO;
	}
	snprintf(kind, len, "%s", json_string_value(json_object_get(r, "link")) ?: "");
	err = json_is_true(json_object_get(r, "there"));
	json_decref(r);
	return err;
}

int ep_enclink_add(const struct endpoint *e, const struct enclink_kind *k, const struct enclink_dev *d,
		   const uint8_t *key, size_t klen, struct enclink_pub *pub, char *why, size_t len)
{
	json_t *r, *port;
	int err, n;

	memset(pub, 0, sizeof(*pub));
	if (!ep_remote(e))
		return k->add(d, key, klen, pub, why, len);
	r = ask(e, dev_req("enclink-add", k, d), key, klen, &err, why, len);
	if (!r || err) {
		json_decref(r);
		return err;
	}
	/* the peer's answer is data: an id of at most its size, a port a port */
	n = hex_decode(json_string_value(json_object_get(r, "id")) ?: "", pub->id, sizeof(pub->id));
	port = json_object_get(r, "port");
	if (n <= 0 || !json_is_integer(port) || json_integer_value(port) < 0 || json_integer_value(port) > 65535) {
		msg_err(why, len, "the peer answered no id or port for its %s device", k->title);
		err = -EPROTO;
	} else {
		pub->id_len = (size_t)n;
		pub->port = (int)json_integer_value(port);
	}
	json_decref(r);
	return err;
}

int ep_enclink_peer(const struct endpoint *e, const struct enclink_kind *k, const struct enclink_dev *d,
		    const struct enclink_other *o, char *why, size_t len)
{
	char id[2 * ENCLINK_ID_MAX + 1];
	json_t *req, *r;
	int err;

	if (!ep_remote(e))
		return k->peer(d, o, why, len);
	hex_encode(o->pub->id, o->pub->id_len, id, sizeof(id));
	req = dev_req("enclink-peer", k, d);
	json_object_set_new(req, "id", json_string(id));
	json_object_set_new(req, "port", json_integer(o->pub->port));
	json_object_set_new(req, "other_link_addr", json_string(o->link_addr));
	json_object_set_new(req, "other_addr", json_string(o->addr));
	r = ask(e, req, o->key, o->key ? o->klen : 0, &err, why, len);
	json_decref(r);
	return err;
}

int ep_enclink_counters(const struct endpoint *e, const struct enclink_kind *k, const struct enclink_dev *d,
			struct enclink_counters *c, char *why, size_t len)
{
	json_t *r;
	int err;

	memset(c, 0, sizeof(*c));
	if (!ep_remote(e))
		return k->counters(d, c, why, len);
	r = ask(e, dev_req("enclink-get", k, d), NULL, 0, &err, why, len);
	if (r && !err && enclink_counters_from(k, json_object_get(r, "counters"), c) < 0) {
		msg_err(why, len, "the peer answered no counters of its %s device", k->title);
		err = -EPROTO;
	}
	json_decref(r);
	return err;
}
