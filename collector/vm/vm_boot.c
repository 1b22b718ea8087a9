// SPDX-License-Identifier: GPL-2.0
/*
 * One boot: qemu started, its console followed, qemu stopped when the
 * guest panics, floods its ports, takes too long or we are asked to
 * stop, and why the boot failed, from what was seen.
 */
#include "vm_boot.h"

#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "exec.h"
#include "files.h"
#include "log.h"
#include "wait.h"
#include "signals.h"
#include "vm_console.h"
#include "vm_pair_receiver.h"

/*
 * On the virtual clock the time limits count qemu's own CPU time: its
 * boot and runs cost 10-20 times plain TCG's, and a loaded host stretches
 * their wall time by as much again (a boot to init took 104 s of wall
 * time for 12 s of CPU at load 15) without anything being wrong. A guest
 * that loops or idles still burns qemu's CPU, its time skipping ahead
 * (sleep=off); wall time, at ICOUNT_WALL_FACTOR times the limit, still
 * bounds a qemu that gets no CPU at all.
 */
#define ICOUNT_WALL_FACTOR 10

/* Past limit s: on qemu's CPU time (cpu) on the virtual clock, else on wall time (t). */
static bool past(const struct boot *b, double t, double cpu, int s)
{
	return b->icount ? cpu > s || t > (double)s * ICOUNT_WALL_FACTOR : t > s;
}

/* Why a boot still running at t (qemu's CPU time: cpu) must stop now (into b->why), or false. */
static bool boot_must_stop(struct boot *b, double t, double cpu)
{
	const char *unit = b->icount ? " of qemu's CPU time" : "";

	if (b->con.panic) {
		/* panic=-1 reboots at once and -no-reboot ends qemu; give it a moment */
		if (!b->con.t_panic)
			b->con.t_panic = t;
		return t - b->con.t_panic > 3;
	}
	if (serial_flood(b) || (b->peer && peer_failed(b, t)))
		return true;
	if (!b->con.t_init && past(b, t, cpu, b->boot_timeout_s)) {
		fmt_buf(b->why, sizeof(b->why), "the guest did not reach its init within %d s%s",
		       b->boot_timeout_s, unit);
		return true;
	}
	if (past(b, t, cpu, b->total_timeout_s)) {
		fmt_buf(b->why, sizeof(b->why), "timed out after %d s%s, %s (IPSECPERF_VM_TIMEOUT sets the limit)",
		       b->total_timeout_s, unit,
		       !b->con.t_init ? "before the guest's init ran" :
		       !b->con.t_first ? "before the load began" :
		       !b->con.t_done ? "while the matrix ran" : "while the results were sent");
		return true;
	}
	if (stop_requested()) {
		fmt_buf(b->why, sizeof(b->why), "stopped by signal %d", stop_signal());
		return true;
	}
	return false;
}

/* Follow the console until qemu ends or the boot must stop; qemu's CPU time at the marks. */
static void boot_watch(struct boot *b, pid_t pid, double t0)
{
	for (;;) {
		int st;
		/* a look per console poll: qemu's CPU time and console are read between looks */
		pid_t w = waitpid(pid, &st, WNOHANG);
		double t = mono_s() - t0;

		console_poll(&b->con, t);
		if (b->con.t_init && !b->con.cpu_init)
			b->con.cpu_init = proc_cpu_s(pid);
		if (b->con.t_first && !b->con.cpu_first)
			b->con.cpu_first = proc_cpu_s(pid);
		if (w == pid) {
			b->qemu_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			return;
		}
		if (boot_must_stop(b, t, b->icount ? proc_cpu_s(pid) : t))
			return;
		wait_ms(20);
	}
}

/* Why the boot failed, from what was seen; b->why stays "" when the guest finished. */
static void boot_verdict(struct boot *b, bool stopped, const char *qmsg)
{
	if (b->con.panic) {
		fmt_buf(b->why, sizeof(b->why), "kernel panic: %s", b->con.panic_line);
	} else if (!*b->why && !b->con.t_done) {
		char status[32] = "";

		if (!stopped)
			fmt_buf(status, sizeof(status), " with status %d", b->qemu_status);
		fmt_buf(b->why, sizeof(b->why), "qemu %s%s before the guest %s%s%s",
		       stopped ? "was stopped" : "exited", status,
		       b->con.t_init ? "finished" : "reached its init", *qmsg ? ": " : "", qmsg);
	} else if (b->kvm && !b->con.t_init && *qmsg) {
		fmt_buf(b->why + strlen(b->why), sizeof(b->why) - strlen(b->why), "; qemu said: %s", qmsg);
	}
	/*
	 * Under KVM, whatever ended the boot before the guest's init (qemu
	 * exiting, a time-out, a message never seen before) may be KVM's
	 * doing; a boot under TCG tells. Not when we were asked to stop, or the
	 * guest flooded its ports: that is the guest's doing.
	 */
	if (b->kvm && !b->con.t_init && !stop_requested() && !b->flood)
		b->kvm_broken = true;
}

int boot_once(struct boot *b, bool dry)
{
	struct qemu_argv q;
	char qmsg[200] = "";
	double t0;
	pid_t pid;
	int qfd = -1;
	bool stopped = false;

	memset(&b->con, 0, sizeof(b->con));
	b->con.fd = -1;
	b->why[0] = '\0';
	b->kvm_broken = false;
	b->flood = false;
	b->qemu_status = 0;
	build_argv(b, &q);
	if (dry) {
		exec_print(stdout, NULL, q.a);
		return 0;
	}
	b->peer_fault = false;
	t0 = mono_s();
	if (b->peer && peer_start(b) < 0)
		goto out_close;
	pid = boot_start(b, q.a, &qfd);
	if (pid < 0)
		goto out_close;
	boot_watch(b, pid, t0);
	/* qemu may have ended between two looks: its ports are looked at once more */
	if (!b->flood)
		serial_flood(b);
	/* what qemu said, read before stopping it (it then says that it was stopped) */
	file_first_line(b->qlog_path, qmsg, sizeof(qmsg));
	/* still running after boot_watch? only then is it stopped (exec_stop reaps it) */
	if (waitpid(pid, &(int){ 0 }, WNOHANG) == 0) {
		exec_stop(pid, 2000);
		stopped = true;
		b->qemu_status = -1;
	}
	b->total_s = mono_s() - t0;
	console_poll(&b->con, b->total_s);
	boot_verdict(b, stopped, qmsg);
out_close:
	if (b->peer)
		peer_stop(b, mono_s() - t0);
	if (b->con.fd >= 0)
		close(b->con.fd);
	if (qfd >= 0)
		close(qfd);
	return *b->why ? -1 : 0;
}
