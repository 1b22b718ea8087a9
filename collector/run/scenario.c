// SPDX-License-Identifier: GPL-2.0
#include "scenario.h"

#include <dirent.h>
#include <stddef.h>
#include <errno.h>
#include <ini.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enclink.h"
#include "files.h"
#include "loads.h"
#include "log.h"
#include "suggest.h"
#include "options.h"

/* Scenario files are a few hundred bytes; this bounds what a wrong file costs. */
#define SCENARIO_MAX_BYTES 65536

/* The characters of a scenario's name (and so of its file's name): it picks a path. */
#define SCENARIO_NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_."

static bool scenario_name_ok(const char *name, size_t n)
{
	if (!n || strspn(name, SCENARIO_NAME_CHARS) < n)
		return false;
	return !(n == 1 && name[0] == '.') && !(n == 2 && !strncmp(name, "..", 2));
}

/* s as a message may show it: a file's name from a folder of others holds what the terminal would obey. */
static const char *shown(const char *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s", s);
	msg_clean(buf, true);
	return buf;
}

/* The line of the first control character other than tab, CR and LF (a NUL too); 0 if none. */
static int control_char_line(const char *text, size_t len)
{
	int line = 1;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c == '\n')
			line++;
		else if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f)
			return line;
	}
	return 0;
}

struct parse_state {
	struct scenario *sc;
	char why[200]; /* the first error; inih reports its line */
};

int parse_bool(const char *s)
{
	static const char *const yes[] = { "on", "yes", "true", "1" };
	static const char *const no[] = { "off", "no", "false", "0" };

	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i]))
			return 1;
		if (!strcasecmp(s, no[i]))
			return 0;
	}
	return -1;
}

static int set_string(char *dst, size_t len, const char *v, struct parse_state *ps, const char *key)
{
	if (strlen(v) >= len) {
		snprintf(ps->why, sizeof(ps->why), "%s is longer than %zu characters", key, len - 1);
		return 0;
	}
	strcpy(dst, v);
	return 1;
}

static int section_scenario(struct parse_state *ps, const char *key, const char *v)
{
	struct scenario *sc = ps->sc;

	if (!strcmp(key, "description"))
		return set_string(sc->description, sizeof(sc->description), v, ps, key);
	if (!strcmp(key, "load")) {
		if (!load_find(v)) {
			char names[200];

			snprintf(ps->why, sizeof(ps->why), "load must be %s, not '%s'", load_names(0, names, sizeof(names)), v);
			return 0;
		}
		return set_string(sc->load, sizeof(sc->load), v, ps, key);
	}
	snprintf(ps->why, sizeof(ps->why), "unknown key '%s' in [scenario]", key);
	return 0;
}

static int section_offload(struct parse_state *ps, const char *key, const char *v)
{
	struct scenario *sc = ps->sc;
	int b = parse_bool(v);

	if (b < 0) {
		snprintf(ps->why, sizeof(ps->why), "%s must be on or off, not '%s'", key, v);
		return 0;
	}
	if (strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(key)) {
		snprintf(ps->why, sizeof(ps->why), "'%s' is not an ethtool feature name", key);
		return 0;
	}
	for (int i = 0; i < sc->noffloads; i++)
		if (!strcmp(sc->offloads[i].feature, key)) {
			snprintf(ps->why, sizeof(ps->why), "feature '%s' set twice", key);
			return 0;
		}
	if (sc->noffloads == SCENARIO_MAX_OFFLOADS) {
		snprintf(ps->why, sizeof(ps->why), "more than %d features", SCENARIO_MAX_OFFLOADS);
		return 0;
	}
	if (!set_string(sc->offloads[sc->noffloads].feature, sizeof(sc->offloads[0].feature), key,
			ps, "feature"))
		return 0;
	sc->offloads[sc->noffloads++].on = b;
	return 1;
}

static int parse_bits(struct parse_state *ps, const char *key, const char *v, int max, int *out)
{
	char *end;
	long n = strtol(v, &end, 10);

	if (!*v || *end || n < 0 || n > max || n % 8) {
		snprintf(ps->why, sizeof(ps->why), "%s must be a multiple of 8 from 0 to %d, not '%s'",
			 key, max, v);
		return 0;
	}
	*out = (int)n;
	return 1;
}

/* A yes/no key (parse_bool's words); words: what the message offers. */
static int set_flag(struct parse_state *ps, const char *key, const char *v, const char *words, bool *out)
{
	int b = parse_bool(v);

	if (b < 0) {
		snprintf(ps->why, sizeof(ps->why), "%s must be %s, not '%s'", key, words, v);
		return 0;
	}
	*out = b;
	return 1;
}

static int section_ipsec(struct parse_state *ps, const char *key, const char *v)
{
	struct ipsec_config *c = &ps->sc->ipsec;
	static const struct {
		const char *key;
		size_t off;
	} names[] = {
		{ "encryption", offsetof(struct ipsec_config, enc) },
		{ "authentication", offsetof(struct ipsec_config, auth) },
		{ "aead", offsetof(struct ipsec_config, aead) },
	}, bits[] = {
		{ "encryption-key-bits", offsetof(struct ipsec_config, enc_key_bits) },
		{ "authentication-key-bits", offsetof(struct ipsec_config, auth_key_bits) },
		{ "authentication-icv-bits", offsetof(struct ipsec_config, auth_icv_bits) },
		{ "aead-key-bits", offsetof(struct ipsec_config, aead_key_bits) },
		{ "aead-salt-bits", offsetof(struct ipsec_config, aead_salt_bits) },
		{ "aead-icv-bits", offsetof(struct ipsec_config, aead_icv_bits) },
	};

	c->on = true;
	if (!strcmp(key, "proto")) {
		if (strcmp(v, "esp")) {
			snprintf(ps->why, sizeof(ps->why), "proto must be esp, not '%s'", v);
			return 0;
		}
		return 1;
	}
	if (!strcmp(key, "mode")) {
		if (strcmp(v, "transport") && strcmp(v, "tunnel")) {
			snprintf(ps->why, sizeof(ps->why), "mode must be transport or tunnel, not '%s'", v);
			return 0;
		}
		c->tunnel = !strcmp(v, "tunnel");
		return 1;
	}
	if (!strcmp(key, "esp-gso"))
		return set_flag(ps, key, v, "on or off", &c->esp_gso);
	if (!strcmp(key, "pcpu"))
		return set_flag(ps, key, v, "yes or no", &c->pcpu);
	if (!strcmp(key, "sas")) {
		char *end;
		long n = strtol(v, &end, 10);

		if (!*v || *end || n < 1 || n > SCENARIO_MAX_SAS) {
			snprintf(ps->why, sizeof(ps->why), "sas must be a number of SA pairs from 1 to %d, not '%s'",
				 SCENARIO_MAX_SAS, v);
			return 0;
		}
		c->sas = (int)n;
		return 1;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(key, names[i].key)) {
			if (!*v || strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789()_,-") != strlen(v)) {
				snprintf(ps->why, sizeof(ps->why), "'%s' is not a kernel crypto algorithm name", v);
				return 0;
			}
			return set_string((char *)c + names[i].off, 64, v, ps, key);
		}
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (!strcmp(key, bits[i].key))
			return parse_bits(ps, key, v, 512, (int *)((char *)c + bits[i].off));
	snprintf(ps->why, sizeof(ps->why), "unknown key '%s' in [ipsec]", key);
	return 0;
}

static int section_tcp_auth(struct parse_state *ps, const char *key, const char *v)
{
	struct tcp_auth_config *c = &ps->sc->tcp_auth;

	if (!strcmp(key, "method")) {
		if (strcmp(v, "md5") && strcmp(v, "ao")) {
			snprintf(ps->why, sizeof(ps->why), "method must be md5 or ao, not '%s'", v);
			return 0;
		}
		return set_string(c->method, sizeof(c->method), v, ps, key);
	}
	if (!strcmp(key, "ao-algorithm"))
		return set_string(c->ao_alg, sizeof(c->ao_alg), v, ps, key);
	snprintf(ps->why, sizeof(ps->why), "unknown key '%s' in [tcp-auth]", key);
	return 0;
}

/* [wireguard], [macsec]: an encrypted link of that kind; its one key names the cipher. */
static int section_enclink(struct parse_state *ps, const struct enclink_kind *k, const char *key, const char *v)
{
	struct enclink_config *c = &ps->sc->enclink;
	char list[100];
	size_t off = 0;

	if (c->kind[0] && strcmp(c->kind, k->name)) {
		snprintf(ps->why, sizeof(ps->why), "[%s] and [%s]: one encrypted link a scenario", c->kind, k->name);
		return 0;
	}
	snprintf(c->kind, sizeof(c->kind), "%s", k->name);
	if (strcmp(key, "cipher")) {
		snprintf(ps->why, sizeof(ps->why), "unknown key '%s' in [%s]", key, k->name);
		return 0;
	}
	if (c->cipher[0]) {
		snprintf(ps->why, sizeof(ps->why), "cipher set twice");
		return 0;
	}
	if (!enclink_takes(k, v)) {
		for (int i = 0; k->ciphers[i] && off < sizeof(list); i++)
			off += snprintf(list + off, sizeof(list) - off, "%s%s", i ? " or " : "", k->ciphers[i]);
		snprintf(ps->why, sizeof(ps->why), "%s's cipher is %s, not '%.40s'", k->title, list, v);
		return 0;
	}
	return set_string(c->cipher, sizeof(c->cipher), v, ps, key);
}

/* IPv4's least MTU (RFC 791) to the most a device can have (ETH_MAX_MTU). */
#define LINK_MTU_MIN 68
#define LINK_MTU_MAX 65535

static int section_link(struct parse_state *ps, const char *key, const char *v)
{
	char *end;
	long n;

	if (strcmp(key, "mtu")) {
		snprintf(ps->why, sizeof(ps->why), "unknown key '%s' in [link]", key);
		return 0;
	}
	n = strtol(v, &end, 10);
	if (!*v || *end || n < LINK_MTU_MIN || n > LINK_MTU_MAX) {
		snprintf(ps->why, sizeof(ps->why), "mtu must be a whole number from %d to %d, not '%s'", LINK_MTU_MIN,
			 LINK_MTU_MAX, v);
		return 0;
	}
	if (ps->sc->mtu) {
		snprintf(ps->why, sizeof(ps->why), "mtu set twice");
		return 0;
	}
	ps->sc->mtu = (int)n;
	return 1;
}

/* [load]: kept as written; the load's entry checks them once the whole file is read. */
static int section_load(struct parse_state *ps, const char *key, const char *v)
{
	struct scenario *sc = ps->sc;

	for (int i = 0; i < sc->nload_keys; i++)
		if (!strcmp(sc->load_keys[i].key, key)) {
			snprintf(ps->why, sizeof(ps->why), "%s set twice in [load]", key);
			return 0;
		}
	if (sc->nload_keys == SCENARIO_MAX_LOAD_KEYS) {
		snprintf(ps->why, sizeof(ps->why), "more than %d keys in [load]", SCENARIO_MAX_LOAD_KEYS);
		return 0;
	}
	if (!set_string(sc->load_keys[sc->nload_keys].key, sizeof(sc->load_keys[0].key), key, ps, "a key of [load]") ||
	    !set_string(sc->load_keys[sc->nload_keys].value, sizeof(sc->load_keys[0].value), v, ps, key))
		return 0;
	sc->nload_keys++;
	return 1;
}

/* What the sections cannot check one key at a time. */
/* Why sc's load cannot take its [tcp-auth] (a static buffer). */
static const char *tcp_auth_load_why(const struct scenario *sc)
{
	static char why[300];
	char names[200];

	snprintf(why, sizeof(why), "[tcp-auth] needs load = %s: %s cannot set TCP_MD5SIG or TCP-AO keys",
		 load_names(LOAD_TCP_AUTH, names, sizeof(names)), sc->load);
	return why;
}

/* The [load] keys, as the scenario's load takes them (a static buffer), or NULL. */
static const char *load_keys_why(const struct scenario *sc)
{
	static char why[300];
	const struct load_kind *k = load_find(sc->load);

	if (!sc->nload_keys)
		return NULL;
	if (!k->check_keys) {
		snprintf(why, sizeof(why), "[load] %s: %s takes no settings", sc->load_keys[0].key, k->title);
		return why;
	}
	return k->check_keys(sc, why, sizeof(why)) < 0 ? why : NULL;
}

static const char *scenario_validate(struct scenario *sc)
{
	struct ipsec_config *c = &sc->ipsec;

	if (c->on) {
		if (!c->aead[0] && !c->enc[0])
			return "[ipsec] needs encryption (with authentication) or aead";
		if (c->aead[0] && (c->enc[0] || c->auth[0]))
			return "[ipsec] aead excludes encryption and authentication";
		if (c->enc[0] && !c->auth[0])
			return "[ipsec] encryption needs authentication (digest_null for none)";
		if (c->aead[0] && !c->aead_salt_bits && !strncmp(c->aead, "rfc", 3))
			c->aead_salt_bits = 32; /* RFC 4106, 4309, 7634: a 4-byte salt after the key */
		if (c->aead_key_bits + c->aead_salt_bits > 512)
			return "[ipsec] aead key and salt exceed 512 bits";
	}
	if (c->on && sc->enclink.kind[0])
		return "[ipsec] and an encrypted link: one encryption a scenario";
	if (sc->tcp_auth.method[0] || sc->tcp_auth.ao_alg[0]) {
		if (!sc->tcp_auth.method[0])
			return "[tcp-auth] method is missing (md5 or ao)";
		if (!(load_find(sc->load)->caps & LOAD_TCP_AUTH))
			return tcp_auth_load_why(sc);
		if (!sc->tcp_auth.ao_alg[0])
			strcpy(sc->tcp_auth.ao_alg, "hmac(sha1)");
	}
	return load_keys_why(sc);
}

static const struct {
	const char *name;
	int (*handle)(struct parse_state *ps, const char *key, const char *value);
} sections[] = {
	{ "scenario", section_scenario },
	{ "offload", section_offload },
	{ "ipsec", section_ipsec },
	{ "tcp-auth", section_tcp_auth },
	{ "link", section_link },
	{ "load", section_load },
};

static int on_entry(void *user, const char *section, const char *key, const char *value)
{
	struct parse_state *ps = user;

	if (ps->why[0])
		return 0; /* keep the first error */
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
		if (!strcmp(section, sections[i].name))
			return sections[i].handle(ps, key, value);
	if (enclink_find(section))
		return section_enclink(ps, enclink_find(section), key, value);
	if (!*section)
		snprintf(ps->why, sizeof(ps->why), "key '%s' before any [section]", key);
	else
		snprintf(ps->why, sizeof(ps->why), "unknown section [%s]", section);
	return 0;
}

int scenario_load(const char *path, struct scenario *sc, char *err, size_t errlen)
{
	struct parse_state ps = { .sc = sc };
	const char *base = strrchr(path, '/');
	char why[128];
	size_t n, len;
	json_t *utf8;
	int line;

	memset(sc, 0, sizeof(*sc));
	base = base ? base + 1 : path;
	n = strlen(base);
	if (n > 4 && !strcmp(base + n - 4, ".ini"))
		n -= 4;
	if (n >= sizeof(sc->name) || !scenario_name_ok(base, n)) {
		char show[PATH_MAX];

		snprintf(err, errlen, "%s: not a usable scenario file name (NAME.ini, NAME of letters, digits, '.', '_' and '-')",
			 shown(path, show, sizeof(show)));
		return -1;
	}
	memcpy(sc->name, base, n);
	snprintf(sc->path, sizeof(sc->path), "%s", path);
	snprintf(sc->load, sizeof(sc->load), "%s", load_kinds[0]->name);

	sc->text = file_read_regular(path, SCENARIO_MAX_BYTES, &len, why, sizeof(why));
	if (!sc->text) {
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	line = control_char_line(sc->text, len);
	if (line) {
		snprintf(err, errlen, "%s:%d: a control character or NUL byte; scenario files are text", path, line);
		scenario_free(sc);
		return -1;
	}
	/* the text goes into meta.json, which holds UTF-8 only */
	utf8 = json_stringn(sc->text, len);
	if (!utf8) {
		snprintf(err, errlen, "%s: not UTF-8 text", path);
		scenario_free(sc);
		return -1;
	}
	json_decref(utf8);
	line = ini_parse_string(sc->text, on_entry, &ps);
	if (line != 0) {
		snprintf(err, errlen, "%s:%d: %s", path, line, ps.why[0] ? ps.why : "syntax error");
		scenario_free(sc);
		return -1;
	}
	if (!sc->description[0]) {
		snprintf(err, errlen, "%s: [scenario] description is missing", path);
		scenario_free(sc);
		return -1;
	}
	const char *bad = scenario_validate(sc);

	if (bad) {
		snprintf(err, errlen, "%s: %s", path, bad);
		scenario_free(sc);
		return -1;
	}
	return 0;
}

void scenario_free(struct scenario *sc)
{
	free(sc->text);
	sc->text = NULL;
}

const char *scenario_dir(void)
{
	/* build/ipsecperf finds ../scenarios; an install finds share/ */
	static const char *const rels[] = { "../scenarios", "../share/ipsecperf/scenarios", NULL };
	static char dir[PATH_MAX + 64];

	return data_dir("IPSECPERF_SCENARIOS", rels, "", "scenarios", dir,
			sizeof(dir));
}

int scenario_dir_option(const char *cmd, const char *dir)
{
	struct stat st;

	if (stat(dir, &st) < 0) {
		pr_warn("%s: --scenario-dir %s: %s", cmd, dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		pr_warn("%s: --scenario-dir %s: not a folder", cmd, dir);
		return -1;
	}
	/* an environment variable, so that every lookup (and a child) sees one folder */
	return setenv("IPSECPERF_SCENARIOS", dir, 1);
}

static int names_in_dir(char ***names, int *n)
{
	DIR *d = opendir(scenario_dir());
	struct dirent *de;
	int cap = 0;

	*names = NULL;
	*n = 0;
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len <= 4 || strcmp(de->d_name + len - 4, ".ini") || de->d_name[0] == '.')
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			*names = realloc(*names, cap * sizeof(**names));
		}
		(*names)[(*n)++] = strndup(de->d_name, len - 4);
	}
	closedir(d);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int scenario_find(const char *name, struct scenario *sc, char *err, size_t errlen)
{
	char path[PATH_MAX];
	size_t len = strlen(name);
	char **names;
	int n;

	if (has_control_char(name)) {
		snprintf(err, errlen, "a scenario name or path with a control character (a newline?)");
		return -1;
	}
	if (strchr(name, '/') || (len > 4 && !strcmp(name + len - 4, ".ini")))
		return scenario_load(name, sc, err, errlen);
	if (!scenario_name_ok(name, len)) {
		snprintf(err, errlen, "'%s' is not a scenario name", shown(name, path, sizeof(path)));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s.ini", scenario_dir(), name);
	if (access(path, R_OK) == 0)
		return scenario_load(path, sc, err, errlen);

	/* unknown: the closest name, and what there is */
	struct suggest sg;
	char hint[SUGGEST_MAX_LEN + 32];

	names_in_dir(&names, &n);
	if (n > 1)
		qsort(names, n, sizeof(*names), cmp_str);
	/* the folder's names may be anything: only a scenario name is offered, any is shown cleaned */
	suggest_init(&sg, name);
	for (int i = 0; i < n; i++)
		if (scenario_name_ok(names[i], strlen(names[i])))
			suggest_try(&sg, names[i]);
	suggest_hint(&sg, hint, sizeof(hint));

	size_t off = snprintf(err, errlen, "unknown scenario '%s'%s; known:", name, hint);

	for (int i = 0; i < n; i++) {
		if (off < errlen)
			off += snprintf(err + off, errlen - off, " %s", shown(names[i], path, sizeof(path)));
		free(names[i]);
	}
	free(names);
	if (!n && off < errlen)
		snprintf(err + off, errlen - off, " none in %s", scenario_dir());
	return -1;
}

int scenario_load_all(struct scenario **out, int *count, char *err, size_t errlen)
{
	char **names;
	int n;

	*out = NULL;
	*count = 0;
	if (names_in_dir(&names, &n) < 0) {
		snprintf(err, errlen, "%s: %s", scenario_dir(), strerror(errno));
		return -1;
	}
	if (n > 1)
		qsort(names, n, sizeof(*names), cmp_str);
	*out = calloc(n ? n : 1, sizeof(**out));
	for (int i = 0; i < n; i++) {
		if (*count == i && scenario_find(names[i], &(*out)[i], err, errlen) == 0)
			(*count)++;
		free(names[i]);
	}
	free(names);
	return *count == n ? 0 : -1;
}

void scenario_esp_alg(const struct scenario *sc, char *buf, size_t len)
{
	if (!sc->ipsec.on)
		snprintf(buf, len, "%s", "");
	else if (sc->ipsec.aead[0])
		snprintf(buf, len, "%s", sc->ipsec.aead);
	else
		snprintf(buf, len, "authenc(%s,%s)", sc->ipsec.auth[0] ? sc->ipsec.auth : "digest_null", sc->ipsec.enc);
}
