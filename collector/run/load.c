// SPDX-License-Identifier: GPL-2.0
/*
 * What every load shares (load.h): the scenario's entry of the table of
 * loads (loads.c) and running it, the check at an endpoint, the flows'
 * fairness. Here, so that no load file calls another.
 */
#include <string.h>

#include "load.h"

const struct load_kind *load_of(const struct scenario *sc)
{
	const struct load_kind *k = sc ? load_find(sc->load) : NULL;

	return k ? k : load_kinds[0];
}

int load_check_at(const struct endpoint *e, const struct scenario *sc, char *why, size_t len)
{
	const struct load_kind *k = load_of(sc);

	return k->check_at ? k->check_at(e, sc, why, len) : 0;
}

const char *const load_direction_names[4] = { "tx", "rx", "both", NULL };

double load_fairness(const struct load_flow *f, int n)
{
	double sum = 0, sq = 0;

	for (int i = 0; i < n; i++) {
		sum += f[i].throughput_bps;
		sq += f[i].throughput_bps * f[i].throughput_bps;
	}
	return n > 0 && sq > 0 ? sum * sum / (n * sq) : 0;
}

int load_extra_s(const struct scenario *sc)
{
	const struct load_kind *k = load_of(sc);

	return k->extra_s ? k->extra_s(sc) : 0;
}

int load_run(const struct load_params *p, struct load_result *r)
{
	return load_of(p->sc)->run(p, r);
}
