// SPDX-License-Identifier: GPL-2.0
/*
 * A program for test_probes' DWARF tests (probes/kdwarf.c), built -O2 -g
 * as a kernel is: inner() is inlined twice into outer(), and each copy
 * calls target() once; outer() also calls target() itself. So outer's
 * code holds three calls to target, one inside each inlined instance.
 */
#include <stdio.h>
#include <string.h>

__attribute__((noipa)) void *target(void *d, const void *s, size_t n)
{
	return memmove(d, s, n);
}

static inline __attribute__((always_inline)) int inner(char *b, int n)
{
	if (n > 4)
		target(b, b + 1, (size_t)n);
	return n * 3 + b[0];
}

__attribute__((noipa)) int outer(char *b, int n)
{
	int r;

	target(b + 2, b, (size_t)n);
	r = inner(b, n);
	r += inner(b + 8, n + 1);
	return r;
}

int main(int argc, char **argv)
{
	char buf[64] = "0123456789abcdefghijklmnopqrstuvwxyz";

	(void)argv;
	printf("%d\n", outer(buf, argc + 5));
	return 0;
}
