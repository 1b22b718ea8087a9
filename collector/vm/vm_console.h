/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Following a guest's console (vm_console.c): its lines as qemu writes
 * them to a file, the guest's marks (vm_guest.h) with the time each was
 * seen, a kernel panic, and the last lines, to quote when a boot fails.
 */
#ifndef IPSECPERF_VM_CONSOLE_H
#define IPSECPERF_VM_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>

#define TAIL_LINES 15

struct console {
	int fd;
	char partial[1024];
	size_t plen;
	char tail[TAIL_LINES][256];
	int ntail, next;
	double t_init, t_start, t_first, t_done; /* host seconds since qemu start; 0 unseen */
	double cpu_init, cpu_first; /* CPU seconds qemu had used by then; 0 unseen */
	bool panic;
	double t_panic;
	char panic_line[256];
};

/* Read what the console has grown by; its lines are seen at t (host seconds since qemu started). */
void console_poll(struct console *c, double t);

/* The last console lines, one per line, indented, into a new string (the caller frees it). */
char *console_tail(struct console *c);

#endif
