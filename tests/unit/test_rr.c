// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the request/response engine's two ends (collector/run/rr.c)
 * and the UDP rate engine's (collector/run/udp_rate.c), each in forked
 * children over this namespace's loopback, as the loads run them.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "rr.h"
#include "udp_rate.h"

static void sleep_ms(int ms)
{
	nanosleep(&(struct timespec){ .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L }, NULL);
}

static void *shared(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	memset(p, 0, n);
	return p;
}

static int wait_set(_Atomic int *flag, int ms)
{
	for (int t = 0; t < ms; t += 5, sleep_ms(5))
		if (atomic_load(flag))
			return 0;
	return -1;
}

/* fork(), the child killed when this test dies (a failed assert longjmps past its waitpid). */
static pid_t fork_child(void)
{
	pid_t p = fork();

	if (p == 0)
		prctl(PR_SET_PDEATHSIG, SIGKILL);
	return p;
}

static int port_base(void)
{
	return 20000 + getpid() % 20000;
}

/* One kind end to end: a warm-up, a measured window, the stop; the counts and the histogram agree. */
static void run_kind(enum rr_kind k, int req, int resp, int port)
{
	struct rr_server *sv = shared(sizeof(*sv));
	struct rr_client *cl = shared(sizeof(*cl));
	struct rr_spec s = { .kind = k, .req = req, .resp = resp };
	pid_t ps, pc;
	int st;

	if ((ps = fork_child()) == 0)
		rr_serve(sv, &s, "127.0.0.1", port);
	assert_int_equal(wait_set(&sv->listening, 5000), 0);
	if ((pc = fork_child()) == 0)
		rr_request(cl, &s, "127.0.0.1", "127.0.0.1", port);
	assert_int_equal(wait_set(&cl->ready, 5000), 0);
	sleep_ms(100);
	uint64_t warm = atomic_load(&cl->transactions);

	atomic_store(&cl->phase, RR_MEASURE);
	sleep_ms(300);
	atomic_store(&cl->phase, RR_STOP);
	assert_int_equal(waitpid(pc, &st, 0), pc);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	atomic_store(&sv->stop, 1);
	assert_int_equal(waitpid(ps, &st, 0), ps);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* the warm-up's transactions are not in the histogram; the measured ones all are */
	assert_true(warm > 0);
	assert_true(cl->measured > 10);
	assert_true(cl->measured < cl->transactions - warm + 1);
	assert_int_equal(cl->hist.count, cl->measured);
	assert_true(cl->hist.min > 0 && cl->hist.max >= cl->hist.min);
	assert_true(sv->served >= cl->transactions);
	assert_int_equal(cl->lost_all, 0);
	assert_string_equal(cl->err, "");
	munmap(sv, sizeof(*sv));
	munmap(cl, sizeof(*cl));
}

static void tcp_rr(void **state)
{
	(void)state;
	run_kind(RR_TCP, 1, 1, port_base());
	/* a request and a response of other sizes, the response over several segments */
	run_kind(RR_TCP, 100, 70000, port_base() + 1);
}

static void tcp_crr(void **state)
{
	(void)state;
	run_kind(RR_TCP_CRR, 1, 1, port_base() + 2);
}

static void udp_rr(void **state)
{
	(void)state;
	run_kind(RR_UDP, 1, 1, port_base() + 3);
	run_kind(RR_UDP, 1400, 64, port_base() + 4);
}

/* No responder: udp-rr counts lost transactions and goes on; tcp-rr fails, saying why. */
static void nobody_answers(void **state)
{
	struct rr_client *cl = shared(sizeof(*cl));
	struct rr_spec s = { .kind = RR_UDP, .req = 1, .resp = 1 };
	pid_t pc;
	int st, port = port_base() + 5;

	(void)state;
	atomic_store(&cl->phase, RR_MEASURE);
	if ((pc = fork_child()) == 0)
		rr_request(cl, &s, "127.0.0.1", "127.0.0.1", port);
	sleep_ms(200);
	atomic_store(&cl->phase, RR_STOP);
	assert_int_equal(waitpid(pc, &st, 0), pc);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_true(cl->lost > 0);
	assert_int_equal(cl->transactions, 0);
	assert_int_equal(cl->hist.count, 0);
	memset(cl, 0, sizeof(*cl));
	s.kind = RR_TCP;
	if ((pc = fork_child()) == 0)
		rr_request(cl, &s, "127.0.0.1", "127.0.0.1", port);
	assert_int_equal(waitpid(pc, &st, 0), pc);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	assert_non_null(strstr(cl->err, "Connection refused"));
	munmap(cl, sizeof(*cl));
}

/* Wait until the receiver's count of a step stops moving (the step drained). */
static uint64_t drained(struct udp_rx *rx, int slot)
{
	uint64_t last = UINT64_MAX;

	for (int i = 0; i < 100 && atomic_load(&rx->received[slot]) != last; i++) {
		last = atomic_load(&rx->received[slot]);
		sleep_ms(30);
	}
	return last;
}

/* Two steps, as the search runs them: as fast as it can, then paced; each counted apart. */
static void udp_rate_steps(void **state)
{
	struct udp_tx *tx = shared(sizeof(*tx));
	struct udp_rx *rx = shared(sizeof(*rx));
	pid_t ps, pr;
	int st, port = port_base() + 6; /* here: port_base() in a child is another pid's */

	(void)state;
	if ((pr = fork_child()) == 0)
		udp_rate_receive(rx, "127.0.0.1", port);
	assert_int_equal(wait_set(&rx->listening, 5000), 0);
	if ((ps = fork_child()) == 0)
		udp_rate_send(tx, "127.0.0.1", "127.0.0.1", port, 64);
	assert_int_equal(wait_set(&tx->ready, 5000), 0);
	/* step 0: unlimited */
	atomic_store(&tx->step, 0);
	atomic_store(&tx->pps, 0);
	atomic_store(&tx->go, UDP_SEND);
	sleep_ms(100);
	assert_int_equal(udp_rate_pause(tx, 5000), 0);
	uint64_t sent0 = atomic_load(&tx->sent[0]), got0 = drained(rx, 0);

	assert_true(sent0 > 1000);
	assert_true(got0 > 0 && got0 <= sent0);
	/* step 1: 20,000 datagrams/s for 300 ms: about 6,000 */
	atomic_store(&tx->step, 1);
	atomic_store(&tx->pps, 20000);
	atomic_store(&tx->go, UDP_SEND);
	sleep_ms(300);
	assert_int_equal(udp_rate_pause(tx, 5000), 0);
	uint64_t sent1 = atomic_load(&tx->sent[1]), got1 = drained(rx, 1);

	assert_true(sent1 > 6000 * 0.7 && sent1 < 6000 * 1.3);
	/* what a starved receiver loses is the host's: only that some came, and never more than went */
	assert_true(got1 <= sent1 && got1 > 0);
	/* step 0's count did not move once it was over */
	assert_int_equal(atomic_load(&rx->received[0]), got0);
	assert_int_equal(atomic_load(&rx->total), got0 + got1);
	/* it has found its queue empty since: what a step's drain waits for */
	assert_true(atomic_load(&rx->empty_seq) > 0);
	atomic_store(&tx->go, UDP_QUIT);
	assert_int_equal(waitpid(ps, &st, 0), ps);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	atomic_store(&rx->stop, 1);
	assert_int_equal(waitpid(pr, &st, 0), pr);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	munmap(tx, sizeof(*tx));
	munmap(rx, sizeof(*rx));
}

static void spec_bounds(void **state)
{
	char why[200];

	(void)state;
	assert_int_equal(rr_spec_check(&(struct rr_spec){ RR_UDP, 1, 65507 }, why, sizeof(why)), 0);
	assert_int_equal(rr_spec_check(&(struct rr_spec){ RR_UDP, 1, 65508 }, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "udp-rr"));
	assert_int_equal(rr_spec_check(&(struct rr_spec){ RR_TCP, 0, 1 }, why, sizeof(why)), -1);
	assert_int_equal(rr_spec_check(&(struct rr_spec){ RR_TCP_CRR, 65508, 1 << 20 }, why, sizeof(why)), 0);
	assert_int_equal(rr_kind_of("tcp-crr"), RR_TCP_CRR);
	assert_int_equal(rr_kind_of("TCP_CRR"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tcp_rr),
		cmocka_unit_test(tcp_crr),
		cmocka_unit_test(udp_rr),
		cmocka_unit_test(nobody_answers),
		cmocka_unit_test(udp_rate_steps),
		cmocka_unit_test(spec_bounds),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests_name("request/response and UDP rate engines", tests, NULL, NULL);
}
