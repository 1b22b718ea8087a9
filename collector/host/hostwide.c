// SPDX-License-Identifier: GPL-2.0
#include "hostwide.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "journal_dir.h"
#include "log.h"
#include "signals.h"

#define LOCK_NAME "hostwide.lock"

static int lock_fd = -1;
static char lock_path[PATH_MAX];
static bool no_wait;

void hostwide_set_no_wait(bool nw)
{
	no_wait = nw;
}

bool hostwide_locked(void)
{
	return lock_fd >= 0;
}

/* This process's start in seconds since the epoch: the boot time plus its start time after boot. */
static long long self_start_epoch(void)
{
	FILE *f = fopen("/proc/stat", "r");
	char line[256];
	long long btime = -1, st = proc_starttime(0);

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "btime %lld", &btime) == 1)
			break;
	if (f)
		fclose(f);
	if (btime < 0 || st < 0)
		return (long long)time(NULL);
	return btime + st / sysconf(_SC_CLK_TCK);
}

/* "run PID (started ISO)" from the holder's note; -1 while it has written none. */
static int holder(int fd, char *buf, size_t len)
{
	char note[64], iso[32];
	ssize_t n = pread(fd, note, sizeof(note) - 1, 0);
	long long start;
	struct tm tm;
	time_t t;
	int pid;

	if (n <= 0)
		return -1;
	note[n] = '\0';
	if (sscanf(note, "%d %lld", &pid, &start) != 2 || pid <= 0)
		return -1;
	t = (time_t)start;
	if (!gmtime_r(&t, &tm) || !strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(iso, sizeof(iso), "?");
	snprintf(buf, len, "run %d (started %s)", pid, iso);
	return 0;
}

/* Is fd still the file named LOCK_NAME in dirfd? Its holder removes it before letting go. */
static bool still_named(int dirfd, int fd)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && fstatat(dirfd, LOCK_NAME, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int hostwide_lock(char *why, size_t len)
{
	const char *dir = journal_dir();
	char who[128], said[128] = "";
	int dirfd, fd, tries = 0;

	if (lock_fd >= 0)
		return 0;
	dirfd = jdir_open(dir, true, why, len);
	if (dirfd < 0)
		return -1;
	for (;; tries++) {
		who[0] = '\0';
		fd = jdir_openat(dirfd, dir, LOCK_NAME, O_RDWR | O_CREAT, 0600, why, len);
		if (fd < 0)
			break;
		if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
			if (!still_named(dirfd, fd)) {
				close(fd);
				continue;
			}
			if (ftruncate(fd, 0) < 0 || dprintf(fd, "%d %lld\n", (int)getpid(), self_start_epoch()) < 0)
				pr_debug("hostwide: cannot write %s/%s: %s", dir, LOCK_NAME, strerror(errno));
			snprintf(lock_path, sizeof(lock_path), "%s/%s", dir, LOCK_NAME);
			lock_fd = fd;
			close(dirfd);
			return 0;
		}
		if (errno != EWOULDBLOCK) {
			snprintf(why, len, "cannot lock %s/%s: %s", dir, LOCK_NAME, strerror(errno));
			close(fd);
			break;
		}
		/* the holder writes its note just after it takes the lock: give it a moment */
		if (holder(fd, who, sizeof(who)) < 0 && tries >= 5)
			snprintf(who, sizeof(who), "another run");
		close(fd);
		if (tries >= 5 || who[0]) {
			if (no_wait) {
				snprintf(why, len, "another ipsecperf run holds host-wide changes (kernel modules, offloads of shared devices): %s; not waiting for it (--no-wait)",
					 who);
				break;
			}
			if (strcmp(said, who)) {
				pr_warn("waiting for %s to release host-wide changes", who);
				snprintf(said, sizeof(said), "%s", who);
			}
		}
		if (sleep_ms_or_stop(200)) {
			snprintf(why, len, "stopped while waiting for %s to release host-wide changes",
				 said[0] ? said : "another run");
			break;
		}
	}
	close(dirfd);
	return -1;
}

void hostwide_unlock(void)
{
	if (lock_fd < 0)
		return;
	/* remove the name while still holding the lock: a waiter then sees it is gone */
	unlink(lock_path);
	close(lock_fd);
	lock_fd = -1;
}

void hostwide_cleanup_stale(int dirfd)
{
	char why[256];
	int fd = jdir_openat(dirfd, "", LOCK_NAME, O_RDWR, 0, why, sizeof(why));

	if (fd < 0)
		return;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0 && still_named(dirfd, fd))
		unlinkat(dirfd, LOCK_NAME, 0);
	close(fd);
}
