/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `run --tune`: this host set up for measuring for the run's length, as
 * pyperf's `system tune` does it: every CPU's cpufreq governor to
 * performance and boost (turbo) off. Each file is journaled with its value
 * before it is written, so the end of the run, Ctrl-C and `ipsecperf
 * cleanup` write the old values back. What it cannot set (no cpufreq, a
 * governor the driver lacks) it leaves as it is.
 */
#ifndef IPSECPERF_TUNE_H
#define IPSECPERF_TUNE_H

#include <jansson.h>
#include <stddef.h>

/*
 * Tune this host (journaled; in --dry-run print `echo VALUE > FILE` for
 * each change). Returns what was changed, [{"path", "from", "to"}...],
 * empty when nothing needed it; NULL with why when a write failed.
 */
json_t *tune_apply(char *why, size_t len);

/*
 * The journal's "sysfs" record {"path", "value"}: write value back. Only
 * the files tune_apply writes are taken (the record is input); 0 or -1.
 */
int tune_undo(json_t *r);

#endif
