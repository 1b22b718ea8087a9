// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the peer agent's request handlers
 * (collector/testbed/peer_agent*.c), not only its reader: the input is what the
 * agent reads on its stdin, each request taken with peer_request_take() and
 * answered by peer_agent_dispatch() as the agent's loop does, into a
 * memory stream; an input whose first line starts with "$ " gives the rest
 * of that line to peer_agent_pinned() first, as SSH_ORIGINAL_COMMAND (a key
 * pinned to the agent).
 *
 * What acts on the host is a stand-in here, linked in place of the real
 * one (exec.c, xfrm.c, kmod.c, setup.c, the probes, the stream, the loads,
 * the encrypted links' kinds, the journal): each checks what reaches it,
 * and the xfrm ones build the real netlink message
 * (xfrm_msg.c), so that a bad spec reaches the real memcpy. The files the
 * testbed reads are read for real. Aborts if a request does not get
 * exactly one answer line, if a line is longer than the run reads or not a
 * JSON object with a boolean "ok", if a program reaches exec (or execvp)
 * without being one the testbed sends or is cat, if a module name, an SA's
 * bits and key, a probes device or an encrypted link's name, number, key
 * or id reaches the host unchecked, or if an undo gets a record of another
 * kind. At most 64 requests an input and no
 * wait or program in any handler: the time of an input is bounded, and
 * -timeout catches a slow path. Build and run: make fuzz (docs/fuzzing.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <linux/xfrm.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec.h"
#include "journal.h"
#include "cpu.h"
#include "enclink.h"
#include "kmod.h"
#include "load.h"
#include "load_util.h"
#include "matrix.h"
#include "netns_call.h"
#include "loads.h"
#include "peer_agent.h"
#include "peer_run.h"
#include "probes.h"
#include "rtnl_link.h"
#include "remote.h"
#include "setup.h"
#include "testbed_peer.h"
#include "xfrm.h"

#define LINE_MAX_ 65536
#define REQUESTS_MAX 64

/* ---- stand-ins for what acts on the host ---- */

static int nargs(char *const argv[])
{
	int n = 0;

	while (argv[n])
		n++;
	return n;
}

pid_t exec_fork(const char *netns, int cpu, char *err, size_t errlen)
{
	(void)netns, (void)cpu, (void)err, (void)errlen;
	errno = EAGAIN; /* the stream's receiver is not started: its handler's wait is never entered */
	return -1;
}

void exec_stop(pid_t pid, int grace_ms)
{
	(void)pid, (void)grace_ms;
	abort(); /* only a receiver that was started is stopped */
}

int exec_run_limited(const char *netns, char *const argv[], const struct exec_limits *l, struct exec_result *r)
{
	char why[600];
	size_t n = 0;

	if (netns || !l || l->deadline_ms <= 0 || !l->max_out ||
	    peer_run_allowed(argv, nargs(argv), why, sizeof(why)) || !strcmp(argv[0], "cat"))
		abort();
	/* what it printed: its words, so that the answer carries what the request chose */
	memset(r, 0, sizeof(*r));
	for (int i = 0; argv[i]; i++)
		n += strlen(argv[i]) + 1;
	r->out = calloc(1, n + 1);
	r->err = strdup("");
	for (int i = 0; argv[i]; i++)
		strcat(strcat(r->out, argv[i]), "\n");
	r->out_len = n;
	return 0;
}

/* execvp of the pinned agent (-Wl,--wrap=execvp): what it would become, checked, never run. */
int __wrap_execvp(const char *file, char *const argv[])
{
	char why[600];

	if (strcmp(file, argv[0]) || peer_ssh_allowed(argv, nargs(argv), why, sizeof(why)) || !strcmp(argv[0], "cat"))
		abort();
	errno = ENOENT;
	return -1;
}

enum kmod_state kmod_state(const char *name, int *refcnt)
{
	if (!kmod_name_ok(name))
		abort();
	if (refcnt)
		*refcnt = (int)strlen(name) % 3;
	return (enum kmod_state)(strlen(name) % 4);
}

const char *kmod_state_name(enum kmod_state s)
{
	static const char *const names[] = { "missing", "loadable module", "loaded", "built in" };

	return names[s];
}

static int sa_built(const struct xfrm_sa_spec *s, const uint8_t *key)
{
	static char buf[XFRM_MSG_BUF];
	uint8_t copy[4 * XFRM_KEY_MAX];
	size_t n = xfrm_sa_key_len(s);

	if (!xfrm_sa_bits_ok(s) || n > sizeof(copy) || s->reqid > XFRM_RUN_REQID_MAX || s->spi < 256)
		abort();
	memcpy(copy, key, n); /* the key the agent decoded holds what the spec needs */
	return xfrm_sa_build(buf, sizeof(buf), s, copy, 1) < 0 ? -EINVAL : 0;
}

int xfrm_sa_add(const char *netns, const struct xfrm_sa_spec *s, const uint8_t *key, char *err, size_t errlen)
{
	(void)netns;
	if (err && errlen)
		snprintf(err, errlen, "%s", s->dst);
	return sa_built(s, key);
}

int xfrm_sa_get(const char *netns, int family, const char *dst, uint32_t spi, int proto, struct xfrm_sa_counters *c)
{
	static char buf[XFRM_MSG_BUF];

	(void)netns;
	c->packets = c->bytes = c->oseq = c->seq = spi;
	return xfrm_sa_id_build(buf, family, dst, spi, proto, XFRM_MSG_GETSA) < 0 ? -EINVAL : -ENOENT;
}

/* What the agent passes on of a policy is what the run gives: several SA pairs' fields in range (xfrm.h). */
static void pol_checked(const struct xfrm_pol_spec *p)
{
	if (p->reqid > XFRM_RUN_REQID_MAX || p->priority > XFRM_RUN_PRIO_MAX ||
	    (p->l4proto && p->l4proto != IPPROTO_TCP) || ((p->sport || p->dport) && p->l4proto != IPPROTO_TCP) ||
	    (p->sport && p->sport < 1024) || (p->dport && p->dport < 1024) ||
	    (p->dir != XFRM_POLICY_IN && p->dir != XFRM_POLICY_OUT))
		abort();
}

int xfrm_policy_add(const char *netns, const struct xfrm_pol_spec *p, char *err, size_t errlen)
{
	static char buf[XFRM_MSG_BUF];

	(void)netns;
	pol_checked(p);
	if (err && errlen)
		err[0] = '\0';
	return xfrm_policy_build(buf, sizeof(buf), p, XFRM_POL_ADD, 1) < 0 ? -EINVAL : 0;
}

int xfrm_policy_exists(const char *netns, const struct xfrm_pol_spec *p)
{
	static char buf[XFRM_MSG_BUF];

	(void)netns;
	pol_checked(p);
	return xfrm_policy_build(buf, sizeof(buf), p, XFRM_POL_GET, 1) < 0 ? -EINVAL : 0;
}

int journal_undo_one(json_t *undo)
{
	const char *kind = json_string_value(json_object_get(undo, "kind"));

	if (!kind || (strcmp(kind, "xfrm-state") && strcmp(kind, "xfrm-policy") && strcmp(kind, "modules") &&
		      strcmp(kind, "enclink")))
		abort();
	return 0;
}

int tcp_auth_probe(const char *method, const char *ao_alg, char *why, size_t len)
{
	snprintf(why, len, "%s %s", method, ao_alg);
	return strcmp(method, "md5") ? 1 : 0;
}

_Noreturn void stream_receive(struct stream_rx *rx, const char *addr, int port, const char *peer, const char *method,
			      const char *ao_alg, uint8_t *key, size_t keylen)
{
	(void)rx, (void)addr, (void)port, (void)peer, (void)method, (void)ao_alg, (void)key, (void)keylen;
	abort(); /* never forked here */
}

/* The host's set-up (setup.h): read only, never a device's name that is not one. */
json_t *setup_collect(const char *const *devs, int ndevs)
{
	if (ndevs < 0 || ndevs > 1 || (ndevs && !peer_dev_ok(devs[0])))
		abort();
	return json_pack("{s:i}", "nics", ndevs);
}

json_t *setup_crypto(const char *alg)
{
	return json_pack("[{s:s}]", "name", alg);
}

/* load_util.c's: never reached, since no receiver is forked here. */
bool stop_requested(void)
{
	abort();
}

int stop_signal(void)
{
	abort();
}

int journal_add_process(pid_t pid)
{
	(void)pid;
	abort();
}

/*
 * The encrypted links (enclink.h): two stand-in kinds of the real names,
 * ciphers and key lengths, whose functions abort if what reaches them was
 * not checked (a device's name, a cipher, an MTU or prefix length, a key's
 * length, the other end's id and port); enclink_agent.c is the real one.
 */
static size_t fz_key_len(const char *cipher)
{
	return !strcmp(cipher, "gcm-aes-128") ? 16 : 32;
}

static void fz_dev_checked(const struct enclink_kind *k, const struct enclink_dev *d)
{
	if (!ifname_ok(d->dev) || !ifname_ok(d->lower) || !enclink_takes(k, d->cipher) || d->mtu < 0 ||
	    d->mtu > 65535 || d->plen < 0 || d->plen > 128 || !d->addr || !d->link_addr)
		abort();
}

static const struct enclink_kind *fz_kind(const struct enclink_dev *d)
{
	return enclink_find(strcmp(d->cipher, "chacha20-poly1305") ? "macsec" : "wireguard");
}

static int fz_add(const struct enclink_dev *d, const uint8_t *key, size_t klen, struct enclink_pub *pub, char *why,
		  size_t len)
{
	uint8_t copy[ENCLINK_KEY_MAX];

	fz_dev_checked(fz_kind(d), d);
	if (klen != fz_key_len(d->cipher) || klen > sizeof(copy))
		abort();
	memcpy(copy, key, klen);
	memset(pub->id, 0x5a, ENCLINK_ID_MAX);
	pub->id_len = ENCLINK_ID_MAX;
	pub->port = 51820;
	snprintf(why, len, "%s", d->dev);
	return 0;
}

static int fz_peer(const struct enclink_dev *d, const struct enclink_other *o, char *why, size_t len)
{
	const struct enclink_kind *k = fz_kind(d);

	fz_dev_checked(k, d);
	if (o->pub->id_len > ENCLINK_ID_MAX || o->pub->port < 0 || o->pub->port > 65535 || !o->addr || !o->link_addr ||
	    (k->shares_keys && (!o->key || o->klen != fz_key_len(d->cipher))))
		abort();
	snprintf(why, len, "%s", o->addr);
	return 0;
}

static int fz_counters(const struct enclink_dev *d, struct enclink_counters *c, char *why, size_t len)
{
	fz_dev_checked(fz_kind(d), d);
	memset(c, 0, sizeof(*c));
	c->v[0] = (uint64_t)d->mtu;
	snprintf(why, len, "%s", "");
	return 0;
}

#define FZ_KIND(n, c, shares)                                                                                  \
	(&(const struct enclink_kind){ .name = n, .title = n, .link = n, .ciphers = c, .key_len = fz_key_len,   \
				       .shares_keys = shares, .add = fz_add, .peer = fz_peer, .counters = fz_counters })
const struct enclink_kind *const enclink_kinds[] = {
	FZ_KIND("wireguard", ((const char *const[]){ "chacha20-poly1305", NULL }), false),
	FZ_KIND("macsec", ((const char *const[]){ "gcm-aes-128", "gcm-aes-256", NULL }), true),
	NULL,
};

json_t *enclink_counters_json(const struct enclink_kind *k, const struct enclink_counters *c)
{
	(void)k;
	return json_pack("{s:I}", "packets", (json_int_t)c->v[0]);
}

int rtnl_link_kind(const char *netns, const char *name, char *kind, size_t len)
{
	if (netns || !ifname_ok(name))
		abort();
	snprintf(kind, len, "%s", "wireguard");
	return (int)(strlen(name) % 2);
}

int rtnl_link_del(const char *netns, const char *name, const char *kind, char *err, size_t errlen)
{
	(void)netns, (void)name, (void)kind, (void)err, (void)errlen;
	abort(); /* the journal's undo is a stand-in here */
}

/*
 * The loads' own requests (loads.h): one stand-in load, whose state the
 * agent keeps and ends. The real loads' requests (rr-serve, udp-rx, ...)
 * start responders, and are not fuzzed here; what they check of a
 * request before starting one is: the stand-in asks load_agent_where()
 * as they do, and aborts if an address, port or CPU it lets through is
 * not one.
 */
static json_t *load_op_answer(json_t *req, void **state)
{
	int *n = *state ? *state : (*state = calloc(1, sizeof(int))), port, cpu;
	const char *bad = load_agent_where(req, &port, &cpu);

	if (!bad && (!json_is_string(json_object_get(req, "addr")) || port < PEER_PORT_MIN || port > 65535 ||
		     cpu < -1 || cpu >= cpu_count()))
		abort();
	if (!n)
		return NULL;
	(*n)++;
	return json_pack("{s:b, s:i, s:O?, s:s?}", "ok", 1, "n", *n, "echo", json_object_get(req, "echo"), "why", bad);
}

static void load_op_end(void **state)
{
	free(*state);
	*state = NULL;
}

static const struct load_kind stand_in_load = {
	.name = "stand-in", .agent_ops = (const struct load_agent_op[]){ { "stand-in-op", load_op_answer }, { NULL, NULL } },
	.agent_end = load_op_end,
};
const struct load_kind *const load_kinds[] = { &stand_in_load, NULL };

/* The probes: one stand-in set, whose window and counters follow the requests. */
static struct {
	int set, attached, open;
	bool cost, esp;
} pr;

struct probes *probes_open(void)
{
	return (struct probes *)&pr;
}

int probe_set_parse(const char *s)
{
	static const char *const names[] = { "default", "all", "tracepoints", "kernel", "esp" };

	for (int i = 0; i < 5; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

void probes_set_set(struct probes *p, enum probe_set set)
{
	if (p != (struct probes *)&pr || set < 0 || set >= PROBE_SET_N)
		abort();
	pr.set = set;
}

int probes_stats_enable(struct probes *p)
{
	(void)p;
	pr.cost = true;
	return 0;
}

void probes_need_esp(struct probes *p, bool esp)
{
	(void)p;
	pr.esp = esp;
}

int probes_attach(struct probes *p, const char *const *devs)
{
	(void)p;
	if (!devs[0] || devs[1] || !peer_dev_ok(devs[0]))
		abort();
	return pr.attached = 1 + pr.set + pr.esp;
}

void probes_detach(struct probes *p)
{
	(void)p;
	pr.attached = 0;
}

void probes_window(struct probes *p, int open)
{
	(void)p;
	pr.open = open;
}

void probes_load_mark(struct probes *p, int begin)
{
	(void)p;
	pr.open = begin;
}

bool probes_load_moved(struct probes *p)
{
	return p && pr.open;
}

int probes_nattached(const struct probes *p)
{
	return p ? pr.attached : 0;
}

/* record.c's, whose file needs the whole run: the busy seconds of each CPU of cpu (cpu.c, the real one) */
json_t *record_busy_per_cpu(const struct cpu_acct *cpu)
{
	json_t *a = json_array();

	for (int i = 0; i < cpu->ncpu; i++)
		json_array_append_new(a, json_real(cpu_busy_s(cpu, i)));
	return a;
}

json_t *probes_counters_json(struct probes *p, json_t *rec)
{
	(void)p;
	if (pr.cost)
		json_object_set_new(rec, "probe_cost", json_pack("{s:i}", "runs", pr.attached));
	json_object_set_new(rec, "probe_missed", json_pack("{s:i}", "window", pr.set));
	return json_pack("{s:{s:i, s:O}}", "esp_output", "count", pr.attached, "sa", json_object_get(rec, "sa"));
}

void probes_close(struct probes *p)
{
	(void)p;
	memset(&pr, 0, sizeof(pr));
}

/* ---- the target ---- */

/* The answers written since *from: exactly one line, a JSON object of an "ok" within what the run reads. */
static void check_answer(FILE *m, char **text, size_t *len, size_t *from)
{
	fflush(m);
	char *line = *text + *from, *nl = memchr(line, '\n', *len - *from);
	json_t *a;

	if (!nl || nl + 1 != *text + *len || (size_t)(nl - line) > REMOTE_ANSWER_MAX)
		abort();
	*nl = '\0';
	a = json_loads(line, 0, NULL);
	if (!json_is_object(a) || !json_is_boolean(json_object_get(a, "ok")))
		abort();
	*nl = '\n';
	json_decref(a);
	*from = *len;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd = open("/dev/null", O_RDWR);

	(void)argc, (void)argv;
	/* a session served for a pinned key reads stdin: here it ends at once */
	if (fd < 0 || dup2(fd, 0) < 0)
		abort();
	close(fd);
	return peer_agent_init() < 0 ? 1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char buf[LINE_MAX_];
	size_t have = 0, from = 0, len = 0, off = 0;
	char *text = NULL;
	FILE *m;
	json_t *req;

	if (size >= 2 && data[0] == '$' && data[1] == ' ') {
		const uint8_t *nl = memchr(data, '\n', size);
		size_t n = nl ? (size_t)(nl - data) : size;
		char *cmd = strndup((const char *)data + 2, n - 2);

		peer_agent_pinned(cmd);
		peer_agent_init(); /* a session served there ends the agent's state */
		free(cmd);
		off = nl ? n + 1 : size;
	}
	m = open_memstream(&text, &len);
	if (!m)
		return 0;
	peer_agent_answer_to(m);
	for (int k = 0; k < REQUESTS_MAX;) {
		if (!peer_request_take(buf, &have, &req)) {
			size_t n = size - off < sizeof(buf) - have ? size - off : sizeof(buf) - have;

			if (!n)
				break;
			memcpy(buf + have, data + off, n);
			have += n;
			off += n;
			continue;
		}
		k++;
		if (!req)
			continue; /* the loop answers it itself */
		peer_agent_dispatch(req);
		json_decref(req);
		check_answer(m, &text, &len, &from);
	}
	peer_agent_answer_to(NULL);
	fclose(m);
	free(text);
	explicit_bzero(buf, sizeof(buf));
	return 0;
}
