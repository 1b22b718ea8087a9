// SPDX-License-Identifier: GPL-2.0
#include "secret.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>

/* No threads hold keys: the fork()ed children get their own copy of these. */
static int holders;
static int dumpable_before = -1;

void secret_hold(void)
{
	if (holders++ == 0) {
		dumpable_before = prctl(PR_GET_DUMPABLE);
		prctl(PR_SET_DUMPABLE, 0);
	}
}

void secret_release(void)
{
	if (holders == 0 || --holders > 0)
		return;
	if (dumpable_before > 0)
		prctl(PR_SET_DUMPABLE, dumpable_before);
}

void *secret_alloc(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	/* madvise cannot fail on a mapping of our own; mlock may (RLIMIT_MEMLOCK): swap is the lesser risk */
	madvise(p, len, MADV_DONTDUMP);
	mlock(p, len);
	secret_hold();
	return p;
}

void secret_free(void *p, size_t len)
{
	if (!p)
		return;
	explicit_bzero(p, len);
	munlock(p, len);
	munmap(p, len);
	secret_release();
}
