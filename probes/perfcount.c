// SPDX-License-Identifier: GPL-2.0
/* tracefs events through perf_event_open: the fallback without BPF. */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <event-parse.h>

#include "files.h"
#include "journal.h"
#include "log.h"
#include "perfcount.h"

#define TRACEFS_MAGIC_ 0x74726163
#define RING_PAGES 256 /* 1 MiB per CPU for the GSO skb samples */
#define MAX_CPUS 256

struct perfcount {
	int ncpus;
	int xmit_all[MAX_CPUS];  /* counting: every skb on the devices */
	int xmit_gso[MAX_CPUS];  /* sampling: GSO skbs only, for gso_segs */
	void *ring[MAX_CPUS];
	int kmalloc[MAX_CPUS], kfree[MAX_CPUS];
	size_t page, ring_len;
	struct tep_handle *tep;
	struct tep_event *ev;
	uint64_t gso_skbs, gso_segs, lost;
	uint64_t kmalloc_bytes;  /* not available from a count */
};

const char *perfcount_tracefs(bool mount, char *why, size_t wlen)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char p[128];

	for (int i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/events/net", dirs[i]);
		if (access(p, R_OK) == 0)
			return dirs[i];
	}
	if (!mount) {
		snprintf(why, wlen, "tracefs is not mounted (a run mounts it, journaled)");
		return NULL;
	}
	char *do_argv[] = { "mount", "-t", "tracefs", "nodev", "/sys/kernel/tracing", NULL };
	char *undo_argv[] = { "umount", "/sys/kernel/tracing", NULL };
	char *err = NULL;

	if (host_do(NULL, do_argv, undo_argv, &err) < 0) {
		snprintf(why, wlen, "cannot mount tracefs on /sys/kernel/tracing: %s", err && *err ? err : "mount failed");
		free(err);
		return NULL;
	}
	free(err);
	return access("/sys/kernel/tracing/events/net", R_OK) == 0 ? "/sys/kernel/tracing" : NULL;
}


static long event_id(const char *tracefs, const char *sys, const char *name)
{
	char path[256], *s;
	long id;

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", tracefs, sys, name);
	s = file_read(path, NULL);
	if (!s)
		return -1;
	id = strtol(s, NULL, 10);
	free(s);
	return id;
}

int perfcount_dev_filter(char *buf, size_t len, const char *const *devs, const char *extra)
{
	size_t n = 0;

	buf[0] = '\0';
	if (devs && devs[0]) {
		n += snprintf(buf + n, len - n, "(");
		for (int i = 0; devs[i] && i < 2 && n < len; i++)
			n += snprintf(buf + n, len - n, "%sname == \"%s\"", i ? " || " : "", devs[i]);
		if (n < len)
			n += snprintf(buf + n, len - n, ")");
	}
	if (extra && n < len)
		n += snprintf(buf + n, len - n, "%s%s", n ? " && " : "", extra);
	return n < len ? 0 : -1;
}

static int open_tp(long id, int cpu, bool sample, const char *filter)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_TRACEPOINT, .size = sizeof(a), .config = (uint64_t)id, .disabled = 1,
	};
	int fd;

	if (sample) {
		a.sample_period = 1;
		a.sample_type = PERF_SAMPLE_RAW;
		a.wakeup_events = 1 << 30; /* never wake: drained by polling */
	}
	fd = syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (filter && *filter && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

static void close_all(int *fds, int n)
{
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* GSO skbs of net:net_dev_start_xmit sampled into a ring per CPU, for their gso_segs. */
static void open_xmit_gso(struct perfcount *pc, long id, const char *const *devs,
			  bool avail[IPP_NR_COUNTERS], char how[IPP_NR_COUNTERS][256])
{
	char filter[512];
	int ok = 1;

	perfcount_dev_filter(filter, sizeof(filter), devs, "gso_size != 0");
	for (int c = 0; c < pc->ncpus && ok; c++) {
		pc->xmit_gso[c] = open_tp(id, c, true, filter);
		ok = pc->xmit_gso[c] >= 0;
		if (ok) {
			pc->ring[c] = mmap(NULL, pc->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, pc->xmit_gso[c], 0);
			ok = pc->ring[c] != MAP_FAILED;
			if (!ok)
				pc->ring[c] = NULL;
		}
	}
	if (!ok) {
		snprintf(how[IPP_XMIT_SEGS], 256, "unavailable: no BPF, and sampling net:net_dev_start_xmit failed: %s", strerror(errno));
	} else {
		avail[IPP_XMIT_SEGS] = true;
		snprintf(how[IPP_XMIT_SEGS], 256, "tracefs event net:net_dev_start_xmit through perf_event_open: skbs plus gso_segs - 1 of each sampled GSO skb (libtraceevent)");
	}

}

/* net:net_dev_start_xmit: skbs counted; GSO skbs sampled for gso_segs. */
static void open_xmit(struct perfcount *pc, const char *tracefs, const char *const *devs,
		      bool avail[IPP_NR_COUNTERS], char how[IPP_NR_COUNTERS][256])
{
	char filter[512], path[256], *fmt;
	long id = event_id(tracefs, "net", "net_dev_start_xmit");
	size_t flen;
	int ok = 1;

	snprintf(path, sizeof(path), "%s/events/net/net_dev_start_xmit/format", tracefs);
	fmt = file_read(path, &flen);
	pc->tep = tep_alloc();
	if (fmt && pc->tep && tep_parse_event(pc->tep, fmt, flen, "net") == TEP_ERRNO__SUCCESS)
		pc->ev = tep_find_event_by_name(pc->tep, "net", "net_dev_start_xmit");
	free(fmt);
	if (id < 0 || !pc->ev) {
		snprintf(how[IPP_XMIT_SKBS], 256, "unavailable: no BPF, and net:net_dev_start_xmit is not in %s/events", tracefs);
		memcpy(how[IPP_XMIT_SEGS], how[IPP_XMIT_SKBS], 256);
		return;
	}
	perfcount_dev_filter(filter, sizeof(filter), devs, NULL);
	for (int c = 0; c < pc->ncpus && ok; c++) {
		pc->xmit_all[c] = open_tp(id, c, false, filter);
		ok = pc->xmit_all[c] >= 0;
	}
	if (!ok) {
		snprintf(how[IPP_XMIT_SKBS], 256, "unavailable: no BPF, and perf_event_open of net:net_dev_start_xmit failed: %s", strerror(errno));
		memcpy(how[IPP_XMIT_SEGS], how[IPP_XMIT_SKBS], 256);
		close_all(pc->xmit_all, pc->ncpus);
		return;
	}
	avail[IPP_XMIT_SKBS] = true;
	snprintf(how[IPP_XMIT_SKBS], 256, "tracefs event net:net_dev_start_xmit counted by perf_event_open%s%.160s",
		 *filter ? ", filter " : "", filter);
	open_xmit_gso(pc, id, devs, avail, how);
}

/* kmem: counts with a call_site filter; kfree by call site too (no pointer matching here) */
static void open_kmem(struct perfcount *pc, const char *tracefs, const uint64_t *lo, const uint64_t *hi,
		      int nranges, bool avail[IPP_NR_COUNTERS], char how[IPP_NR_COUNTERS][256])
{
	static const struct { const char *name; int slot; } kev[] = {
		{ "kmalloc", IPP_KMALLOC_ESP_OUTPUT }, { "kfree", IPP_KFREE_ESP_OUTPUT },
	};
	char filter[512];
	size_t n = 0;

	filter[0] = '\0';
	for (int i = 0; i < nranges && n < sizeof(filter); i++)
		n += snprintf(filter + n, sizeof(filter) - n, "%s(call_site >= 0x%llx && call_site < 0x%llx)",
			      i ? " || " : "", (unsigned long long)lo[i], (unsigned long long)hi[i]);
	for (int k = 0; k < 2; k++) {
		int *fds = k ? pc->kfree : pc->kmalloc, ok = 1;
		long id = event_id(tracefs, "kmem", kev[k].name);

		for (int c = 0; c < pc->ncpus && ok && id >= 0; c++) {
			fds[c] = open_tp(id, c, false, filter);
			ok = fds[c] >= 0;
		}
		if (id < 0 || !ok) {
			snprintf(how[kev[k].slot], 256, "unavailable: no BPF, and kmem:%s cannot be counted: %s", kev[k].name,
				 id < 0 ? "no such event" : strerror(errno));
			close_all(fds, pc->ncpus);
			for (int c = 0; c < pc->ncpus; c++)
				fds[c] = -1;
			continue;
		}
		avail[kev[k].slot] = true;
		snprintf(how[kev[k].slot], 256, "tracefs event kmem:%s counted by perf_event_open, filter %.180s",
			 kev[k].name, filter);
	}
}

struct perfcount *perfcount_open(const char *tracefs, bool xmit, const char *const *devs, const uint64_t *lo,
				 const uint64_t *hi, int nranges, bool avail[IPP_NR_COUNTERS],
				 char how[IPP_NR_COUNTERS][256])
{
	struct perfcount *pc = calloc(1, sizeof(*pc));

	if (!pc)
		return NULL;
	pc->ncpus = sysconf(_SC_NPROCESSORS_CONF);
	if (pc->ncpus > MAX_CPUS)
		pc->ncpus = MAX_CPUS;
	pc->page = sysconf(_SC_PAGESIZE);
	pc->ring_len = pc->page * (RING_PAGES + 1);
	for (int i = 0; i < MAX_CPUS; i++)
		pc->xmit_all[i] = pc->xmit_gso[i] = pc->kmalloc[i] = pc->kfree[i] = -1;
	if (xmit)
		open_xmit(pc, tracefs, devs, avail, how);
	if (nranges > 0)
		open_kmem(pc, tracefs, lo, hi, nranges, avail, how);
	int *groups[] = { pc->xmit_all, pc->xmit_gso, pc->kmalloc, pc->kfree };

	for (int g = 0; g < 4; g++)
		for (int c = 0; c < pc->ncpus; c++)
			if (groups[g][c] >= 0)
				ioctl(groups[g][c], PERF_EVENT_IOC_ENABLE, 0);
	return pc;
}

void perfcount_drain(struct perfcount *pc)
{
	unsigned long long segs;
	uint8_t *tmp = NULL;

	if (!pc || !pc->ev)
		return;
	for (int c = 0; c < pc->ncpus; c++) {
		struct perf_event_mmap_page *m = pc->ring[c];
		uint8_t *data;
		uint64_t head, tail, size = pc->ring_len - pc->page;

		if (!m)
			continue;
		data = (uint8_t *)m + pc->page;
		head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE);
		tail = m->data_tail;
		while (tail < head) {
			struct perf_event_header h;
			uint8_t *rec;

			for (size_t i = 0; i < sizeof(h); i++)
				((uint8_t *)&h)[i] = data[(tail + i) % size];
			if (h.size < sizeof(h))
				break;
			if (!tmp && !(tmp = malloc(65536)))
				break;
			for (size_t i = 0; i < h.size && i < 65536; i++)
				tmp[i] = data[(tail + i) % size];
			rec = tmp + sizeof(h);
			if (h.type == PERF_RECORD_SAMPLE) {
				uint32_t rawlen;
				struct tep_record r = { 0 };

				memcpy(&rawlen, rec, 4);
				r.data = rec + 4;
				r.size = rawlen;
				if (tep_get_field_val(NULL, pc->ev, "gso_segs", &r, &segs, 0) == 0) {
					pc->gso_skbs++;
					pc->gso_segs += segs ? segs : 1;
				}
			} else if (h.type == PERF_RECORD_LOST) {
				uint64_t lost;

				memcpy(&lost, rec + 8, 8);
				pc->lost += lost;
			}
			tail += h.size;
		}
		__atomic_store_n(&m->data_tail, tail, __ATOMIC_RELEASE);
	}
	free(tmp);
}

static uint64_t sum(const int *fds, int n)
{
	uint64_t t = 0, v;

	for (int c = 0; c < n; c++)
		if (fds[c] >= 0 && read(fds[c], &v, sizeof(v)) == sizeof(v))
			t += v;
	return t;
}

void perfcount_read(struct perfcount *pc, uint64_t v[IPP_NR_SLOTS])
{
	uint64_t skbs;

	memset(v, 0, sizeof(uint64_t) * IPP_NR_SLOTS);
	if (!pc)
		return;
	perfcount_drain(pc);
	skbs = sum(pc->xmit_all, pc->ncpus);
	v[IPP_XMIT_SKBS] = skbs;
	/* non-GSO skbs count one segment each; GSO skbs their gso_segs */
	v[IPP_XMIT_SEGS] = skbs - (pc->gso_skbs <= skbs ? pc->gso_skbs : skbs) + pc->gso_segs;
	v[IPP_KMALLOC_ESP_OUTPUT] = sum(pc->kmalloc, pc->ncpus);
	v[IPP_KFREE_ESP_OUTPUT] = sum(pc->kfree, pc->ncpus);
}

uint64_t perfcount_lost(const struct perfcount *pc)
{
	return pc ? pc->lost : 0;
}

void perfcount_close(struct perfcount *pc)
{
	if (!pc)
		return;
	for (int c = 0; c < pc->ncpus; c++)
		if (pc->ring[c])
			munmap(pc->ring[c], pc->ring_len);
	close_all(pc->xmit_all, pc->ncpus);
	close_all(pc->xmit_gso, pc->ncpus);
	close_all(pc->kmalloc, pc->ncpus);
	close_all(pc->kfree, pc->ncpus);
	if (pc->tep)
		tep_free(pc->tep);
	free(pc);
}
