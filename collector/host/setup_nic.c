// SPDX-License-Identifier: GPL-2.0
/* One NIC's set-up as found (setup.h): ethtool -i, -g, -c, -l, -k, the link, its IRQs. */
#include "setup.h"

#include <ctype.h>
#include <dirent.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ethtool_nl.h"
#include "files.h"

#define NIC_IRQS_MAX 64

/* One ethtool ioctl on dev: 0, or -1 (the driver has no such operation). */
static int ethtool_ioctl(const char *dev, void *cmd)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc;

	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	ifr.ifr_data = cmd;
	rc = ioctl(fd, SIOCETHTOOL, &ifr);
	close(fd);
	return rc < 0 ? -1 : 0;
}

static json_t *sys_int(const char *dev, const char *file)
{
	char path[300], buf[64], *end;
	long v;

	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", dev, file);
	if (file_read_line(path, buf, sizeof(buf)) < 0)
		return json_null();
	v = strtol(buf, &end, 10);
	return end == buf || v < 0 ? json_null() : json_integer(v);
}

static json_t *sys_str(const char *dev, const char *file)
{
	char path[300], buf[256];

	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", dev, file);
	return file_read_line(path, buf, sizeof(buf)) < 0 ? json_null() : json_string(buf);
}

static void drvinfo(json_t *o, const char *dev)
{
	struct ethtool_drvinfo d = { .cmd = ETHTOOL_GDRVINFO };

	if (ethtool_ioctl(dev, &d) < 0)
		return;
	json_object_set_new(o, "driver", json_stringn(d.driver, strnlen(d.driver, sizeof(d.driver))));
	json_object_set_new(o, "version", json_stringn(d.version, strnlen(d.version, sizeof(d.version))));
	json_object_set_new(o, "firmware", json_stringn(d.fw_version, strnlen(d.fw_version, sizeof(d.fw_version))));
	json_object_set_new(o, "bus", json_stringn(d.bus_info, strnlen(d.bus_info, sizeof(d.bus_info))));
}

/* ethtool -g, -c, -l: what the driver answers; absent where it answers nothing. */
static void queues(json_t *o, const char *dev)
{
	struct ethtool_ringparam r = { .cmd = ETHTOOL_GRINGPARAM };
	struct ethtool_coalesce c = { .cmd = ETHTOOL_GCOALESCE };
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };

	if (ethtool_ioctl(dev, &r) == 0)
		json_object_set_new(o, "rings", json_pack("{s:i, s:i, s:i, s:i}", "rx", r.rx_pending, "tx",
							  r.tx_pending, "rx_max", r.rx_max_pending, "tx_max",
							  r.tx_max_pending));
	if (ethtool_ioctl(dev, &c) == 0)
		json_object_set_new(o, "coalesce",
				    json_pack("{s:i, s:i, s:i, s:i, s:b, s:b}", "rx_usecs", c.rx_coalesce_usecs,
					      "rx_frames", c.rx_max_coalesced_frames, "tx_usecs",
					      c.tx_coalesce_usecs, "tx_frames", c.tx_max_coalesced_frames,
					      "adaptive_rx", c.use_adaptive_rx_coalesce, "adaptive_tx",
					      c.use_adaptive_tx_coalesce));
	if (ethtool_ioctl(dev, &ch) == 0)
		json_object_set_new(o, "channels", json_pack("{s:i, s:i, s:i, s:i}", "rx", ch.rx_count, "tx",
							     ch.tx_count, "combined", ch.combined_count,
							     "other", ch.other_count));
}

/* ethtool -k: every feature the kernel names, on or off, as found. */
static json_t *offloads(const char *dev)
{
	static struct ethnl_features f;
	char err[256] = "";
	json_t *o;

	if (ethnl_features_get(NULL, dev, &f, err, sizeof(err)) < 0)
		return json_null();
	o = json_object();
	for (int i = 0; i < f.n && i < ETHNL_FEATURES_MAX; i++)
		if (f.name[i][0])
			json_object_set_new(o, f.name[i], json_boolean(ethnl_bit(f.active, i)));
	return o;
}

/* The IRQ numbers under a device's msi_irqs/ (its own, or its parent's: virtio). */
static int msi_irqs(const char *dev, int *irq, int max)
{
	static const char *const where[] = { "device/msi_irqs", "device/../msi_irqs" };
	int n = 0;

	for (size_t w = 0; w < 2 && !n; w++) {
		char path[300];
		DIR *d;
		struct dirent *e;

		snprintf(path, sizeof(path), "/sys/class/net/%s/%s", dev, where[w]);
		if (!(d = opendir(path)))
			continue;
		while ((e = readdir(d)) && n < max)
			if (isdigit((unsigned char)e->d_name[0]))
				irq[n++] = atoi(e->d_name);
		closedir(d);
	}
	return n;
}

/* /proc/interrupts' action names of irq ("eth0-TxRx-0"), into out; "" if none. */
static void irq_name(const char *interrupts, int irq, char *out, size_t len)
{
	out[0] = '\0';
	for (const char *l = interrupts; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *p = l;
		size_t ll = strcspn(l, "\n");

		while (*p == ' ')
			p++;
		if (atoi(p) != irq || !isdigit((unsigned char)*p))
			continue;
		/* the last blank-separated word of the line */
		const char *end = l + ll, *w = end;

		while (w > p && w[-1] != ' ')
			w--;
		snprintf(out, len, "%.*s", (int)(end - w), w);
		return;
	}
}

static json_t *irqs(const char *dev)
{
	int irq[NIC_IRQS_MAX], n = msi_irqs(dev, irq, NIC_IRQS_MAX);
	char *interrupts = file_read("/proc/interrupts", NULL);
	json_t *a = json_array();

	for (int i = 0; i < n; i++) {
		char path[96], aff[256] = "", eff[256] = "", name[64];

		snprintf(path, sizeof(path), "/proc/irq/%d/smp_affinity_list", irq[i]);
		file_read_line(path, aff, sizeof(aff));
		snprintf(path, sizeof(path), "/proc/irq/%d/effective_affinity_list", irq[i]);
		file_read_line(path, eff, sizeof(eff));
		irq_name(interrupts, irq[i], name, sizeof(name));
		json_array_append_new(a, json_pack("{s:i, s:s, s:s, s:s}", "irq", irq[i], "name", name,
						   "affinity", aff, "effective", eff));
	}
	free(interrupts);
	return a;
}

json_t *setup_nic(const char *dev)
{
	json_t *o = json_pack("{s:s}", "dev", dev);

	/* a name, never a path */
	if (!o || !*dev || strlen(dev) >= IFNAMSIZ || strchr(dev, '/') || !strcmp(dev, ".") || !strcmp(dev, ".."))
		return o;
	drvinfo(o, dev);
	json_object_set_new(o, "speed_mbps", sys_int(dev, "speed"));
	json_object_set_new(o, "duplex", sys_str(dev, "duplex"));
	json_object_set_new(o, "mtu", sys_int(dev, "mtu"));
	json_object_set_new(o, "numa_node", sys_int(dev, "device/numa_node"));
	queues(o, dev);
	json_object_set_new(o, "offloads", offloads(dev));
	json_object_set_new(o, "irqs", irqs(dev));
	return o;
}
