// SPDX-License-Identifier: GPL-2.0
/*
 * Opening the probe set, and loading its BPF object once the set is known
 * (probes_set_set): the cheapest variant of the xmit program this kernel
 * accepts, or none. libbpf's messages go to stderr with -v.
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipsecperf.skel.h"
#include "log.h"
#include "probes.h"
#include "probes_int.h"

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && log_verbose < 2)
		return 0;
	if (log_verbose < 1)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

struct probes *probes_open(void)
{
	struct probes *p = calloc(1, sizeof(*p));
	const char *backend;

	if (!p)
		return NULL;
	libbpf_set_print(libbpf_print);
	p->ncpus = libbpf_num_possible_cpus();
	p->stats_fd = -1;
	for (int c = 0; c < IPP_NR_COUNTERS; c++)
		probes_set_how(p, c, false, "not attached");
	backend = getenv("IPSECPERF_PROBE_BACKEND");
	p->raw_tp = backend && !strcmp(backend, "raw-tp");
	if (backend && !strcmp(backend, "perf")) {
		p->force_perf = true;
		snprintf(p->nobpf, sizeof(p->nobpf), "BPF not used ($IPSECPERF_PROBE_BACKEND=perf)");
	}
	return p; /* the BPF object is loaded by probes_set_set, for the sets that run programs */
}

/*
 * The BPF object, loaded once the set is known: --probe-set kernel runs
 * no program, so it loads nothing (half a second of a guest's boot under
 * TCG), and a set without the xmit program leaves all its variants out,
 * so that a kernel that refuses the cheapest one (6.1: no
 * bpf_rdonly_cast) does not verify the whole object twice.
 */
static void probes_load(struct probes *p, bool xmit)
{
	int err = 0;

	p->load_tried = true;
	/* the cheapest variant of the xmit program that this kernel accepts (ipsecperf.bpf.c) */
	for (int v = p->raw_tp || !xmit ? XMIT_RAW : XMIT_CAST; v <= XMIT_RAW; v++) {
		p->skel = ipsecperf_bpf__open();
		if (!p->skel) {
			snprintf(p->nobpf, sizeof(p->nobpf), "cannot open the BPF object: %s", strerror(errno));
			return;
		}
		bpf_program__set_autoload(p->skel->progs.xmit_cast, xmit && v == XMIT_CAST);
		bpf_program__set_autoload(p->skel->progs.xmit_btf, xmit && v == XMIT_BTF);
		bpf_program__set_autoload(p->skel->progs.xmit, xmit && v == XMIT_RAW);
		p->xmit = v;
		err = ipsecperf_bpf__load(p->skel);
		if (!err || v == XMIT_RAW)
			break;
		ipsecperf_bpf__destroy(p->skel);
	}
	if (err) {
		snprintf(p->nobpf, sizeof(p->nobpf), "the kernel refused to load the BPF programs: %s%s",
			 strerror(-err), err == -EPERM ? " (needs root or CAP_BPF+CAP_PERFMON)" : "");
		ipsecperf_bpf__destroy(p->skel);
		p->skel = NULL;
		return;
	}
	if (p->ncpus <= 0) {
		snprintf(p->nobpf, sizeof(p->nobpf), "cannot count the possible CPUs");
		ipsecperf_bpf__destroy(p->skel);
		p->skel = NULL;
	}
}

void probes_set_set(struct probes *p, enum probe_set set)
{
	if (!p)
		return;
	p->set = set;
	if (set != PROBE_SET_KERNEL && !p->force_perf && !p->load_tried)
		probes_load(p, set == PROBE_SET_ALL || set == PROBE_SET_TRACEPOINTS || p->list);
}
