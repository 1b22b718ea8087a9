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
 *   cpu-start, cpu-stop       CPU accounting of the whole host for one window
 *   stream-rx                 start the built-in stream's receiver ("addr", "peer",
 *                             "port", "method", "ao_alg", "key" in hex)
 *   stream-bytes              bytes received so far
 *   stream-stop               stop the receiver; bytes received in all
 * At the end of stdin (the run ended, or ssh lost the connection) the agent
 * stops what it started and exits: nothing it made outlives the session.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "cpu.h"
#include "exec.h"
#include "load.h"
#include "log.h"
#include "testbed_peer.h"
#include "version.h"

const char help_peer_agent[] =
	"usage: ipsecperf peer-agent\n"
	"\n"
	"The peer testbed's helper on the far host. `ipsecperf run --testbed\n"
	"peer` starts it through ssh; it is not meant to be run by hand. It\n"
	"reads one JSON request per line on stdin (keys included: they never\n"
	"appear on a command line) and answers one JSON object per line. At the\n"
	"end of its input it stops what it started and exits.\n";

#define AGENT_KEY_MAX 80
#define RX_BUF (128 * 1024)

struct rx_shm {
	_Atomic uint64_t bytes;
	_Atomic int listening, done, stop;
	char err[200];
};

static struct {
	pid_t rx;
	struct rx_shm *shm;
	struct cpu_acct cpu;
	bool cpu_open;
} ag = { .rx = -1 };

int peer_hex_decode(const char *hex, uint8_t *out, size_t max)
{
	size_t n = strlen(hex);

	if (n % 2 || n / 2 > max)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned int v;
		char two[3] = { hex[2 * i], hex[2 * i + 1], '\0' };

		if (!strchr("0123456789abcdefABCDEF", two[0]) || !strchr("0123456789abcdefABCDEF", two[1]) ||
		    !two[0] || !two[1] || sscanf(two, "%2x", &v) != 1)
			return -1;
		out[i] = (uint8_t)v;
	}
	return (int)(n / 2);
}

static void answer(json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT);

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

static void rx_stop(void)
{
	if (ag.rx > 0) {
		atomic_store(&ag.shm->stop, 1);
		exec_stop(ag.rx, 2000);
	}
	ag.rx = -1;
}

static int sockaddr_of(const char *addr, int port, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons(port);
		*len = sizeof(*in4);
		return AF_INET;
	}
	if (inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		*len = sizeof(*in6);
		return AF_INET6;
	}
	return -1;
}

/* The receiver's child: like load_stream.c's, counting into the shared page. */
static void rx_child(const char *addr, const char *peer, int port, const char *method, const char *ao_alg,
		     uint8_t *key, int keylen)
{
	struct rx_shm *shm = ag.shm;
	struct sockaddr_storage ss;
	socklen_t sl;
	int fam = sockaddr_of(addr, port, &ss, &sl), one = 1, lfd, fd = -1;
	char *buf = malloc(RX_BUF);

	lfd = fam < 0 ? -1 : socket(fam, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || !buf) {
		snprintf(shm->err, sizeof(shm->err), "receiver socket for %s: %s", addr, strerror(errno));
		_exit(1);
	}
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&ss, sl) < 0) {
		snprintf(shm->err, sizeof(shm->err), "receiver bind %s:%d: %s", addr, port, strerror(errno));
		_exit(1);
	}
	if (method[0] && set_tcp_key(lfd, method, ao_alg, peer, key, keylen) < 0) {
		snprintf(shm->err, sizeof(shm->err), "receiver: setting the TCP-%s key: %s",
			 !strcmp(method, "md5") ? "MD5" : "AO", strerror(errno));
		_exit(1);
	}
	explicit_bzero(key, AGENT_KEY_MAX);
	if (listen(lfd, 1) < 0) {
		snprintf(shm->err, sizeof(shm->err), "receiver listen: %s", strerror(errno));
		_exit(1);
	}
	atomic_store(&shm->listening, 1);
	while (fd < 0) {
		struct pollfd pfd = { lfd, POLLIN, 0 };

		if (poll(&pfd, 1, 200) > 0)
			fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (atomic_load(&shm->stop))
			_exit(0);
	}
	close(lfd);
	for (;;) {
		ssize_t n = recv(fd, buf, RX_BUF, 0);

		if (n > 0) {
			atomic_fetch_add_explicit(&shm->bytes, n, memory_order_relaxed);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			snprintf(shm->err, sizeof(shm->err), "receiver recv: %s", strerror(errno));
		break;
	}
	atomic_store(&shm->done, 1);
	_exit(shm->err[0] ? 1 : 0);
}

static void op_stream_rx(json_t *req)
{
	const char *addr = str(req, "addr"), *peer = str(req, "peer"), *method = str(req, "method");
	const char *ao_alg = str(req, "ao_alg");
	json_t *jkey = json_object_get(req, "key");
	int port = (int)json_integer_value(json_object_get(req, "port"));
	uint8_t key[AGENT_KEY_MAX];
	int keylen = 0;
	pid_t parent = getpid();

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
	ag.rx = fork();
	if (ag.rx == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(125);
		signal(SIGPIPE, SIG_DFL);
		rx_child(addr, peer, port, method, ao_alg, key, keylen);
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
	bool running = ag.rx > 0 && waitpid(ag.rx, NULL, WNOHANG) == 0;

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
	answer(json_pack("{s:b, s:s, s:s, s:i, s:f, s:i}", "ok", 1, "version", IPSECPERF_VERSION, "kernel",
			 u.release, "ncpu", cpu_count(), "tsc_hz", tsc_hz(), "pid", (int)getpid()));
}

static void op_tcp_auth_check(json_t *req)
{
	char why[256] = "";
	int rc = tcp_auth_probe(str(req, "method"), str(req, "ao_alg"), why, sizeof(why));

	answer(json_pack("{s:b, s:b, s:s}", "ok", 1, "can", rc == 0, "why", why));
}

static void op_cpu(bool start)
{
	const char *method;

	if (start) {
		if (!ag.cpu_open)
			cpu_open(&ag.cpu);
		ag.cpu_open = true;
		cpu_start(&ag.cpu);
		answer(json_pack("{s:b}", "ok", 1));
		return;
	}
	if (!ag.cpu_open) {
		answer_err("cpu-stop without cpu-start");
		return;
	}
	cpu_stop(&ag.cpu);
	uint64_t cycles = cpu_cycles(&ag.cpu, &method);

	answer(json_pack("{s:b, s:f, s:f, s:I, s:s}", "ok", 1, "busy_s", cpu_busy_s(&ag.cpu, -1), "window_s",
			 cpu_window_s(&ag.cpu), "cycles", (json_int_t)cycles, "method", method));
}

int cmd_peer_agent(int argc, char **argv)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	(void)argv;
	if (argc > 1) {
		pr_warn("peer-agent: takes no arguments; it is started by `ipsecperf run --testbed peer`");
		return EXIT_USAGE;
	}
	/* the parent (sshd's session) may go away: we see it as the end of stdin */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	ag.shm = mmap(NULL, sizeof(*ag.shm), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ag.shm == MAP_FAILED) {
		pr_warn("peer-agent: mmap: %s", strerror(errno));
		return EXIT_FAIL;
	}
	memset(ag.shm, 0, sizeof(*ag.shm));
	while ((n = getline(&line, &cap, stdin)) > 0) {
		json_t *req = json_loads(line, 0, NULL);
		const char *op;

		explicit_bzero(line, n);
		if (!req) {
			answer_err("a request that is not JSON");
			continue;
		}
		op = str(req, "op");
		if (!strcmp(op, "hello"))
			op_hello();
		else if (!strcmp(op, "tcp-auth-check"))
			op_tcp_auth_check(req);
		else if (!strcmp(op, "cpu-start"))
			op_cpu(true);
		else if (!strcmp(op, "cpu-stop"))
			op_cpu(false);
		else if (!strcmp(op, "stream-rx"))
			op_stream_rx(req);
		else if (!strcmp(op, "stream-bytes"))
			op_stream_bytes();
		else if (!strcmp(op, "stream-stop"))
			op_stream_stop();
		else
			answer_err("unknown request '%s'", op);
		json_decref(req);
	}
	free(line);
	rx_stop();
	if (ag.cpu_open)
		cpu_close(&ag.cpu);
	munmap(ag.shm, sizeof(*ag.shm));
	return EXIT_OK;
}
