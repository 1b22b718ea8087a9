// SPDX-License-Identifier: GPL-2.0
/*
 * `ipsecperf guest`: the init of the VM testbed's guest (PID 1 of the
 * initramfs vm_initramfs.c builds). It mounts what the collector needs, runs
 * the matrix with the netns testbed exactly as on a host, watches for the
 * first byte of load, then sends /out back as a tar on ttyS1 and reboots
 * (qemu runs with -no-reboot, so that ends it).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "loads.h"
#include "log.h"
#include "wait.h"
#include "guest.h"
#include "guest_pair.h"
#include "vm_guest.h"
#include "files.h"

static double uptime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void mounts(void)
{
	static const struct {
		const char *src, *dir, *type;
		unsigned long flags;
	} m[] = {
		{ "proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC },
		{ "sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC },
		{ "devtmpfs", "/dev", "devtmpfs", MS_NOSUID },
		{ "tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV },
		{ "tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV },
		{ "tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV },
		{ "bpf", "/sys/fs/bpf", "bpf", 0 },
		{ "tracefs", "/sys/kernel/tracing", "tracefs", 0 },
		{ "debugfs", "/sys/kernel/debug", "debugfs", 0 },
		{ "cgroup2", "/sys/fs/cgroup", "cgroup2", 0 },
	};

	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		mkdir(m[i].dir, 0755);
		if (mount(m[i].src, m[i].dir, m[i].type, m[i].flags, NULL) < 0 && errno != EBUSY)
			pr_debug("guest: mount %s: %s", m[i].dir, strerror(errno));
	}
	mkdir("/run/netns", 0755);
	symlink("/proc/self/fd", "/dev/fd");
}

/* The console is ours as PID 1; make sure stdio goes there. */
static void console(void)
{
	int fd = open("/dev/console", O_RDWR | O_NOCTTY);

	if (fd < 0)
		return;
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
	setvbuf(stdout, NULL, _IOLBF, 0);
}

/* vm-pair: only the link counts (the control link carries ssh before the load) */
static const char *count_dev;

/* Bytes sent on the non-loopback links (or count_dev) of the namespace pid lives in. */
static long long ns_tx_bytes(const char *pid)
{
	char path[300], line[512];
	long long sum = 0;
	FILE *f;

	fmt_buf(path, sizeof(path), "/proc/%s/net/dev", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *name = line;
		unsigned long long v[16];

		if (!colon)
			continue;
		*colon = '\0';
		while (*name == ' ')
			name++;
		if (!strcmp(name, "lo") || (count_dev && strcmp(name, count_dev)))
			continue;
		if (sscanf(colon + 1, "%llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
			   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8]) == 9)
			sum += v[8];
	}
	fclose(f);
	return sum;
}

/*
 * Kernel threads, by pid, found once: they never become iperf3, and under
 * TCG reading the comm of each of the guest's 60-odd kernel threads every
 * 20 ms cost the guest a good part of a CPU while the collector set up.
 * A pid is not handed out again before the kernel has gone round all of
 * pid_max (32768 in the guest), which a guest's few hundred processes
 * never do: a pid found to be a kernel thread stays one.
 */
#define PID_SLOTS 32768
static unsigned char kthread_known[PID_SLOTS / 8], kthread_is[PID_SLOTS / 8];

static bool is_kthread(long pid)
{
	char path[64], buf[512], *p;
	unsigned long flags = 0;
	int field = 2;

	if (pid <= 0 || pid >= PID_SLOTS)
		return false;
	if (kthread_known[pid / 8] & (1 << pid % 8))
		return kthread_is[pid / 8] & (1 << pid % 8);
	fmt_buf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (file_read_line(path, buf, sizeof(buf)) < 0 || !(p = strrchr(buf, ')')))
		return false;
	/* field 9 is the task's flags; PF_KTHREAD is 0x00200000 */
	for (char *tok = strtok(p + 1, " "); tok && ++field <= 9; tok = strtok(NULL, " "))
		if (field == 9)
			flags = strtoul(tok, NULL, 10);
	kthread_known[pid / 8] |= 1 << pid % 8;
	if (flags & 0x00200000)
		kthread_is[pid / 8] |= 1 << pid % 8;
	return flags & 0x00200000;
}

/*
 * Has load started? A load's sender (its entry's comm: iperf3) whose
 * namespace has sent more than the handshakes do: that is the first byte
 * of the first run's load.
 */
#define FIRST_BYTE_THRESHOLD (64 * 1024)

static bool load_started(void)
{
	struct dirent *e;
	bool started = false;
	DIR *d = opendir("/proc");

	if (!d)
		return false;
	while (!started && (e = readdir(d))) {
		char path[300], comm[32];

		if (e->d_name[0] < '1' || e->d_name[0] > '9' || is_kthread(atol(e->d_name)))
			continue;
		fmt_buf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		if (file_read_line(path, comm, sizeof(comm)) < 0 || !load_comm(comm))
			continue;
		started = ns_tx_bytes(e->d_name) > FIRST_BYTE_THRESHOLD;
	}
	closedir(d);
	return started;
}

static pid_t spawn(char **argv, int outfd)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	setsid();
	if (outfd >= 0)
		dup2(outfd, 1);
	execv(argv[0], argv);
	dprintf(2, "ipsecperf: guest: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* A serial port in raw mode, for bytes rather than text; -1 if absent. */
static int open_raw_tty(const char *path)
{
	struct termios t;
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);

	if (fd < 0) {
		pr_warn("guest: %s: %s", path, strerror(errno));
		return -1;
	}
	if (tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		cfsetospeed(&t, B115200);
		tcsetattr(fd, TCSANOW, &t);
	}
	return fd;
}

/*
 * Records as they are written: each complete new line of the collector's
 * runs.jsonl goes out on ttyS2 at once, so that the runs a kernel finished
 * before it panicked or hung still reach the host.
 */
static int live_fd = -1;
static off_t live_pos;

static void forward_records(void)
{
	char buf[65536];
	ssize_t n;
	int fd;

	if (live_fd < 0)
		return;
	fd = open(GUEST_OUT "/" GUEST_RUNDIR "/runs.jsonl", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	while ((n = pread(fd, buf, sizeof(buf), live_pos)) > 0) {
		ssize_t end = n;

		while (end > 0 && buf[end - 1] != '\n')
			end--;
		if (end == 0)
			break; /* a line still being written */
		for (ssize_t off = 0; off < end;) {
			ssize_t w = write(live_fd, buf + off, end - off);

			if (w <= 0)
				break;
			off += w;
		}
		live_pos += end;
	}
	close(fd);
}

/* PID 1 reaps every orphan; return the status of want when it ends. */
static int reap_until(pid_t want, bool *first_byte, double *t_first)
{
	for (;;) {
		int st;
		/* any child: as PID 1 every orphan is ours (collector/lib/exec.c waits for one pid) */
		pid_t p = waitpid(-1, &st, WNOHANG);

		if (p == want) {
			forward_records();
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		}
		if (p > 0)
			continue;
		if (p < 0 && errno == ECHILD)
			return -1;
		if (first_byte && !*first_byte && load_started()) {
			*first_byte = true;
			*t_first = uptime();
			printf("%s t=%.3f\n", MARK_FIRST_BYTE, *t_first);
		}
		if (first_byte)
			forward_records();
		wait_ms(20);
	}
}

static void write_info(int rc, double t_init, double t_start, double t_first, double t_end)
{
	struct utsname u;
	char *version = file_read("/proc/version", NULL), *text;
	json_t *info;

	uname(&u);
	if (version)
		version[strcspn(version, "\n")] = '\0';
	info = json_pack("{s:i, s:s, s:s, s:s, s:f, s:f, s:f}", "rc", rc, "release", u.release,
			 "machine", u.machine, "proc_version", version ? version : "",
			 "t_init", t_init, "t_start", t_start, "t_end", t_end);
	if (t_first > 0)
		json_object_set_new(info, "t_first_byte", json_real(t_first));
	text = json_dumps(info, JSON_INDENT(1));
	if (text)
		file_write(GUEST_OUT "/" GUEST_INFO, text, strlen(text));
	free(text);
	free(version);
	json_decref(info);
}

/* tar /out onto ttyS1, raw, and wait until the UART has sent it all. */
static int send_results(void)
{
	int fd = open_raw_tty(GUEST_RESULTS_TTY);
	pid_t pid;
	int rc;

	if (fd < 0)
		return -1;
	pid = spawn((char *[]){ "/bin/busybox", "tar", "-c", "-f", "-", "-C", GUEST_OUT, ".", NULL },
		    fd);
	rc = reap_until(pid, NULL, NULL);
	tcdrain(fd);
	close(fd);
	return rc;
}

/*
 * vm-pair: the network; the receiver then serves sshd until the host
 * stops it (it sends nothing back: its counters reach the sender's records
 * through the peer testbed's agent), the sender waits for that sshd.
 */
static int pair_start(json_t *pair)
{
	if (guest_pair_net(pair) < 0)
		return -1;
	if (!guest_pair_receiver(pair)) {
		count_dev = GUEST_PAIR_LINK_DEV;
		return guest_pair_wait_peer(pair, 90);
	}
	if (guest_pair_sshd() < 0)
		return -1;
	printf("%s t=%.3f\n", MARK_PEER_READY, uptime());
	/* PID 1 reaps sshd's children; when none is left (sshd died), it waits for the host */
	reap_until(-1, NULL, NULL);
	pr_warn("guest: pair: sshd ended");
	for (;;)
		pause();
}

int guest_main(void)
{
	double t_init, t_start = 0, t_first = 0, t_end;
	bool first = false;
	json_t *cfg, *jargv, *pair;
	json_error_t jerr;
	char **cargv = NULL;
	int rc = 125;

	mounts();
	console();
	/* from now on the kernel may load modules on demand (vm_initramfs.c) */
	if (file_write("/proc/sys/kernel/modprobe", GUEST_MODPROBE "\n",
			  strlen(GUEST_MODPROBE) + 1) < 0)
		pr_warn("guest: cannot set /proc/sys/kernel/modprobe: %s", strerror(errno));
	t_init = uptime();
	printf("%s t=%.3f\n", MARK_INIT, t_init);
	sethostname("ipsecperf-vm", 12);
	setenv("PATH", "/usr/sbin:/usr/bin:/sbin:/bin", 1);
	setenv("HOME", "/root", 1);
	setenv("IPSECPERF_SCENARIOS", "/scenarios", 1);
	if (is_file(GUEST_ANCHORS))
		setenv("IPSECPERF_PROBE_ANCHORS", GUEST_ANCHORS, 1);

	cfg = json_load_file(GUEST_CONFIG, 0, &jerr);
	pair = json_object_get(cfg, "pair");
	if (pair && pair_start(pair) < 0)
		goto out;
	jargv = json_object_get(cfg, "argv");
	if (!json_is_array(jargv) || !json_array_size(jargv)) {
		pr_warn("guest: %s: %s", GUEST_CONFIG, cfg ? "no argv" : jerr.text);
		goto out;
	}
	cargv = calloc(json_array_size(jargv) + 1, sizeof(*cargv));
	for (size_t i = 0; cargv && i < json_array_size(jargv); i++)
		cargv[i] = (char *)json_string_value(json_array_get(jargv, i));
	mkdir(GUEST_OUT, 0755);

	live_fd = open_raw_tty(GUEST_LIVE_TTY);
	t_start = uptime();
	printf("%s t=%.3f\n", MARK_START, t_start);
	rc = reap_until(spawn(cargv, -1), &first, &t_first);
out:
	t_end = uptime();
	write_info(rc, t_init, t_start, first ? t_first : -1, t_end);
	{
		int trc = send_results();

		printf("%s t=%.3f rc=%d tar=%d sent_in=%.3f\n", MARK_DONE, t_end, rc, trc,
		       uptime() - t_end);
	}
	fflush(stdout);
	free(cargv);
	json_decref(cfg);
	if (live_fd >= 0)
		tcdrain(live_fd);
	sync();
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}
