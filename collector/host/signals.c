// SPDX-License-Identifier: GPL-2.0
#include "signals.h"

#include <signal.h>
#include <string.h>
#include <time.h>

#include "wait.h"

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	if (!got_signal)
		got_signal = sig;
}

void signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

bool stop_requested(void)
{
	return got_signal != 0;
}

int stop_signal(void)
{
	return got_signal;
}

bool sleep_ms_or_stop(int ms)
{
	if (!got_signal)
		wait_ms(ms);
	return got_signal != 0;
}
