// SPDX-License-Identifier: GPL-2.0
/* meta.json's reader: the provenance of a results directory, each string checked. */
#include "results.h"
#include "results_int.h"

#include <ctype.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
			       results_strdup(json_string_value(v)) : NULL;
	if (json_is_integer(v)) {
		snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
		return results_strdup(buf);
	}
	if (json_is_real(v)) {
		snprintf(buf, sizeof(buf), "%g", json_real_value(v));
		return results_strdup(buf);
	}
	if (json_is_object(v))
		for (const char *const *n = inner; *n; n++) {
			json_t *x = json_object_get(v, *n);

			if (!json_is_string(x))
				continue;
			snprintf(field, sizeof(field), "%s.%s", mc->field, *n);
			return meta_ok(mc, field, json_string_value(x), json_string_length(x)) ?
				       results_strdup(json_string_value(x)) : NULL;
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
	na[m->naccels].release = results_strdup(json_string_value(release));
	na[m->naccels++].accel = results_strdup(json_string_value(accel));
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
		m->accel = results_strdup(json_string_value(v));
	json_array_foreach(json_object_get(root, "kernels"), i, x) {
		add_accel(mc, m, json_object_get(x, "release"), json_object_get(json_object_get(x, "vm"), "accel"));
		m->in_guests |= json_is_object(json_object_get(x, "vm"));
	}
	json_array_foreach(json_object_get(root, "vm"), i, x)
		add_accel(mc, m, json_object_get(x, "release"), json_object_get(x, "accel"));
	m->in_guests |= json_is_array(json_object_get(root, "vm"));
	v = json_object_get(root, "scenarios");
	if (!json_is_array(v) || !(m->scenarios = calloc(json_array_size(v) + 1, sizeof(*m->scenarios))))
		return;
	json_array_foreach(v, i, x) {
		json_t *name = json_object_get(x, "name"), *text = json_object_get(x, "text");

		if (!json_is_string(name) || !json_is_string(text) ||
		    !meta_ok(mc, "scenarios[].name", json_string_value(name), json_string_length(name)) ||
		    !text_ok(mc, "scenarios[].text", text))
			continue;
		m->scenarios[m->nscenarios].name = results_strdup(json_string_value(name));
		m->scenarios[m->nscenarios++].text = results_strdup(json_string_value(text));
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
		return results_fail(err, errlen, "%s:%d: not valid JSON: %s", name, jerr.line, jerr.text);
	if (!json_is_object(root)) {
		json_decref(root);
		return results_fail(err, errlen, "%s:1: meta.json must hold a JSON object", name);
	}
	v = json_object_get(root, "version");
	if (v && (!json_is_integer(v) || json_integer_value(v) != 1)) {
		json_decref(root);
		return results_fail(err, errlen, "%s: unknown meta.json version (this ipsecperf reads version 1)",
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
	m->clock = as_text(&mc, get_key(&mc, root, "clock"));
	v = find_key(&mc, root, KEYS("duration_s", "duration"));
	if (json_is_number(v) && json_number_value(v) > 0 && json_number_value(v) < 1e9)
		m->duration_s = json_number_value(v);
	v = find_key(&mc, root, KEYS("repeat", "repeats"));
	if (json_is_integer(v) && json_integer_value(v) > 0 && json_integer_value(v) < INT_MAX)
		m->repeat = (int)json_integer_value(v);
	parse_meta_kernels(&mc, root, m);
	parse_meta_setup(&mc, root, m);
	m->json = root; /* the rest is read where it is shown, each string checked there */
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
	free(m->clock);
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
	json_decref(m->json);
	memset(m, 0, sizeof(*m));
}
