// SPDX-License-Identifier: GPL-2.0
/*
 * The peer agent's requests that act on the host (peer_agent_int.h): one
 * program of those the testbed runs, the modules, xfrm policies and SAs.
 * Every field is read as data and checked before it reaches a program, a
 * path or a netlink message.
 */
#include <errno.h>
#include <jansson.h>
#include <linux/xfrm.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "kmod.h"
#include "peer_agent_int.h"
#include "peer_files.h"
#include "peer_run.h"
#include "remote.h"
#include "testbed_peer.h"
#include "xfrm.h"

/* An answer to run that it did not run the program (the run may ask ssh), and why. */
static void not_run(const char *why)
{
	agent_answer(json_pack("{s:b, s:b, s:s}", "ok", 0, "ran", 0, "error", why));
}

/*
 * One program from an argv, if it is one the peer testbed runs
 * (peer_run_allowed), within PEER_RUN_DEADLINE_MS and with its output
 * capped as it is read; the answer is measured as it is sent
 * (peer_run_answer) and says whether the program ran, so that the run asks
 * ssh only for what did not. The files the testbed reads are read here.
 */
void agent_op_run(json_t *req)
{
	json_t *ja = json_object_get(req, "argv");
	size_t n = json_array_size(ja);
	char **argv = n && n < 64 ? calloc(n + 1, sizeof(*argv)) : NULL;
	struct exec_limits lim = { .max_out = REMOTE_ANSWER_MAX, .deadline_ms = PEER_RUN_DEADLINE_MS };
	struct exec_result res;
	char why[600], *line;

	if (!argv) {
		not_run("run: \"argv\" is not a list of 1 to 63 words");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		argv[i] = (char *)json_string_value(json_array_get(ja, i));
		if (!argv[i]) {
			free(argv);
			not_run("run: \"argv\" holds something that is not a string");
			return;
		}
	}
	if (peer_run_allowed(argv, (int)n, why, sizeof(why)) < 0) {
		free(argv);
		not_run(why);
		return;
	}
	int st = !strcmp(argv[0], "cat") ? peer_files_cat(argv + 1, (int)n - 1, lim.max_out, &res)
					  : exec_run_limited(NULL, argv, &lim, &res);

	free(argv);
	line = peer_run_answer(&(struct peer_run_output){ .status = st, .out = res.out ?: "", .out_len = res.out_len,
							   .err = res.err ?: "", .err_len = res.err_len,
							   .too_long = res.too_long, .timed_out = res.timed_out });
	free(res.out);
	free(res.err);
	agent_answer_line(line);
	free(line);
}

void agent_op_modules(json_t *req)
{
	FILE *f = fopen("/proc/modules", "r");
	json_t *a = json_array();
	char line[512], name[128];

	(void)req;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s", name) == 1)
			json_array_append_new(a, json_string(name));
	if (f)
		fclose(f);
	/* no /proc/modules: a kernel without modules, nothing loads on demand */
	agent_answer(json_pack("{s:b, s:o}", "ok", 1, "loaded", f ? a : (json_decref(a), json_null())));
}

void agent_op_kmod(json_t *req)
{
	const char *name = agent_str(req, "name");
	int ref = 0;

	/* a module's name, never a path under /sys/module nor an option */
	if (!kmod_name_ok(name)) {
		agent_answer_err("kmod: not a module name (1 to %d of [A-Za-z0-9_-], not starting with '-')",
				 KMOD_NAME_MAX - 1);
		return;
	}
	enum kmod_state st = kmod_state(name, &ref);

	agent_answer(json_pack("{s:b, s:s, s:i}", "ok", 1, "state", kmod_state_name(st), "refcnt", ref));
}

#define STR_(x) #x
#define STR(x) STR_(x)

/* An integer field from lo to hi, else -1; absent: 0. Ranged before it is narrowed. */
static int req_uint(json_t *req, const char *key, json_int_t lo, json_int_t hi, uint32_t *out)
{
	json_t *v = json_object_get(req, key);
	json_int_t n = json_integer_value(v);

	*out = 0;
	if (!v)
		return 0;
	if (!json_is_integer(v) || n < lo || n > hi)
		return -1;
	*out = (uint32_t)n;
	return 0;
}

/* "src" or "dst": an address of the request's family, else -1. */
static int req_addr(json_t *req, const char *key, int family, char *out, size_t len)
{
	const char *a = agent_str(req, key);
	unsigned char bin[16];

	if (strlen(a) >= len || inet_pton(family, a, bin) != 1)
		return -1;
	snprintf(out, len, "%s", a);
	return 0;
}

/* "family" (4 or 6) and "tunnel" (a boolean or absent) of a policy or SA request; NULL or what is wrong. */
static const char *req_family(json_t *req, int *family, bool *tunnel)
{
	json_t *f = json_object_get(req, "family"), *t = json_object_get(req, "tunnel");

	if (!json_is_integer(f) || (json_integer_value(f) != 4 && json_integer_value(f) != 6))
		return "\"family\" is not 4 or 6";
	if (t && !json_is_boolean(t))
		return "\"tunnel\" is not true or false";
	*family = json_integer_value(f) == 6 ? AF_INET6 : AF_INET;
	*tunnel = json_is_true(t);
	return NULL;
}

/*
 * A policy request, every field checked: family, addresses, direction, and
 * with several SA pairs a flow's TCP port (run --port's range), the
 * priority and the reqid the run gives (xfrm.h). NULL, or what is wrong.
 */
static const char *pol_spec(json_t *req, struct xfrm_pol_spec *p)
{
	const char *dir = agent_str(req, "dir"), *bad;
	uint32_t l4, sport, dport;

	*p = (struct xfrm_pol_spec){ .proto = IPPROTO_ESP };
	if ((bad = req_family(req, &p->family, &p->tunnel)))
		return bad;
	if (req_addr(req, "src", p->family, p->src, sizeof(p->src)) < 0 ||
	    req_addr(req, "dst", p->family, p->dst, sizeof(p->dst)) < 0)
		return "\"src\" or \"dst\" is not an address of the family";
	if (strcmp(dir, "in") && strcmp(dir, "out"))
		return "\"dir\" is not in or out";
	p->dir = !strcmp(dir, "in") ? XFRM_POLICY_IN : XFRM_POLICY_OUT;
	if (req_uint(req, "l4proto", 0, 255, &l4) < 0 || (l4 && l4 != IPPROTO_TCP))
		return "\"l4proto\" is not 6 (TCP)";
	if (req_uint(req, "sport", PEER_PORT_MIN, 65535, &sport) < 0 ||
	    req_uint(req, "dport", PEER_PORT_MIN, 65535, &dport) < 0)
		return "\"sport\" or \"dport\" is not a port from 1024 to 65535";
	if ((sport || dport) && !l4)
		return "a port without \"l4proto\" 6";
	if (req_uint(req, "priority", 0, XFRM_RUN_PRIO_MAX, &p->priority) < 0)
		return "\"priority\" is not from 0 to " STR(XFRM_RUN_PRIO_MAX);
	if (req_uint(req, "reqid", 0, XFRM_RUN_REQID_MAX, &p->reqid) < 0)
		return "\"reqid\" is not from 0 to " STR(XFRM_RUN_REQID_MAX);
	p->l4proto = (int)l4;
	p->sport = (uint16_t)sport;
	p->dport = (uint16_t)dport;
	return NULL;
}

void agent_op_policy_add(json_t *req)
{
	struct xfrm_pol_spec p;
	const char *bad = pol_spec(req, &p);
	char kmsg[200] = "";
	int err;

	if (bad) {
		agent_answer_err("policy-add: %s", bad);
		return;
	}
	err = xfrm_policy_add(NULL, &p, kmsg, sizeof(kmsg));
	agent_answer(json_pack("{s:b, s:i, s:s}", "ok", 1, "err", err, "kmsg", kmsg));
}

/* Is a policy with this selector and direction there? err 0 yes, -ENOENT no. */
void agent_op_policy_get(json_t *req)
{
	struct xfrm_pol_spec p;
	const char *bad = pol_spec(req, &p);
	int there;

	if (bad) {
		agent_answer_err("policy-get: %s", bad);
		return;
	}
	there = xfrm_policy_exists(NULL, &p);
	agent_answer(json_pack("{s:b, s:i}", "ok", 1, "err", there == 1 ? 0 : there == 0 ? -ENOENT : there));
}

/*
 * The SA's bit counts, as the request gives them (absent: 0): each a
 * multiple of 8 from 0 to XFRM_KEY_MAX * 8, else the one that is not.
 */
static const char *sa_bits(json_t *req, struct xfrm_sa_spec *s)
{
	static const char *const keys[] = { "enc_key_bits", "auth_key_bits", "auth_icv_bits", "aead_key_bits",
					    "aead_icv_bits" };
	int *f[] = { &s->enc_key_bits, &s->auth_key_bits, &s->auth_icv_bits, &s->aead_key_bits, &s->aead_icv_bits };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_t *v = json_object_get(req, keys[i]);
		json_int_t b = json_integer_value(v);

		if ((v && !json_is_integer(v)) || b < 0 || b > XFRM_KEY_MAX * 8 || b % 8)
			return keys[i];
		*f[i] = (int)b;
	}
	return NULL;
}

/* An sa-add's fields but the key and bits, each checked; NULL, or what is wrong. */
static const char *sa_fields(json_t *req, struct xfrm_sa_spec *s)
{
	const char *bad;
	uint32_t spi;

	if ((bad = req_family(req, &s->family, &s->tunnel)))
		return bad;
	if (req_addr(req, "src", s->family, s->src, sizeof(s->src)) < 0 ||
	    req_addr(req, "dst", s->family, s->dst, sizeof(s->dst)) < 0)
		return "\"src\" or \"dst\" is not an address of the family";
	if (!json_is_integer(json_object_get(req, "spi")) || req_uint(req, "spi", 256, UINT32_MAX, &spi) < 0)
		return "\"spi\" is not from 256 to 2^32-1";
	s->spi = spi;
	if (req_uint(req, "reqid", 0, XFRM_RUN_REQID_MAX, &s->reqid) < 0)
		return "\"reqid\" is not from 0 to " STR(XFRM_RUN_REQID_MAX);
	snprintf(s->enc, sizeof(s->enc), "%s", agent_str(req, "enc"));
	snprintf(s->auth, sizeof(s->auth), "%s", agent_str(req, "auth"));
	snprintf(s->aead, sizeof(s->aead), "%s", agent_str(req, "aead"));
	return NULL;
}

void agent_op_sa_add(json_t *req)
{
	struct xfrm_sa_spec s = { .proto = IPPROTO_ESP };
	json_t *jkey = json_object_get(req, "key");
	const char *bad = sa_bits(req, &s), *wrong = sa_fields(req, &s);
	uint8_t key[2 * XFRM_KEY_MAX];
	char kmsg[200] = "";
	int klen, err;

	klen = json_is_string(jkey) && !bad && !wrong ? peer_hex_decode(json_string_value(jkey), key, sizeof(key)) : -1;
	/* the key's text lives in the request: wipe it as soon as it is decoded */
	if (json_is_string(jkey))
		explicit_bzero((char *)json_string_value(jkey), strlen(json_string_value(jkey)));
	if (bad) {
		agent_answer_err("sa-add: %s must be a multiple of 8 from 0 to %d", bad, XFRM_KEY_MAX * 8);
		return;
	}
	if (wrong) {
		agent_answer_err("sa-add: %s", wrong);
		return;
	}
	if (klen < 0 || (size_t)klen != xfrm_sa_key_len(&s)) {
		explicit_bzero(key, sizeof(key));
		agent_answer_err("sa-add: the key is missing, not hex or not %zu bytes", xfrm_sa_key_len(&s));
		return;
	}
	err = xfrm_sa_add(NULL, &s, key, kmsg, sizeof(kmsg));
	explicit_bzero(key, sizeof(key));
	agent_answer(json_pack("{s:b, s:i, s:s}", "ok", 1, "err", err, "kmsg", kmsg));
}

/* One SA's counters, as sa-get answers them (req: its family, dst and spi). */
static json_t *sa_counters(json_t *req)
{
	struct xfrm_sa_counters c = { 0 };
	int err = json_is_object(req) ? xfrm_sa_get(NULL, agent_family(req), agent_str(req, "dst"),
						   (uint32_t)json_integer_value(json_object_get(req, "spi")),
						   IPPROTO_ESP, &c)
				       : -EINVAL;

	return json_pack("{s:b, s:i, s:I, s:I, s:I, s:I}", "ok", 1, "err", err, "packets", (json_int_t)c.packets,
			 "bytes", (json_int_t)c.bytes, "oseq", (json_int_t)c.oseq, "seq", (json_int_t)c.seq);
}

void agent_op_sa_get(json_t *req)
{
	agent_answer(sa_counters(req));
}

/* At most AGENT_SA_MAX SAs a cpu-start or cpu-stop. */
#define AGENT_SA_MAX 64
void agent_answer_sas(json_t *ans, json_t *req)
{
	json_t *list = json_object_get(req, "sa"), *out, *s;
	size_t i;

	if (!json_is_array(list) || json_array_size(list) > AGENT_SA_MAX)
		return;
	out = json_array();
	json_array_foreach(list, i, s)
		json_array_append_new(out, sa_counters(s));
	json_object_set_new(ans, "sa", out);
}
