// SPDX-License-Identifier: GPL-2.0
/*
 * The loads behind one entry (load.h): the scenario's load picks iperf3
 * (load_iperf3.c) or the built-in stream (load_stream_run.c, over the
 * sockets of load_stream.c). Here, so that neither load file calls the other.
 */
#include <string.h>

#include "endpoint_xfrm.h"
#include "load.h"

int load_check(const struct scenario *sc, char *why, size_t len)
{
	if (!sc->tcp_auth.method[0])
		return 0;
	return tcp_auth_probe(sc->tcp_auth.method, sc->tcp_auth.ao_alg, why, len) ? 1 : 0;
}

int load_check_at(const struct endpoint *e, const struct scenario *sc, char *why, size_t len)
{
	if (!sc->tcp_auth.method[0])
		return 0;
	return ep_tcp_auth_check(e, sc->tcp_auth.method, sc->tcp_auth.ao_alg, tcp_auth_probe, why, len);
}

const char *const load_direction_names[3] = { "tx", "rx", "both" };

double load_fairness(const struct load_flow *f, int n)
{
	double sum = 0, sq = 0;

	for (int i = 0; i < n; i++) {
		sum += f[i].throughput_bps;
		sq += f[i].throughput_bps * f[i].throughput_bps;
	}
	return n > 0 && sq > 0 ? sum * sum / (n * sq) : 0;
}

int load_run(const struct load_params *p, struct load_result *r)
{
	if (p->sc && !strcmp(p->sc->load, "stream"))
		return load_stream(p, r);
	return load_iperf3(p, r);
}
