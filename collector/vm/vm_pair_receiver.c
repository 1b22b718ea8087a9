// SPDX-License-Identifier: GPL-2.0
/*
 * vm-pair: the receiver's guest, beside the sender's. The sender's boot
 * starts it, looks at it between its own console polls, and stops it;
 * what goes wrong with the receiver ends the sender's boot, in its why.
 */
#include "vm_pair_receiver.h"

#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec.h"
#include "log.h"
#include "vm_console.h"

/* Start the receiver's qemu; -1 with why in the sender's boot s. */
int peer_start(struct boot *s)
{
	struct boot *p = s->peer;
	struct qemu_argv q;
	int qfd = -1;

	memset(&p->con, 0, sizeof(p->con));
	p->why[0] = '\0';
	p->kvm = s->kvm;
	build_argv(p, &q);
	p->pid = boot_start(p, q.a, &qfd);
	if (qfd >= 0)
		close(qfd);
	if (p->pid < 0) {
		fmt_buf(s->why, sizeof(s->why), "the receiver: %s", p->why);
		s->peer_fault = true;
		return -1;
	}
	return 0;
}

/*
 * Has the receiver written more than the sender may (serial_flood)? Then
 * s->why says so, and the pair's results are refused as a flooding
 * sender's are.
 */
static bool peer_flood(struct boot *s)
{
	struct boot *p = s->peer;

	if (!serial_flood(p))
		return false;
	fmt_buf(s->why, sizeof(s->why), "the receiver: %s", p->why);
	s->flood = s->peer_fault = true;
	return true;
}

/* Has the receiver ended the run at t (panicked, flooded, exited, not booted in time)? Then s->why says so. */
bool peer_failed(struct boot *s, double t)
{
	struct boot *p = s->peer;
	int st;

	console_poll(&p->con, t);
	if (peer_flood(s))
		return true;
	/* waitpid: one look among these checks (collector/lib/exec.c's waits block) */
	if (p->con.panic)
		fmt_buf(s->why, sizeof(s->why), "the receiver's kernel panicked: %s", p->con.panic_line);
	else if (waitpid(p->pid, &st, WNOHANG) == p->pid)
		p->pid = -1, fmt_buf(s->why, sizeof(s->why), "the receiver's qemu exited (status %d) while the sender ran",
				     WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	else if (!p->con.t_init && t > s->boot_timeout_s)
		fmt_buf(s->why, sizeof(s->why), "the receiver did not reach its init within %d s", s->boot_timeout_s);
	else
		return false;
	s->peer_fault = true;
	return true;
}

/* Stop the receiver (it never stops by itself: it serves until the sender is done). */
void peer_stop(struct boot *s, double t)
{
	struct boot *p = s->peer;

	if (p->pid > 0)
		exec_stop(p->pid, 2000);
	p->pid = -1;
	console_poll(&p->con, t);
	/* what it wrote after the last look (the sender may have ended first) */
	if (p->con.fd >= 0 && !s->flood)
		peer_flood(s);
	if (p->con.fd >= 0)
		close(p->con.fd);
	p->con.fd = -1;
}
