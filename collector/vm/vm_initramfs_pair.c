// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "exec.h"
#include "files.h"
#include "log.h"
#include "vm_guest.h"
#include "vm_pair.h"

int vm_pair_module(const char *rel)
{
	static const char *const prefixes[] = { "kernel/drivers/virtio/", "kernel/drivers/net/virtio_net.",
						"kernel/drivers/net/net_failover.", "kernel/net/core/failover.", NULL };

	for (int i = 0; prefixes[i]; i++)
		if (!strncmp(rel, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

int vm_pair_keys(const char *dir, char *keydir, size_t len)
{
	fmt_buf(keydir, len, "%s/ssh", dir);
	if (mkdir(keydir, 0700) < 0 && errno != EEXIST) {
		pr_warn("vm-pair: cannot make %s: %s", keydir, strerror(errno));
		return -1;
	}
	for (const char *const *k = (const char *const[]){ "host", "id", NULL }; *k; k++) {
		char path[PATH_MAX + 8], *out = NULL;
		int rc;

		fmt_buf(path, sizeof(path), "%s/%s", keydir, *k);
		rc = exec_in_dir(NULL, (char *[]){ "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "ipsecperf-vm-pair",
						   "-f", path, NULL }, &out);
		if (rc != 0) {
			pr_warn("vm-pair: ssh-keygen failed%s%s; `make deps` installs openssh-client", out ? ": " : "",
				out ? out : "");
			free(out);
			return -1;
		}
		free(out);
	}
	return 0;
}

/* The receiver's sshd: root by key only, on the control link only, nothing else it would look for. */
static const char sshd_config[] =
	"ListenAddress " PAIR_CTL_ADDR_RX "\n"
	"HostKey " GUEST_PAIR_DIR "/host\n"
	"AuthorizedKeysFile " GUEST_PAIR_DIR "/authorized_keys\n"
	"PermitRootLogin prohibit-password\n"
	"PasswordAuthentication no\n"
	"KbdInteractiveAuthentication no\n"
	"UsePAM no\n"
	"StrictModes no\n"
	"UseDNS no\n"
	"PidFile none\n"
	"PrintMotd no\n"
	"LogLevel ERROR\n";

/* A key file of keydir, read whole (malloc'd), or NULL having said why. */
static char *key_text(const char *keydir, const char *name)
{
	char path[PATH_MAX + 16], *t;

	fmt_buf(path, sizeof(path), "%s/%s", keydir, name);
	t = file_read(path, NULL);
	if (!t)
		pr_warn("vm-pair: cannot read %s", path);
	return t;
}

/* The keys: the receiver gets its host key and the sender's public key; the sender its key and the receiver's public one. */
static int pair_files(struct cpio *c, const struct vm_pair_guest *pg)
{
	bool rx = pg->role == PAIR_RX;
	char path[PATH_MAX + 16], *pub = key_text(pg->keydir, rx ? "id.pub" : "host.pub"), *line = NULL;
	int rc;

	if (!pub)
		return -1;
	fmt_buf(path, sizeof(path), "%s/%s", pg->keydir, rx ? "host" : "id");
	rc = cpio_file(c, rx ? GUEST_PAIR_DIR_REL "/host" : GUEST_PAIR_DIR_REL "/id", path);
	if (rx) {
		cpio_mem(c, GUEST_PAIR_DIR_REL "/authorized_keys", 0600, pub, strlen(pub));
		cpio_mem(c, GUEST_PAIR_DIR_REL "/sshd_config", 0644, sshd_config, strlen(sshd_config));
	} else if (asprintf(&line, "%s %s", PAIR_CTL_ADDR_RX, pub) > 0) {
		/* the receiver's host key is known: StrictHostKeyChecking=yes holds */
		cpio_mem(c, GUEST_PAIR_DIR_REL "/known_hosts", 0644, line, strlen(line));
	} else {
		rc = -1;
	}
	free(line);
	free(pub);
	return rc;
}

/* The sender's run (its entry's testbed, peer): over the control link, with the receiver's guest as the peer. */
void vm_pair_sender_args(json_t *argv)
{
	static const char *const opts[] = { GUEST_PAIR_SSH_OPTS, NULL };

	for (const char *const *a = (const char *const[]){ "--peer", "root@" PAIR_CTL_ADDR_RX,
			"--dev", GUEST_PAIR_LINK_DEV, "--peer-dev", GUEST_PAIR_LINK_DEV, "--peer-ipsecperf", GUEST_EXE, NULL };
	     *a; a++)
		json_array_append_new(argv, json_string(*a));
	for (int i = 0; opts[i]; i++) {
		json_array_append_new(argv, json_string("--ssh-option"));
		json_array_append_new(argv, json_string(opts[i]));
	}
}

int vm_initramfs_pair(struct cpio *c, const struct run_config *cfg, const struct vm_pair_guest *pg, json_t *gc)
{
	/*
	 * root's shell runs the peer testbed's commands: dash, as busybox's sh
	 * runs its own applets (ip) before PATH's, and bash costs more to start
	 * under TCG
	 */
	static const char passwd[] = "root:x:0:0:root:/root:/usr/bin/dash\nsshd:x:100:65534::/run/sshd:/usr/sbin/nologin\n";
	static const char group[] = "root:x:0:\nnogroup:x:65534:\n";
	bool rx = pg->role == PAIR_RX;
	const char *addr_tx = cfg->addr_tx ? cfg->addr_tx : "198.18.0.1", *addr_rx = cfg->addr_rx ? cfg->addr_rx : "198.18.0.2";

	if (add_elf(c, "usr/sbin/sshd", "/usr/sbin/sshd") < 0 || add_elf(c, "usr/bin/ssh", "/usr/bin/ssh") < 0 ||
	    add_elf(c, "usr/bin/dash", "/usr/bin/dash") < 0 ||
	    /* the peer testbed bounds its remote commands with coreutils' timeout (busybox's lacks --version) */
	    add_elf(c, "usr/bin/timeout", "/usr/bin/timeout") < 0) {
		pr_warn("vm-pair: initramfs: ssh, sshd, dash and timeout are needed from this host; `make deps` installs openssh-server");
		return -1;
	}
	/* before the plain guest's own passwd and group (the first of a name is kept) */
	cpio_mem(c, "etc/passwd", 0644, passwd, strlen(passwd));
	cpio_mem(c, "etc/group", 0644, group, strlen(group));
	if (pair_files(c, pg) < 0)
		return -1;
	json_object_set_new(gc, "pair", json_pack("{s:s, s:s, s:s, s:{s:s, s:s, s:i}, s:{s:s, s:s, s:i}}",
		"role", rx ? "receiver" : "sender", "peer_release", pg->peer_release,
		"peer_ctl_addr", rx ? PAIR_CTL_ADDR_TX : PAIR_CTL_ADDR_RX,
		"link", "mac", pair_mac(pg->role, PAIR_LINK), "addr", rx ? addr_rx : addr_tx,
		"prefix", cfg->prefix_len > 0 ? cfg->prefix_len : 24,
		"ctl", "mac", pair_mac(pg->role, PAIR_CTL), "addr", rx ? PAIR_CTL_ADDR_RX : PAIR_CTL_ADDR_TX,
		"prefix", PAIR_CTL_PREFIX));
	if (rx)
		json_object_del(gc, "argv"); /* the receiver runs no matrix: sshd, for the sender's */
	return 0;
}
