// SPDX-License-Identifier: GPL-2.0
/*
 * A guest's console, followed as qemu writes it to a file: each line
 * made printable, the guest's marks and a kernel panic noted with the
 * time they were seen, the last TAIL_LINES lines kept.
 */
#include "vm_console.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "vm_guest.h"

/* line: printable ASCII only (console_poll), so it may go into messages and records */
static void console_line(struct console *c, const char *line, double t)
{
	if (!*line)
		return;
	if (log_verbose >= 2)
		fprintf(stderr, "ipsecperf: debug: vm console %7.3f: %s\n", t, line);
	fmt_buf(c->tail[c->next], sizeof(c->tail[0]), "%s", line);
	c->next = (c->next + 1) % TAIL_LINES;
	if (c->ntail < TAIL_LINES)
		c->ntail++;
	if (strstr(line, MARK_INIT) && !c->t_init)
		c->t_init = t;
	else if (strstr(line, MARK_START) && !c->t_start)
		c->t_start = t;
	else if (strstr(line, MARK_FIRST_BYTE) && !c->t_first)
		c->t_first = t;
	else if (strstr(line, MARK_DONE) && !c->t_done)
		c->t_done = t;
	if (!c->panic && strstr(line, "Kernel panic")) {
		c->panic = true;
		fmt_buf(c->panic_line, sizeof(c->panic_line), "%s", line);
	}
}

void console_poll(struct console *c, double t)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(c->fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			char ch = buf[i];

			if (ch == '\n' || c->plen == sizeof(c->partial) - 1) {
				c->partial[c->plen] = '\0';
				console_line(c, c->partial, t);
				c->plen = 0;
			} else if (ch != '\r') {
				/* the guest's bytes reach a terminal and the records: no control characters */
				c->partial[c->plen++] = ch == '\t' ? ' ' : ch >= ' ' && ch < 0x7f ? ch : '?';
			}
		}
	}
}

/* The last console lines, one per line, indented, into a new string. */
char *console_tail(struct console *c)
{
	size_t cap = TAIL_LINES * 260 + 64, len = 0;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	s[0] = '\0';
	if (c->plen) {
		c->partial[c->plen] = '\0';
		console_line(c, c->partial, 0);
		c->plen = 0;
	}
	for (int i = 0; i < c->ntail; i++) {
		int idx = (c->next - c->ntail + i + TAIL_LINES) % TAIL_LINES;

		len += fmt_buf(s + len, cap - len, "  | %s\n", c->tail[idx]);
	}
	if (!c->ntail)
		fmt_buf(s, cap, "  | (the console stayed empty)\n");
	return s;
}
