// SPDX-License-Identifier: GPL-2.0
#include "guest_pair.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "exec.h"
#include "files.h"
#include "log.h"
#include "wait.h"
#include "rtnl.h"
#include "rtnl_link.h"
#include "vm_guest.h"

/* The name of the device whose MAC is mac, into dev; 0, or -1 when there is none (yet). */
static int dev_by_mac(const char *mac, char *dev, size_t len)
{
	DIR *d = opendir("/sys/class/net");
	struct dirent *e;
	int rc = -1;

	if (!d)
		return -1;
	while (rc < 0 && (e = readdir(d))) {
		char path[300], addr[32];

		if (e->d_name[0] == '.')
			continue;
		fmt_buf(path, sizeof(path), "/sys/class/net/%s/address", e->d_name);
		if (file_read_line(path, addr, sizeof(addr)) == 0 && !strcasecmp(addr, mac)) {
			fmt_buf(dev, len, "%s", e->d_name);
			rc = 0;
		}
	}
	closedir(d);
	return rc;
}

struct dev_wait {
	const char *mac;
	char *dev;
	size_t len;
};

static int dev_found(void *arg)
{
	struct dev_wait *w = arg;

	return dev_by_mac(w->mac, w->dev, w->len) == 0;
}

/* One device of the pair: found by its MAC (the driver may still be probing), named, addressed, up. */
static int one_dev(json_t *d, const char *name, double deadline)
{
	const char *mac = json_string_value(json_object_get(d, "mac"));
	const char *addr = json_string_value(json_object_get(d, "addr"));
	int plen = (int)json_integer_value(json_object_get(d, "prefix"));
	char dev[64], err[256] = "";
	int left_ms = (int)((deadline - mono_s()) * 1000);

	if (!mac || !addr) {
		pr_warn("guest: pair: the config names no MAC or address for %s", name);
		return -1;
	}

	if (!wait_until(dev_found, &(struct dev_wait){ mac, dev, sizeof(dev) }, left_ms > 0 ? left_ms : 0, 20)) {
		pr_warn("guest: pair: no network device with MAC %s (is virtio_net in the kernel?)", mac);
		return -1;
	}
	if ((strcmp(dev, name) && rtnl_link_rename(NULL, dev, name, err, sizeof(err)) < 0) ||
	    rtnl_addr_add(NULL, name, addr, plen, err, sizeof(err)) < 0 || rtnl_link_up(NULL, name, err, sizeof(err)) < 0) {
		pr_warn("guest: pair: %s (%s): %s", name, dev, err);
		return -1;
	}
	return 0;
}

int guest_pair_net(json_t *pair)
{
	char *out = NULL;
	double deadline = mono_s() + 20;

	/* virtio's PCI transport and its net driver, where they are modules (nothing loads them by alias here) */
	if (exec_run(NULL, (char *[]){ GUEST_MODPROBE, "-a", "-q", "virtio_pci", "virtio_net", NULL }, NULL, &out) != 0)
		pr_debug("guest: pair: modprobe virtio_pci virtio_net: %s", out ? out : "failed");
	free(out);
	rtnl_link_up(NULL, "lo", NULL, 0);
	if (one_dev(json_object_get(pair, "link"), GUEST_PAIR_LINK_DEV, deadline) < 0 ||
	    one_dev(json_object_get(pair, "ctl"), GUEST_PAIR_CTL_DEV, deadline) < 0)
		return -1;
	/*
	 * The sender asks for the receiver's control address before that guest
	 * is up; the kernel then asks again only after retrans_time (1 s), which
	 * the sender's first ssh waited out. 50 ms on the control link only:
	 * the measured link keeps the kernel's defaults.
	 */
	if (file_write("/proc/sys/net/ipv4/neigh/" GUEST_PAIR_CTL_DEV "/retrans_time_ms", "50\n", 3) < 0)
		pr_debug("guest: pair: cannot set the control link's ARP retransmit time: %s", strerror(errno));
	return 0;
}

bool guest_pair_receiver(json_t *pair)
{
	const char *role = json_string_value(json_object_get(pair, "role"));

	return role && !strcmp(role, "receiver");
}

int guest_pair_sshd(void)
{
	struct spawn_opts o = { .cpu = -1, .stdout_fd = 1, .stderr_fd = 2 };
	pid_t pid;

	/* Debian's sshd: its privilege separation directory */
	mkdir("/run/sshd", 0755);
	/* -r: no re-exec of sshd for the connection, a second or so of dynamic linking under TCG */
	pid = exec_spawn((char *[]){ "/usr/sbin/sshd", "-D", "-e", "-r", "-f", GUEST_PAIR_DIR "/sshd_config", NULL }, &o);
	if (pid < 0)
		pr_warn("guest: pair: cannot start sshd: %s", strerror(errno));
	return pid;
}

/* Does addr:22 accept a connection within a second? */
/* wait_until: has the child *arg ended? */
static int child_ended(void *arg)
{
	return wait_child_ended(*(pid_t *)arg, NULL);
}

static bool ssh_answers(const char *addr)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(22) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	bool ok = false;

	if (fd < 0 || inet_pton(AF_INET, addr, &sin.sin_addr) != 1) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0) {
		ok = true;
	} else if (errno == EINPROGRESS) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		int soerr = 1;
		socklen_t sl = sizeof(soerr);

		ok = poll(&p, 1, 1000) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == 0 && !soerr;
	}
	close(fd);
	return ok;
}

/*
 * The ssh connection the peer testbed's commands will share, opened now:
 * it goes into the background once authenticated (-f) and stays
 * (ControlPersist), and the run starts once it is up. A run started
 * sooner would make a connection of its own, and two handshakes at once
 * take the receiver's one emulated CPU twice as long. If it fails, the
 * run's ssh says why.
 */
#define SSH_MASTER_WAIT_MS 30000

static void ssh_master(const char *peer)
{
	static const char *const opts[] = { GUEST_PAIR_SSH_OPTS, "BatchMode=yes", "LogLevel=ERROR", NULL };
	char *argv[32], dest[64];
	struct spawn_opts o = { .cpu = -1, .stdout_fd = -1, .stderr_fd = 2 };
	int n = 0;

	fmt_buf(dest, sizeof(dest), "root@%s", peer);
	argv[n++] = "/usr/bin/ssh";
	for (int i = 0; opts[i]; i++) {
		argv[n++] = "-o";
		argv[n++] = (char *)opts[i];
	}
	/* -f -N: into the background once authenticated, no session of its own */
	argv[n++] = "-f";
	argv[n++] = "-N";
	argv[n++] = "--";
	argv[n++] = dest;
	argv[n] = NULL;
	pid_t pid = exec_spawn(argv, &o);

	if (pid < 0)
		pr_debug("guest: pair: cannot start ssh: %s", strerror(errno));
	/* ssh -f returns once in the background: a deadline, not a stop request, and a quiet end */
	if (pid > 0 && !wait_until(child_ended, &pid, SSH_MASTER_WAIT_MS, 20)) {
		pr_debug("guest: pair: the ssh master is not up after %d s; the run goes on", SSH_MASTER_WAIT_MS / 1000);
		exec_stop(pid, 500);
	}
}

static int sshd_up(void *peer)
{
	return ssh_answers(peer);
}

int guest_pair_wait_peer(json_t *pair, int timeout_s)
{
	const char *peer = json_string_value(json_object_get(pair, "peer_ctl_addr"));

	if (!peer)
		return -1;
	if (!wait_until(sshd_up, (void *)peer, timeout_s * 1000, 20)) {
		pr_warn("guest: pair: the receiver's sshd (%s port 22) did not answer within %d s", peer, timeout_s);
		return -1;
	}
	ssh_master(peer);
	return 0;
}
