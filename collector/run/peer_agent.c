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
 * kinds (xfrm-state, xfrm-policy, modules) on the peer: the peer testbed
 * journals its changes there as remote-argv records running this. It exits
 * JOURNAL_LEFT_EXIT when the record cannot be undone safely (said on stderr).
 * At the end of stdin (the run ended, or ssh lost the connection) the agent
 * stops what it started and exits: nothing it made outlives the session.
 * A connection that hangs rather than closes (a link that went away) shows
 * no end of stdin: the agent also exits after AGENT_IDLE_S without a
 * request; the run sends "ping" every few seconds while it waits.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <linux/xfrm.h>
#include <netinet/in.h>
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
#include "ipsec.h"
#include "journal.h"
#include "exec.h"
#include "load.h"
#include "probes.h"
#include "remote.h"
#include "log.h"
#include "peer_agent.h"
#include "peer_files.h"
#include "peer_run.h"
#include "secret.h"
#include "setup.h"
#include "testbed_peer.h"
#include "version.h"
#include "xfrm.h"

#define AGENT_KEY_MAX 80
#define AGENT_IDLE_S 120
#define AGENT_MAX_LOADS 16 /* loads whose own requests the agent answers */
#define AGENT_LINE_MAX 65536 /* no request is longer: a longer line is not our peer */

static struct {
	pid_t rx;
	struct stream_rx *shm;
	struct cpu_acct cpu;
	bool cpu_open;
	struct probes *probes;
	void *load_state[AGENT_MAX_LOADS]; /* each load's own, for the requests it answers (loads.h: agent_ops) */
} ag = { .rx = -1 };

/* One answer line; one longer than the run reads (REMOTE_ANSWER_MAX) becomes an error. */
static void answer(json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT);

	if (s && strlen(s) > REMOTE_ANSWER_MAX) {
		free(s);
		s = strdup("{\"ok\":false,\"error\":\"the answer is longer than the run reads\"}");
	}
	if (s) {
		printf("%s\n", s);
		fflush(stdout);
	}
	free(s);
	json_decref(o);
}

static void answer_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void answer_err(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	answer(json_pack("{s:b, s:s}", "ok", 0, "error", buf));
}

static const char *str(json_t *req, const char *key)
{
	const char *v = json_string_value(json_object_get(req, key));

	return v ? v : "";
}

/* A request one of the loads answers (its receiver here): true when one did. */
static bool load_op(json_t *req, const char *op)
{
	for (int k = 0; load_kinds[k] && k < AGENT_MAX_LOADS; k++)
		for (const struct load_agent_op *o = load_kinds[k]->agent_ops; o && o->op; o++)
			if (!strcmp(op, o->op)) {
				answer(o->answer(req, &ag.load_state[k]));
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


static void op_stream_rx(json_t *req)
{
	const char *addr = str(req, "addr"), *peer = str(req, "peer"), *method = str(req, "method");
	const char *ao_alg = str(req, "ao_alg");
	json_t *jkey = json_object_get(req, "key");
	int port = (int)json_integer_value(json_object_get(req, "port"));
	json_t *jcpu = json_object_get(req, "cpu");
	int cpu = json_is_integer(jcpu) ? (int)json_integer_value(jcpu) : -1;
	uint8_t key[AGENT_KEY_MAX];
	int keylen = 0;

	rx_stop();
	if (method[0] && strcmp(method, "md5") && strcmp(method, "ao")) {
		answer_err("unknown TCP authentication method '%s'", method);
		return;
	}
	if (method[0]) {
		keylen = json_is_string(jkey) ? peer_hex_decode(json_string_value(jkey), key, sizeof(key)) : -1;
		/* the key's text lives in the request: wipe it as soon as it is decoded */
		if (json_is_string(jkey))
			explicit_bzero((char *)json_string_value(jkey), strlen(json_string_value(jkey)));
		if (keylen <= 0) {
			explicit_bzero(key, sizeof(key));
			answer_err("stream-rx: the key is missing or not hex");
			return;
		}
	}
	memset(ag.shm, 0, sizeof(*ag.shm));
	ag.rx = exec_fork(NULL, -1, NULL, 0);
	if (ag.rx == 0) {
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
		stream_receive(ag.shm, addr, port, peer, method, ao_alg, key, keylen);
	}
	explicit_bzero(key, sizeof(key));
	if (ag.rx < 0) {
		answer_err("fork: %s", strerror(errno));
		return;
	}
	for (int t = 0; t < 5000; t += 10) {
		if (atomic_load(&ag.shm->listening)) {
			answer(json_pack("{s:b, s:i}", "ok", 1, "pid", (int)ag.rx));
			return;
		}
		/* a look while waiting for the receiver's flag in shared memory */
		if (waitpid(ag.rx, NULL, WNOHANG) == ag.rx) {
			ag.rx = -1;
			break;
		}
		usleep(10000);
	}
	rx_stop();
	answer_err("%s", ag.shm->err[0] ? ag.shm->err : "the stream receiver did not listen within 5 s");
}

static void op_stream_bytes(void)
{
	/* one look: is it still running? (collector/lib/exec.c's waits block) */
	bool running = ag.rx > 0 && waitpid(ag.rx, NULL, WNOHANG) == 0;

	/* reaped (or gone): its pid is no longer ours to signal, and may be another process's soon */
	if (!running)
		ag.rx = -1;

	answer(json_pack("{s:b, s:I, s:b, s:s}", "ok", 1, "bytes", (json_int_t)atomic_load(&ag.shm->bytes),
			 "running", running, "error", ag.shm->err));
}

static void op_stream_stop(void)
{
	/* the sender has closed: give the receiver a moment to read to EOF */
	for (int i = 0; i < 200 && ag.rx > 0 && !atomic_load(&ag.shm->done); i++)
		usleep(10000);
	rx_stop();
	answer(json_pack("{s:b, s:I, s:s}", "ok", 1, "bytes", (json_int_t)atomic_load(&ag.shm->bytes),
			 "error", ag.shm->err));
}

static void op_hello(void)
{
	struct utsname u;

	uname(&u);
	answer(json_pack("{s:b, s:s, s:s, s:s, s:i, s:f, s:i}", "ok", 1, "version", IPSECPERF_VERSION, "git",
			 IPSECPERF_GITDESC, "kernel", u.release, "ncpu", cpu_count(), "tsc_hz", tsc_hz(), "pid", (int)getpid()));
}

static void op_setup(json_t *req)
{
	const char *dev = str(req, "dev"), *alg = str(req, "alg");

	if (*alg)
		answer(json_pack("{s:b, s:o}", "ok", 1, "crypto", setup_crypto(alg)));
	else
		answer(json_pack("{s:b, s:o}", "ok", 1, "setup", setup_collect(*dev ? &dev : NULL, *dev ? 1 : 0)));
}

static void op_tcp_auth_check(json_t *req)
{
	char why[256] = "";
	int rc = tcp_auth_probe(str(req, "method"), str(req, "ao_alg"), why, sizeof(why));

	answer(json_pack("{s:b, s:b, s:s}", "ok", 1, "can", rc == 0, "why", why));
}

static void answer_sas(json_t *ans, json_t *req);

static void op_cpu(json_t *req, bool start)
{
	const char *method;

	if (start) {
		json_t *ans = json_pack("{s:b}", "ok", 1);

		if (!ag.cpu_open)
			cpu_open(&ag.cpu);
		ag.cpu_open = true;
		if (ag.probes)
			probes_window(ag.probes, 1);
		answer_sas(ans, req); /* next to the probes' snapshot */
		cpu_start(&ag.cpu);
		answer(ans);
		return;
	}
	if (!ag.cpu_open) {
		answer_err("cpu-stop without cpu-start");
		return;
	}
	cpu_stop(&ag.cpu);
	if (ag.probes)
		probes_window(ag.probes, 0);
	uint64_t cycles = cpu_cycles(&ag.cpu, &method);
	json_t *ans = json_pack("{s:b, s:f, s:f, s:I, s:s}", "ok", 1, "busy_s", cpu_busy_s(&ag.cpu, -1), "window_s",
				cpu_window_s(&ag.cpu), "cycles", (json_int_t)cycles, "method", method);

	answer_sas(ans, req);
	answer(ans);
}

static int family_of(json_t *req)
{
	return json_integer_value(json_object_get(req, "family")) == 6 ? AF_INET6 : AF_INET;
}

/* An answer to run that it did not run the program (the run may ask ssh), and why. */
static void not_run(const char *why)
{
	answer(json_pack("{s:b, s:b, s:s}", "ok", 0, "ran", 0, "error", why));
}

/*
 * One program from an argv, if it is one the peer testbed runs
 * (peer_run_allowed), within PEER_RUN_DEADLINE_MS and with its output
 * capped as it is read; the answer is measured as it is sent
 * (peer_run_answer) and says whether the program ran, so that the run asks
 * ssh only for what did not.
 */
static void op_run(json_t *req)
{
	json_t *ja = json_object_get(req, "argv");
	size_t n = json_array_size(ja);
	char **argv = n && n < 64 ? calloc(n + 1, sizeof(*argv)) : NULL;
	struct exec_limits lim = { .max_out = REMOTE_ANSWER_MAX, .deadline_ms = PEER_RUN_DEADLINE_MS };
	struct exec_result res;
	char why[600], *line;

	if (!argv) {
		not_run("run: \"argv\" is not a list of 1 to 63 words");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		argv[i] = (char *)json_string_value(json_array_get(ja, i));
		if (!argv[i]) {
			free(argv);
			not_run("run: \"argv\" holds something that is not a string");
			return;
		}
	}
	if (peer_run_allowed(argv, (int)n, why, sizeof(why)) < 0) {
		free(argv);
		not_run(why);
		return;
	}
	/* the files the testbed reads: read here, not by a program */
	int st = !strcmp(argv[0], "cat") ? peer_files_cat(argv + 1, (int)n - 1, lim.max_out, &res)
					  : exec_run_limited(NULL, argv, &lim, &res);

	free(argv);
	line = peer_run_answer(&(struct peer_run_output){ .status = st, .out = res.out ?: "", .out_len = res.out_len,
							   .err = res.err ?: "", .err_len = res.err_len,
							   .too_long = res.too_long, .timed_out = res.timed_out });
	free(res.out);
	free(res.err);
	if (line)
		printf("%s\n", line);
	else
		answer_err("run: out of memory");
	fflush(stdout);
	free(line);
}

static void op_modules(void)
{
	FILE *f = fopen("/proc/modules", "r");
	json_t *a = json_array();
	char line[512], name[128];

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s", name) == 1)
			json_array_append_new(a, json_string(name));
	if (f)
		fclose(f);
	/* no /proc/modules: a kernel without modules, nothing loads on demand */
	answer(json_pack("{s:b, s:o}", "ok", 1, "loaded", f ? a : (json_decref(a), json_null())));
}

static void op_kmod(json_t *req)
{
	int ref = 0;
	enum kmod_state st = kmod_state(str(req, "name"), &ref);

	answer(json_pack("{s:b, s:s, s:i}", "ok", 1, "state", kmod_state_name(st), "refcnt", ref));
}

static void pol_spec(json_t *req, struct xfrm_pol_spec *p)
{
	*p = (struct xfrm_pol_spec){ .family = family_of(req), .proto = IPPROTO_ESP,
				     .tunnel = json_is_true(json_object_get(req, "tunnel")),
				     .dir = !strcmp(str(req, "dir"), "in") ? XFRM_POLICY_IN : XFRM_POLICY_OUT };
	snprintf(p->src, sizeof(p->src), "%s", str(req, "src"));
	snprintf(p->dst, sizeof(p->dst), "%s", str(req, "dst"));
}

static void op_policy_add(json_t *req)
{
	struct xfrm_pol_spec p;
	char kmsg[200] = "";
	int err;

	pol_spec(req, &p);
	err = xfrm_policy_add(NULL, &p, kmsg, sizeof(kmsg));
	answer(json_pack("{s:b, s:i, s:s}", "ok", 1, "err", err, "kmsg", kmsg));
}

/* Is a policy with this selector and direction there? err 0 yes, -ENOENT no. */
static void op_policy_get(json_t *req)
{
	struct xfrm_pol_spec p;
	int there;

	pol_spec(req, &p);
	there = xfrm_policy_exists(NULL, &p);
	answer(json_pack("{s:b, s:i}", "ok", 1, "err", there == 1 ? 0 : there == 0 ? -ENOENT : there));
}

static void op_sa_add(json_t *req)
{
	struct xfrm_sa_spec s = { .family = family_of(req), .proto = IPPROTO_ESP,
				  .spi = (uint32_t)json_integer_value(json_object_get(req, "spi")),
				  .tunnel = json_is_true(json_object_get(req, "tunnel")) };
	json_t *jkey = json_object_get(req, "key");
	uint8_t key[2 * XFRM_KEY_MAX];
	char kmsg[200] = "";
	int klen, err;

	snprintf(s.src, sizeof(s.src), "%s", str(req, "src"));
	snprintf(s.dst, sizeof(s.dst), "%s", str(req, "dst"));
	snprintf(s.enc, sizeof(s.enc), "%s", str(req, "enc"));
	snprintf(s.auth, sizeof(s.auth), "%s", str(req, "auth"));
	snprintf(s.aead, sizeof(s.aead), "%s", str(req, "aead"));
	s.enc_key_bits = (int)json_integer_value(json_object_get(req, "enc_key_bits"));
	s.auth_key_bits = (int)json_integer_value(json_object_get(req, "auth_key_bits"));
	s.auth_icv_bits = (int)json_integer_value(json_object_get(req, "auth_icv_bits"));
	s.aead_key_bits = (int)json_integer_value(json_object_get(req, "aead_key_bits"));
	s.aead_icv_bits = (int)json_integer_value(json_object_get(req, "aead_icv_bits"));
	klen = json_is_string(jkey) ? peer_hex_decode(json_string_value(jkey), key, sizeof(key)) : -1;
	if (json_is_string(jkey))
		explicit_bzero((char *)json_string_value(jkey), strlen(json_string_value(jkey)));
	if (klen < 0 || (size_t)klen != xfrm_sa_key_len(&s)) {
		explicit_bzero(key, sizeof(key));
		answer_err("sa-add: the key is missing, not hex or not %zu bytes", xfrm_sa_key_len(&s));
		return;
	}
	err = xfrm_sa_add(NULL, &s, key, kmsg, sizeof(kmsg));
	explicit_bzero(key, sizeof(key));
	answer(json_pack("{s:b, s:i, s:s}", "ok", 1, "err", err, "kmsg", kmsg));
}

/* One SA's counters, as sa-get answers them (req: its family, dst and spi). */
static json_t *sa_counters(json_t *req)
{
	struct xfrm_sa_counters c = { 0 };
	int err = json_is_object(req) ? xfrm_sa_get(NULL, family_of(req), str(req, "dst"),
						   (uint32_t)json_integer_value(json_object_get(req, "spi")),
						   IPPROTO_ESP, &c)
				       : -EINVAL;

	return json_pack("{s:b, s:i, s:I, s:I, s:I, s:I}", "ok", 1, "err", err, "packets", (json_int_t)c.packets,
			 "bytes", (json_int_t)c.bytes, "oseq", (json_int_t)c.oseq, "seq", (json_int_t)c.seq);
}

static void op_sa_get(json_t *req)
{
	answer(sa_counters(req));
}

/* cpu-start and cpu-stop's "sa": those SAs' counters, read now, in order (at most AGENT_SA_MAX). */
#define AGENT_SA_MAX 64
static void answer_sas(json_t *ans, json_t *req)
{
	json_t *list = json_object_get(req, "sa"), *out, *s;
	size_t i;

	if (!json_is_array(list) || json_array_size(list) > AGENT_SA_MAX)
		return;
	out = json_array();
	json_array_foreach(list, i, s)
		json_array_append_new(out, sa_counters(s));
	json_object_set_new(ans, "sa", out);
}

/* The BPF programs loaded, once: --probe-set and --probe-cost as the run asks. */
static void probes_ready(json_t *req)
{
	if (ag.probes)
		return;
	ag.probes = probes_open();
	int set = probe_set_parse(str(req, "set"));

	if (set < 0)
		set = json_is_false(json_object_get(req, "kprobes")) ? PROBE_SET_TRACEPOINTS : PROBE_SET_DEFAULT;
	probes_set_set(ag.probes, set);
	if (json_is_true(json_object_get(req, "cost")))
		probes_stats_enable(ag.probes);
}

static void op_probes_attach(json_t *req)
{
	const char *dev = str(req, "dev");

	probes_ready(req);
	/* the set of this attach: a counting repeat's differs from the throughput repeats' */
	if (probe_set_parse(str(req, "set")) >= 0)
		probes_set_set(ag.probes, probe_set_parse(str(req, "set")));
	/* an older run says nothing: attach the ESP programs as before */
	probes_need_esp(ag.probes, !json_is_false(json_object_get(req, "esp")));
	probes_attach(ag.probes, (const char *const[]){ dev, NULL });
	answer(json_pack("{s:b, s:i}", "ok", 1, "attached", probes_nattached(ag.probes)));
}

static void op_probes_counters(json_t *req)
{
	json_t *sa = json_object_get(req, "sa"), *sa_load = json_object_get(req, "sa_load");
	json_t *rec = json_pack("{s:o}", "sa", json_is_array(sa) ? json_deep_copy(sa) : json_array());

	if (json_is_array(sa_load))
		json_object_set_new(rec, "sa_load", json_deep_copy(sa_load));

	if (!ag.probes) {
		json_decref(rec);
		answer_err("probes-counters before probes-attach");
		return;
	}
	json_t *a = json_pack("{s:b, s:o}", "ok", 1, "counters", probes_counters_json(ag.probes, rec));

	/* --probe-cost: what the kernel timed of the programs here; and the runs it skipped */
	if (json_object_get(rec, "probe_cost"))
		json_object_set(a, "probe_cost", json_object_get(rec, "probe_cost"));
	if (json_object_get(rec, "probe_missed"))
		json_object_set(a, "probe_missed", json_object_get(rec, "probe_missed"));
	answer(a);
	json_decref(rec);
}

/* --undo RECORD: one journal record of ipsec.c's kinds, undone here. */
int peer_agent_undo(const char *text)
{
	json_t *r = json_loads(text, 0, NULL);
	const char *kind = json_string_value(json_object_get(r, "kind"));
	int err;

	if (!kind || (strcmp(kind, "xfrm-state") && strcmp(kind, "xfrm-policy") && strcmp(kind, "modules"))) {
		pr_warn("peer-agent: --undo takes an xfrm-state, xfrm-policy or modules record, not '%s'", text);
		json_decref(r);
		return EXIT_USAGE;
	}
	err = journal_undo_one(r);
	json_decref(r);
	return err == JOURNAL_LEFT ? JOURNAL_LEFT_EXIT : err ? EXIT_FAIL : EXIT_OK;
}

/* One request, answered: the op it names, or an error for one we do not know. */
static void dispatch(json_t *req)
{
	const char *op = str(req, "op");

	if (!strcmp(op, "ping"))
		answer(json_pack("{s:b}", "ok", 1));
	else if (!strcmp(op, "hello"))
		op_hello();
	else if (!strcmp(op, "tcp-auth-check"))
		op_tcp_auth_check(req);
	else if (!strcmp(op, "cpu-start"))
		op_cpu(req, true);
	else if (!strcmp(op, "cpu-stop"))
		op_cpu(req, false);
	else if (!strcmp(op, "stream-rx"))
		op_stream_rx(req);
	else if (!strcmp(op, "stream-bytes"))
		op_stream_bytes();
	else if (!strcmp(op, "stream-stop"))
		op_stream_stop();
	else if (!strcmp(op, "modules"))
		op_modules();
	else if (!strcmp(op, "kmod"))
		op_kmod(req);
	else if (!strcmp(op, "policy-add"))
		op_policy_add(req);
	else if (!strcmp(op, "policy-get"))
		op_policy_get(req);
	else if (!strcmp(op, "sa-add"))
		op_sa_add(req);
	else if (!strcmp(op, "sa-get"))
		op_sa_get(req);
	else if (!strcmp(op, "probes-open")) {
		probes_ready(req);
		answer(json_pack("{s:b}", "ok", 1));
	} else if (!strcmp(op, "probes-attach"))
		op_probes_attach(req);
	else if (!strcmp(op, "probes-detach")) {
		if (ag.probes)
			probes_detach(ag.probes);
		answer(json_pack("{s:b}", "ok", 1));
	} else if (!strcmp(op, "load-mark")) {
		probes_load_mark(ag.probes, json_is_true(json_object_get(req, "begin")));
		answer(json_pack("{s:b}", "ok", 1));
	} else if (!strcmp(op, "load-moved")) {
		answer(json_pack("{s:b, s:b}", "ok", 1, "moved", probes_load_moved(ag.probes)));
	} else if (!strcmp(op, "probes-counters"))
		op_probes_counters(req);
	else if (!strcmp(op, "run"))
		op_run(req);
	else if (!strcmp(op, "setup"))
		op_setup(req);
	else if (!load_op(req, op))
		answer_err("unknown request '%s'", op);
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

/* The agent's shared state and its secret line buffer; NULL (said why) on failure. */
static char *agent_open(void)
{
	char *line;

	/* the parent (sshd's session) may go away: we see it as the end of stdin */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	ag.shm = mmap(NULL, sizeof(*ag.shm), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ag.shm == MAP_FAILED) {
		pr_warn("peer-agent: mmap: %s", strerror(errno));
		return NULL;
	}
	memset(ag.shm, 0, sizeof(*ag.shm));
	/*
	 * Any request may hold a key: the line buffer is a secret area (out of
	 * core dumps, wiped; and the agent not dumpable while it lives), and
	 * what jansson frees of a request is wiped first.
	 */
	peer_json_wipe_frees();
	line = secret_alloc(AGENT_LINE_MAX);
	if (!line) {
		pr_warn("peer-agent: mmap: %s", strerror(errno));
		munmap(ag.shm, sizeof(*ag.shm));
		return NULL;
	}
	return line;
}

/* Everything the agent started or holds, stopped and freed. */
static void agent_close(char *line)
{
	secret_free(line, AGENT_LINE_MAX);
	rx_stop();
	loads_end();
	probes_close(ag.probes);
	if (ag.cpu_open)
		cpu_close(&ag.cpu);
	munmap(ag.shm, sizeof(*ag.shm));
}

int peer_agent_serve(void)
{
	char *line = agent_open();
	size_t have = 0;

	if (!line)
		return EXIT_FAIL;
	for (;;) {
		json_t *req;

		if (!peer_request_take(line, &have, &req)) {
			if (!read_more(line, &have))
				break;
			continue;
		}
		if (!req) {
			answer_err("a request that is not a JSON object");
			continue;
		}
		dispatch(req);
		json_decref(req);
	}
	agent_close(line);
	return EXIT_OK;
}
