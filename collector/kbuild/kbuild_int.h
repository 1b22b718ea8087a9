/* SPDX-License-Identifier: GPL-2.0 */
/* What kbuild's own files share: a façade of kbuild_fresh.c and kbuild_make.c. */
#ifndef IPSECPERF_KBUILD_INT_H
#define IPSECPERF_KBUILD_INT_H

#include "kbuild.h"
#include "files.h"

/*
 * Run make (argv), its output into log_path (appended or new), with a
 * progress line titled what unless quiet; Ctrl-C stops it and every job.
 * Returns its exit status, 128+signal, or -1 when it could not start.
 */
int kbuild_make(char *const argv[], const char *log_path, bool append, bool quiet, const char *what);

/*
 * Whether a build with make's argv would do nothing: the stamp of the last
 * successful build matches argv and the environment, and no file of the
 * tree or the build folder is newer than it.
 */
bool kbuild_up_to_date(const struct kbuild *b, char *const argv[], char *why, size_t len);

/* After make: the stamp written (built) or removed. */
void kbuild_stamp(const struct kbuild *b, char *const argv[], bool built);

#endif
