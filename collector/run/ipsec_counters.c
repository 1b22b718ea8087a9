// SPDX-License-Identifier: GPL-2.0
/*
 * The SAs' own counters (ipsec.h): read at a run's and a window's edges,
 * here or through the peer's agent, the verdicts on them (did every SA
 * carry packets, did ESP take the GSO path), and the SA pairs' shares.
 */
#include <string.h>
#include <sys/socket.h>

#include "endpoint_xfrm.h"
#include "ipsec.h"
#include "probes.h"
#include "remote.h"

void ipsec_counters_begin(struct ipsec_sas *cur)
{
	for (int i = 0; i < cur->n; i++)
		cur->sa[i].err0 = ep_xfrm_sa_get(cur->sa[i].ep, &cur->sa[i].spec, &cur->sa[i].c0);
}

int ipsec_sa_check(json_t *sas, char *why, size_t len)
{
	size_t off = 0, i;
	json_t *s;

	json_array_foreach(sas, i, s) {
		if (json_integer_value(json_object_get(s, "packets")) > 0)
			continue;
		if (!off)
			off = snprintf(why, len, "policy did not match:");
		if (off < len)
			off += snprintf(why + off, len - off, " SA %s (%s, %s) counted no packets;",
					json_string_value(json_object_get(s, "spi")),
					json_string_value(json_object_get(s, "dir")),
					json_string_value(json_object_get(s, "netns")) ?: json_string_value(json_object_get(s, "host")));
	}
	if (off && off < len)
		why[off - 1] = '\0'; /* the last ';' */
	return off ? -1 : 0;
}

/* A counter's calls over the whole load if the probes have it, else in the window; -1: not counted. */
static json_int_t probe_count(json_t *rec, const char *name)
{
	json_t *o = json_object_get(json_object_get(rec, "counters"), name);
	json_t *v = json_object_get(o, "count_load");

	if (!json_is_integer(v))
		v = json_object_get(o, "count");
	return json_is_integer(v) ? json_integer_value(v) : -1;
}

int ipsec_path_check(const struct ipsec_config *c, json_t *rec, char *why, size_t len)
{
	json_t *sas = json_object_get(rec, "sa_load"), *s;
	json_int_t out = probe_count(rec, probe_counters[IPP_ESP_OUTPUT].name);
	json_int_t tail = probe_count(rec, probe_counters[IPP_ESP_OUTPUT_TAIL].name);
	const char *hint = "ESP GSO (esp4_offload, esp6_offload) was active: built in (CONFIG_INET_ESP_OFFLOAD=y), or loaded by something else";
	size_t i;

	if (!c->on || c->esp_gso)
		return 0;
	/* esp_output runs once per ESP packet off the GSO path, and calls esp_output_tail; esp_xmit calls only the tail */
	if (out == 0 && tail > 0) {
		snprintf(why, len, "esp-gso = off, but ESP took the GSO path: esp_output_tail ran %lld times, esp_output never; %s",
			 (long long)tail, hint);
		return 1;
	}
	if (!json_is_array(sas))
		sas = json_object_get(rec, "sa");
	json_array_foreach(sas, i, s) {
		json_int_t pk = json_integer_value(json_object_get(s, "packets"));
		json_int_t wire = json_integer_value(json_object_get(s, "wire_packets"));
		const char *dir = json_string_value(json_object_get(s, "dir"));

		/*
		 * xfrm_output_one counts each skb once in the SA's packets and
		 * advances its sequence number by the skb's GSO segments on the
		 * GSO path (xfrm_replay_overflow_offload), by one off it: more
		 * sequence numbers than packets is GSO over ESP. The edges of a
		 * window may split one packet's two counts: a little slack.
		 */
		if (!dir || strcmp(dir, "out") || wire - pk <= 2 || (wire - pk) * 100 <= pk)
			continue;
		snprintf(why, len, "esp-gso = off, but ESP took the GSO path: SA %s sent %lld ESP packets for %lld packets through xfrm, GSO packets counted once; %s",
			 json_string_value(json_object_get(s, "spi")) ?: "?", (long long)wire, (long long)pk, hint);
		return 1;
	}
	return 0;
}

/* One SA's entry in "sa": the netns testbed names its namespace's role, the peer testbed its host. */
static json_t *sa_entry(const struct ipsec_sas *cur, int i, const char *spi, const struct xfrm_sa_counters *c1)
{
	const struct xfrm_sa_spec *s = &cur->sa[i].spec;
	const struct xfrm_sa_counters *c0 = &cur->sa[i].c0;
	bool out = !strcmp(cur->sa[i].dir, "out");
	uint64_t pk = c1->packets - c0->packets, by = c1->bytes - c0->bytes;
	uint64_t wire = out ? c1->oseq - c0->oseq : c1->seq - c0->seq;

	json_t *r;

	if (cur->hosts)
		r = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I}", "spi", spi, "dir", cur->sa[i].dir, "host",
			      ep_remote(cur->sa[i].ep) ? "receiver" : "sender", "family", s->family == AF_INET ? "4" : "6",
			      "src", s->src, "packets", (json_int_t)pk, "bytes", (json_int_t)by, "wire_packets",
			      (json_int_t)wire);
	else
		r = json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:I}", "spi", spi, "dir", cur->sa[i].dir, "netns",
			      cur->sa[i].role, "src", s->src, "packets", (json_int_t)pk, "bytes", (json_int_t)by,
			      "wire_packets", (json_int_t)wire);
	if (cur->npairs > 1)
		json_object_set_new(r, "pair", json_integer(cur->sa[i].pair));
	if (cur->sa[i].pcpu) /* the per-CPU set: the CPU of the SA's out end, -1 the fallback */
		json_object_set_new(r, "cpu", json_integer(cur->sa[i].cpu));
	return r;
}

/* The SAs' counters since ipsec_counters_begin, those of where (IPSEC_SA_*); *rc -1 (why) if one could not be read. */
static bool sa_is_where(const struct ipsec_sas *cur, int i, int where)
{
	const struct endpoint *e = cur->sa[i].ep;

	return !((where == IPSEC_SA_HERE && ep_remote(e)) || (where == IPSEC_SA_THERE && !ep_remote(e)));
}

/* answers: the agent's, one per SA of where in order (ipsec_sa_requests); NULL: read each now */
static json_t *counters_list(struct ipsec_sas *cur, int where, json_t *answers, char *why, size_t len, int *rc)
{
	json_t *a = json_array();
	size_t k = 0;

	*rc = 0;
	for (int i = 0; i < cur->n; i++) {
		struct xfrm_sa_counters c1 = { 0 };
		const struct endpoint *e = cur->sa[i].ep;
		char spi[16];

		if (!sa_is_where(cur, i, where))
			continue;
		int err = answers ? ep_xfrm_sa_answer(json_incref(json_array_get(answers, k++)), &c1)
				  : ep_xfrm_sa_get(e, &cur->sa[i].spec, &c1);

		snprintf(spi, sizeof(spi), "0x%08x", cur->sa[i].spec.spi);
		if (err || cur->sa[i].err0) {
			snprintf(why, len, "cannot read SA %s %s %s %s: %s", spi, cur->sa[i].dir,
				 ep_remote(e) || !e->netns ? "on" : "in",
				 ep_remote(e) ? "the peer" : e->netns ? e->netns : "this host",
				 strerror(-(err ? err : cur->sa[i].err0)));
			*rc = -1;
			continue;
		}
		json_array_append_new(a, sa_entry(cur, i, spi, &c1));
	}
	return a;
}

int ipsec_counters_record(struct ipsec_sas *cur, json_t *rec, char *why, size_t len)
{
	int rc;
	json_t *a = counters_list(cur, IPSEC_SA_ALL, NULL, why, len, &rc), *fwd = json_array();

	json_int_t pcpu_pk[2] = { 0, 0 };

	/*
	 * A load that sends one way: the SAs of the way back carry nothing, and
	 * are not asked to. The per-CPU set: a CPU that sent nothing leaves its
	 * SA idle, and the fallback is idle while each CPU has its own; the
	 * set's out SAs and its in SAs are asked to carry packets together.
	 */
	for (size_t i = 0; i < json_array_size(a) && (int)i < cur->n; i++) {
		if (cur->sa[i].pcpu) {
			pcpu_pk[!strcmp(cur->sa[i].dir, "in")] +=
				json_integer_value(json_object_get(json_array_get(a, i), "packets"));
			continue;
		}
		if (!cur->one_way || !strcmp(cur->sa[i].role, "tx") == !strcmp(cur->sa[i].dir, "out"))
			json_array_append(fwd, json_array_get(a, i));
	}
	if (rc == 0)
		rc = ipsec_sa_check(fwd, why, len);
	if (rc == 0 && cur->npcpu && json_array_size(a) == (size_t)cur->n && (!pcpu_pk[0] || !pcpu_pk[1])) {
		snprintf(why, len, "policy did not match: the per-CPU SAs and their fallback counted no packets %s",
			 pcpu_pk[0] ? "in (at rx)" : "out (at tx)");
		rc = -1;
	}
	json_decref(fwd);
	json_object_set_new(rec, "sa", a);
	return rc;
}

json_t *ipsec_counters_read(struct ipsec_sas *sas, int where, char *why, size_t len)
{
	int rc;

	return counters_list(sas, where, NULL, why, len, &rc);
}

json_t *ipsec_sa_requests(struct ipsec_sas *sas, int where)
{
	json_t *a = json_array();

	for (int i = 0; i < sas->n; i++)
		if (sa_is_where(sas, i, where))
			json_array_append_new(a, ep_xfrm_sa_req(&sas->sa[i].spec));
	return a;
}

json_t *ipsec_counters_answered(struct ipsec_sas *sas, int where, json_t *answers, char *why, size_t len)
{
	size_t n = 0;
	int rc;

	for (int i = 0; i < sas->n; i++)
		n += sa_is_where(sas, i, where);
	/* an agent that does not read them (older), or a wrong count: not these SAs' */
	if (!json_is_array(answers) || json_array_size(answers) != n)
		return NULL;
	return counters_list(sas, where, answers, why, len, &rc);
}

/* The packets of the SA spi, dir out, at the sending end (netns "tx"), in list; -1: not there. */
static json_int_t sa_out_packets(json_t *list, const char *spi)
{
	size_t i;
	json_t *e;

	json_array_foreach(list, i, e) {
		const char *sp = json_string_value(json_object_get(e, "spi")), *dir = json_string_value(json_object_get(e, "dir"));

		if (sp && dir && !strcmp(sp, spi) && !strcmp(dir, "out"))
			return json_integer_value(json_object_get(e, "packets"));
	}
	return -1;
}

/* A record's esp_output per SPI of one end (ctr: "counters", "counters_receiver"): the whole load's, else the window's. */
static json_t *esp_output_per_sa(json_t *rec, const char *ctr)
{
	json_t *e = json_object_get(json_object_get(rec, ctr), "esp_output"), *per = json_object_get(e, "per_sa_load");

	return json_is_object(per) ? per : json_object_get(e, "per_sa");
}

void ipsec_pairs_record(const struct ipsec_sas *cur, json_t *rec)
{
	json_t *flows = json_object_get(rec, "flow"), *pairs;
	json_t *sas = json_object_get(rec, "sa_load");
	/* esp_output per SPI where each direction's out SAs are: the way back's on the receiver, on two hosts */
	json_t *per = esp_output_per_sa(rec, "counters");
	json_t *per_back = cur && cur->hosts ? esp_output_per_sa(rec, "counters_receiver") : per;

	if (!cur || cur->npairs < 2)
		return;
	if (!json_is_array(sas))
		sas = json_object_get(rec, "sa");
	pairs = json_array();
	for (int j = 0; j < cur->npairs; j++) {
		char spi[2][16];
		json_t *ports = json_array(), *f;
		double bytes = 0, bps = 0;
		size_t i;

		/* the pair's SAs: its data direction's first (tx -> rx), then the way back's */
		for (int d = 0; d < 2; d++)
			snprintf(spi[d], sizeof(spi[d]), "0x%08x", cur->sa[4 * j + 2 * d].spec.spi);
		for (int k = j; k < cur->nports; k += cur->npairs)
			json_array_append_new(ports, json_integer(cur->port + k));
		json_array_foreach(flows, i, f) {
			json_int_t port = json_integer_value(json_object_get(f, "port"));

			if (port >= cur->port && (port - cur->port) % cur->npairs == j) {
				bytes += (double)json_integer_value(json_object_get(f, "bytes"));
				bps += json_real_value(json_object_get(f, "throughput_bps"));
			}
		}
		json_t *o = json_pack("{s:i, s:s, s:s, s:o}", "pair", j, "spi", spi[0], "spi_back", spi[1], "ports", ports);
		json_int_t pk = sa_out_packets(sas, spi[0]), pkb = sa_out_packets(sas, spi[1]);
		json_t *eo = json_object_get(per, spi[0]), *eob = json_object_get(per_back, spi[1]);

		if (json_is_array(flows)) {
			json_object_set_new(o, "bytes", json_integer((json_int_t)bytes));
			json_object_set_new(o, "throughput_bps", json_real(bps));
		}
		json_object_set_new(o, "packets", pk >= 0 ? json_integer(pk) : json_null());
		json_object_set_new(o, "packets_back", pkb >= 0 ? json_integer(pkb) : json_null());
		/* the probes leave out an SPI that counted nothing: 0 where they counted at all */
		if (json_is_object(per))
			json_object_set_new(o, "esp_output", json_integer(json_is_integer(eo) ? json_integer_value(eo) : 0));
		if (json_is_object(per_back))
			json_object_set_new(o, "esp_output_back",
					    json_integer(json_is_integer(eob) ? json_integer_value(eob) : 0));
		json_array_append_new(pairs, o);
	}
	json_object_set_new(rec, "sas", json_integer(cur->npairs));
	json_object_set_new(rec, "sa_pair", pairs);
}
