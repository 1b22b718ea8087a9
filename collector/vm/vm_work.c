// SPDX-License-Identifier: GPL-2.0
/*
 * One kernel's (vm-pair: one pair's) scratch folder and the files a boot
 * needs in it: the initramfs, the kernel's PVH vmlinux; for vm-pair the
 * keys, and the receiver's initramfs and vmlinux, made by a child.
 */
#include "vm_work.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "exec.h"
#include "files.h"
#include "journal.h"
#include "log.h"
#include "vm_initramfs.h"
#include "vm_pair.h"
#include "vm_pvh.h"
#include "vm_qemu.h"

/* The scratch folder, journaled for removal; -1 (with a warning) if it cannot be made. */
int work_make(const struct run_config *cfg, struct vm_work *w)
{
	const char *tmpdir = getenv("TMPDIR");

	memset(w, 0, sizeof(*w));
	fmt_buf(w->dir, sizeof(w->dir), "%s/ipsecperf-vm-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(w->dir)) {
		pr_warn("vm: cannot make a scratch folder: %s", strerror(errno));
		return -1;
	}
	if (!cfg->dry_run)
		journal_add(json_pack("{s:s, s:[s, s, s]}", "kind", "argv", "argv", "rm", "-rf", w->dir));
	fmt_buf(w->initrd, sizeof(w->initrd), "%s/initramfs.cpio", w->dir);
	fmt_buf(w->con, sizeof(w->con), "%s/console.log", w->dir);
	fmt_buf(w->tar, sizeof(w->tar), "%s/results.tar", w->dir);
	fmt_buf(w->live, sizeof(w->live), "%s/live.jsonl", w->dir);
	fmt_buf(w->qlog, sizeof(w->qlog), "%s/qemu.log", w->dir);
	memset(w->link.fd, -1, sizeof(w->link.fd));
	fmt_buf(w->rx.dir, sizeof(w->rx.dir), "%s/receiver", w->dir);
	fmt_buf(w->rx.initrd, sizeof(w->rx.initrd), "%s/initramfs.cpio", w->rx.dir);
	fmt_buf(w->rx.con, sizeof(w->rx.con), "%s/console.log", w->rx.dir);
	fmt_buf(w->rx.tar, sizeof(w->rx.tar), "%s/results.tar", w->rx.dir);
	fmt_buf(w->rx.live, sizeof(w->rx.live), "%s/live.jsonl", w->rx.dir);
	fmt_buf(w->rx.qlog, sizeof(w->rx.qlog), "%s/qemu.log", w->rx.dir);
	return 0;
}

/*
 * vm-pair: the receiver's initramfs and PVH vmlinux are made by a child
 * while this process makes the sender's; on two CPUs that is 0.7 s less
 * before the guests boot. The child's vmlinux path comes back in shared
 * memory; rx_files_wait reaps it.
 */
struct rx_files {
	pid_t pid;
	char *vmlinux; /* shared with the child: PATH_MAX bytes */
};

static struct rx_files rx_files = { .pid = -1 };

static int rx_files_start(const struct run_config *cfg, struct vm_work *w, const struct vm_pair_guest *rx)
{
	rx_files.vmlinux = mmap(NULL, PATH_MAX, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (rx_files.vmlinux == MAP_FAILED) {
		rx_files.vmlinux = NULL;
		pr_warn("vm: mmap: %s", strerror(errno));
		return -1;
	}
	rx_files.vmlinux[0] = '\0';
	rx_files.pid = exec_fork(NULL, -1, NULL, 0);
	if (rx_files.pid < 0) {
		pr_warn("vm: fork: %s", strerror(errno));
		return -1;
	}
	if (rx_files.pid == 0) {
		if (vm_initramfs_build(cfg, w->peer, rx, w->rx.dir, w->rx.initrd) < 0)
			_exit(1);
		if (!classic_boot() && vm_kernel_pvh(w->peer->image, w->rx.dir, rx_files.vmlinux, PATH_MAX) < 0)
			rx_files.vmlinux[0] = '\0';
		_exit(0);
	}
	return 0;
}

/* The receiver's files are made: 0, or -1 (the child said why). */
static int rx_files_wait(struct vm_work *w)
{
	int st = rx_files.pid > 0 ? exec_wait(rx_files.pid) : -1;

	rx_files.pid = -1;
	if (rx_files.vmlinux) {
		fmt_buf(w->rx.vmlinux, sizeof(w->rx.vmlinux), "%s", rx_files.vmlinux);
		munmap(rx_files.vmlinux, PATH_MAX);
		rx_files.vmlinux = NULL;
	}
	return st == 0 ? 0 : -1;
}

/* vm-pair: the keys, the receiver's initramfs and kernel (rx_files), the sender's role; -1 having said why. */
static int work_fill_pair(const struct run_config *cfg, const struct vm_kernel *k, struct vm_work *w,
			  struct vm_pair_guest *tx)
{
	struct vm_pair_guest rx = { .role = PAIR_RX };

	if (mkdir(w->rx.dir, 0700) < 0 || vm_pair_keys(w->dir, tx->keydir, sizeof(tx->keydir)) < 0)
		return -1;
	tx->role = PAIR_TX;
	fmt_buf(tx->peer_release, sizeof(tx->peer_release), "%s", w->peer->release);
	fmt_buf(rx.keydir, sizeof(rx.keydir), "%s", tx->keydir);
	fmt_buf(rx.peer_release, sizeof(rx.peer_release), "%s", k->release);
	return rx_files_start(cfg, w, &rx);
}

/* The initramfs, and the kernel as qemu boots it quickest; -1 if the initramfs fails. */
int work_fill(const struct run_config *cfg, const struct vm_kernel *k, struct vm_work *w)
{
	double t = mono_s();
	struct stat st;
	struct vm_pair_guest tx = { 0 };

	if (w->peer && work_fill_pair(cfg, k, w, &tx) < 0) {
		rx_files_wait(w);
		return -1;
	}
	int rc = vm_initramfs_build(cfg, k, w->peer ? &tx : NULL, w->dir, w->initrd);

	if (w->peer && rx_files_wait(w) < 0)
		rc = -1;
	if (rc < 0)
		return -1;
	if (stat(w->initrd, &st) == 0)
		pr_debug("vm: %s: initramfs %.1f MB in %.2f s", k->release, st.st_size / 1e6,
			 mono_s() - t);
	if (!classic_boot()) {
		t = mono_s();
		if (vm_kernel_pvh(k->image, w->dir, w->vmlinux, sizeof(w->vmlinux)) < 0)
			w->vmlinux[0] = '\0';
		else
			pr_debug("vm: %s: booting its vmlinux through the PVH entry (inflated in %.2f s)",
				 k->release, mono_s() - t);
	}
	return 0;
}
