// SPDX-License-Identifier: GPL-2.0
/*
 * A child waited for and stopped on request (collector/lib/exec.c's
 * exec_wait_stoppable, under bisect's steps and git bisect run): its own
 * status when no stop comes or when it ends within its grace, SIGKILL when
 * it does not; and collector/lib/log.c's log_tail, which prints a failed log's end.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "exec.h"
#include "files.h"
#include "log.h"
#include "clock.h"
#include "wait.h"

static int asked_times;

static bool never(const void *arg)
{
	(void)arg;
	return false;
}

static bool always(const void *arg)
{
	(void)arg;
	return true;
}

static void count_ask(const void *arg, pid_t pid)
{
	(void)arg;
	asked_times++;
	kill(pid, SIGTERM);
}

static pid_t start(const char *script)
{
	pid_t pid = exec_spawn((char *[]){ "sh", "-c", (char *)script, NULL },
			       &(struct spawn_opts){ .cpu = -1, .stdout_fd = -1, .stderr_fd = -1 });

	assert_true(pid > 0);
	return pid;
}

static void no_stop(void **state)
{
	struct exec_stopper s = { .stopping = never, .grace_ms = 1000, .late = "late" };
	bool stopped = true;

	(void)state;
	assert_int_equal(exec_wait_stoppable(start("exit 3"), &s, &stopped), 3);
	assert_false(stopped);
}

static void stopped_in_grace(void **state)
{
	struct exec_stopper s = { .stopping = always, .ask = count_ask, .grace_ms = 5000, .late = "late" };
	bool stopped = false;

	(void)state;
	asked_times = 0;
	assert_int_equal(exec_wait_stoppable(start("sleep 30"), &s, &stopped), 128 + SIGTERM);
	assert_true(stopped);
	assert_int_equal(asked_times, 1);
}

static void killed_after_grace(void **state)
{
	/* SIGTERM ignored: the child ends only by SIGKILL */
	struct exec_stopper s = { .stopping = always, .grace_ms = 200, .late = "test: killing it" };
	bool stopped = false;

	pid_t pid = start("trap '' TERM; sleep 30");

	(void)state;
	usleep(300 * 1000); /* the trap set */
	assert_int_equal(exec_wait_stoppable(pid, &s, &stopped), 128 + SIGKILL);
	assert_true(stopped);
}

/* What log_tail prints of text, n lines, read back from stderr. */
static char *tail_of(const char *text, int n, const char *indent)
{
	char in[] = "/tmp/test_exec.log.XXXXXX", out[] = "/tmp/test_exec.err.XXXXXX";
	int fd = mkstemp(in), efd = mkstemp(out), saved = dup(2);
	char *got;

	assert_true(fd >= 0 && efd >= 0 && saved >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	fflush(stderr);
	dup2(efd, 2);
	log_tail(in, n, indent);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(efd);
	got = file_read(out, NULL);
	unlink(in);
	unlink(out);
	assert_non_null(got);
	return got;
}

static int count_to_three(void *arg)
{
	int *n = arg;

	return ++*n >= 3 ? 7 : 0;
}

static int never_done(void *arg)
{
	(void)arg;
	return 0;
}

/* wait_until: the condition's own answer as soon as it has one, 0 at the deadline (and no sooner). */
static void wait_until_answers(void **state)
{
	int n = 0;
	double t0;

	(void)state;
	assert_int_equal(wait_until(count_to_three, &n, 5000, 1), 7);
	assert_int_equal(n, 3);
	t0 = mono_s();
	assert_int_equal(wait_until(never_done, NULL, 100, 10), 0);
	assert_true(mono_s() - t0 >= 0.1);
	assert_true(mono_s() - t0 < 5); /* bounds a hang only */
}

static pid_t child(bool ignore_term, int exit_after_ms)
{
	/* ignored before the fork, so that it is from the child's first instant */
	void (*old)(int) = signal(SIGTERM, ignore_term ? SIG_IGN : SIG_DFL);
	pid_t pid = fork();

	if (pid == 0) {
		wait_ms(exit_after_ms);
		_exit(3);
	}
	signal(SIGTERM, old);
	assert_true(pid > 0);
	return pid;
}

/*
 * wait_stop: a child that ends in its quiet time is not signalled; one
 * that ignores SIGTERM is killed; another process known by a start time
 * that is not its own (a reused pid) is never signalled.
 */
static void wait_stop_kinds(void **state)
{
	pid_t pid;

	(void)state;
	assert_int_equal(wait_stop(child(false, 50), &(struct wait_stop){ .quiet_ms = 5000, .grace_ms = 100 }), 3);
	assert_int_equal(wait_stop(child(false, 60000), &(struct wait_stop){ .grace_ms = 5000 }), 128 + SIGTERM);
	assert_int_equal(wait_stop(child(true, 60000), &(struct wait_stop){ .grace_ms = 100 }), 128 + SIGKILL);
	pid = child(false, 60000);
	assert_true(proc_starttime(pid) > 0);
	assert_int_equal(wait_stop(pid, &(struct wait_stop){ .grace_ms = 100,
							 .starttime = proc_starttime(pid) + 1 }), 0);
	assert_false(wait_child_ended(pid, NULL)); /* still running: not signalled */
	assert_int_equal(wait_stop(pid, &(struct wait_stop){ .grace_ms = 100 }), 128 + SIGTERM);
	assert_int_equal(wait_stop(-1, &(struct wait_stop){ 0 }), -1);
}

static void log_tail_lines(void **state)
{
	char *got;

	(void)state;
	got = tail_of("one\ntwo\nthree\nfour\n\n", 2, "    ");
	assert_string_equal(got, "    three\n    four\n");
	free(got);
	got = tail_of("one\ntwo", 5, "");
	assert_string_equal(got, "one\ntwo\n");
	free(got);
	got = tail_of("a\x1b[2Jb\n\xe2\x80\x98q\xe2\x80\x99\n", 2, "");
	assert_string_equal(got, "a?[2Jb\n\xe2\x80\x98q\xe2\x80\x99\n");
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_stop),
		cmocka_unit_test(stopped_in_grace),
		cmocka_unit_test(killed_after_grace),
		cmocka_unit_test(log_tail_lines),
		cmocka_unit_test(wait_until_answers),
		cmocka_unit_test(wait_stop_kinds),
	};

	return cmocka_run_group_tests_name("exec", tests, NULL, NULL);
}
