/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU accounting for one measured interval (docs/methodology.md, "Cycles per byte"):
 * cycles from the PMU's cycle counter on every CPU where the kernel offers
 * one, otherwise busy CPU time from /proc/stat times the TSC frequency
 * ("estimated"). Busy time is also kept per CPU, so that the CPU the sender
 * is pinned to and the one the receiver is pinned to can be told apart.
 */
#ifndef IPSECPERF_CPU_H
#define IPSECPERF_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CPU_MAX 256

struct cpu_acct {
	int ncpu;
	bool pmu;                  /* cycle counters opened on every CPU */
	int pmu_fd[CPU_MAX];
	bool ins;                  /* instruction counters opened on every CPU (same CPUs and window) */
	int ins_fd[CPU_MAX];
	int ins_errno;             /* why not: perf_event_open's errno */
	uint64_t ins0, ins1;
	unsigned long long busy0[CPU_MAX], busy1[CPU_MAX]; /* USER_HZ ticks */
	double t0, t1;             /* CLOCK_MONOTONIC seconds */
	double rt0, rt1;           /* CLOCK_REALTIME: before the first read of /proc/stat, after the last */
	uint64_t cycles0, cycles1;
};

/* Open the PMU counters if the kernel has them (else pmu = false). */
void cpu_open(struct cpu_acct *a);
void cpu_close(struct cpu_acct *a);
int cpu_start(struct cpu_acct *a);
int cpu_stop(struct cpu_acct *a);

double cpu_busy_s(const struct cpu_acct *a, int cpu);   /* cpu -1: all */
double cpu_window_s(const struct cpu_acct *a);
/* Cycles in the interval and the method ("pmu" or "estimated"). */
uint64_t cpu_cycles(const struct cpu_acct *a, const char **method);
/*
 * Instructions in the interval from the PMU (0 and false without one; why
 * in why, "perf_event_open(instructions): <strerror>"). Never estimated.
 */
bool cpu_instructions(const struct cpu_acct *a, uint64_t *n, char *why, size_t len);

/* The TSC frequency in Hz, calibrated once against CLOCK_MONOTONIC_RAW. */
double tsc_hz(void);

/* Parse one /proc/stat "cpuN ..." line: busy and total ticks. Unit-tested. */
int parse_stat_cpu_line(const char *line, int *cpu, unsigned long long *busy,
			unsigned long long *total);

/* cycles / bytes, or -1 when bytes is 0. */
double cycles_per_byte(uint64_t cycles, uint64_t bytes);

int cpu_count(void);

#endif
