// SPDX-License-Identifier: GPL-2.0
#include "provenance.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "pool.h"

static const char *const names[PROV_NFIELDS] = {
	[PROV_HOST] = "host", [PROV_CPU_MODEL] = "cpu_model", [PROV_CPU_COUNT] = "cpu_count",
	[PROV_TESTBED] = "testbed", [PROV_ACCEL] = "accel", [PROV_DURATION] = "duration",
	[PROV_OMIT] = "omit", [PROV_LOAD] = "load", [PROV_SCENARIO] = "scenario",
	[PROV_PROFILE] = "profile", [PROV_PROBES] = "probe_set", [PROV_TOOL] = "tool_version",
	[PROV_IPERF3] = "iperf3_version", [PROV_FLOWS] = "flows",
};

const char *prov_field_name(enum prov_field f)
{
	return f < PROV_NFIELDS ? names[f] : "?";
}

int prov_parse_allow(const char *cmd, const char *list, unsigned *allow)
{
	const char *p = list;

	while (*p) {
		size_t n = strcspn(p, ",");
		int f;

		if (n == 3 && !strncmp(p, "all", 3)) {
			*allow |= (1u << PROV_NFIELDS) - 1;
		} else {
			for (f = 0; f < PROV_NFIELDS; f++)
				if (strlen(names[f]) == n && !strncmp(p, names[f], n))
					break;
			if (f == PROV_NFIELDS) {
				pr_warn("%s: --allow-mismatch %s: '%.*s' is not a field (see `ipsecperf help %s`)",
					cmd, list, (int)(n > 64 ? 64 : n), p, cmd);
				return -1;
			}
			*allow |= 1u << f;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* Fields of the runs themselves, or of their kernel: not of the directory alone. */
static bool per_scenario(enum prov_field f)
{
	return f == PROV_LOAD || f == PROV_SCENARIO || f == PROV_PROFILE || f == PROV_FLOWS;
}

/* Add word to buf's "a+b" list unless it is there. */
static void add_distinct(char *buf, size_t len, const char *word)
{
	size_t w = strlen(word);

	for (const char *p = buf; *p;) {
		size_t n = strcspn(p, "+");

		if (n == w && !strncmp(p, word, n))
			return;
		p += n + (p[n] == '+');
	}
	snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", *buf ? "+" : "", word);
}

/*
 * A scenario file reduced to what it asks of a run: no comments, blank
 * lines, spacing or description, one "key=value" or "[section]" a line.
 */
static void normalize_scenario(const char *text, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	while (*text) {
		size_t n = strcspn(text, "\n");
		char line[512], *s, *eq, *c;

		snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) ? n : sizeof(line) - 1), text);
		text += n + (text[n] == '\n');
		/* inih's inline comments: ';' after whitespace */
		for (c = line; (c = strchr(c, ';')); c++)
			if (c == line || c[-1] == ' ' || c[-1] == '\t') {
				*c = '\0';
				break;
			}
		for (s = line; *s == ' ' || *s == '\t' || *s == '\r'; s++)
			;
		for (c = s + strlen(s); c > s && (c[-1] == ' ' || c[-1] == '\t' || c[-1] == '\r'); c--)
			c[-1] = '\0';
		if (!*s || *s == '#' || *s == ';')
			continue;
		if ((eq = strchr(s, '='))) {
			char *k = s, *v = eq + 1, *ke = eq;

			while (ke > k && (ke[-1] == ' ' || ke[-1] == '\t'))
				ke--;
			*ke = '\0';
			while (*v == ' ' || *v == '\t')
				v++;
			if (!strcmp(k, "description"))
				continue;
			o += snprintf(buf + o, o < len ? len - o : 0, "%s=%s\n", k, v);
		} else {
			o += snprintf(buf + o, o < len ? len - o : 0, "%s\n", s);
		}
		if (o >= len)
			break;
	}
}

/* The scenario's definition; "clear+noprobes" (run --probe-overhead) is clear's. */
static const char *scenario_value(const struct results_meta *m, const char *scenario, char *buf, size_t len)
{
	size_t base_len = strcspn(scenario, "+");

	for (int i = 0; i < m->nscenarios; i++)
		if (strlen(m->scenarios[i].name) == base_len && !strncmp(m->scenarios[i].name, scenario, base_len) &&
		    *m->scenarios[i].text) {
			normalize_scenario(m->scenarios[i].text, buf, len);
			return buf;
		}
	return NULL;
}

/* The flow counts (run --flows) of the scenario's runs, "1+2" if they differ. */
static const char *flows_value(const struct prov_src *p, const char *scenario, char *buf, size_t len)
{
	for (int i = 0; i < p->all->nruns; i++) {
		const struct run_record *r = &p->all->runs[i];
		char n[16];

		if (r->source == p->s && !strcmp(r->kernel, p->kernel) && !strcmp(r->scenario, scenario)) {
			snprintf(n, sizeof(n), "%d", r->flows);
			add_distinct(buf, len, n);
		}
	}
	return *buf ? buf : NULL;
}

const char *prov_value(const struct prov_src *p, const char *scenario, enum prov_field f, char *buf,
		       size_t len)
{
	const struct results_meta *m = &p->src[p->s].meta;
	const char *v = NULL;

	buf[0] = '\0';
	switch (f) {
	case PROV_HOST: v = m->host; break;
	case PROV_CPU_MODEL: v = m->cpu_model; break;
	case PROV_TESTBED: v = m->testbed; break;
	case PROV_TOOL: v = m->tool_version; break;
	case PROV_IPERF3: v = m->iperf3_version; break;
	case PROV_PROBES: v = m->probe_set; break;
	case PROV_CPU_COUNT:
		if (m->cpu_count <= 0)
			return NULL;
		snprintf(buf, len, "%d", m->cpu_count);
		return buf;
	case PROV_DURATION:
		if (m->duration_s <= 0)
			return NULL;
		snprintf(buf, len, "%g s", m->duration_s);
		return buf;
	case PROV_OMIT:
		if (!m->has_omit)
			return NULL;
		snprintf(buf, len, "%g s", m->omit_s);
		return buf;
	case PROV_SCENARIO:
		return scenario_value(m, scenario, buf, len);
	case PROV_FLOWS:
		return flows_value(p, scenario, buf, len);
	case PROV_ACCEL:
	case PROV_LOAD:
	case PROV_PROFILE:
		for (int i = 0; i < p->all->nruns; i++) {
			const struct run_record *r = &p->all->runs[i];

			if (r->source != p->s || strcmp(r->kernel, p->kernel) || strcmp(r->scenario, scenario))
				continue;
			if (f == PROV_ACCEL && r->accel)
				add_distinct(buf, len, r->accel);
			else if (f == PROV_LOAD && r->load)
				add_distinct(buf, len, r->load);
			else if (f == PROV_PROFILE && r->profiled && !*buf)
				snprintf(buf, len, r->profile_hz > 0 ? "on (%g Hz)" : "on", r->profile_hz);
		}
		if (f == PROV_PROFILE && !*buf)
			snprintf(buf, len, "off"); /* records carry "profile" since --profile exists */
		if (*buf)
			return buf;
		if (f != PROV_ACCEL)
			return NULL;
		/* older records: the guest kernel's accelerator in meta.json */
		for (int i = 0; i < m->naccels; i++)
			if (!strcmp(m->accels[i].release, p->kernel))
				add_distinct(buf, len, m->accels[i].accel);
		if (*buf)
			return buf;
		if (m->accel)
			v = m->accel;
		else if (m->testbed && !m->in_guests)
			v = "none"; /* no emulator between the load and the host's CPUs */
		break;
	case PROV_NFIELDS:
		break;
	}
	if (!v)
		return NULL;
	snprintf(buf, len, "%s", v);
	return buf;
}

const char *prov_dir_value(const struct results *src, const struct results *all, int s,
			   enum prov_field f, char *buf, size_t len)
{
	struct run_group *g;
	char one[256];
	int ng;

	buf[0] = '\0';
	if (!per_scenario(f) && f != PROV_ACCEL)
		return prov_value(&(struct prov_src){ .src = src, .all = all, .s = s, .kernel = "" }, "",
				  f, buf, len);
	if (results_groups(all, &g, &ng) < 0)
		return NULL;
	for (int i = 0; i < ng; i++) {
		struct prov_src p = { .src = src, .all = all, .s = s, .kernel = g[i].kernel };

		if ((pool_group_sources(all, &g[i]) & (1ULL << s)) &&
		    prov_value(&p, g[i].scenario, f, one, sizeof(one)))
			add_distinct(buf, len, one);
	}
	results_groups_free(g, ng);
	return *buf ? buf : NULL;
}

void prov_check_init(struct prov_check *pc, struct notes *notes, unsigned allow)
{
	memset(pc, 0, sizeof(*pc));
	pc->notes = notes;
	pc->allow = allow;
	for (int f = 0; f < PROV_NFIELDS; f++)
		pc->note_of[f] = -1;
}

static void label(char *buf, size_t len, const struct prov_src *p)
{
	snprintf(buf, len, "%s%s%s", p->side ? p->side : "", p->side ? " " : "", p->src[p->s].dir);
}

/* The first line where two normalized definitions differ, on each side. */
static void first_difference(const char *a, const char *b, char *da, char *db, size_t len)
{
	while (*a || *b) {
		size_t na = strcspn(a, "\n"), nb = strcspn(b, "\n");

		if (na != nb || strncmp(a, b, na)) {
			snprintf(da, len, na ? "'%.*s'" : "nothing", (int)na, a);
			snprintf(db, len, nb ? "'%.*s'" : "nothing", (int)nb, b);
			return;
		}
		a += na + (a[na] == '\n');
		b += nb + (b[nb] == '\n');
	}
	snprintf(da, len, "?");
	snprintf(db, len, "?");
}

/* Does the note name this scenario already (as a word)? */
static bool mentions(const char *text, const char *scenario)
{
	size_t n = strlen(scenario);

	for (const char *p = text; (p = strstr(p, scenario)); p++)
		if (p > text && p[-1] == ' ' && strchr(" ,.:'", p[n]))
			return true;
	return false;
}

static void mismatch(struct prov_check *pc, enum prov_field f, const struct prov_src *a,
		     const struct prov_src *b, const char *scenario, const char *va, const char *vb)
{
	char la[600], lb[600], da[600], db[600], what[200];
	const char *name = names[f];
	int i;

	if (pc->note_of[f] >= 0) {
		/* one note per field; a field of the runs names each scenario once */
		const char *text = pc->notes->v[pc->note_of[f]].text;

		if (!per_scenario(f) || mentions(text, scenario))
			return;
		if (strstr(text, " Also in scenario")) {
			char *t = pc->notes->v[pc->note_of[f]].text, *one = strstr(t, " Also in scenario ");

			t[strlen(t) - 1] = '\0'; /* the final '.', which makes room for: */
			if (one) { /* a second: "scenarios" */
				memmove(one + 18, one + 17, strlen(one + 17) + 1);
				one[17] = 's';
			}
			notes_append(pc->notes, pc->note_of[f], ", %s.", scenario);
		} else {
			notes_append(pc->notes, pc->note_of[f], " Also in scenario %s.", scenario);
		}
		return;
	}
	label(la, sizeof(la), a);
	label(lb, sizeof(lb), b);
	if (f == PROV_SCENARIO)
		first_difference(va, vb, da, db, sizeof(da));
	else {
		snprintf(da, sizeof(da), "%s", va);
		snprintf(db, sizeof(db), "%s", vb);
	}
	if (f == PROV_SCENARIO)
		snprintf(what, sizeof(what), "scenario %s's definition", scenario);
	else if (per_scenario(f))
		snprintf(what, sizeof(what), "%s of scenario %s", name, scenario);
	else if (f == PROV_ACCEL && strcmp(a->kernel, b->kernel))
		snprintf(what, sizeof(what), "accel of kernels %s and %s", a->kernel, b->kernel);
	else
		snprintf(what, sizeof(what), "%s", name);
	i = notes_add(pc->notes, "mismatch", name, "%s differs: %s in %s, %s in %s.", what, da, la, db, lb);
	if (i < 0)
		return;
	pc->notes->v[i].allowed = pc->allow & (1u << f);
	pc->note_of[f] = i;
	pc->differ |= 1u << f;
}

void prov_check_pair(struct prov_check *pc, const struct prov_src *a, const struct prov_src *b,
		     const char *scenario)
{
	static char va[8192], vb[8192];

	for (int f = 0; f < PROV_NFIELDS; f++) {
		const char *x = prov_value(a, scenario, f, va, sizeof(va));
		const char *y = prov_value(b, scenario, f, vb, sizeof(vb));

		if (!x || !y) {
			const struct prov_src *lacking = !x ? a : b;
			char l[600];

			if (pc->unrecorded & (1u << f))
				continue;
			pc->unrecorded |= 1u << f;
			label(l, sizeof(l), lacking);
			notes_add(pc->notes, "not_recorded", names[f], "%s is not recorded in %s%s%s: not checked.",
				  names[f], l, per_scenario(f) ? " for scenario " : "",
				  per_scenario(f) ? scenario : "");
			continue;
		}
		if (strcmp(x, y))
			mismatch(pc, f, a, b, scenario, x, y);
	}
}

void prov_check_group(struct prov_check *pc, const char *side, const struct results *src, int nsrc,
		      const struct results *all, const struct run_group *g)
{
	unsigned long long set = pool_group_sources(all, g);
	struct prov_src first = { .side = side, .src = src, .all = all, .s = -1, .kernel = g->kernel };

	for (int s = 0; s < nsrc && s < POOL_MAX_DIRS; s++) {
		struct prov_src other = first;

		if (!(set & (1ULL << s)))
			continue;
		if (first.s < 0) {
			first.s = s;
			continue;
		}
		other.s = s;
		prov_check_pair(pc, &first, &other, g->scenario);
	}
}

void prov_check_pool(struct prov_check *pc, const char *side, const struct results *src, int nsrc,
		     const struct results *all)
{
	struct run_group *g;
	int ng;

	if (nsrc < 2 || results_groups(all, &g, &ng) < 0)
		return;
	for (int i = 0; i < ng; i++)
		prov_check_group(pc, side, src, nsrc, all, &g[i]);
	results_groups_free(g, ng);
}

unsigned prov_refused(const struct prov_check *pc)
{
	return pc->differ & ~pc->allow;
}

void prov_print_refused(const struct prov_check *pc, const char *cmd)
{
	char list[400] = "";
	unsigned refused = prov_refused(pc);

	if (!refused)
		return;
	for (int f = 0; f < PROV_NFIELDS; f++) {
		if (!(refused & (1u << f)))
			continue;
		pr_warn("%s: not comparable: %s", cmd, pc->notes->v[pc->note_of[f]].text);
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", *list ? "," : "", names[f]);
	}
	pr_warn("%s: runs not measured alike are neither pooled nor compared; measure alike, or accept the difference with --allow-mismatch %s",
		cmd, list);
}

const char *prov_accel(const struct results *src, const struct results *all, int s, char *buf, size_t len)
{
	if (!prov_dir_value(src, all, s, PROV_ACCEL, buf, len))
		snprintf(buf, len, "not recorded");
	return buf;
}

bool prov_emulated(const struct results *src, const struct results *all, int s)
{
	char accel[256];

	return prov_dir_value(src, all, s, PROV_ACCEL, accel, sizeof(accel)) && strstr(accel, "tcg");
}

const char *prov_emulated_caution(void)
{
	return "under TCG the absolute figures are those of an emulated CPU; ratios between scenarios of the same run still hold.";
}
