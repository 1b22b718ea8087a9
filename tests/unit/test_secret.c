// SPDX-License-Identifier: GPL-2.0
/*
 * Keys out of core dumps (collector/lib/secret.c): while a key is held the
 * process is not dumpable, a secret area is marked "dd" (MADV_DONTDUMP) in
 * /proc/self/smaps, and releasing the last one makes the process dumpable
 * again. PR_SET_DUMPABLE 0 must not get in the way of what a run does
 * with /proc/self: entering a namespace through /proc/self/ns.
 */
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <cmocka.h>

#include "secret.h"

/* The VmFlags of the mapping that holds p, from /proc/self/smaps. */
static void vmflags_of(const void *p, char *flags, size_t len)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[256];
	int in = 0;

	assert_non_null(f);
	flags[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
		else if (in && !strncmp(line, "VmFlags:", 8))
			snprintf(flags, len, "%s", line + 8);
	}
	fclose(f);
}

static void area_and_dumpable(void **state)
{
	char flags[512];
	int before = prctl(PR_GET_DUMPABLE);
	unsigned char *a, *b;

	(void)state;
	assert_int_equal(before, 1);
	a = secret_alloc(100);
	assert_non_null(a);
	assert_int_equal((uintptr_t)a % sysconf(_SC_PAGESIZE), 0);
	for (int i = 0; i < 100; i++)
		assert_int_equal(a[i], 0);
	assert_int_equal(prctl(PR_GET_DUMPABLE), 0);
	vmflags_of(a, flags, sizeof(flags));
	if (!strstr(flags, " dd"))
		fail_msg("a secret area's VmFlags lack dd: '%s'", flags);

	/* nested: the process stays not dumpable until the last key goes */
	b = secret_alloc(5000);
	assert_non_null(b);
	secret_hold();
	secret_free(a, 100);
	assert_int_equal(prctl(PR_GET_DUMPABLE), 0);
	secret_release();
	assert_int_equal(prctl(PR_GET_DUMPABLE), 0);
	secret_free(b, 5000);
	assert_int_equal(prctl(PR_GET_DUMPABLE), before);

	/* a release too many changes nothing */
	secret_release();
	assert_int_equal(prctl(PR_GET_DUMPABLE), before);
}

static void proc_self_while_held(void **state)
{
	int fd;

	(void)state;
	secret_hold();
	fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	close(fd);
	secret_release();
}

/* As root: setns() through /proc/self while held (skipped without root). */
static void setns_while_held(void **state)
{
	int fd;

	(void)state;
	if (geteuid() != 0) {
		print_message("needs root (setns)\n");
		skip();
	}
	secret_hold();
	fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(setns(fd, CLONE_NEWNET), 0);
	close(fd);
	secret_release();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(area_and_dumpable),
		cmocka_unit_test(proc_self_while_held),
		cmocka_unit_test(setns_while_held),
	};

	return cmocka_run_group_tests_name("secret", tests, NULL, NULL);
}
