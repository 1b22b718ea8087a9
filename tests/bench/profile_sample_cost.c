// SPDX-License-Identifier: GPL-2.0
/*
 * What --profile's sampling takes from a busy CPU, measured without
 * depending on what else the host runs: a loop pinned to one CPU counts
 * its iterations per second of its own CPU time (the timer interrupt that
 * takes a cpu-clock sample is charged to the task it interrupts), in
 * blocks of BLOCK_MS, with perf record's events enabled in every other
 * block through its control FIFOs. Also perf's own CPU time in the on
 * blocks. Built and run by profile_sample_cost.sh.
 *
 * usage: profile_sample_cost CTL ACK PERF_PID BLOCKS BLOCK_MS
 */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double clk(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double proc_cpu_s(const char *pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut, st;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	f = fopen(path, "r");
	if (!f || !fgets(buf, sizeof(buf), f)) {
		if (f)
			fclose(f);
		return 0;
	}
	fclose(f);
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return 0;
	return (double)(ut + st) / sysconf(_SC_CLK_TCK);
}

static void control(int ctl, int ack, const char *cmd)
{
	char buf[8];
	ssize_t n = 0, r;

	if (write(ctl, cmd, strlen(cmd)) < 0) {
		perror("write to perf's control FIFO");
		exit(1);
	}
	/* perf writes "ack\n" with its NUL, in one write: one read gets it all */
	while (n < 4 && (r = read(ack, buf + n, sizeof(buf) - n)) > 0)
		n += r;
	if (n < 4 || memcmp(buf, "ack\n", 4)) {
		fprintf(stderr, "perf did not ack %s", cmd);
		exit(1);
	}
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int ctl, ack, blocks, ms, npairs = 0;
	double *ratios, perf_cpu = 0, on_wall = 0, rate[2] = { 0, 0 };
	volatile unsigned long sink = 0;

	if (argc != 6)
		return 2;
	ctl = open(argv[1], O_RDWR);
	ack = open(argv[2], O_RDWR);
	blocks = atoi(argv[4]);
	ms = atoi(argv[5]);
	ratios = calloc(blocks, sizeof(*ratios));
	control(ctl, ack, "ping\n");
	for (int b = 0; b < blocks; b++) {
		int on = b & 1;
		double w0, c0, p0, end;
		unsigned long it = 0;

		control(ctl, ack, on ? "enable\n" : "disable\n");
		w0 = clk(CLOCK_MONOTONIC);
		c0 = clk(CLOCK_THREAD_CPUTIME_ID);
		p0 = proc_cpu_s(argv[3]);
		end = w0 + ms / 1000.0;
		while (clk(CLOCK_MONOTONIC) < end)
			for (int k = 0; k < 10000; k++, it++)
				sink += it * 2654435761u;
		rate[on] = it / (clk(CLOCK_THREAD_CPUTIME_ID) - c0);
		if (on) {
			perf_cpu += proc_cpu_s(argv[3]) - p0;
			on_wall += clk(CLOCK_MONOTONIC) - w0;
			ratios[npairs++] = rate[1] / rate[0];
		}
	}
	control(ctl, ack, "disable\n");
	qsort(ratios, npairs, sizeof(*ratios), cmp);
	printf("pairs %d, loop rate per own CPU second on/off: median %.4f (quartiles %.4f-%.4f); "
	       "perf's own CPU while on: %.2f%% of one CPU\n",
	       npairs, ratios[npairs / 2], ratios[npairs / 4], ratios[3 * npairs / 4],
	       on_wall > 0 ? 100 * perf_cpu / on_wall : 0);
	return sink == 42;
}
