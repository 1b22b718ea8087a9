// SPDX-License-Identifier: GPL-2.0
/*
 * Can KVM run the vm testbed's guests here? A /dev/kvm that opens says
 * little: on some machines of this project's kind it opens, and then qemu
 * exits ("failed to set MSR 0x10a") or runs the guest a thousand times
 * slower than TCG. So qemu itself is asked, the way a run starts it
 * (-accel kvm -cpu host), to run a guest that takes milliseconds on a
 * working KVM. `ipsecperf doctor` and the first VM of a run use it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exec.h"
#include "signals.h"
#include "vm_kvm.h"
#include "clock.h"
#include "files.h"
#include "log.h"
#include "wait.h"

/*
 * The guest: a 64 KiB firmware image (-bios), this code at its start
 * (physical 0xf0000) and a far jump to it at the reset vector. It enters
 * long mode with 2 MiB identity paging, as a kernel does, writes memory
 * in a loop of PROBE_LOOPS rounds (5 instructions each), and ends qemu by
 * writing 0x2a to isa-debug-exit (exit status 0x2a * 2 + 1).
 * Assembled with `as --64 --defsym LOOPS=2000000` and
 * `ld -Ttext=0xf0000 --oformat binary` from:
 *
 *	.code16
 *	cli; xor %ax,%ax; mov %ax,%es; cld
 *	mov $0x1000,%di; xor %eax,%eax; mov $0xc00,%cx; rep stosl
 *	movl $0x2003,%es:0x1000    # PML4[0] -> PDPT
 *	movl $0x3003,%es:0x2000    # PDPT[0] -> PD
 *	movl $0x83,%es:0x3000      # PD[0]: 2 MiB page at 0
 *	lgdtl %cs:(gdt_desc - _start)
 *	mov %cr4,%eax; or $0x20,%eax; mov %eax,%cr4     # PAE
 *	mov $0x1000,%eax; mov %eax,%cr3
 *	mov $0xc0000080,%ecx; rdmsr; or $0x100,%eax; wrmsr  # EFER.LME
 *	mov %cr0,%eax; or $0x80000001,%eax; mov %eax,%cr0   # PG | PE
 *	ljmpl $0x08,$long64
 *	.code64
 *	long64: mov $0x10,%ax; mov %ax,%ds; mov %ax,%ss
 *	mov $0x100000,%rdi; xor %ecx,%ecx
 *	1: mov %ecx,%ebx; and $0xfff,%ebx; mov %cl,(%rdi,%rbx); inc %ecx
 *	cmp $LOOPS,%ecx; jne 1b
 *	mov $0x2a,%al; out %al,$0xf4
 *	2: hlt; jmp 2b
 *	gdt: .quad 0, 0x00af9b000000ffff, 0x00cf93000000ffff
 *	gdt_desc: .word 23; .long gdt
 */
static const unsigned char probe_code[] = {
	0xfa, 0x31, 0xc0, 0x8e, 0xc0, 0xfc, 0xbf, 0x00, 0x10, 0x66, 0x31, 0xc0,
	0xb9, 0x00, 0x0c, 0x66, 0xf3, 0xab, 0x26, 0x66, 0xc7, 0x06, 0x00, 0x10,
	0x03, 0x20, 0x00, 0x00, 0x26, 0x66, 0xc7, 0x06, 0x00, 0x20, 0x03, 0x30,
	0x00, 0x00, 0x26, 0x66, 0xc7, 0x06, 0x00, 0x30, 0x83, 0x00, 0x00, 0x00,
	0x2e, 0x66, 0x0f, 0x01, 0x16, 0xb8, 0x00, 0x0f, 0x20, 0xe0, 0x66, 0x83,
	0xc8, 0x20, 0x0f, 0x22, 0xe0, 0x66, 0xb8, 0x00, 0x10, 0x00, 0x00, 0x0f,
	0x22, 0xd8, 0x66, 0xb9, 0x80, 0x00, 0x00, 0xc0, 0x0f, 0x32, 0x66, 0x0d,
	0x00, 0x01, 0x00, 0x00, 0x0f, 0x30, 0x0f, 0x20, 0xc0, 0x66, 0x0d, 0x01,
	0x00, 0x00, 0x80, 0x0f, 0x22, 0xc0, 0x66, 0xea, 0x6e, 0x00, 0x0f, 0x00,
	0x08, 0x00, 0x66, 0xb8, 0x10, 0x00, 0x8e, 0xd8, 0x8e, 0xd0, 0x48, 0xc7,
	0xc7, 0x00, 0x00, 0x10, 0x00, 0x31, 0xc9, 0x89, 0xcb, 0x81, 0xe3, 0xff,
	0x0f, 0x00, 0x00, 0x88, 0x0c, 0x1f, 0xff, 0xc1, 0x81, 0xf9, 0x80, 0x84,
	0x1e, 0x00, 0x75, 0xeb, 0xb0, 0x2a, 0xe6, 0xf4, 0xf4, 0xeb, 0xfd, 0x0f,
	0x1f, 0x44, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xff, 0xff, 0x00, 0x00, 0x00, 0x9b, 0xaf, 0x00, 0xff, 0xff, 0x00, 0x00,
	0x00, 0x93, 0xcf, 0x00, 0x17, 0x00, 0xa0, 0x00, 0x0f, 0x00,
};
#define PROBE_SIZE 65536
#define PROBE_EXIT (0x2a * 2 + 1)
#define PROBE_INSNS "10 million"
/*
 * A working KVM runs it in milliseconds and qemu starts in well under a
 * second even on a loaded host; TCG takes about 0.05 s. The broken KVM it
 * was written for took 13 s.
 */
#define PROBE_LIMIT_S 3.0

bool vm_kvm_allowed(char *why, size_t len)
{
	const char *force = getenv("IPSECPERF_VM_ACCEL");
	int fd;

	if (force && !strcmp(force, "tcg")) {
		fmt_buf(why, len, "IPSECPERF_VM_ACCEL=tcg");
		return false;
	}
	/* =kvm: try KVM even without a /dev/kvm we can open (qemu decides) */
	if (force && !strcmp(force, "kvm"))
		return true;
	fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fmt_buf(why, len, "/dev/kvm: %s", strerror(errno));
		return false;
	}
	close(fd);
	return true;
}

static int write_firmware(const char *path)
{
	unsigned char *img = calloc(1, PROBE_SIZE);
	int fd, err = -1;

	if (!img)
		return -1;
	memcpy(img, probe_code, sizeof(probe_code));
	/* the reset vector, 16 bytes from the end: ljmp $0xf000,$0 */
	memcpy(img + PROBE_SIZE - 16, (const unsigned char[]){ 0xea, 0x00, 0x00, 0x00, 0xf0 }, 5);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0) {
		if (write(fd, img, PROBE_SIZE) == PROBE_SIZE)
			err = 0;
		if (close(fd) < 0)
			err = -1;
	}
	free(img);
	return err;
}

/*
 * Run the probe under KVM or TCG; its exit status, -1 when it took longer
 * than limit_s, -2 when it could not start. said: qemu's first line.
 */
static int run_probe(const char *fw, const char *log, bool kvm, double limit_s, double *secs,
		     char *said, size_t saidlen)
{
	char *argv[] = { "qemu-system-x86_64", "-accel", kvm ? "kvm" : "tcg", "-cpu", kvm ? "host" : "max",
			 "-m", "16", "-smp", "1", "-nodefaults", "-no-user-config", "-display", "none",
			 "-no-reboot", "-bios", (char *)fw, "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
			 NULL };
	struct spawn_opts o = { .cpu = -1 };
	double t0 = mono_s();
	pid_t pid;
	int st;

	said[0] = '\0';
	o.stdout_fd = o.stderr_fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (o.stdout_fd < 0)
		return -2;
	pid = exec_spawn(argv, &o);
	close(o.stdout_fd);
	if (pid < 0)
		return -2;
	for (;;) {
		/* a look between deadline checks: the log is read before exec_stop, which collector/lib/exec.c's waits would not do */
		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
		if (mono_s() - t0 > limit_s || stop_requested()) {
			/* before it is stopped, and says so */
			file_first_line(log, said, saidlen);
			exec_stop(pid, 500);
			*secs = mono_s() - t0;
			return -1;
		}
		wait_ms(5);
	}
	*secs = mono_s() - t0;
	file_first_line(log, said, saidlen);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int vm_kvm_probe(const char *dir, char *why, size_t len)
{
	char fw[PATH_MAX], log[PATH_MAX], said[200], tsaid[200];
	double ks = 0, ts = 0;
	int krc, trc, verdict;

	if (!exec_have("qemu-system-x86_64")) {
		fmt_buf(why, len, "qemu-system-x86_64 is not in PATH (`make deps` installs it)");
		return -1;
	}
	fmt_buf(fw, sizeof(fw), "%s/kvm-probe.bin", dir);
	fmt_buf(log, sizeof(log), "%s/kvm-probe.log", dir);
	if (write_firmware(fw) < 0) {
		fmt_buf(why, len, "cannot write the test guest %s: %s", fw, strerror(errno));
		return -1;
	}
	krc = run_probe(fw, log, true, PROBE_LIMIT_S, &ks, said, sizeof(said));
	if (krc == PROBE_EXIT) {
		fmt_buf(why, len, "qemu ran a guest under -accel kvm -cpu host (in %.2f s)", ks);
		verdict = 1;
		goto out;
	}
	/* is it KVM, or can this qemu not run the test at all? TCG tells */
	trc = run_probe(fw, log, false, 10 * PROBE_LIMIT_S, &ts, tsaid, sizeof(tsaid));
	if (krc == -2 || trc != PROBE_EXIT) {
		fmt_buf(why, len, "qemu did not run the test guest under TCG either (%s)",
		       trc == -1 ? "it took too long" : *tsaid ? tsaid : "no message");
		verdict = -1;
	} else if (krc == -1) {
		fmt_buf(why, len, "qemu -accel kvm -cpu host did not finish a guest of " PROBE_INSNS
		       " instructions within %.0f s (TCG took %.2f s)%s%s", PROBE_LIMIT_S, ts,
		       *said ? "; qemu said: " : "", said);
		verdict = 0;
	} else {
		fmt_buf(why, len, "qemu -accel kvm -cpu host exited with status %d%s%s", krc,
		       *said ? ": " : " and said nothing", said);
		verdict = 0;
	}
out:
	unlink(fw);
	unlink(log);
	return verdict;
}
