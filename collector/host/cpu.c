// SPDX-License-Identifier: GPL-2.0
#include "cpu.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "clock.h"

int cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n < 1 ? 1 : n > CPU_MAX ? CPU_MAX : (int)n;
}

/* One hardware counter on every CPU into fd[]: true, or false (all closed, errno kept) */
static bool open_counter(int ncpu, uint64_t config, int *fd, int *err)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = config;
	attr.disabled = 1;
	for (int i = 0; i < ncpu; i++) {
		fd[i] = syscall(SYS_perf_event_open, &attr, -1, i, -1, 0);
		if (fd[i] < 0) {
			if (err)
				*err = errno;
			for (int j = 0; j < i; j++)
				close(fd[j]);
			for (int j = 0; j < ncpu; j++)
				fd[j] = -1;
			return false;
		}
	}
	return true;
}

void cpu_open(struct cpu_acct *a)
{
	memset(a, 0, sizeof(*a));
	a->ncpu = cpu_count();
	a->pmu = open_counter(a->ncpu, PERF_COUNT_HW_CPU_CYCLES, a->pmu_fd, NULL);
	/* the instructions on the same CPUs over the same window, beside the cycles */
	a->ins = open_counter(a->ncpu, PERF_COUNT_HW_INSTRUCTIONS, a->ins_fd, &a->ins_errno);
}

static void close_all(int ncpu, int *fd)
{
	for (int i = 0; i < ncpu; i++) {
		if (fd[i] > 0)
			close(fd[i]);
		fd[i] = -1;
	}
}

void cpu_close(struct cpu_acct *a)
{
	close_all(a->ncpu, a->pmu_fd);
	close_all(a->ncpu, a->ins_fd);
}

int parse_stat_cpu_line(const char *line, int *cpu, unsigned long long *busy,
			unsigned long long *total)
{
	unsigned long long v[10] = { 0 };
	int n;

	/* cpuN user nice system idle iowait irq softirq steal guest guest_nice */
	n = sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", cpu, &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
	if (n < 5)
		return -1;
	/* guest time is already inside user and nice */
	*busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	*total = *busy + v[3] + v[4];
	return 0;
}

static int read_busy(struct cpu_acct *a, unsigned long long *busy)
{
	FILE *f = fopen("/proc/stat", "r");
	char line[512];

	if (!f)
		return -1;
	memset(busy, 0, sizeof(*busy) * CPU_MAX);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long b, t;
		int cpu;

		if (strncmp(line, "cpu", 3) || line[3] == ' ')
			continue;
		if (parse_stat_cpu_line(line, &cpu, &b, &t) == 0 && cpu >= 0 && cpu < a->ncpu)
			busy[cpu] = b;
	}
	fclose(f);
	return 0;
}

static uint64_t read_sum(bool on, int ncpu, const int *fd)
{
	uint64_t sum = 0, v;

	for (int i = 0; on && i < ncpu; i++)
		if (read(fd[i], &v, sizeof(v)) == sizeof(v))
			sum += v;
	return sum;
}

static uint64_t read_cycles(struct cpu_acct *a)
{
	return read_sum(a->pmu, a->ncpu, a->pmu_fd);
}

int cpu_start(struct cpu_acct *a)
{
	for (int i = 0; a->pmu && i < a->ncpu; i++)
		ioctl(a->pmu_fd[i], PERF_EVENT_IOC_ENABLE, 0);
	for (int i = 0; a->ins && i < a->ncpu; i++)
		ioctl(a->ins_fd[i], PERF_EVENT_IOC_ENABLE, 0);
	a->cycles0 = read_cycles(a);
	a->ins0 = read_sum(a->ins, a->ncpu, a->ins_fd);
	a->t0 = clock_s(CLOCK_MONOTONIC);
	a->rt0 = clock_s(CLOCK_REALTIME);
	return read_busy(a, a->busy0);
}

int cpu_stop(struct cpu_acct *a)
{
	int err = read_busy(a, a->busy1);

	a->rt1 = clock_s(CLOCK_REALTIME);
	a->t1 = clock_s(CLOCK_MONOTONIC);
	a->cycles1 = read_cycles(a);
	a->ins1 = read_sum(a->ins, a->ncpu, a->ins_fd);
	for (int i = 0; a->pmu && i < a->ncpu; i++)
		ioctl(a->pmu_fd[i], PERF_EVENT_IOC_DISABLE, 0);
	for (int i = 0; a->ins && i < a->ncpu; i++)
		ioctl(a->ins_fd[i], PERF_EVENT_IOC_DISABLE, 0);
	return err;
}

double cpu_busy_s(const struct cpu_acct *a, int cpu)
{
	double hz = sysconf(_SC_CLK_TCK);
	unsigned long long ticks = 0;

	for (int i = 0; i < a->ncpu; i++)
		if (cpu < 0 || cpu == i)
			ticks += a->busy1[i] - a->busy0[i];
	return ticks / hz;
}

double cpu_window_s(const struct cpu_acct *a)
{
	return a->t1 - a->t0;
}

double tsc_hz(void)
{
	static double hz;

	if (hz > 0)
		return hz;
#if defined(__x86_64__) || defined(__i386__)
	/* 50 ms against the raw monotonic clock: within 0.1% in practice */
	double t0 = clock_s(CLOCK_MONOTONIC_RAW), t1;
	unsigned long long c0 = __rdtsc(), c1;

	do {
		t1 = clock_s(CLOCK_MONOTONIC_RAW);
	} while (t1 - t0 < 0.05);
	c1 = __rdtsc();
	hz = (c1 - c0) / (t1 - t0);
#else
	hz = 1e9; /* no TSC: cycles are nanoseconds of busy time */
#endif
	return hz;
}

uint64_t cpu_cycles(const struct cpu_acct *a, const char **method)
{
	if (a->pmu) {
		*method = "pmu";
		return a->cycles1 - a->cycles0;
	}
	*method = "estimated";
	return (uint64_t)(cpu_busy_s(a, -1) * tsc_hz());
}

bool cpu_instructions(const struct cpu_acct *a, uint64_t *n, char *why, size_t len)
{
	*n = 0;
	if (a->ins) {
		*n = a->ins1 - a->ins0;
		return true;
	}
	snprintf(why, len, "perf_event_open(instructions): %s",
		 a->ins_errno ? strerror(a->ins_errno) : "not opened");
	return false;
}

double cycles_per_byte(uint64_t cycles, uint64_t bytes)
{
	return bytes ? (double)cycles / (double)bytes : -1;
}
