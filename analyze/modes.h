/* SPDX-License-Identifier: GPL-2.0 */
/* A group whose throughput splits in two modes, said as a note naming its runs (modes.c). */
#ifndef IPSECPERF_MODES_H
#define IPSECPERF_MODES_H

#include "notes.h"
#include "results.h"

/*
 * When g's throughput runs split in two modes (stats_modes), a note
 * "modes" naming each mode's median and its runs; side ("base", "new")
 * or NULL. 1 when it said so, 0 when not, -1 out of memory.
 */
int modes_note(struct notes *ns, const struct results *r, const struct run_group *g, const char *side);

#endif
