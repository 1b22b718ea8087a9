// SPDX-License-Identifier: GPL-2.0
#include "pool.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "log.h"

bool pool_same_dir(const char *a, const char *b)
{
	struct stat sa, sb;

	if (!strcmp(a, b))
		return true;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int pool_load(char *const dirs[], int ndirs, struct results **src, int *nsrc, struct results *all)
{
	char err[1024];

	*nsrc = 0;
	memset(all, 0, sizeof(*all));
	*src = calloc(ndirs + 1, sizeof(**src));
	if (!*src) {
		pr_warn("out of memory");
		goto out_free;
	}
	if (ndirs > POOL_MAX_DIRS) {
		pr_warn("%s: at most %d results directories at once", dirs[POOL_MAX_DIRS], POOL_MAX_DIRS);
		goto out_free;
	}
	for (int i = 0; i < ndirs; i++) {
		struct results *r = &(*src)[i];

		if (results_load(dirs[i], r, err, sizeof(err)) < 0) {
			pr_warn("%s", err);
			goto out_free;
		}
		(*nsrc)++;
		/* the first run's start stands for the run's, when meta.json has none */
		if (!r->meta.created && r->runs[0].start)
			r->meta.created = strdup(r->runs[0].start);
		for (int j = 0; j < i; j++)
			if (pool_same_dir(dirs[i], dirs[j])) {
				pr_warn("%s: given twice", dirs[i]);
				goto out_free;
			}
		if (results_merge(all, r) < 0) {
			pr_warn("out of memory");
			goto out_free;
		}
	}
	return 0;
out_free:
	pool_free(*src, *nsrc, all);
	*src = NULL;
	*nsrc = 0;
	return -1;
}

void pool_free(struct results *src, int nsrc, struct results *all)
{
	for (int i = 0; i < nsrc; i++)
		results_free(&src[i]);
	free(src);
	results_free(all);
}

unsigned long long pool_group_sources(const struct results *all, const struct run_group *g)
{
	unsigned long long set = 0;

	for (int i = 0; i < g->n; i++)
		if (all->runs[g->idx[i]].source < POOL_MAX_DIRS)
			set |= 1ULL << all->runs[g->idx[i]].source;
	return set;
}
