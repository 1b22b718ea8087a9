// SPDX-License-Identifier: GPL-2.0
/* Per-CPU SAs: their attributes and the kernel's capability (xfrm_pcpu.h). */
#include "xfrm_pcpu.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <libmnl/libmnl.h>
#include <linux/xfrm.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nlsock.h"

#ifdef XFRM_POLICY_CPU_ACQUIRE
_Static_assert(XFRM_POLICY_CPU_ACQUIRE == IPP_XFRM_POLICY_CPU_ACQUIRE, "the uapi's flag");
#endif

void xfrm_pcpu_put(struct nlmsghdr *nlh, int dir, int cpu)
{
	mnl_attr_put_u8(nlh, IPP_XFRMA_SA_DIR, (uint8_t)dir);
	if (cpu >= 0)
		mnl_attr_put_u32(nlh, IPP_XFRMA_SA_PCPU, (uint32_t)cpu);
}

int xfrm_pcpu_probe_build(void *buf)
{
	struct nlmsghdr *nlh;
	struct xfrm_userspi_info *spi;

	memset(buf, 0, NLSOCK_BUF);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = XFRM_MSG_ALLOCSPI;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	spi = mnl_nlmsg_put_extra_header(nlh, sizeof(*spi));
	spi->info.family = AF_INET;
	spi->info.id.proto = IPPROTO_ESP;
	spi->info.mode = XFRM_MODE_TRANSPORT;
	inet_pton(AF_INET, "192.0.2.1", &spi->info.id.daddr.a4); /* TEST-NET-1: nowhere */
	inet_pton(AF_INET, "192.0.2.2", &spi->info.saddr.a4);
	spi->min = 0x100;
	spi->max = 0xffff;
	/* no CPU has this number: a kernel that reads the attribute refuses it */
	mnl_attr_put_u32(nlh, IPP_XFRMA_SA_PCPU, UINT32_MAX);
	return (int)nlh->nlmsg_len;
}

/* In the child: a namespace of its own, the request; its answer's errno and message on fd. */
static void probe_child(int fd)
{
	char buf[NLSOCK_BUF], msg[200] = "";
	struct mnl_socket *nl;
	int rc;

	if (unshare(CLONE_NEWNET) < 0) {
		rc = -errno;
		snprintf(msg, sizeof(msg), "a network namespace of its own: %s", strerror(errno));
	} else if (!(nl = nlsock_open(NULL, NETLINK_XFRM))) {
		rc = -errno;
		snprintf(msg, sizeof(msg), "no xfrm netlink (CONFIG_XFRM_USER): %s", strerror(errno));
	} else {
		xfrm_pcpu_probe_build(buf);
		rc = nlsock_talk(nl, (struct nlmsghdr *)buf, NULL, NULL, msg, sizeof(msg), 0);
		if (rc == 0)
			rc = 1; /* taken: an SPI was allocated, the CPU never looked at */
		mnl_socket_close(nl);
	}
	if (write(fd, &rc, sizeof(rc)) != sizeof(rc) || write(fd, msg, strlen(msg)) < 0)
		_exit(1);
	_exit(0);
}

int xfrm_pcpu_probe(char *why, size_t len)
{
	char msg[200] = "";
	int p[2], rc = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(p) < 0) {
		snprintf(why, len, "cannot tell: pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		probe_child(p[1]);
	}
	close(p[1]);
	n = pid < 0 ? -1 : read(p[0], &rc, sizeof(rc));
	if (n == sizeof(rc) && (n = read(p[0], msg, sizeof(msg) - 1)) >= 0)
		msg[n] = '\0';
	close(p[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	if (pid < 0 || n < 0) {
		snprintf(why, len, "cannot tell: the probe did not answer");
		return -1;
	}
	if (rc == -EINVAL) {
		snprintf(why, len, "xfrm refuses a CPU it does not have (%s)", msg[0] ? msg : "EINVAL");
		return 1;
	}
	if (rc == 1) {
		snprintf(why, len, "this kernel has no per-CPU SAs: it took XFRMA_SA_PCPU unread (RFC 9611; Linux 6.13 and some 6.12.y have them)");
		return 0;
	}
	snprintf(why, len, "cannot tell: %s", msg[0] ? msg : strerror(-rc));
	return -1;
}

int xfrm_pcpu_cpu_list(const char *s, int *cpus, int max)
{
	int n = 0, last = -1;

	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b;

		if (end == s || a < 0 || a > 65535 || *s == '-' || *s == '+')
			return -1;
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a || b > 65535 || *s == '-' || *s == '+')
				return -1;
		}
		if (a <= last)
			return -1; /* ascending, each once */
		for (long c = a; c <= b; c++) {
			if (n == max)
				return -1;
			cpus[n++] = (int)c;
		}
		last = (int)b;
		s = end;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -1;
	}
	return n ? n : -1;
}

int xfrm_pcpu_online(int *cpus, int max, char *why, size_t len)
{
	const char *path = "/sys/devices/system/cpu/online";
	char buf[512];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC), k;

	if (fd < 0) {
		snprintf(why, len, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	k = xfrm_pcpu_cpu_list(buf, cpus, max);
	if (k < 0)
		snprintf(why, len, "%s: not a list of at most %d CPUs: '%.40s'", path, max, buf);
	return k;
}
