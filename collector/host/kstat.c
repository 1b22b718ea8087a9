// SPDX-License-Identifier: GPL-2.0
/* The kernel's drop and error counters: /proc/net/snmp's Ip and Udp, /proc/net/xfrm_stat (kstat.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "endpoint.h"
#include "files.h"
#include "kstat.h"
#include "netns_call.h"

/*
 * One counter; a name is the kernel's letters and digits only (the peer's
 * text may be anything: its names become keys of the record).
 */
static void put(struct kstat *k, const char *group, const char *name, size_t nlen, uint64_t v)
{
	static const char alnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

	if (k->n >= KSTAT_MAX || !nlen || strlen(group) + nlen >= sizeof(k->name[0]))
		return;
	for (size_t i = 0; i < nlen; i++)
		if (!name[i] || !strchr(alnum, name[i]))
			return;
	snprintf(k->name[k->n], sizeof(k->name[0]), "%s%.*s", group, (int)nlen, name);
	k->v[k->n++] = v;
}

/* One snmp group: a line of names, then a line of values, each after "Group:". */
static int parse_group(struct kstat *k, const char *snmp, const char *group)
{
	size_t glen = strlen(group);
	const char *names = NULL, *vals = NULL;

	for (const char *l = snmp; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (strncmp(l, group, glen) || l[glen] != ':')
			continue;
		if (!names) {
			names = l + glen + 1;
		} else {
			vals = l + glen + 1;
			break;
		}
	}
	if (!names || !vals)
		return -1;
	for (;;) {
		names += strspn(names, " ");
		vals += strspn(vals, " ");
		size_t nl = strcspn(names, " \n"), vl = strcspn(vals, " \n");
		char *end;

		if (!nl || !vl)
			return 0;
		errno = 0;
		/* Ip's Forwarding and DefaultTTL are settings, not counts: they never move, so they never show */
		unsigned long long v = strtoull(vals, &end, 10);

		if (!errno && end == vals + vl && *vals != '-')
			put(k, group, names, nl, v);
		names += nl;
		vals += vl;
	}
}

int kstat_parse(struct kstat *k, const char *snmp, const char *xfrm_stat)
{
	memset(k, 0, sizeof(*k));
	int ip = parse_group(k, snmp ? snmp : "", "Ip"), udp = parse_group(k, snmp ? snmp : "", "Udp");

	/* xfrm_stat: "XfrmInError<tabs>0" a line; the names carry their own prefix */
	for (const char *l = xfrm_stat; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		size_t nl = strcspn(l, " \t\n");
		const char *v = l + nl + strspn(l + nl, " \t");
		char *end;
		unsigned long long x;

		if (!nl || *v < '0' || *v > '9')
			continue;
		errno = 0;
		x = strtoull(v, &end, 10);
		if (!errno && (*end == '\n' || !*end || *end == ' ')) {
			put(k, "", l, nl, x);
			k->xfrm = true;
		}
	}
	return ip < 0 && udp < 0 ? -1 : 0;
}

int kstat_get(const struct kstat *k, const char *name, uint64_t *v)
{
	for (int i = 0; i < k->n; i++)
		if (!strcmp(k->name[i], name)) {
			*v = k->v[i];
			return 0;
		}
	return -1;
}

json_t *kstat_delta(const struct kstat *a, const struct kstat *b)
{
	json_t *o = json_object();

	for (int i = 0; i < b->n; i++) {
		uint64_t va;

		if (kstat_get(a, b->name[i], &va) == 0 && b->v[i] > va)
			json_object_set_new(o, b->name[i], json_integer((json_int_t)(b->v[i] - va)));
	}
	return o;
}

json_t *kstat_xfrm_delta(const struct kstat *a, const struct kstat *b)
{
	json_t *o;

	if (!a->xfrm || !b->xfrm)
		return NULL;
	o = json_object();
	for (int i = 0; i < b->n; i++) {
		uint64_t va;

		/* xfrm_stat's names carry their own prefix; snmp's Ip and Udp are not these */
		if (strncmp(b->name[i], "Xfrm", 4) || kstat_get(a, b->name[i], &va) < 0 || b->v[i] < va)
			continue;
		json_object_set_new(o, b->name[i], json_integer((json_int_t)(b->v[i] - va)));
	}
	return o;
}

struct read_arg {
	char *snmp, *xfrm;
};

static int read_here(void *arg)
{
	struct read_arg *r = arg;

	/* thread-self: setns() moved this thread only */
	r->snmp = file_read("/proc/thread-self/net/snmp", NULL);
	r->xfrm = file_read("/proc/thread-self/net/xfrm_stat", NULL);
	return r->snmp ? 0 : -1;
}

int kstat_read_netns(const char *netns, struct kstat *k)
{
	struct read_arg r = { 0 };
	int rc = netns_call(netns, read_here, &r);

	if (rc == 0)
		rc = kstat_parse(k, r.snmp, r.xfrm);
	free(r.snmp);
	free(r.xfrm);
	return rc;
}

int kstat_read_ep(const struct endpoint *e, struct kstat *k)
{
	if (!ep_remote(e))
		return kstat_read_netns(e->netns, k);

	char *snmp = ep_read(e, "/proc/net/snmp"), *xs = snmp ? ep_read(e, "/proc/net/xfrm_stat") : NULL;
	int rc = snmp ? kstat_parse(k, snmp, xs) : -1;

	free(snmp);
	free(xs);
	return rc;
}
