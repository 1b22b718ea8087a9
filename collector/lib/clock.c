// SPDX-License-Identifier: GPL-2.0
#include "clock.h"

double clock_s(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

double mono_s(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
