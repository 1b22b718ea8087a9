// SPDX-License-Identifier: GPL-2.0
/*
 * ipsecperf peer-agent: the peer testbed's helper on the far host, started
 * through ssh by `ipsecperf run --testbed peer`. It reads one JSON request
 * per line on stdin and answers one JSON object per line on stdout, so that
 * what must stay secret (TCP-MD5/AO keys) travels inside the ssh channel and
 * never on a command line, where the peer's process table would show it.
 *
 * Requests ({"op": ...}):
 *   hello                     version, kernel, CPUs, TSC Hz
 *   tcp-auth-check            can this kernel do TCP-MD5/AO ("method", "ao_alg")
 *   cpu-start, cpu-stop       CPU accounting of the whole host for one window; with
 *                             "sa" (sa-get requests) those SAs' counters too, read
 *                             next to the probes' snapshot
 *   stream-rx                 start the built-in stream's receiver ("addr", "peer",
 *                             "port", "method", "ao_alg", "key" in hex, "cpu" or -1)
 *   stream-bytes              bytes received so far
 *   stream-stop               stop the receiver; bytes received in all
 *   modules, kmod             loaded modules; one module's state ("name")
 *   policy-add, sa-add        an xfrm policy or SA (xfrm.c; the SA's key in hex)
 *   policy-get, sa-get        is that policy there ("err" 0, or -ENOENT); an SA's counters
 *   probes-open               the BPF programs loaded ahead of the first attach ("set", "cost")
 *   probes-attach, -detach    the probes on "dev" (probes/): "set" (--probe-set's
 *                             name), "esp" (the scenario has SAs), "cost"; their
 *                             window opens and closes with cpu-start and cpu-stop
 *   load-mark                 the probes' snapshot at the whole load's edges ("begin":
 *                             true before it, false after it, once the links are quiet)
 *   load-moved                have the probes counted on since the load's end ("moved")
 *   probes-counters           the window's counters ("sa": the peer's SAs, for the bases;
 *                             "sa_load": the same over the whole load)
 *   enclink-exists, -add,     an encrypted link's device (enclink.h): is one there, make
 *   -peer, -get               it ("key" in hex), make the other end its peer, its counters
 *   setup                     this host's set-up as found (setup.h), with the NIC "dev";
 *                             with "alg", only the crypto drivers serving that algorithm
 *   (a load's own)            the requests a load's entry answers (loads.h, agent_ops):
 *                             its receiver here, as rr-serve starts the request/response
 *                             loads' responder
 *   run                       one program ("argv", no shell) of those the peer testbed
 *                             runs (peer_run_allowed) to its end: "status", "out",
 *                             "err", as ssh would run it (endpoint.c), without an ssh
 *                             connection each; "ran" says whether it ran. `cat` of
 *                             the files the testbed reads is read here (peer_files.h)
 * `ipsecperf peer-agent --undo RECORD` undoes one journal record of ipsec.c's
 * kinds (xfrm-state, xfrm-policy, modules) or an encrypted link's (enclink) on the peer: the peer testbed
 * journals its changes there as remote-argv records running this. It exits
 * JOURNAL_LEFT_EXIT when the record cannot be undone safely (said on stderr).
 * Started for a key pinned to it, it serves what that key was asked for
 * instead (peer_agent_ssh.c).
 * At the end of stdin (the run ended, or ssh lost the connection) the agent
 * stops what it started and exits: nothing it made outlives the session.
 * An input that ends before its first request is an error: nothing asked
 * for was done (a pinned key whose SSH_ORIGINAL_COMMAND did not come).
 * A connection that hangs rather than closes (a link that went away) shows
 * no end of stdin: the agent also exits after AGENT_IDLE_S without a
 * request; the run sends "ping" every few seconds while it waits.
 */
#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpu.h"
#include "enclink.h"
#include "journal.h"
#include "wait.h"
#include "exec.h"
#include "load.h"
#include "log.h"
#include "matrix.h"
#include "peer_agent.h"
#include "peer_agent_int.h"
#include "peer_run.h"
#include "probes.h"
#include "remote.h"
#include "secret.h"
#include "setup.h"
#include "testbed_peer.h"
#include "version.h"

#define AGENT_KEY_MAX 80
#define AGENT_IDLE_S 120
#define AGENT_MAX_LOADS 16 /* loads whose own requests the agent answers */
#define AGENT_LINE_MAX 65536 /* no request is longer: a longer line is not our peer */

static struct {
	pid_t rx;               /* the stream's receiver, or -1 */
	struct stream_rx *shm;  /* what it shares with us */
	struct cpu_acct cpu;
	bool cpu_open;
	struct probes *probes;
	void *load_state[AGENT_MAX_LOADS]; /* each load's own, for the requests it answers (loads.h: agent_ops) */
} ag = { .rx = -1 };

/* A request one of the loads answers (its receiver here): true when one did. */
static bool load_op(json_t *req, const char *op)
{
	for (int k = 0; load_kinds[k] && k < AGENT_MAX_LOADS; k++)
		for (const struct load_agent_op *o = load_kinds[k]->agent_ops; o && o->op; o++)
			if (!strcmp(op, o->op)) {
				agent_answer(o->answer(req, &ag.load_state[k]));
				return true;
			}
	return false;
}

/* The end: every load stops what it started here. */
static void loads_end(void)
{
	for (int k = 0; load_kinds[k] && k < AGENT_MAX_LOADS; k++)
		if (load_kinds[k]->agent_end)
			load_kinds[k]->agent_end(&ag.load_state[k]);
}

static void rx_stop(void)
{
	if (ag.rx > 0) {
		atomic_store(&ag.shm->stop, 1);
		exec_stop(ag.rx, 2000);
	}
	ag.rx = -1;
}

/* stream-rx's key, decoded into key (AGENT_KEY_MAX): its length, or -1. The request's text of it is wiped. */
static int stream_key(json_t *req, uint8_t *key)
{
	json_t *jkey = json_object_get(req, "key");
	int n = json_is_string(jkey) ? peer_hex_decode(json_string_value(jkey), key, AGENT_KEY_MAX) : -1;

	if (json_is_string(jkey))
		explicit_bzero((char *)json_string_value(jkey), strlen(json_string_value(jkey)));
	return n;
}

/* The receiver, forked: pinned to cpu (-1: not), then stream_receive() on port; never returns. */
static _Noreturn void rx_child(json_t *req, int port, int cpu, uint8_t *key, int keylen)
{
	signal(SIGPIPE, SIG_DFL);
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0) {
			snprintf(ag.shm->err, sizeof(ag.shm->err), "receiver: pinning to CPU %d: %s", cpu,
				 strerror(errno));
			_exit(1);
		}
	}
	stream_receive(ag.shm, agent_str(req, "addr"), port,
		       agent_str(req, "peer"), agent_str(req, "method"), agent_str(req, "ao_alg"), key, keylen);
}

/* 1: the receiver listens (its flag in shared memory); -1: it ended (reaped, no longer ours); 0: not yet. */
static int rx_listening(void *arg)
{
	(void)arg;
	if (atomic_load(&ag.shm->listening))
		return 1;
	if (!wait_child_ended(ag.rx, NULL))
		return 0;
	ag.rx = -1;
	return -1;
}

/* 1 once the receiver has read to EOF (or is gone). */
static int rx_done(void *arg)
{
	(void)arg;
	return ag.rx <= 0 || atomic_load(&ag.shm->done);
}

static void op_stream_rx(json_t *req)
{
	const char *method = agent_str(req, "method");
	int port = peer_req_port(req), cpu = peer_req_cpu(req);
	uint8_t key[AGENT_KEY_MAX];
	int keylen = 0;

	rx_stop();
	if (port < 0 || cpu < -1) {
		stream_key(req, key); /* wiped, as every key */
		explicit_bzero(key, sizeof(key));
		if (port < 0)
			agent_answer_err("stream-rx: \"port\" is not a port from %d to 65535", PEER_PORT_MIN);
		else
			agent_answer_err("stream-rx: \"cpu\" is not a CPU of this host");
		return;
	}
	if (method[0] && strcmp(method, "md5") && strcmp(method, "ao")) {
		char m[24];

		agent_answer_err("unknown TCP authentication method '%s'", agent_shown(method, m, sizeof(m)));
		return;
	}
	if (method[0] && (keylen = stream_key(req, key)) <= 0) {
		explicit_bzero(key, sizeof(key));
		agent_answer_err("stream-rx: the key is missing or not hex");
		return;
	}
	memset(ag.shm, 0, sizeof(*ag.shm));
	ag.rx = exec_fork(NULL, -1, NULL, 0);
	if (ag.rx == 0)
		rx_child(req, port, cpu, key, keylen);
	explicit_bzero(key, sizeof(key));
	if (ag.rx < 0) {
		agent_answer_err("fork: %s", strerror(errno));
		return;
	}
	if (wait_until(rx_listening, NULL, 5000, 10) == 1) {
		agent_answer(json_pack("{s:b, s:i}", "ok", 1, "pid", (int)ag.rx));
		return;
	}
	rx_stop();
	agent_answer_err("%s", ag.shm->err[0] ? ag.shm->err : "the stream receiver did not listen within 5 s");
}

static void op_stream_bytes(json_t *req)
{
	/* one look: is it still running? (collector/lib/exec.c's waits block) */
	bool running = ag.rx > 0 && !wait_child_ended(ag.rx, NULL);

	(void)req;
	/* reaped (or gone): its pid is no longer ours to signal, and may be another process's soon */
	if (!running)
		ag.rx = -1;
	agent_answer(json_pack("{s:b, s:I, s:b, s:s}", "ok", 1, "bytes", (json_int_t)atomic_load(&ag.shm->bytes),
			       "running", running, "error", ag.shm->err));
}

static void op_stream_stop(json_t *req)
{
	(void)req;
	/* the sender has closed: give the receiver a moment to read to EOF */
	wait_until(rx_done, NULL, 2000, 10);
	rx_stop();
	agent_answer(json_pack("{s:b, s:I, s:s}", "ok", 1, "bytes", (json_int_t)atomic_load(&ag.shm->bytes),
			       "error", ag.shm->err));
}

static void op_ping(json_t *req)
{
	(void)req;
	agent_answer(json_pack("{s:b}", "ok", 1));
}

static void op_hello(json_t *req)
{
	struct utsname u;

	(void)req;
	uname(&u);
	agent_answer(json_pack("{s:b, s:s, s:s, s:s, s:i, s:f, s:i}", "ok", 1, "version", IPSECPERF_VERSION, "git",
			       IPSECPERF_GITDESC, "kernel", u.release, "ncpu", cpu_count(), "tsc_hz", tsc_hz(), "pid",
			       (int)getpid()));
}

static void op_setup(json_t *req)
{
	const char *dev = agent_str(req, "dev"), *alg = agent_str(req, "alg");

	/* a device's name: it goes into paths under /sys/class/net and ethtool's ioctls */
	if (*dev && !peer_dev_ok(dev)) {
		agent_answer_err("setup: \"dev\" is not a network device's name");
		return;
	}
	if (*alg)
		agent_answer(json_pack("{s:b, s:o}", "ok", 1, "crypto", setup_crypto(alg)));
	else
		agent_answer(json_pack("{s:b, s:o}", "ok", 1, "setup", setup_collect(*dev ? &dev : NULL, *dev ? 1 : 0)));
}

static void op_tcp_auth_check(json_t *req)
{
	char why[256] = "";
	int rc = tcp_auth_probe(agent_str(req, "method"), agent_str(req, "ao_alg"), why, sizeof(why));

	agent_answer(json_pack("{s:b, s:b, s:s}", "ok", 1, "can", rc == 0, "why", why));
}

static void op_cpu_start(json_t *req)
{
	json_t *ans = json_pack("{s:b}", "ok", 1);

	if (!ag.cpu_open)
		cpu_open(&ag.cpu);
	ag.cpu_open = true;
	if (ag.probes)
		probes_window(ag.probes, 1);
	agent_answer_sas(ans, req); /* next to the probes' snapshot */
	cpu_start(&ag.cpu);
	agent_answer(ans);
}

static void op_cpu_stop(json_t *req)
{
	const char *method;

	if (!ag.cpu_open) {
		agent_answer_err("cpu-stop without cpu-start");
		return;
	}
	cpu_stop(&ag.cpu);
	if (ag.probes)
		probes_window(ag.probes, 0);
	uint64_t cycles = cpu_cycles(&ag.cpu, &method);
	json_t *ans = json_pack("{s:b, s:f, s:f, s:I, s:s, s:o}", "ok", 1, "busy_s", cpu_busy_s(&ag.cpu, -1), "window_s",
				cpu_window_s(&ag.cpu), "cycles", (json_int_t)cycles, "method", method,
				"busy_per_cpu", record_busy_per_cpu(&ag.cpu));

	agent_answer_sas(ans, req);
	agent_answer(ans);
}

/* The BPF programs loaded, once: --probe-set and --probe-cost as the run asks. */
static void probes_ready(json_t *req)
{
	if (ag.probes)
		return;
	ag.probes = probes_open();
	int set = probe_set_parse(agent_str(req, "set"));

	if (set < 0)
		set = json_is_false(json_object_get(req, "kprobes")) ? PROBE_SET_TRACEPOINTS : PROBE_SET_DEFAULT;
	probes_set_set(ag.probes, set);
	if (json_is_true(json_object_get(req, "cost")))
		probes_stats_enable(ag.probes);
}

static void op_probes_open(json_t *req)
{
	probes_ready(req);
	agent_answer(json_pack("{s:b}", "ok", 1));
}

static void op_probes_attach(json_t *req)
{
	const char *dev = agent_str(req, "dev");

	/* a device's name: it goes into netlink and a tracefs filter ("name == \"DEV\"") */
	if (!peer_dev_ok(dev)) {
		agent_answer_err("probes-attach: \"dev\" is not a network device's name");
		return;
	}
	probes_ready(req);
	if (!ag.probes) {
		agent_answer_err("probes-attach: out of memory");
		return;
	}
	/* the set of this attach: a counting repeat's differs from the throughput repeats' */
	if (probe_set_parse(agent_str(req, "set")) >= 0)
		probes_set_set(ag.probes, probe_set_parse(agent_str(req, "set")));
	/* an older run says nothing: attach the ESP programs as before */
	probes_need_esp(ag.probes, !json_is_false(json_object_get(req, "esp")));
	probes_attach(ag.probes, (const char *const[]){ dev, NULL });
	agent_answer(json_pack("{s:b, s:i}", "ok", 1, "attached", probes_nattached(ag.probes)));
}

static void op_probes_detach(json_t *req)
{
	(void)req;
	if (ag.probes)
		probes_detach(ag.probes);
	agent_answer(json_pack("{s:b}", "ok", 1));
}

static void op_load_mark(json_t *req)
{
	probes_load_mark(ag.probes, json_is_true(json_object_get(req, "begin")));
	agent_answer(json_pack("{s:b}", "ok", 1));
}

static void op_load_moved(json_t *req)
{
	(void)req;
	agent_answer(json_pack("{s:b, s:b}", "ok", 1, "moved", probes_load_moved(ag.probes)));
}

static void op_probes_counters(json_t *req)
{
	json_t *sa = json_object_get(req, "sa"), *sa_load = json_object_get(req, "sa_load"), *rec, *a;

	if (!ag.probes) {
		agent_answer_err("probes-counters before probes-attach");
		return;
	}
	rec = json_pack("{s:o}", "sa", json_is_array(sa) ? json_deep_copy(sa) : json_array());
	if (json_is_array(sa_load))
		json_object_set_new(rec, "sa_load", json_deep_copy(sa_load));
	a = json_pack("{s:b, s:o}", "ok", 1, "counters", probes_counters_json(ag.probes, rec));
	/* --probe-cost: what the kernel timed of the programs here; and the runs it skipped */
	if (json_object_get(rec, "probe_cost"))
		json_object_set(a, "probe_cost", json_object_get(rec, "probe_cost"));
	if (json_object_get(rec, "probe_missed"))
		json_object_set(a, "probe_missed", json_object_get(rec, "probe_missed"));
	agent_answer(a);
	json_decref(rec);
}

/* --undo RECORD: one journal record of ipsec.c's kinds, undone here. */
int peer_agent_undo(const char *text)
{
	json_t *r = json_loads(text, 0, NULL);
	const char *kind = json_string_value(json_object_get(r, "kind"));
	int err;

	if (!kind || (strcmp(kind, "xfrm-state") && strcmp(kind, "xfrm-policy") && strcmp(kind, "modules") &&
		      strcmp(kind, "enclink"))) {
		pr_warn("peer-agent: --undo takes an xfrm-state, xfrm-policy, modules or enclink record, not '%.200s'", text);
		json_decref(r);
		return EXIT_USAGE;
	}
	err = journal_undo_one(r);
	json_decref(r);
	return err == JOURNAL_LEFT ? JOURNAL_LEFT_EXIT : err ? EXIT_FAIL : EXIT_OK;
}

/* An encrypted link's device here (enclink.h): its kind's requests. */
static void op_enclink(json_t *req)
{
	agent_answer(enclink_agent_answer(req));
}

/* The requests ({"op": name}), each answered with one line. */
static const struct {
	const char *op;
	void (*fn)(json_t *req);
} ops[] = {
	{ "ping", op_ping },
	{ "hello", op_hello },
	{ "tcp-auth-check", op_tcp_auth_check },
	{ "cpu-start", op_cpu_start },
	{ "cpu-stop", op_cpu_stop },
	{ "stream-rx", op_stream_rx },
	{ "stream-bytes", op_stream_bytes },
	{ "stream-stop", op_stream_stop },
	{ "modules", agent_op_modules },
	{ "kmod", agent_op_kmod },
	{ "policy-add", agent_op_policy_add },
	{ "policy-get", agent_op_policy_get },
	{ "sa-add", agent_op_sa_add },
	{ "sa-get", agent_op_sa_get },
	{ "probes-open", op_probes_open },
	{ "probes-attach", op_probes_attach },
	{ "probes-detach", op_probes_detach },
	{ "load-mark", op_load_mark },
	{ "load-moved", op_load_moved },
	{ "probes-counters", op_probes_counters },
	{ "run", agent_op_run },
	{ "setup", op_setup },
	{ "enclink-exists", op_enclink },
	{ "enclink-add", op_enclink },
	{ "enclink-peer", op_enclink },
	{ "enclink-get", op_enclink },
};

void peer_agent_dispatch(json_t *req)
{
	const char *op = agent_str(req, "op");
	char o[101];

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(op, ops[i].op)) {
			ops[i].fn(req);
			return;
		}
	if (!load_op(req, op))
		agent_answer_err("unknown request '%s'", agent_shown(op, o, sizeof(o)));
}

/*
 * More of stdin into the line buffer, which holds have bytes and no whole
 * request. Returns true to look for a request again, false when the agent
 * is to stop: stdin ended or failed, it stayed silent AGENT_IDLE_S, or the
 * buffer is full without a request in it.
 */
static bool read_more(char *line, size_t *have)
{
	struct pollfd pfd = { 0, POLLIN, 0 };
	ssize_t n;

	if (*have == AGENT_LINE_MAX)
		return false; /* no request is this long: not our peer */
	if (poll(&pfd, 1, AGENT_IDLE_S * 1000) <= 0)
		return false; /* the run is gone without closing our stdin */
	n = read(0, line + *have, AGENT_LINE_MAX - *have);
	if (n < 0 && errno == EINTR)
		return true;
	if (n <= 0)
		return false;
	*have += n;
	return true;
}

int peer_agent_init(void)
{
	if (ag.shm)
		return 0;
	/* the parent (sshd's session) may go away: we see it as the end of stdin */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	ag.shm = mmap(NULL, sizeof(*ag.shm), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ag.shm == MAP_FAILED) {
		ag.shm = NULL;
		pr_warn("peer-agent: mmap: %s", strerror(errno));
		return -1;
	}
	memset(ag.shm, 0, sizeof(*ag.shm));
	/* any request may hold a key: what jansson frees of one is wiped first */
	peer_json_wipe_frees();
	return 0;
}

void peer_agent_fini(void)
{
	rx_stop();
	loads_end();
	probes_close(ag.probes);
	ag.probes = NULL;
	if (ag.cpu_open)
		cpu_close(&ag.cpu);
	ag.cpu_open = false;
	if (ag.shm)
		munmap(ag.shm, sizeof(*ag.shm));
	ag.shm = NULL;
}

int peer_agent_serve(void)
{
	size_t have = 0, served = 0;
	char *line;

	if (peer_agent_init() < 0)
		return EXIT_FAIL;
	/*
	 * Any request may hold a key: the line buffer is a secret area (out of
	 * core dumps, wiped; and the agent not dumpable while it lives).
	 */
	line = secret_alloc(AGENT_LINE_MAX);
	if (!line) {
		pr_warn("peer-agent: mmap: %s", strerror(errno));
		peer_agent_fini();
		return EXIT_FAIL;
	}
	for (;;) {
		json_t *req;

		if (!peer_request_take(line, &have, &req)) {
			if (!read_more(line, &have))
				break;
			continue;
		}
		served++;
		if (!req) {
			agent_answer_err("a request that is not a JSON object");
			continue;
		}
		peer_agent_dispatch(req);
		json_decref(req);
	}
	secret_free(line, AGENT_LINE_MAX);
	peer_agent_fini();
	if (!served) {
		pr_warn("peer-agent: its input ended before any request, so nothing was done; if an ssh key is pinned to the agent (command= in authorized_keys), the command it was asked for did not reach it in SSH_ORIGINAL_COMMAND (under sudo, keep that variable: env_keep)");
		return EXIT_FAIL;
	}
	return EXIT_OK;
}
