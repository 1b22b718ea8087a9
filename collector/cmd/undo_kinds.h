/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kind of journal record, and which module undoes it: the journal
 * (host/) knows only its own kinds, so the table is made here, at the top,
 * where every module is known. main() registers it before any command.
 */
#ifndef IPSECPERF_UNDO_KINDS_H
#define IPSECPERF_UNDO_KINDS_H

void undo_kinds_register(void);

#endif
