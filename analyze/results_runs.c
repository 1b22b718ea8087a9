// SPDX-License-Identifier: GPL-2.0
/* runs.jsonl's reader: a record a line, each field checked, duplicates and limits refused. */
#include "results.h"
#include "results_int.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ctx {
	const char *name;
	int line;
	const char *where;      /* "counters.NAME: " while reading a counter, else "" */
	char *err;
	size_t errlen;
};

#define bad(c, ...) fail_line(c, __VA_ARGS__)
__attribute__((format(printf, 2, 3)))
static int fail_line(struct ctx *c, const char *fmt, ...)
{
	va_list ap;
	int off = snprintf(c->err, c->errlen, "%s:%d: %s", c->name, c->line, c->where ? c->where : "");

	if (off < 0 || (size_t)off >= c->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(c->err + off, c->errlen - off, fmt, ap);
	va_end(ap);
	return -1;
}

/* Strings are data: one with a control character (or a NUL) is refused, never shown. */
static int check_str(struct ctx *c, const char *field, const char *s, size_t len)
{
	char where[256];

	snprintf(where, sizeof(where), "%s%s", c->where ? c->where : "", field);
	return results_check_field(c->name, c->line, where, s, len, c->err, c->errlen);
}

/* A string member: required or optional (absent and null give NULL). */
static int get_str(struct ctx *c, json_t *o, const char *key, bool required, const char **out)
{
	json_t *v = json_object_get(o, key);
	char field[64];

	*out = NULL;
	if (!v || json_is_null(v)) {
		if (required)
			return bad(c, "\"%s\" is missing", key);
		return 0;
	}
	if (!json_is_string(v))
		return bad(c, "\"%s\" must be a string, not %s", key, results_json_kind(v));
	*out = json_string_value(v);
	snprintf(field, sizeof(field), "\"%s\"", key);
	return check_str(c, field, *out, json_string_length(v));
}

/* A non-negative number member; absent or null leaves *has false. */
static int get_num(struct ctx *c, json_t *o, const char *key, bool required, bool *has,
		   double *out)
{
	json_t *v = json_object_get(o, key);

	*has = false;
	*out = NAN;
	if (!v || json_is_null(v)) {
		if (required)
			return bad(c, "\"%s\" is missing", key);
		return 0;
	}
	if (!json_is_number(v))
		return bad(c, "\"%s\" must be a number, not %s", key, results_json_kind(v));
	*out = json_number_value(v);
	if (!isfinite(*out) || *out < 0)
		return bad(c, "\"%s\" must be a finite number >= 0, not %g", key, *out);
	*has = true;
	return 0;
}

void results_record_free(struct run_record *rec)
{
	free(rec->kernel);
	free(rec->scenario);
	free(rec->reason);
	free(rec->start);
	free(rec->load);
	free(rec->enc_title);
	free(rec->enc_cipher);
	free(rec->accel);
	for (int i = 0; i < rec->ncounters; i++) {
		free(rec->counters[i].name);
		free(rec->counters[i].symbol);
	}
	free(rec->counters);
	results_spreads_free(rec);
	free(rec->cdf);
	free(rec->steps);
	free(rec->pairs);
	free(rec->xfrm);
	memset(rec, 0, sizeof(*rec));
}

static int parse_counters(struct ctx *c, json_t *o, struct run_record *rec)
{
	json_t *cs = json_object_get(o, "counters"), *v;
	const char *name;

	if (!cs || json_is_null(cs))
		return 0;
	if (!json_is_object(cs))
		return bad(c, "\"counters\" must be an object, not %s", results_json_kind(cs));
	if (json_object_size(cs) > RESULTS_MAX_COUNTERS)
		return bad(c, "more than %d counters in one record", RESULTS_MAX_COUNTERS);
	rec->counters = calloc(json_object_size(cs) + 1, sizeof(*rec->counters));
	if (!rec->counters)
		return bad(c, "out of memory");
	json_object_foreach(cs, name, v) {
		struct run_counter *rc = &rec->counters[rec->ncounters];
		const char *sym;
		char key[160];

		if (check_str(c, "a counter's name", name, strlen(name)) < 0)
			return -1;
		if (!*name || strlen(name) > 100 ||
		    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
			    strlen(name))
			return bad(c, "counter name '%.100s' is not a name ([A-Za-z0-9_.-], 1-100 characters)",
				   name);
		if (!json_is_object(v))
			return bad(c, "counter \"%s\" must be an object, not %s", name, results_json_kind(v));
		snprintf(key, sizeof(key), "counters.%s: ", name);
		rc->name = results_strdup(name);
		rec->ncounters++;
		c->where = key; /* name the counter in a message */
		if (get_num(c, v, "count", false, &rc->has_count, &rc->count) < 0 ||
		    get_num(c, v, "per_packet", false, &rc->has_per_packet, &rc->per_packet) < 0 ||
		    get_num(c, v, "per_packet_load", false, &rc->has_per_packet_load, &rc->per_packet_load) < 0 ||
		    (rec->unit && get_num(c, v, rec->unit == UNIT_TRANSACTION ? "per_transaction" : "per_datagram", false,
					  &rc->has_per_unit, &rc->per_unit) < 0) ||
		    get_str(c, v, "symbol", false, &sym) < 0) {
			c->where = NULL;
			return -1;
		}
		c->where = NULL;
		rc->symbol = results_strdup(sym);
	}
	return 0;
}

/* latency_cdf: [[quantile, ns], ...], quantiles from 0 to 1 in order. */
static int parse_cdf(struct ctx *c, json_t *a, struct run_record *rec)
{
	size_t i;
	json_t *p;
	double last = -1;

	if (!a || json_is_null(a))
		return 0;
	if (!json_is_array(a) || json_array_size(a) > RESULTS_MAX_CDF)
		return bad(c, "\"latency_cdf\" must be a list of at most %d [quantile, ns] pairs", RESULTS_MAX_CDF);
	rec->cdf = calloc(json_array_size(a) + 1, sizeof(*rec->cdf));
	if (!rec->cdf)
		return bad(c, "out of memory");
	json_array_foreach(a, i, p) {
		double q = json_number_value(json_array_get(p, 0)), v = json_number_value(json_array_get(p, 1));

		if (!json_is_array(p) || json_array_size(p) != 2 || !json_is_number(json_array_get(p, 0)) ||
		    !json_is_number(json_array_get(p, 1)) || !(q >= 0 && q <= 1) || q < last || !isfinite(v) || v < 0)
			return bad(c, "\"latency_cdf\"[%zu] must be [quantile, ns]: a quantile from 0 to 1, rising, and a time >= 0", i);
		last = q;
		rec->cdf[rec->ncdf][0] = q;
		rec->cdf[rec->ncdf++][1] = v;
	}
	return 0;
}

/* rate_search.steps[]: each step's offered and reached rate, loss and whether it passed. */
static int parse_steps(struct ctx *c, json_t *a, struct run_record *rec)
{
	size_t i;
	json_t *st;

	if (!a || json_is_null(a))
		return 0;
	if (!json_is_array(a) || json_array_size(a) > RESULTS_MAX_STEPS)
		return bad(c, "\"rate_search.steps\" must be a list of at most %d steps", RESULTS_MAX_STEPS);
	rec->steps = calloc(json_array_size(a) + 1, sizeof(*rec->steps));
	if (!rec->steps)
		return bad(c, "out of memory");
	c->where = "rate_search.steps[]: ";
	json_array_foreach(a, i, st) {
		struct rate_step_rec *s = &rec->steps[i];
		bool has;

		if (!json_is_object(st) || !json_is_boolean(json_object_get(st, "pass"))) {
			c->where = NULL;
			return bad(c, "\"rate_search.steps\"[%zu] is not a step (an object with \"pass\")", i);
		}
		if (get_num(c, st, "offered_pps", true, &has, &s->offered_pps) < 0 ||
		    get_num(c, st, "sent_pps", true, &has, &s->sent_pps) < 0 ||
		    get_num(c, st, "loss", true, &has, &s->loss) < 0) {
			c->where = NULL;
			return -1;
		}
		s->pass = json_is_true(json_object_get(st, "pass"));
		rec->rate_steps++;
	}
	c->where = NULL;
	return 0;
}

/* sa_pair[] (run --sas): each pair's number, data SPI, ports, throughput and packets. */
static int parse_pairs(struct ctx *c, json_t *a, struct run_record *rec)
{
	size_t i;
	json_t *p;

	if (!a || json_is_null(a))
		return 0;
	if (!json_is_array(a) || json_array_size(a) > RESULTS_MAX_PAIRS)
		return bad(c, "\"sa_pair\" must be a list of at most %d SA pairs", RESULTS_MAX_PAIRS);
	rec->pairs = calloc(json_array_size(a) + 1, sizeof(*rec->pairs));
	if (!rec->pairs)
		return bad(c, "out of memory");
	json_array_foreach(a, i, p) {
		struct sa_pair_rec *r = &rec->pairs[i];
		json_t *ports = json_object_get(p, "ports"), *v;
		const char *spi;
		double n;
		bool has;
		size_t k;
		int off = 0;

		if (!json_is_object(p) || !json_is_array(ports))
			return bad(c, "\"sa_pair\"[%zu] is not an SA pair (an object with \"ports\")", i);
		c->where = "sa_pair[]: ";
		if (get_num(c, p, "pair", true, &has, &n) < 0 || get_str(c, p, "spi", true, &spi) < 0 ||
		    get_num(c, p, "throughput_bps", false, &r->has_bps, &r->throughput_bps) < 0 ||
		    get_num(c, p, "packets", false, &r->has_packets, &r->packets) < 0) {
			c->where = NULL;
			return -1;
		}
		c->where = NULL;
		if (n > RESULTS_MAX_PAIRS || strlen(spi) >= sizeof(r->spi))
			return bad(c, "\"sa_pair\"[%zu]: pair or spi out of range", i);
		r->pair = (int)n;
		snprintf(r->spi, sizeof(r->spi), "%s", spi);
		json_array_foreach(ports, k, v) {
			if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 65535)
				return bad(c, "\"sa_pair\"[%zu].ports: not a port", i);
			if (off < (int)sizeof(r->ports) - 8)
				off += snprintf(r->ports + off, sizeof(r->ports) - off, "%s%d", off ? " " : "",
						(int)json_integer_value(v));
		}
		rec->npairs++;
	}
	return 0;
}

/* xfrm_stat.sender and .receiver: the counters that moved (zeros are not kept), each a kernel name. */
static int parse_xfrm_stat(struct ctx *c, json_t *o, struct run_record *rec)
{
	static const char *const side[2] = { "sender", "receiver" };

	if (!o || json_is_null(o))
		return 0;
	if (!json_is_object(o))
		return bad(c, "\"xfrm_stat\" must be an object, not %s", results_json_kind(o));
	rec->xfrm = calloc(2 * RESULTS_MAX_XFRM, sizeof(*rec->xfrm));
	if (!rec->xfrm)
		return bad(c, "out of memory");
	for (int e = 0; e < 2; e++) {
		json_t *cs = json_object_get(o, side[e]), *v;
		const char *name;

		if (!cs || json_is_null(cs))
			continue;
		if (!json_is_object(cs) || json_object_size(cs) > RESULTS_MAX_XFRM)
			return bad(c, "\"xfrm_stat.%s\" must be an object of at most %d counters", side[e], RESULTS_MAX_XFRM);
		json_object_foreach(cs, name, v) {
			struct xfrm_stat_rec *x = &rec->xfrm[rec->nxfrm];

			if (!json_is_integer(v) || json_integer_value(v) < 0)
				return bad(c, "\"xfrm_stat.%s\": a counter must be a whole number >= 0", side[e]);
			if (strlen(name) >= sizeof(x->name) || !*name ||
			    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != strlen(name))
				return bad(c, "\"xfrm_stat.%s\": a counter's name must be letters and digits, under 40", side[e]);
			if (!json_integer_value(v))
				continue;
			snprintf(x->name, sizeof(x->name), "%s", name);
			x->receiver = e;
			x->count = (double)json_integer_value(v);
			rec->nxfrm++;
		}
	}
	return 0;
}

/* The request/response and packet-rate loads' keys (their "unit" first: it names the others). */
static int parse_record_unit(struct ctx *c, json_t *o, struct run_record *rec)
{
	static const char *const units[] = { "byte", "transaction", "datagram" };
	json_t *lat = json_object_get(o, "latency_ns"), *steps;
	const char *u;
	bool has;
	double d;

	if (get_str(c, o, "unit", false, &u) < 0)
		return -1;
	for (rec->unit = 0; u && rec->unit < 3 && strcmp(u, units[rec->unit]); rec->unit++)
		;
	if (u && rec->unit == 3)
		return bad(c, "unknown unit '%.40s' (byte, transaction or datagram)", u);
	if (!u)
		rec->unit = UNIT_BYTE;
	if (get_num(c, o, "transactions_per_s", false, &rec->has_tps, &rec->tps) < 0 ||
	    get_num(c, o, "transactions", false, &has, &rec->transactions) < 0 ||
	    get_num(c, o, "datagrams_per_s", false, &rec->has_pps, &rec->pps) < 0 ||
	    get_num(c, o, "loss", false, &rec->has_loss, &rec->loss) < 0 ||
	    get_num(c, o, "datagram_bytes", false, &has, &d) < 0)
		return -1;
	rec->datagram_bytes = has ? (int)d : 0;
	if (rec->unit != UNIT_BYTE &&
	    get_num(c, o, rec->unit == UNIT_TRANSACTION ? "cycles_per_transaction" : "cycles_per_datagram", false,
		    &rec->has_cpu_unit, &rec->cpu_per_unit) < 0)
		return -1;
	/* under the VM testbed's virtual clock the cost is counted in instructions */
	if (rec->unit != UNIT_BYTE && !rec->has_cpu_unit &&
	    get_num(c, o, rec->unit == UNIT_TRANSACTION ? "instructions_per_transaction" : "instructions_per_datagram",
		    false, &rec->has_cpu_unit, &rec->cpu_per_unit) < 0)
		return -1;
	if (lat && !json_is_null(lat)) {
		if (!json_is_object(lat))
			return bad(c, "\"latency_ns\" must be an object, not %s", results_json_kind(lat));
		c->where = "latency_ns: ";
		for (int q = 0; q < RESULTS_NLAT; q++)
			if (get_num(c, lat, latency_names[q], true, &has, &rec->lat_ns[q]) < 0) {
				c->where = NULL;
				return -1;
			}
		c->where = NULL;
		rec->has_lat = true;
	}
	steps = json_object_get(json_object_get(o, "rate_search"), "steps");
	if (parse_steps(c, steps, rec) < 0)
		return -1;
	return parse_cdf(c, json_object_get(o, "latency_cdf"), rec);
}

/* What compare checks for comparability: the load, the guest's accelerator, --profile, --flows; and the purpose. */
static int parse_record_setup(struct ctx *c, json_t *o, struct run_record *rec)
{
	json_t *prof = json_object_get(o, "profile");
	const char *s;
	bool has;

	if (get_str(c, o, "load", false, &s) < 0)
		return -1;
	rec->load = results_strdup(s);
	json_t *enc = json_object_get(o, "encryption");

	if (enc && !json_is_object(enc))
		return bad(c, "\"encryption\" must be an object, not %s", results_json_kind(enc));
	if (enc) {
		if (get_str(c, enc, "title", true, &s) < 0)
			return -1;
		rec->enc_title = results_strdup(s);
		if (get_str(c, enc, "cipher", true, &s) < 0)
			return -1;
		rec->enc_cipher = results_strdup(s);
	}
	if (get_str(c, o, "accel", false, &s) < 0)
		return -1;
	if (!s && json_is_object(json_object_get(o, "vm")) &&
	    get_str(c, json_object_get(o, "vm"), "accel", false, &s) < 0)
		return -1;
	rec->accel = results_strdup(s);
	if (get_str(c, o, "clock", false, &s) < 0)
		return -1;
	if (s && strcmp(s, "real") && strcmp(s, "virtual"))
		return bad(c, "unknown clock '%.40s' (real or virtual)", s);
	rec->virtual_clock = s && !strcmp(s, "virtual");
	if (get_num(c, o, "instructions_per_byte", false, &rec->has_ipb, &rec->instructions_per_byte) < 0)
		return -1;
	if (get_str(c, o, "purpose", false, &s) < 0)
		return -1;
	if (s && strcmp(s, "count"))
		return bad(c, "unknown purpose '%.40s' (count, or no purpose for a throughput run)", s);
	rec->counting = s != NULL;
	json_t *flows = json_object_get(o, "flows");

	if (flows && (!json_is_integer(flows) || json_integer_value(flows) < 1 || json_integer_value(flows) > 1024))
		return bad(c, "\"flows\" must be a whole number from 1 to 1024");
	rec->flows = flows ? (int)json_integer_value(flows) : 1;
	if (json_is_object(prof)) {
		rec->profiled = true;
		if (get_num(c, prof, "hz", false, &has, &rec->profile_hz) < 0)
			return -1;
		if (!has)
			rec->profile_hz = 0;
	}
	return 0;
}

static int parse_status(struct ctx *c, json_t *o, struct run_record *rec)
{
	const char *st;

	if (get_str(c, o, "status", true, &st) < 0)
		return -1;
	if (!strcmp(st, "ok"))
		rec->status = RUN_OK;
	else if (!strcmp(st, "failed"))
		rec->status = RUN_FAILED;
	else if (!strcmp(st, "skipped"))
		rec->status = RUN_SKIPPED;
	else
		return bad(c, "unknown status '%.40s' (ok, failed or skipped)", st);
	return 0;
}

static int parse_record(struct ctx *c, json_t *o, struct run_record *rec)
{
	const char *s, *method;
	json_t *v;
	bool has;
	double d;

	memset(rec, 0, sizeof(*rec));
	rec->line = c->line;
	v = json_object_get(o, "version");
	if (!v)
		return bad(c, "\"version\" is missing (this ipsecperf reads record version %d)",
			   RESULTS_RECORD_VERSION);
	if (!json_is_integer(v))
		return bad(c, "\"version\" must be an integer, not %s", results_json_kind(v));
	if (json_integer_value(v) != RESULTS_RECORD_VERSION)
		return bad(c, "unknown record version %lld (this ipsecperf reads version %d)",
			   (long long)json_integer_value(v), RESULTS_RECORD_VERSION);

	if (get_str(c, o, "kernel", true, &s) < 0)
		return -1;
	if (!*s)
		return bad(c, "\"kernel\" is empty");
	rec->kernel = results_strdup(s);
	if (get_str(c, o, "scenario", true, &s) < 0)
		return -1;
	if (!*s)
		return bad(c, "\"scenario\" is empty");
	rec->scenario = results_strdup(s);

	v = json_object_get(o, "repeat");
	if (!v)
		return bad(c, "\"repeat\" is missing");
	if (!json_is_integer(v))
		return bad(c, "\"repeat\" must be an integer, not %s", results_json_kind(v));
	if (json_integer_value(v) < 0 || json_integer_value(v) > INT_MAX)
		return bad(c, "\"repeat\" %lld is out of range", (long long)json_integer_value(v));
	rec->repeat = (int)json_integer_value(v);

	if (parse_status(c, o, rec) < 0)
		return -1;

	if (get_str(c, o, "reason", false, &s) < 0)
		return -1;
	rec->reason = results_strdup(s);
	if (get_str(c, o, "start", false, &s) < 0)
		return -1;
	rec->start = results_strdup(s);
	if (get_num(c, o, "duration_s", false, &rec->has_duration, &rec->duration_s) < 0 ||
	    get_num(c, o, "bytes", false, &rec->has_bytes, &rec->bytes) < 0 ||
	    get_num(c, o, "retransmits", false, &rec->has_retransmits, &rec->retransmits) < 0 ||
	    get_num(c, o, "throughput_bps", rec->status == RUN_OK, &rec->has_throughput,
		    &rec->throughput_bps) < 0 ||
	    get_num(c, o, "cycles_per_byte", false, &rec->has_cpb, &rec->cycles_per_byte) < 0 ||
	    get_num(c, o, "cycles_per_byte_sender", false, &rec->has_cpb_sender, &rec->cpb_sender) < 0 ||
	    get_num(c, o, "cycles_per_byte_receiver", false, &rec->has_cpb_receiver, &rec->cpb_receiver) < 0 ||
	    get_num(c, o, "cycles", false, &has, &d) < 0)
		return -1;
	if (get_str(c, o, "cycles_method", false, &method) < 0)
		return -1;
	if (method && strcmp(method, "pmu") && strcmp(method, "estimated"))
		return bad(c, "unknown cycles_method '%.40s' (pmu or estimated)", method);
	rec->cycles_estimated = method && !strcmp(method, "estimated");
	if (parse_record_setup(c, o, rec) < 0 || parse_record_unit(c, o, rec) < 0 ||
	    parse_pairs(c, json_object_get(o, "sa_pair"), rec) < 0 ||
	    parse_xfrm_stat(c, json_object_get(o, "xfrm_stat"), rec) < 0 || parse_counters(c, o, rec) < 0)
		return -1;
	char err[300];

	if (results_spreads_parse(o, rec, err, sizeof(err)) < 0)
		return bad(c, "%s", err);
	return 0;
}

static int add_record(struct results *r, struct run_record *rec)
{
	struct run_record *nr;

	if (r->nruns == r->runs_cap) {
		int cap = r->runs_cap ? r->runs_cap * 2 : 16;

		nr = realloc(r->runs, cap * sizeof(*nr));
		if (!nr)
			return -1;
		r->runs = nr;
		r->runs_cap = cap;
	}
	r->runs[r->nruns++] = *rec;
	return 0;
}

/*
 * What one runs.jsonl has seen, in a jansson object used as a hash table
 * (one lookup per record, not a pass over the records before it), keyed
 * "r\nKERNEL\nSCENARIO\nREPEAT" -> line for the duplicate check, and "k\n",
 * "s\n", "g\n", "c\n" + names to count distinct kernels, scenarios, groups
 * and counters against their limits. Names hold no newline (check_str).
 */
struct seen {
	json_t *set;
	int n[4];
};

/* Put KIND\nNAME in the set: 1 if it is new, 0 if seen before (on line *first), -1 out of memory. */
static int seen_add(struct seen *sn, char kind, const char *name, int line, int *first)
{
	char *key;
	json_t *v;
	int ret = 0;

	if (asprintf(&key, "%c\n%s", kind, name) < 0)
		return -1;
	v = json_object_get(sn->set, key);
	if (v)
		*first = (int)json_integer_value(v);
	else
		ret = json_object_set_new(sn->set, key, json_integer(line)) < 0 ? -1 : 1;
	free(key);
	return ret;
}

static int check_seen(struct ctx *c, struct seen *sn, const struct run_record *rec)
{
	static const struct {
		char kind;
		int max;
		const char *what;
	} lim[] = {
		{ 'k', RESULTS_MAX_KERNELS, "kernels" },
		{ 's', RESULTS_MAX_SCENARIOS, "scenarios" },
		{ 'g', RESULTS_MAX_GROUPS, "kernel and scenario pairs" },
		{ 'c', RESULTS_MAX_COUNTERS, "counter names" },
	};
	char *group, *run = NULL;
	int rc, first = 0;

	if (asprintf(&group, "%s\n%s", rec->kernel, rec->scenario) < 0)
		return bad(c, "out of memory");
	/* a counting repeat is numbered as the throughput repeats are: its own key */
	rc = asprintf(&run, "%s\n%d%s", group, rec->repeat, rec->counting ? "\ncount" : "") < 0 ? -1 :
		seen_add(sn, 'r', run, c->line, &first);
	free(run);
	if (rc == 0) {
		free(group);
		return bad(c, "kernel %.80s, scenario %.80s, %srepeat %d already recorded on line %d",
			   rec->kernel, rec->scenario, rec->counting ? "counting " : "", rec->repeat, first);
	}
	for (size_t l = 0; rc >= 0 && l < sizeof(lim) / sizeof(lim[0]); l++) {
		int nnames = lim[l].kind == 'c' ? rec->ncounters : 1;

		for (int i = 0; rc >= 0 && i < nnames; i++) {
			const char *name = lim[l].kind == 'k' ? rec->kernel :
					   lim[l].kind == 's' ? rec->scenario :
					   lim[l].kind == 'g' ? group : rec->counters[i].name;

			rc = seen_add(sn, lim[l].kind, name, c->line, &first);
			if (rc > 0 && ++sn->n[l] > lim[l].max) {
				free(group);
				return bad(c, "more than %d %s; ipsecperf reads at most that many from one file",
					   lim[l].max, lim[l].what);
			}
		}
	}
	free(group);
	return rc < 0 ? bad(c, "out of memory") : 0;
}

int results_parse_runs(const char *name, const char *buf, size_t len, struct results *r,
		       char *err, size_t errlen)
{
	struct ctx c = { .name = name, .err = err, .errlen = errlen };
	struct seen seen = { .set = json_object() };
	size_t pos = 0;
	int ret = -1, nrecs = 0;

	r->torn_line = 0;
	if (!seen.set)
		return results_fail(err, errlen, "%s: out of memory", name);
	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - buf) : len;
		struct run_record rec;
		json_error_t jerr;
		json_t *o;

		c.line++;
		if (end == pos) {
			bad(&c, "empty line (one JSON object per line expected)");
			goto out;
		}
		if (++nrecs > RESULTS_MAX_RUNS) {
			bad(&c, "more than %d records; ipsecperf reads at most that many from one file",
			    RESULTS_MAX_RUNS);
			goto out;
		}
		o = json_loadb(buf + pos, end - pos, JSON_REJECT_DUPLICATES, &jerr);
		if (!o && !nl) {
			/* a run killed while it wrote its record: the lines before it stand */
			r->torn_line = c.line;
			break;
		}
		if (!o) {
			bad(&c, "not a JSON object: %s (column %d)", jerr.text, jerr.column);
			goto out;
		}
		if (!json_is_object(o)) {
			json_decref(o);
			bad(&c, "a record must be a JSON object");
			goto out;
		}
		if (parse_record(&c, o, &rec) < 0 || check_seen(&c, &seen, &rec) < 0) {
			json_decref(o);
			results_record_free(&rec);
			goto out;
		}
		json_decref(o);
		if (add_record(r, &rec) < 0) {
			results_record_free(&rec);
			bad(&c, "out of memory");
			goto out;
		}
		pos = nl ? end + 1 : len;
	}
	ret = 0;
out:
	json_decref(seen.set);
	return ret;
}
