// SPDX-License-Identifier: GPL-2.0
#include "results.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "log.h"

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

/* ---- strings are data ---- */

const char *results_bad_char(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (c < 0x20 || c == 0x7f)
			return s + i;
		/* U+0080-U+009F: C1 controls, U+009B is a terminal's CSI */
		if (c == 0xc2 && i + 1 < len && (unsigned char)s[i + 1] >= 0x80 &&
		    (unsigned char)s[i + 1] <= 0x9f)
			return s + i;
	}
	return NULL;
}

/* "0x0a at byte 7" for the message about a control character */
static const char *bad_char_what(const char *s, const char *p, char *buf, size_t len)
{
	if ((unsigned char)*p == 0xc2)
		snprintf(buf, len, "U+%04X at byte %zu", (unsigned char)p[1], (size_t)(p - s));
	else
		snprintf(buf, len, "0x%02x at byte %zu", (unsigned char)*p, (size_t)(p - s));
	return buf;
}

const char *results_printable(const char *s, char *buf, size_t len)
{
	size_t o = 0, n = strlen(s);

	for (size_t i = 0; i < n && o + 5 < len; i++) {
		const char *p = results_bad_char(s + i, n - i);

		if (p == s + i || (unsigned char)s[i] == '\\')
			o += snprintf(buf + o, len - o, "\\x%02x", (unsigned char)s[i]);
		else
			buf[o++] = s[i];
	}
	buf[o < len ? o : len - 1] = '\0';
	return buf;
}

void results_scrub(json_t *v)
{
	const char *k;
	json_t *x;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach(v, k, x)
			results_scrub(x);
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			results_scrub(x);
	} else if (json_is_string(v)) {
		size_t n = json_string_length(v), o = 0;
		const char *s = json_string_value(v);
		char *t;

		if (!results_bad_char(s, n) || !(t = malloc(n + 1)))
			return;
		for (i = 0; i < n; i++) {
			const char *p = results_bad_char(s + i, n - i);

			t[o++] = p == s + i ? ' ' : s[i];
			i += p == s + i && (unsigned char)s[i] == 0xc2; /* a C1 control is two bytes */
		}
		json_string_setn(v, t, o);
		free(t);
	}
}

int results_check_field(const char *file, int line, const char *field, const char *s, size_t len,
			char *err, size_t errlen)
{
	const char *p = results_bad_char(s, len);
	char what[48], at[16] = "";

	if (!p)
		return 0;
	if (line > 0)
		snprintf(at, sizeof(at), ":%d", line);
	return fail(err, errlen, "%s%s: %s holds a control character (%s); ipsecperf never writes one, so it is refused",
		    file, at, field, bad_char_what(s, p, what, sizeof(what)));
}

void results_warn_torn(const char *path, const struct results *r)
{
	if (r->torn_line)
		pr_warn("%s:%d: the last record is incomplete (no newline at the end: a run killed while writing it?); using the %d records before it",
			path, r->torn_line, r->nruns);
}

bool results_name_ok(const char *s)
{
	return plain_name_ok(s, 255);
}

/* ---- reading files ---- */

char *results_read(const char *dir, const char *rel, size_t *len, char *err, size_t errlen)
{
	char *copy = strdup(rel), *pos = copy, *comp, *buf = NULL;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;
	size_t n = 0;

	if (fd < 0 || !copy) {
		fail(err, errlen, "%s: %s", dir, copy ? strerror(errno) : "out of memory");
		goto out;
	}
	/* each component a plain name, opened without following a link */
	while ((comp = strsep(&pos, "/"))) {
		bool last = !pos;
		int next;

		if (!results_name_ok(comp)) {
			fail(err, errlen, "%s/%s: '%s' is not a plain file name ([A-Za-z0-9._+-])", dir, rel,
			     comp);
			goto out;
		}
		next = openat(fd, comp, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | (last ? 0 : O_DIRECTORY));
		if (next < 0) {
			if (errno == ELOOP || (errno == ENOTDIR && !last))
				fail(err, errlen, "%s/%s: %s is a symbolic link or not a directory; results are read without following links",
				     dir, rel, comp);
			else
				fail(err, errlen, "%s/%s: %s", dir, rel, strerror(errno));
			goto out;
		}
		close(fd);
		fd = next;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		fail(err, errlen, "%s/%s: not a regular file", dir, rel);
		goto out;
	}
	if (st.st_size > RESULTS_MAX_FILE) {
		fail(err, errlen, "%s/%s: larger than %ld MiB; refusing to read it", dir, rel,
		     RESULTS_MAX_FILE >> 20);
		goto out;
	}
	buf = malloc(st.st_size + 1);
	if (!buf) {
		fail(err, errlen, "%s/%s: out of memory", dir, rel);
		goto out;
	}
	/* no more than fstat said: a file that grows meanwhile is read as it was */
	while (n < (size_t)st.st_size) {
		ssize_t got = read(fd, buf + n, st.st_size - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			fail(err, errlen, "%s/%s: %s", dir, rel, strerror(errno));
			free(buf);
			buf = NULL;
			goto out;
		}
		if (!got)
			break;
		n += got;
	}
	buf[n] = '\0';
	*len = n;
out:
	if (fd >= 0)
		close(fd);
	free(copy);
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
		return bad(c, "\"%s\" must be a string, not %s", key, json_kind(v));
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
			return bad(c, "counter \"%s\" must be an object, not %s", name, json_kind(v));
		snprintf(key, sizeof(key), "counters.%s: ", name);
		rc->name = xstrdup(name);
		rec->ncounters++;
		c->where = key; /* name the counter in a message */
		if (get_num(c, v, "count", false, &rc->has_count, &rc->count) < 0 ||
		    get_num(c, v, "per_packet", false, &rc->has_per_packet, &rc->per_packet) < 0 ||
		    get_num(c, v, "per_packet_load", false, &rc->has_per_packet_load, &rc->per_packet_load) < 0 ||
		    get_str(c, v, "symbol", false, &sym) < 0) {
			c->where = NULL;
			return -1;
		}
		c->where = NULL;
		rc->symbol = xstrdup(sym);
	}
	return 0;
}

/* What compare checks for comparability: the load, the guest's accelerator, --profile, --flows; and the purpose. */
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
		return fail(err, errlen, "%s: out of memory", name);
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
			record_free(&rec);
			goto out;
		}
		json_decref(o);
		if (add_record(r, &rec) < 0) {
			record_free(&rec);
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

/* ---- meta.json ---- */

/* meta.json's reader: the file, for messages, and the first bad string found */
struct mctx {
	const char *name, *buf;
	size_t len;
	char *err;
	size_t errlen;
	bool bad;
	char field[160];        /* where the value being read came from: "host.hostname" */
};

/*
 * The line of meta.json that holds string s, or 0. jansson keeps no
 * positions, so look for the string as a JSON writer spells it: with
 * non-ASCII characters as they are (jansson) or escaped (Python), and
 * \u escapes in upper or lower case.
 */
static int meta_line(const struct mctx *mc, const char *s, size_t n)
{
	static const size_t flags[] = { 0, JSON_ENSURE_ASCII };
	json_t *j = json_stringn(s, n);
	int line = 0;

	for (size_t f = 0; j && !line && f < 2; f++) {
		char *enc = json_dumps(j, JSON_ENCODE_ANY | flags[f]);

		for (int lower = 0; enc && !line && lower < 2; lower++) {
			const char *hit;

			for (char *p = enc; lower && (p = strstr(p, "\\u")); p += 2)
				for (int d = 2; d < 6 && p[d]; d++)
					p[d] = (char)tolower((unsigned char)p[d]);
			hit = memmem(mc->buf, mc->len, enc, strlen(enc));
			if (hit) {
				line = 1;
				for (const char *p = mc->buf; p < hit; p++)
					line += *p == '\n';
			}
		}
		free(enc);
	}
	json_decref(j);
	return line;
}

/* false (and the message, for the first one) if a string read from meta.json is not data */
static bool meta_ok(struct mctx *mc, const char *field, const char *s, size_t n)
{
	char quoted[200];

	if (!results_bad_char(s, n))
		return true;
	if (!mc->bad) {
		snprintf(quoted, sizeof(quoted), "\"%s\"", field);
		results_check_field(mc->name, meta_line(mc, s, n), quoted, s, n, mc->err, mc->errlen);
	}
	mc->bad = true;
	return false;
}

/* The first of names found at the top level or one object below it; its path in mc->field. */
static json_t *find_key(struct mctx *mc, json_t *root, const char *const *names)
{
	const char *k;
	json_t *v, *hit;

	for (const char *const *n = names; *n; n++)
		if ((hit = json_object_get(root, *n)) && !json_is_null(hit)) {
			snprintf(mc->field, sizeof(mc->field), "%s", *n);
			return hit;
		}
	json_object_foreach(root, k, v) {
		if (!json_is_object(v))
			continue;
		for (const char *const *n = names; *n; n++)
			if ((hit = json_object_get(v, *n)) && !json_is_null(hit)) {
				/* k is checked before it is named in a message */
				if (!meta_ok(mc, "a key", k, strlen(k)))
					return NULL;
				snprintf(mc->field, sizeof(mc->field), "%.100s.%s", k, *n);
				return hit;
			}
	}
	return NULL;
}

/* a member of root, its name in mc->field */
static json_t *get_key(struct mctx *mc, json_t *root, const char *key)
{
	snprintf(mc->field, sizeof(mc->field), "%s", key);
	return json_object_get(root, key);
}

static bool shell_safe(const char *s)
{
	return *s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") ==
			     strlen(s);
}

/* argv array -> a command line a shell reads back as the same argv */
static char *join_argv(struct mctx *mc, json_t *a)
{
	size_t cap = 1, i;
	json_t *v;
	char *out, *p, field[200];

	json_array_foreach(a, i, v) {
		if (!json_is_string(v))
			continue;
		snprintf(field, sizeof(field), "%s[%zu]", mc->field, i);
		if (!meta_ok(mc, field, json_string_value(v), json_string_length(v)))
			return NULL;
		cap += 4 * strlen(json_string_value(v)) + 3;
	}
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

/* A string, or an object's "name"-like member, or a number, as text; checked as data. */
static char *as_text(struct mctx *mc, json_t *v)
{
	static const char *const inner[] = { "name", "hostname", "release", "uname_r", "uname",
					     "version", "type", "model", NULL };
	char buf[64], field[200];

	if (!v)
		return NULL;
	if (json_is_string(v))
		return meta_ok(mc, mc->field, json_string_value(v), json_string_length(v)) ?
			       xstrdup(json_string_value(v)) : NULL;
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

			if (!json_is_string(x))
				continue;
			snprintf(field, sizeof(field), "%s.%s", mc->field, *n);
			return meta_ok(mc, field, json_string_value(x), json_string_length(x)) ?
				       xstrdup(json_string_value(x)) : NULL;
		}
	return NULL;
}

#define KEYS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static void add_accel(struct mctx *mc, struct results_meta *m, json_t *release, json_t *accel)
{
	struct meta_accel *na;

	if (!json_is_string(release) || !json_is_string(accel) ||
	    !meta_ok(mc, "kernels[].release", json_string_value(release), json_string_length(release)) ||
	    !meta_ok(mc, "kernels[].vm.accel", json_string_value(accel), json_string_length(accel)))
		return;
	na = realloc(m->accels, (m->naccels + 1) * sizeof(*na));
	if (!na)
		return;
	m->accels = na;
	na[m->naccels].release = xstrdup(json_string_value(release));
	na[m->naccels++].accel = xstrdup(json_string_value(accel));
}

/* A scenario file's text: lines and tabs are its own, any other control character is not. */
static bool text_ok(struct mctx *mc, const char *field, json_t *text)
{
	size_t n = json_string_length(text);
	char *flat = malloc(n + 1);
	bool ok;

	if (!flat)
		return false;
	memcpy(flat, json_string_value(text), n);
	flat[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if (flat[i] == '\n' || flat[i] == '\t')
			flat[i] = ' ';
	ok = meta_ok(mc, field, flat, n);
	free(flat);
	return ok;
}

/*
 * What compare checks beyond the header's fields: the warm-up, the guests'
 * accelerators and the scenarios' texts. Anything of another shape is left
 * out (the field is then "not recorded"), as for the other meta fields.
 */
static void parse_meta_setup(struct mctx *mc, json_t *root, struct results_meta *m)
{
	json_t *v, *x;
	size_t i;

	v = find_key(mc, root, KEYS("omit_s", "omit"));
	if (json_is_number(v) && json_number_value(v) >= 0 && json_number_value(v) < 1e9) {
		m->has_omit = true;
		m->omit_s = json_number_value(v);
	}
	v = find_key(mc, root, KEYS("until_ci"));
	x = json_object_get(v, "target_pct");
	if (json_is_number(x) && json_number_value(x) > 0 && json_number_value(x) <= 100) {
		m->until_ci_pct = json_number_value(x);
		x = json_object_get(v, "max_repeat");
		m->max_repeat = json_is_integer(x) && json_integer_value(x) > 0 && json_integer_value(x) <= 1000000
					? (int)json_integer_value(x) : 0;
	}
	v = json_object_get(root, "accel");
	if (json_is_string(v) && meta_ok(mc, "accel", json_string_value(v), json_string_length(v)))
		m->accel = xstrdup(json_string_value(v));
	json_array_foreach(json_object_get(root, "kernels"), i, x)
		add_accel(mc, m, json_object_get(x, "release"), json_object_get(json_object_get(x, "vm"), "accel"));
	json_array_foreach(json_object_get(root, "vm"), i, x)
		add_accel(mc, m, json_object_get(x, "release"), json_object_get(x, "accel"));
	v = json_object_get(root, "scenarios");
	if (!json_is_array(v) || !(m->scenarios = calloc(json_array_size(v) + 1, sizeof(*m->scenarios))))
		return;
	json_array_foreach(v, i, x) {
		json_t *name = json_object_get(x, "name"), *text = json_object_get(x, "text");

		if (!json_is_string(name) || !json_is_string(text) ||
		    !meta_ok(mc, "scenarios[].name", json_string_value(name), json_string_length(name)) ||
		    !text_ok(mc, "scenarios[].text", text))
			continue;
		m->scenarios[m->nscenarios].name = xstrdup(json_string_value(name));
		m->scenarios[m->nscenarios++].text = xstrdup(json_string_value(text));
	}
}

/* "kernels" (or "kernel"): a list of names or one name. */
static void parse_meta_kernels(struct mctx *mc, json_t *root, struct results_meta *m)
{
	json_t *v = get_key(mc, root, "kernels");

	if (!v)
		v = get_key(mc, root, "kernel");
	if (json_is_array(v)) {
		char field[sizeof(mc->field)];
		size_t i;
		json_t *k;

		m->kernels = calloc(json_array_size(v) + 1, sizeof(*m->kernels));
		snprintf(field, sizeof(field), "%s", mc->field);
		json_array_foreach(v, i, k) {
			char *t;

			snprintf(mc->field, sizeof(mc->field), "%.120s[%zu]", field, i);
			t = as_text(mc, k);
			if (t && m->kernels)
				m->kernels[m->nkernels++] = t;
			else
				free(t);
		}
	} else if (v) {
		char *t = as_text(mc, v);

		if (t) {
			m->kernels = calloc(1, sizeof(*m->kernels));
			if (m->kernels)
				m->kernels[m->nkernels++] = t;
			else
				free(t);
		}
	}
}

int results_parse_meta(const char *name, const char *buf, size_t len, struct results_meta *m,
		       char *err, size_t errlen)
{
	struct mctx mc = { .name = name, .buf = buf, .len = len, .err = err, .errlen = errlen };
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
	m->tool_version = as_text(&mc, find_key(&mc, root, KEYS("tool_version", "ipsecperf_version", "git_describe")));
	v = find_key(&mc, root, KEYS("command", "command_line", "cmdline", "argv"));
	if (json_is_array(v))
		m->command = join_argv(&mc, v);
	else
		m->command = as_text(&mc, v);
	v = get_key(&mc, root, "host");
	m->host = as_text(&mc, v ? v : find_key(&mc, root, KEYS("hostname")));
	m->cpu_model = as_text(&mc, find_key(&mc, root, KEYS("cpu_model", "cpu")));
	v = find_key(&mc, root, KEYS("cpu_count", "cpus", "ncpus"));
	if (json_is_integer(v) && json_integer_value(v) > 0 && json_integer_value(v) < INT_MAX)
		m->cpu_count = (int)json_integer_value(v);
	m->testbed = as_text(&mc, get_key(&mc, root, "testbed"));
	m->iperf3_version = as_text(&mc, find_key(&mc, root, KEYS("iperf3_version", "iperf3")));
	m->created = as_text(&mc, find_key(&mc, root, KEYS("created", "start", "started", "date")));
	m->probe_set = as_text(&mc, find_key(&mc, root, KEYS("probe_set")));
	v = find_key(&mc, root, KEYS("duration_s", "duration"));
	if (json_is_number(v) && json_number_value(v) > 0 && json_number_value(v) < 1e9)
		m->duration_s = json_number_value(v);
	v = find_key(&mc, root, KEYS("repeat", "repeats"));
	if (json_is_integer(v) && json_integer_value(v) > 0 && json_integer_value(v) < INT_MAX)
		m->repeat = (int)json_integer_value(v);
	parse_meta_kernels(&mc, root, m);
	parse_meta_setup(&mc, root, m);
	json_decref(root);
	if (mc.bad) {
		results_meta_free(m);
		return -1;
	}
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
	free(m->probe_set);
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

int results_check_dir(const char *dir, char *err, size_t errlen)
{
	char shown[256], what[48];
	const char *p = results_bad_char(dir, strlen(dir));

	if (!p)
		return 0;
	return fail(err, errlen,
		    "%s: the directory's name holds a control character (%s); a name is data: rename the directory",
		    results_printable(dir, shown, sizeof(shown)), bad_char_what(dir, p, what, sizeof(what)));
}

int results_newest(const char *parent, char *out, size_t len)
{
	DIR *d = opendir(parent);
	struct dirent *e;
	struct timespec best = { 0, 0 };
	bool found = false;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char meta[PATH_MAX];
		struct stat st;

		if (e->d_name[0] == '.' || !results_name_ok(e->d_name))
			continue;
		snprintf(meta, sizeof(meta), "%s/%s/meta.json", parent, e->d_name);
		if (lstat(meta, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (found && (st.st_mtim.tv_sec < best.tv_sec ||
			      (st.st_mtim.tv_sec == best.tv_sec && st.st_mtim.tv_nsec <= best.tv_nsec)))
			continue;
		best = st.st_mtim;
		found = true;
		snprintf(out, len, "%s/%s", parent, e->d_name);
	}
	closedir(d);
	return found ? 0 : -1;
}

int results_dir_expected(const char *cmd, const char *dir)
{
	char meta[PATH_MAX], newest[PATH_MAX], shown[256];
	const char *what = "not a results directory (no meta.json)";
	struct stat st;

	snprintf(meta, sizeof(meta), "%s/meta.json", dir);
	if (lstat(meta, &st) == 0 || results_bad_char(dir, strlen(dir)))
		return 0; /* the loader says what is wrong with it */
	if (stat(dir, &st) < 0)
		what = strerror(errno);
	results_printable(dir, shown, sizeof(shown));
	if (results_newest("results", newest, sizeof(newest)) == 0)
		pr_warn("%s: %s: %s; the newest under results/ is %s: ipsecperf %s %s", cmd, shown, what, newest, cmd,
			newest);
	else
		pr_warn("%s: %s: %s; there is none under results/ either: `ipsecperf run` makes one", cmd, shown, what);
	return -1;
}

int results_dirs_expected(const char *cmd, int n, char *const *dirs)
{
	for (int i = 0; i < n; i++)
		if (strcmp(dirs[i], "--") && results_dir_expected(cmd, dirs[i]) < 0)
			return -1;
	return 0;
}

int results_load(const char *dir, struct results *r, char *err, size_t errlen)
{
	char *buf = NULL;
	struct stat st;
	size_t len;
	int err_ret = -1;

	memset(r, 0, sizeof(*r));
	if (results_check_dir(dir, err, errlen) < 0)
		return -1;
	if (stat(dir, &st) < 0)
		return fail(err, errlen, "%s: %s (a results directory from `ipsecperf run` expected)",
			    dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return fail(err, errlen, "%s: not a directory (a results directory expected)", dir);
	r->dir = xstrdup(dir);
	r->runs_path = path_join(dir, "runs.jsonl");
	if (!r->runs_path) {
		fail(err, errlen, "%s: out of memory", dir);
		goto out;
	}
	buf = results_read(dir, "meta.json", &len, err, errlen);
	if (!buf)
		goto out;
	{
		char *meta_path = path_join(dir, "meta.json");
		int rc = meta_path ? results_parse_meta(meta_path, buf, len, &r->meta, err, errlen) :
				     fail(err, errlen, "%s: out of memory", dir);

		free(meta_path);
		if (rc < 0)
			goto out;
	}
	free(buf);
	buf = results_read(dir, "runs.jsonl", &len, err, errlen);
	if (!buf)
		goto out;
	if (results_parse_runs(r->runs_path, buf, len, r, err, errlen) < 0)
		goto out;
	if (r->nruns == 0) {
		if (r->torn_line)
			fail(err, errlen, "%s:%d: no runs recorded, only an incomplete record (no newline at the end)",
			     r->runs_path, r->torn_line);
		else
			fail(err, errlen, "%s: no runs recorded", r->runs_path);
		goto out;
	}
	results_warn_torn(r->runs_path, r);
	err_ret = 0;
out:
	free(buf);
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

/*
 * Groups and kernels are found through a jansson object used as a hash
 * table ("kernel\nscenario" -> index; names hold no newline), and a
 * group's index list grows as it fills: a directory of many distinct names
 * costs time and memory in proportion to its records, not their square.
 */
static int hash_index(json_t *h, const char *a, const char *b, int next, int *idx)
{
	char *key;
	json_t *v;
	int err = 0;

	if (asprintf(&key, "%s\n%s", a, b ? b : "") < 0)
		return -1;
	v = json_object_get(h, key);
	if (v)
		*idx = (int)json_integer_value(v);
	else if (json_object_set_new(h, key, json_integer(next)) < 0)
		err = -1;
	else
		*idx = next;
	free(key);
	return err;
}

int results_groups(const struct results *r, struct run_group **groups, int *ngroups)
{
	struct run_group *g = calloc(r->nruns + 1, sizeof(*g));
	json_t *h = json_object();
	int *cap = calloc(r->nruns + 1, sizeof(*cap));
	int n = 0;

	*groups = NULL;
	*ngroups = 0;
	if (!g || !h || !cap)
		goto out_nomem;
	for (int i = 0; i < r->nruns; i++) {
		const struct run_record *rec = &r->runs[i];
		int j;

		if (hash_index(h, rec->kernel, rec->scenario, n, &j) < 0)
			goto out_nomem;
		if (j == n) {
			g[n].kernel = rec->kernel;
			g[n].scenario = rec->scenario;
			n++;
		}
		if (g[j].n == cap[j]) {
			int *idx = realloc(g[j].idx, (cap[j] = cap[j] * 2 + 8) * sizeof(*idx));

			if (!idx)
				goto out_nomem;
			g[j].idx = idx;
		}
		g[j].idx[g[j].n++] = i;
		if (rec->counting)
			g[j].n_count++;
		if (rec->status == RUN_OK)
			(*(rec->counting ? &g[j].n_count_ok : &g[j].n_ok))++;
	}
	json_decref(h);
	free(cap);
	*groups = g;
	*ngroups = n;
	return 0;
out_nomem:
	json_decref(h);
	free(cap);
	if (g)
		results_groups_free(g, n);
	return -1;
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
	json_t *h = json_object();

	*n = 0;
	*kernels = k;
	if (!k || !h) {
		json_decref(h);
		return -1;
	}
	for (int i = 0; i < r->nruns; i++) {
		int j;

		if (hash_index(h, r->runs[i].kernel, NULL, *n, &j) < 0) {
			json_decref(h);
			return -1;
		}
		if (j == *n)
			k[(*n)++] = r->runs[i].kernel;
	}
	json_decref(h);
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

/* Does one of the group's ok counting runs have counter name per packet? */
static bool counted(const struct results *r, const struct run_group *g, const char *name)
{
	for (int i = 0; i < g->n; i++) {
		const struct run_record *rec = &r->runs[g->idx[i]];
		const struct run_counter *c = rec->counting && rec->status == RUN_OK ? find_counter(rec, name) : NULL;

		if (c && c->has_per_packet)
			return true;
	}
	return false;
}

int group_values(const struct results *r, const struct run_group *g, const struct metric *m,
		 double *out)
{
	/* which runs give the metric: the throughput runs, or the counting ones */
	bool from_counting = m->kind == METRIC_COUNTER && g->n_count_ok && counted(r, g, m->counter);
	int n = 0;

	for (int i = 0; i < g->n; i++) {
		const struct run_record *rec = &r->runs[g->idx[i]];
		const struct run_counter *c;

		if (rec->status != RUN_OK || rec->counting != from_counting)
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
			/* a counting repeat's figure: over its whole load, exact, where it has one */
			if (c && from_counting && c->has_per_packet_load)
				out[n++] = c->per_packet_load;
			else if (c && c->has_per_packet)
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
