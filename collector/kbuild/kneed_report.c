// SPDX-License-Identifier: GPL-2.0
/* What a kernel configuration lacks for the VM testbed, and what that costs. */
#include "kbuild.h"

#include <stdio.h>
#include <string.h>

#include "kconfig.h"
#include "scenario.h"

static const char *cost_of(enum kneed_who who)
{
	switch (who) {
	case KNEED_BOOT:
		return "the guest cannot boot or send its results: every run";
	case KNEED_TESTBED:
		return "no testbed in the guest: every run";
	case KNEED_PROBES:
		return "the probe counters that need it";
	case KNEED_PAIR:
		return "the vm-pair testbed: every run there";
	case KNEED_SPEED:
		return "nothing measured, only how fast the guest boots or what meta.json can say";
	default:
		return "";
	}
}

int kbuild_report_missing(const struct kconfig *kc, const struct scenario *scs, int nsc, FILE *f,
			  enum kreport which)
{
	int costly = 0;

	for (const struct kneed *k = kneeds; k->name; k++) {
		char why[128] = "", lost[512] = "";

		if ((which == KREPORT_BOOT && k->who != KNEED_BOOT) || (which == KREPORT_PAIR && k->who != KNEED_PAIR) ||
		    (which == KREPORT_COSTLY && (k->who == KNEED_SPEED || k->who == KNEED_PAIR)))
			continue;
		if (k->who != KNEED_SCENARIO) {
			if (kneed_ok(kc, k, NULL, why, sizeof(why)))
				continue;
			fprintf(f, "  CONFIG_%s %s (%s): costs %s\n", k->name, why, k->what, cost_of(k->who));
			costly += k->who == KNEED_BOOT || k->who == KNEED_TESTBED || k->who == KNEED_PAIR;
			continue;
		}
		for (int i = 0; i < nsc; i++) {
			char w[128];

			if (!kneed_needed_by(k, &scs[i]) || kneed_ok(kc, k, &scs[i], w, sizeof(w)))
				continue;
			if (!*why)
				snprintf(why, sizeof(why), "%s", w);
			snprintf(lost + strlen(lost), sizeof(lost) - strlen(lost), "%s%s", *lost ? ", " : "",
				 scs[i].name);
		}
		if (!*lost)
			continue;
		fprintf(f, "  CONFIG_%s %s (%s): costs %s\n", k->name, why, k->what, lost);
		costly++;
	}
	return costly;
}
