// SPDX-License-Identifier: GPL-2.0
/*
 * One boot's qemu: its command line, on qemu's pc machine without its
 * default devices, and starting it on fresh serial files; what the guest
 * may write on its ports, and the CPU time qemu has used.
 */
#include "vm_qemu.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec.h"
#include "files.h"
#include "guest_tar.h"
#include "journal.h"
#include "load.h"
#include "log.h"
#include "vm_guest.h"

/*
 * IPSECPERF_VM_BOOT=classic boots as before the boot was made quick:
 * SeaBIOS, the bzImage as it is, and no cryptomgr.notests. It is there to
 * measure one against the other, and as a way out should qboot or the PVH
 * entry not work with some kernel.
 */
bool classic_boot(void)
{
	const char *e = getenv("IPSECPERF_VM_BOOT");

	return e && !strcmp(e, "classic");
}

/*
 * qboot, when qemu ships it (Debian's qemu does): a firmware that does
 * little more than load the kernel, about 1 s of TCG quicker than SeaBIOS
 * to the kernel's first instruction. NULL: qemu's default firmware.
 */
const char *quick_firmware(void)
{
	static const char *const paths[] = { "/usr/share/qemu/qboot.rom",
					     "/usr/share/qboot/bios.bin", NULL };

	if (classic_boot())
		return NULL;
	for (int i = 0; paths[i]; i++)
		if (is_file(paths[i]))
			return paths[i];
	return NULL;
}

int nr_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 2 ? 2 : n > 4 ? 4 : (int)n;
}

/*
 * A guest's vCPUs: --vcpus, else what the flows need. The vm guest holds
 * both ends: a sender's and a receiver's CPU a flow, as the netns testbed
 * pins them, and at least this host's CPUs (2 to 4). A vm-pair guest holds
 * one end: one vCPU a flow at once (--direction both: two a flow), and one
 * without --flows. More vCPUs than host CPUs share them.
 */
int guest_vcpus(const struct run_config *cfg, bool pair)
{
	int n = nr_cpus(), at_once = cfg->flows * (cfg->direction == LOAD_BOTH ? 2 : 1);

	if (cfg->vcpus)
		return cfg->vcpus;
	if (pair)
		return at_once;
	return cfg->flows > 1 && 2 * cfg->flows > n ? 2 * cfg->flows : n;
}

/*
 * The kernel's command line: the console on the first UART, quiet (every
 * line costs at 115200 baud), a panic ends qemu at once, and
 * cryptomgr.notests: the crypto self-tests run when an algorithm is
 * registered (0.5 s of the boot under TCG, and again for each crypto
 * module the first ESP SA loads), never on the measured path.
 */
static void build_append(char *append, size_t len)
{
	const char *extra = getenv("IPSECPERF_VM_APPEND");

	fmt_buf(append, len, "console=ttyS0 quiet panic=-1 oops=panic no_timer_check%s rdinit=" GUEST_EXE " %s -- guest",
	       classic_boot() ? "" : " cryptomgr.notests", extra ? extra : "");
}

/*
 * qemu's pc machine without its default devices: the console, the
 * results and the records on three 8250 UARTs (built into every x86
 * kernel; see vm_guest.h), nothing else to probe. qemu's microvm machine
 * is not used: under TCG it gives the kernel no timer to calibrate the TSC
 * against ("tsc: No reference (HPET/PMTIMER) available") and the boot
 * stops there (docs/vm-testbed.md).
 */
void build_argv(struct boot *b, struct qemu_argv *q)
{
	size_t n = 0;

	/* vm-pair: one vCPU a guest, the sender's and the receiver's, as the netns testbed pins them */
	fmt_buf(q->smp, sizeof(q->smp), "%d", b->vcpus ? b->vcpus : nr_cpus());
	build_append(q->append, sizeof(q->append));
	fmt_buf(q->ser[0], sizeof(q->ser[0]), "file:%s", b->console_path);
	/* a port nobody reads (the vm-pair receiver's results and records) goes nowhere: it cannot fill a disk */
	fmt_buf(q->ser[1], sizeof(q->ser[1]), b->tar_path ? "file:%s" : "null", b->tar_path);
	fmt_buf(q->ser[2], sizeof(q->ser[2]), b->live_path ? "file:%s" : "null", b->live_path);
	/*
	 * The virtual clock: one thread runs the guest and its time advances
	 * by the instructions it executes (1 ns an instruction at shift 0),
	 * idle time skipped (sleep=off), never held back to the host's
	 * (align=off): the figures no longer depend on this host's load.
	 */
	fmt_buf(q->icount, sizeof(q->icount), "shift=%d,sleep=off,align=off", RUN_ICOUNT_SHIFT);
	for (const char *const *p = (const char *const[]){ "qemu-system-x86_64", "-accel",
			b->kvm ? "kvm" : b->icount ? "tcg,thread=single" : "tcg", "-cpu", b->kvm ? "host" : "max", "-m", "1024",
			"-smp", q->smp, "-nodefaults", "-no-user-config", "-display", "none",
			"-no-reboot", NULL }; *p; p++)
		q->a[n++] = (char *)*p;
	if (b->icount) {
		q->a[n++] = "-icount";
		q->a[n++] = q->icount;
	}
	if (b->bios) {
		q->a[n++] = "-bios";
		q->a[n++] = (char *)b->bios;
	}
	q->a[n++] = "-kernel";
	q->a[n++] = (char *)b->image;
	q->a[n++] = "-initrd";
	q->a[n++] = (char *)b->initrd;
	q->a[n++] = "-append";
	q->a[n++] = q->append;
	for (int i = 0; i < 3; i++) {
		q->a[n++] = "-serial";
		q->a[n++] = q->ser[i];
	}
	/* vm-pair: the link (a nominal 10G, as ethtool shows it) and the control link, on the taps */
	for (int i = 0; b->fds && i < 2; i++) {
		q->a[n++] = "-netdev";
		q->a[n++] = i ? "tap,id=ctl,fd=4" : "tap,id=link,fd=3";
		fmt_buf(q->dev[i], sizeof(q->dev[i]), "virtio-net-pci,netdev=%s,mac=%s%s", i ? "ctl" : "link",
			b->macs[i], i ? "" : ",speed=10000,duplex=full");
		q->a[n++] = "-device";
		q->a[n++] = q->dev[i];
	}
	q->a[n] = NULL;
}

/*
 * CPU seconds a process has used (user + system). Wall time under TCG
 * grows with the host's load; qemu's own CPU time much less so, which
 * makes boot figures from a busy host comparable with an idle one's.
 */
double proc_cpu_s(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut = 0, st = 0;
	int field = 2;

	fmt_buf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (file_read_line(path, buf, sizeof(buf)) < 0 || !(p = strrchr(buf, ')')))
		return 0;
	for (char *tok = strtok(p + 1, " "); tok; tok = strtok(NULL, " ")) {
		field++;
		if (field == 14)
			ut = strtoull(tok, NULL, 10);
		else if (field == 15) {
			st = strtoull(tok, NULL, 10);
			break;
		}
	}
	return (double)(ut + st) / sysconf(_SC_CLK_TCK);
}

/* Has the guest written more than its serial files may hold? Then why says so. */
bool serial_flood(struct boot *b)
{
	struct stat st;
	const char *what = NULL;
	long max = 0;

	if (fstat(b->con.fd, &st) == 0 && st.st_size > CONSOLE_MAX)
		what = "console", max = CONSOLE_MAX;
	else if (b->tar_path && stat(b->tar_path, &st) == 0 && st.st_size > GUEST_TAR_MAX_STREAM)
		what = "results port", max = GUEST_TAR_MAX_STREAM;
	else if (b->live_path && stat(b->live_path, &st) == 0 && st.st_size > LIVE_MAX)
		what = "record port", max = LIVE_MAX;
	if (!what)
		return false;
	fmt_buf(b->why, sizeof(b->why), "the guest wrote more than %ld MiB on its %s; stopped it",
	       max >> 20, what);
	b->flood = true;
	return true;
}

/* Start qemu on fresh serial files, journaled; its pid, or -1 with b->why. */
pid_t boot_start(struct boot *b, char **argv, int *qfd)
{
	struct spawn_opts o = { .cpu = -1, .stdout_fd = -1, .stderr_fd = -1 };
	pid_t pid;

	unlink(b->console_path);
	if (b->tar_path)
		unlink(b->tar_path);
	if (b->live_path)
		unlink(b->live_path);
	/* qemu opens the serial files itself; create the console first to follow it */
	b->con.fd = open(b->console_path, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
	*qfd = open(b->qlog_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (b->con.fd < 0 || *qfd < 0) {
		fmt_buf(b->why, sizeof(b->why), "cannot create %s: %s", b->console_path,
		       strerror(errno));
		return -1;
	}
	o.stdout_fd = *qfd;
	o.stderr_fd = *qfd;
	o.pass_fds = b->fds;
	o.npass = b->fds ? 2 : 0;
	if (log_verbose) {
		fprintf(stderr, "ipsecperf: debug: ");
		exec_print(stderr, NULL, argv);
	}
	pid = exec_spawn(argv, &o);
	if (pid < 0) {
		fmt_buf(b->why, sizeof(b->why), "cannot start qemu-system-x86_64: %s; `make deps` installs it",
		       strerror(errno));
		return -1;
	}
	if (journal_add_process(pid) < 0)
		pr_debug("vm: qemu %d is not journaled", (int)pid);
	return pid;
}
