// SPDX-License-Identifier: GPL-2.0
#include "results.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static char *xstrdup(const char *s)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d) {
		perror("ipsecperf: strdup");
		abort();
	}
	return d;
}

static const char *json_kind(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE: case JSON_FALSE: return "a boolean";
	case JSON_NULL: return "null";
	}
	return "?";
}

/* Read a whole file; refuses files over RESULTS_MAX_FILE. */
static char *slurp(const char *path, size_t *len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	char *buf;
	size_t n;

	if (!f) {
		fail(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode)) {
		fail(err, errlen, "%s: not a regular file", path);
		fclose(f);
		return NULL;
	}
	if (st.st_size > RESULTS_MAX_FILE) {
		fail(err, errlen, "%s: larger than %ld MiB; refusing to read it", path,
		     RESULTS_MAX_FILE >> 20);
		fclose(f);
		return NULL;
	}
	buf = malloc(st.st_size + 1);
	if (!buf) {
		fail(err, errlen, "%s: out of memory", path);
		fclose(f);
		return NULL;
	}
	n = fread(buf, 1, st.st_size, f);
	if (ferror(f)) {
		fail(err, errlen, "%s: %s", path, strerror(errno));
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* ---- runs.jsonl ---- */

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

/* A string member: required or optional (absent and null give NULL). */
static int get_str(struct ctx *c, json_t *o, const char *key, bool required, const char **out)
{
	json_t *v = json_object_get(o, key);

	*out = NULL;
	if (!v || json_is_null(v)) {
		if (required)
			return bad(c, "\"%s\" is missing", key);
		return 0;
	}
	if (!json_is_string(v))
		return bad(c, "\"%s\" must be a string, not %s", key, json_kind(v));
	*out = json_string_value(v);
	if (strlen(*out) != json_string_length(v))
		return bad(c, "\"%s\" contains a NUL character", key);
	return 0;
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
		return bad(c, "\"%s\" must be a number, not %s", key, json_kind(v));
	*out = json_number_value(v);
	if (!isfinite(*out) || *out < 0)
		return bad(c, "\"%s\" must be a finite number >= 0, not %g", key, *out);
	*has = true;
	return 0;
}

static void record_free(struct run_record *rec)
{
	free(rec->kernel);
	free(rec->scenario);
	free(rec->reason);
	free(rec->start);
	free(rec->load);
	free(rec->accel);
	for (int i = 0; i < rec->ncounters; i++) {
		free(rec->counters[i].name);
		free(rec->counters[i].symbol);
	}
	free(rec->counters);
	memset(rec, 0, sizeof(*rec));
}

static int parse_counters(struct ctx *c, json_t *o, struct run_record *rec)
{
	json_t *cs = json_object_get(o, "counters"), *v;
	const char *name;

	if (!cs || json_is_null(cs))
		return 0;
	if (!json_is_object(cs))
		return bad(c, "\"counters\" must be an object, not %s", json_kind(cs));
	rec->counters = calloc(json_object_size(cs) + 1, sizeof(*rec->counters));
	if (!rec->counters)
		return bad(c, "out of memory");
	json_object_foreach(cs, name, v) {
		struct run_counter *rc = &rec->counters[rec->ncounters];
		const char *sym;
		char key[160];

		if (!*name || strlen(name) > 100 ||
		    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
			    strlen(name))
			return bad(c, "counter name '%.100s' is not a name ([A-Za-z0-9_.-], 1-100 characters)",
				   name);
		if (!json_is_object(v))
			return bad(c, "counter \"%s\" must be an object, not %s", name, json_kind(v));
		snprintf(key, sizeof(key), "counters.%s: ", name);
		rc->name = xstrdup(name);
		rec->ncounters++;
		c->where = key; /* name the counter in a message */
		if (get_num(c, v, "count", false, &rc->has_count, &rc->count) < 0 ||
		    get_num(c, v, "per_packet", false, &rc->has_per_packet, &rc->per_packet) < 0 ||
		    get_str(c, v, "symbol", false, &sym) < 0) {
			c->where = NULL;
			return -1;
		}
		c->where = NULL;
		rc->symbol = xstrdup(sym);
	}
	return 0;
}

/* What compare checks for comparability: the load, the guest's accelerator, --profile. */
static int parse_record_setup(struct ctx *c, json_t *o, struct run_record *rec)
{
	json_t *prof = json_object_get(o, "profile");
	const char *s;
	bool has;

	if (get_str(c, o, "load", false, &s) < 0)
		return -1;
	rec->load = xstrdup(s);
	if (get_str(c, o, "accel", false, &s) < 0)
		return -1;
	if (!s && json_is_object(json_object_get(o, "vm")) &&
	    get_str(c, json_object_get(o, "vm"), "accel", false, &s) < 0)
		return -1;
	rec->accel = xstrdup(s);
	if (json_is_object(prof)) {
		rec->profiled = true;
		if (get_num(c, prof, "hz", false, &has, &rec->profile_hz) < 0)
			return -1;
		if (!has)
			rec->profile_hz = 0;
	}
	return 0;
}

static int parse_record(struct ctx *c, json_t *o, struct run_record *rec)
{
	const char *s, *st, *method;
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
		return bad(c, "\"version\" must be an integer, not %s", json_kind(v));
	if (json_integer_value(v) != RESULTS_RECORD_VERSION)
		return bad(c, "unknown record version %lld (this ipsecperf reads version %d)",
			   (long long)json_integer_value(v), RESULTS_RECORD_VERSION);

	if (get_str(c, o, "kernel", true, &s) < 0)
		return -1;
	if (!*s)
		return bad(c, "\"kernel\" is empty");
	rec->kernel = xstrdup(s);
	if (get_str(c, o, "scenario", true, &s) < 0)
		return -1;
	if (!*s)
		return bad(c, "\"scenario\" is empty");
	rec->scenario = xstrdup(s);

	v = json_object_get(o, "repeat");
	if (!v)
		return bad(c, "\"repeat\" is missing");
	if (!json_is_integer(v))
		return bad(c, "\"repeat\" must be an integer, not %s", json_kind(v));
	if (json_integer_value(v) < 0 || json_integer_value(v) > INT_MAX)
		return bad(c, "\"repeat\" %lld is out of range", (long long)json_integer_value(v));
	rec->repeat = (int)json_integer_value(v);

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

	if (get_str(c, o, "reason", false, &s) < 0)
		return -1;
	rec->reason = xstrdup(s);
	if (get_str(c, o, "start", false, &s) < 0)
		return -1;
	rec->start = xstrdup(s);
	if (get_num(c, o, "duration_s", false, &rec->has_duration, &rec->duration_s) < 0 ||
	    get_num(c, o, "bytes", false, &rec->has_bytes, &rec->bytes) < 0 ||
	    get_num(c, o, "retransmits", false, &rec->has_retransmits, &rec->retransmits) < 0 ||
	    get_num(c, o, "throughput_bps", rec->status == RUN_OK, &rec->has_throughput,
		    &rec->throughput_bps) < 0 ||
	    get_num(c, o, "cycles_per_byte", false, &rec->has_cpb, &rec->cycles_per_byte) < 0 ||
	    get_num(c, o, "cycles", false, &has, &d) < 0)
		return -1;
	if (get_str(c, o, "cycles_method", false, &method) < 0)
		return -1;
	if (method && strcmp(method, "pmu") && strcmp(method, "estimated"))
		return bad(c, "unknown cycles_method '%.40s' (pmu or estimated)", method);
	rec->cycles_estimated = method && !strcmp(method, "estimated");
	if (parse_record_setup(c, o, rec) < 0)
		return -1;
	return parse_counters(c, o, rec);
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

int results_parse_runs(const char *name, const char *buf, size_t len, struct results *r,
		       char *err, size_t errlen)
{
	struct ctx c = { .name = name, .err = err, .errlen = errlen };
	size_t pos = 0;
	int first_new = r->nruns;

	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - buf) : len;
		struct run_record rec;
		json_error_t jerr;
		json_t *o;

		c.line++;
		if (end == pos)
			return bad(&c, "empty line (one JSON object per line expected)");
		o = json_loadb(buf + pos, end - pos, JSON_REJECT_DUPLICATES, &jerr);
		if (!o) {
			if (!nl)
				return bad(&c, "truncated record (no newline at end of file): %s",
					   jerr.text);
			return bad(&c, "not a JSON object: %s (column %d)", jerr.text, jerr.column);
		}
		if (!json_is_object(o)) {
			json_decref(o);
			return bad(&c, "a record must be a JSON object");
		}
		if (parse_record(&c, o, &rec) < 0) {
			json_decref(o);
			record_free(&rec);
			return -1;
		}
		json_decref(o);
		for (int i = first_new; i < r->nruns; i++) {
			struct run_record *p = &r->runs[i];

			if (p->repeat == rec.repeat && !strcmp(p->kernel, rec.kernel) &&
			    !strcmp(p->scenario, rec.scenario)) {
				record_free(&rec);
				return bad(&c, "kernel %.80s, scenario %.80s, repeat %d already recorded on line %d",
					   p->kernel, p->scenario, p->repeat, p->line);
			}
		}
		if (add_record(r, &rec) < 0) {
			record_free(&rec);
			return bad(&c, "out of memory");
		}
		pos = nl ? end + 1 : len;
	}
	return 0;
}

/* ---- meta.json ---- */

/* The first of names found at the top level or one object below it. */
static json_t *find_key(json_t *root, const char *const *names)
{
	const char *k;
	json_t *v, *hit;

	for (const char *const *n = names; *n; n++)
		if ((hit = json_object_get(root, *n)) && !json_is_null(hit))
			return hit;
	json_object_foreach(root, k, v) {
		if (!json_is_object(v))
			continue;
		for (const char *const *n = names; *n; n++)
			if ((hit = json_object_get(v, *n)) && !json_is_null(hit))
				return hit;
	}
	return NULL;
}

static bool shell_safe(const char *s)
{
	return *s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") ==
			     strlen(s);
}

/* argv array -> a command line a shell reads back as the same argv */
static char *join_argv(json_t *a)
{
	size_t cap = 1, i;
	json_t *v;
	char *out, *p;

	json_array_foreach(a, i, v)
		if (json_is_string(v))
			cap += 4 * strlen(json_string_value(v)) + 3;
	p = out = malloc(cap);
	if (!out)
		return NULL;
	json_array_foreach(a, i, v) {
		const char *s;

		if (!json_is_string(v))
			continue;
		s = json_string_value(v);
		if (p != out)
			*p++ = ' ';
		if (shell_safe(s)) {
			p = stpcpy(p, s);
			continue;
		}
		*p++ = '\'';
		for (; *s; s++) {
			if (*s == '\'')
				p = stpcpy(p, "'\\''");
			else
				*p++ = *s;
		}
		*p++ = '\'';
	}
	*p = '\0';
	return out;
}

/* A string, or an object's "name"-like member, or a number, as text. */
static char *as_text(json_t *v)
{
	static const char *const inner[] = { "name", "hostname", "release", "uname_r", "uname",
					     "version", "type", "model", NULL };
	char buf[64];

	if (!v)
		return NULL;
	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	if (json_is_integer(v)) {
		snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
		return xstrdup(buf);
	}
	if (json_is_real(v)) {
		snprintf(buf, sizeof(buf), "%g", json_real_value(v));
		return xstrdup(buf);
	}
	if (json_is_object(v))
		for (const char *const *n = inner; *n; n++) {
			json_t *x = json_object_get(v, *n);

			if (json_is_string(x))
				return xstrdup(json_string_value(x));
		}
	return NULL;
}

#define KEYS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static void add_accel(struct results_meta *m, json_t *release, json_t *accel)
{
	struct meta_accel *na;

	if (!json_is_string(release) || !json_is_string(accel))
		return;
	na = realloc(m->accels, (m->naccels + 1) * sizeof(*na));
	if (!na)
		return;
	m->accels = na;
	na[m->naccels].release = xstrdup(json_string_value(release));
	na[m->naccels++].accel = xstrdup(json_string_value(accel));
}

/*
 * What compare checks beyond the header's fields: the warm-up, the guests'
 * accelerators and the scenarios' texts. Anything of another shape is left
 * out (the field is then "not recorded"), as for the other meta fields.
 */
static void parse_meta_setup(json_t *root, struct results_meta *m)
{
	json_t *v, *x;
	size_t i;

	v = find_key(root, KEYS("omit_s", "omit"));
	if (json_is_number(v) && json_number_value(v) >= 0 && json_number_value(v) < 1e9) {
		m->has_omit = true;
		m->omit_s = json_number_value(v);
	}
	v = json_object_get(root, "accel");
	if (json_is_string(v))
		m->accel = xstrdup(json_string_value(v));
	json_array_foreach(json_object_get(root, "kernels"), i, x)
		add_accel(m, json_object_get(x, "release"), json_object_get(json_object_get(x, "vm"), "accel"));
	json_array_foreach(json_object_get(root, "vm"), i, x)
		add_accel(m, json_object_get(x, "release"), json_object_get(x, "accel"));
	v = json_object_get(root, "scenarios");
	if (!json_is_array(v) || !(m->scenarios = calloc(json_array_size(v) + 1, sizeof(*m->scenarios))))
		return;
	json_array_foreach(v, i, x) {
		json_t *name = json_object_get(x, "name"), *text = json_object_get(x, "text");

		if (!json_is_string(name) || !json_is_string(text))
			continue;
		m->scenarios[m->nscenarios].name = xstrdup(json_string_value(name));
		m->scenarios[m->nscenarios++].text = xstrdup(json_string_value(text));
	}
}

int results_parse_meta(const char *name, const char *buf, size_t len, struct results_meta *m,
		       char *err, size_t errlen)
{
	json_error_t jerr;
	json_t *root, *v;

	memset(m, 0, sizeof(*m));
	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return fail(err, errlen, "%s:%d: not valid JSON: %s", name, jerr.line, jerr.text);
	if (!json_is_object(root)) {
		json_decref(root);
		return fail(err, errlen, "%s:1: meta.json must hold a JSON object", name);
	}
	v = json_object_get(root, "version");
	if (v && (!json_is_integer(v) || json_integer_value(v) != 1)) {
		json_decref(root);
		return fail(err, errlen, "%s: unknown meta.json version (this ipsecperf reads version 1)",
			    name);
	}
	m->tool_version = as_text(find_key(root, KEYS("tool_version", "ipsecperf_version", "git_describe")));
	v = find_key(root, KEYS("command", "command_line", "cmdline", "argv"));
	if (json_is_array(v))
		m->command = join_argv(v);
	else
		m->command = as_text(v);
	v = json_object_get(root, "host");
	m->host = as_text(v ? v : find_key(root, KEYS("hostname")));
	m->cpu_model = as_text(find_key(root, KEYS("cpu_model", "cpu")));
	v = find_key(root, KEYS("cpu_count", "cpus", "ncpus"));
	if (json_is_integer(v) && json_integer_value(v) > 0 && json_integer_value(v) < INT_MAX)
		m->cpu_count = (int)json_integer_value(v);
	m->testbed = as_text(json_object_get(root, "testbed"));
	m->iperf3_version = as_text(find_key(root, KEYS("iperf3_version", "iperf3")));
	m->created = as_text(find_key(root, KEYS("created", "start", "started", "date")));
	v = find_key(root, KEYS("duration_s", "duration"));
	if (json_is_number(v) && json_number_value(v) > 0 && json_number_value(v) < 1e9)
		m->duration_s = json_number_value(v);
	v = find_key(root, KEYS("repeat", "repeats"));
	if (json_is_integer(v) && json_integer_value(v) > 0 && json_integer_value(v) < INT_MAX)
		m->repeat = (int)json_integer_value(v);
	v = json_object_get(root, "kernels");
	if (!v)
		v = json_object_get(root, "kernel");
	if (json_is_array(v)) {
		size_t i;
		json_t *k;

		m->kernels = calloc(json_array_size(v) + 1, sizeof(*m->kernels));
		json_array_foreach(v, i, k) {
			char *t = as_text(k);

			if (t && m->kernels)
				m->kernels[m->nkernels++] = t;
		}
	} else if (v) {
		char *t = as_text(v);

		if (t) {
			m->kernels = calloc(1, sizeof(*m->kernels));
			if (m->kernels)
				m->kernels[m->nkernels++] = t;
			else
				free(t);
		}
	}
	parse_meta_setup(root, m);
	json_decref(root);
	return 0;
}

void results_meta_free(struct results_meta *m)
{
	free(m->tool_version);
	free(m->command);
	free(m->host);
	free(m->cpu_model);
	free(m->testbed);
	free(m->iperf3_version);
	free(m->created);
	for (int i = 0; i < m->nkernels; i++)
		free(m->kernels[i]);
	free(m->kernels);
	free(m->accel);
	for (int i = 0; i < m->naccels; i++) {
		free(m->accels[i].release);
		free(m->accels[i].accel);
	}
	free(m->accels);
	for (int i = 0; i < m->nscenarios; i++) {
		free(m->scenarios[i].name);
		free(m->scenarios[i].text);
	}
	free(m->scenarios);
	memset(m, 0, sizeof(*m));
}

static char *path_join(const char *dir, const char *file)
{
	char *p;

	if (asprintf(&p, "%s/%s", dir, file) < 0)
		return NULL;
	return p;
}

int results_load(const char *dir, struct results *r, char *err, size_t errlen)
{
	char *meta_path = NULL, *buf = NULL;
	struct stat st;
	size_t len;
	int err_ret = -1;

	memset(r, 0, sizeof(*r));
	if (stat(dir, &st) < 0)
		return fail(err, errlen, "%s: %s (a results directory from `ipsecperf run` expected)",
			    dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return fail(err, errlen, "%s: not a directory (a results directory expected)", dir);
	r->dir = xstrdup(dir);
	meta_path = path_join(dir, "meta.json");
	r->runs_path = path_join(dir, "runs.jsonl");
	if (!meta_path || !r->runs_path) {
		fail(err, errlen, "%s: out of memory", dir);
		goto out;
	}
	buf = slurp(meta_path, &len, err, errlen);
	if (!buf)
		goto out;
	if (results_parse_meta(meta_path, buf, len, &r->meta, err, errlen) < 0)
		goto out;
	free(buf);
	buf = slurp(r->runs_path, &len, err, errlen);
	if (!buf)
		goto out;
	if (results_parse_runs(r->runs_path, buf, len, r, err, errlen) < 0)
		goto out;
	if (r->nruns == 0) {
		fail(err, errlen, "%s: no runs recorded", r->runs_path);
		goto out;
	}
	err_ret = 0;
out:
	free(buf);
	free(meta_path);
	if (err_ret)
		results_free(r);
	return err_ret;
}

void results_free(struct results *r)
{
	for (int i = 0; i < r->nruns; i++)
		record_free(&r->runs[i]);
	free(r->runs);
	results_meta_free(&r->meta);
	free(r->dir);
	free(r->runs_path);
	memset(r, 0, sizeof(*r));
}

int results_groups(const struct results *r, struct run_group **groups, int *ngroups)
{
	struct run_group *g = calloc(r->nruns + 1, sizeof(*g));
	int n = 0;

	*groups = NULL;
	*ngroups = 0;
	if (!g)
		return -1;
	for (int i = 0; i < r->nruns; i++) {
		const struct run_record *rec = &r->runs[i];
		int j;

		for (j = 0; j < n; j++)
			if (!strcmp(g[j].kernel, rec->kernel) && !strcmp(g[j].scenario, rec->scenario))
				break;
		if (j == n) {
			g[n].kernel = rec->kernel;
			g[n].scenario = rec->scenario;
			g[n].idx = calloc(r->nruns, sizeof(int));
			if (!g[n].idx) {
				results_groups_free(g, n);
				return -1;
			}
			n++;
		}
		g[j].idx[g[j].n++] = i;
		if (rec->status == RUN_OK)
			g[j].n_ok++;
	}
	*groups = g;
	*ngroups = n;
	return 0;
}

void results_groups_free(struct run_group *groups, int ngroups)
{
	for (int i = 0; i < ngroups; i++)
		free(groups[i].idx);
	free(groups);
}

int results_kernels(const struct results *r, const char ***kernels, int *n)
{
	const char **k = calloc(r->nruns + 1, sizeof(*k));

	*n = 0;
	*kernels = k;
	if (!k)
		return -1;
	for (int i = 0; i < r->nruns; i++) {
		int j;

		for (j = 0; j < *n; j++)
			if (!strcmp(k[j], r->runs[i].kernel))
				break;
		if (j == *n)
			k[(*n)++] = r->runs[i].kernel;
	}
	return 0;
}

bool metric_higher_is_better(const struct metric *m)
{
	return m->kind == METRIC_THROUGHPUT;
}

const char *metric_name(const struct metric *m, char *buf, size_t len)
{
	switch (m->kind) {
	case METRIC_THROUGHPUT:
		return "throughput";
	case METRIC_CPB:
		return "cycles_per_byte";
	case METRIC_COUNTER:
		snprintf(buf, len, "%s", m->counter);
		return buf;
	}
	return "?";
}

static const struct run_counter *find_counter(const struct run_record *rec, const char *name)
{
	for (int i = 0; i < rec->ncounters; i++)
		if (!strcmp(rec->counters[i].name, name))
			return &rec->counters[i];
	return NULL;
}

int group_values(const struct results *r, const struct run_group *g, const struct metric *m,
		 double *out)
{
	int n = 0;

	for (int i = 0; i < g->n; i++) {
		const struct run_record *rec = &r->runs[g->idx[i]];
		const struct run_counter *c;

		if (rec->status != RUN_OK)
			continue;
		switch (m->kind) {
		case METRIC_THROUGHPUT:
			if (rec->has_throughput)
				out[n++] = rec->throughput_bps / 1e9;
			break;
		case METRIC_CPB:
			if (rec->has_cpb)
				out[n++] = rec->cycles_per_byte;
			break;
		case METRIC_COUNTER:
			c = find_counter(rec, m->counter);
			if (c && c->has_per_packet)
				out[n++] = c->per_packet;
			break;
		}
	}
	return n;
}

int group_counters(const struct results *r, const struct run_group *g, const char ***names,
		   int *n)
{
	int cap = 0;

	*names = NULL;
	*n = 0;
	for (int i = 0; i < g->n; i++) {
		const struct run_record *rec = &r->runs[g->idx[i]];

		if (rec->status != RUN_OK)
			continue;
		for (int c = 0; c < rec->ncounters; c++) {
			int j;

			for (j = 0; j < *n; j++)
				if (!strcmp((*names)[j], rec->counters[c].name))
					break;
			if (j < *n)
				continue;
			if (*n == cap) {
				const char **nn = realloc(*names, (cap = cap * 2 + 8) * sizeof(*nn));

				if (!nn) {
					free(*names);
					*names = NULL;
					*n = 0;
					return -1;
				}
				*names = nn;
			}
			(*names)[(*n)++] = rec->counters[c].name;
		}
	}
	return 0;
}

const char *run_status_name(enum run_status s)
{
	return s == RUN_OK ? "ok" : s == RUN_FAILED ? "failed" : "skipped";
}

int results_merge(struct results *dst, struct results *src)
{
	struct run_record *nr;

	if (!src->nruns) {
		dst->nmerged++;
		return 0;
	}
	nr = realloc(dst->runs, (dst->nruns + src->nruns) * sizeof(*nr));
	if (!nr)
		return -1;
	memcpy(nr + dst->nruns, src->runs, src->nruns * sizeof(*nr));
	for (int i = 0; i < src->nruns; i++)
		nr[dst->nruns + i].source = dst->nmerged;
	dst->runs = nr;
	dst->nruns += src->nruns;
	dst->runs_cap = dst->nruns;
	dst->nmerged++;
	free(src->runs);
	src->runs = NULL;
	src->nruns = src->runs_cap = 0;
	return 0;
}
