// SPDX-License-Identifier: GPL-2.0
/*
 * Before a kernel boots: does its .config have what the guest needs to
 * boot and report, and what will the chosen scenarios lose?
 */
#include "vm_preflight.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbuild.h"
#include "kconfig.h"
#include "log.h"
#include "run.h"
#include "testbed_ops.h"

int vm_preflight(const struct run_config *cfg, const struct vm_kernel *k, char *why, size_t wlen)
{
	struct kconfig kc;
	char *boot = NULL, *lost = NULL, err[512];
	size_t blen = 0, llen = 0;
	FILE *fb, *fl;
	int nboot = 0, rc = 0;

	if (!*k->config || kconfig_read(k->config, &kc, err, sizeof(err)) < 0)
		return 0; /* nothing to check against: the guest will tell */
	fb = open_memstream(&boot, &blen);
	fl = open_memstream(&lost, &llen);
	if (fb && fl) {
		nboot = kbuild_report_missing(&kc, NULL, 0, fb, KREPORT_BOOT);
		if (run_vm_pair(cfg))
			nboot += kbuild_report_missing(&kc, NULL, 0, fb, KREPORT_PAIR);
		kbuild_report_missing(&kc, cfg->scenarios, cfg->nscenarios, fl, KREPORT_COSTLY);
	}
	if (fb)
		fclose(fb);
	if (fl)
		fclose(fl);
	if (nboot > 0) {
		pr_warn("vm: %s cannot boot in the VM testbed; its configuration %s lacks:\n%s", k->release,
			k->config, boot);
		snprintf(why, wlen, "vm: %s's configuration lacks what the guest needs to boot and report (%.*s)",
			 k->release, (int)strcspn(boot + strspn(boot, " "), "("), boot + strspn(boot, " "));
		rc = -1;
	} else if (lost && *lost && !cfg->quiet) {
		pr_info("vm: %s: its configuration lacks (`ipsecperf kernel show` says the same):\n%s",
			k->release, lost);
	}
	free(boot);
	free(lost);
	kconfig_free(&kc);
	return rc;
}
