// SPDX-License-Identifier: GPL-2.0
/* run --tune: the governor to performance and boost off, journaled (tune.h). */
#include "tune.h"

#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cpu.h"
#include "files.h"
#include "journal.h"
#include "log.h"

#define SYS_CPU "/sys/devices/system/cpu"

/* The files tune_apply writes, and so the only ones its undo may. */
static const char *const writable[] = {
	"^" SYS_CPU "/cpu[0-9]{1,4}/cpufreq/scaling_governor$",
	"^" SYS_CPU "/cpufreq/policy[0-9]{1,4}/boost$",
	"^" SYS_CPU "/cpufreq/boost$",
	"^" SYS_CPU "/intel_pstate/no_turbo$",
};

static bool path_ok(const char *path)
{
	for (size_t i = 0; i < sizeof(writable) / sizeof(writable[0]); i++) {
		regex_t re;
		bool hit;

		if (regcomp(&re, writable[i], REG_EXTENDED | REG_NOSUB))
			continue;
		hit = regexec(&re, path, 0, NULL, 0) == 0;
		regfree(&re);
		if (hit)
			return true;
	}
	return false;
}

static bool value_ok(const char *v)
{
	return *v && strlen(v) < 32 && strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789_-") == strlen(v);
}

/* A sysfs file written as `echo VALUE >` would, never made, never through a symlink of its last component. */
static int write_value(const char *path, const char *value)
{
	char line[40];
	int n = snprintf(line, sizeof(line), "%s\n", value), fd = open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC), err;

	if (fd < 0)
		return -1;
	err = write(fd, line, n) == n ? 0 : -1;
	if (close(fd) < 0)
		err = -1;
	return err;
}

/* One file from its value now to want: journaled, written, noted in done. */
static int tune_one(const char *path, const char *want, json_t *done, char *why, size_t len)
{
	char now[64];

	if (file_read_line(path, now, sizeof(now)) < 0 || !strcmp(now, want))
		return 0;
	if (!value_ok(now)) {
		snprintf(why, len, "%s holds '%.40s', which --tune would not know how to put back", path, now);
		return -1;
	}
	if (journal_add(json_pack("{s:s, s:s, s:s}", "kind", "sysfs", "path", path, "value", now)) < 0) {
		snprintf(why, len, "cannot journal the change of %s", path);
		return -1;
	}
	if (journal_dry_run()) {
		printf("echo %s > %s\n", want, path);
	} else if (write_value(path, want) < 0) {
		snprintf(why, len, "cannot write %s to %s: %s", want, path, strerror(errno));
		return -1;
	}
	json_array_append_new(done, json_pack("{s:s, s:s, s:s}", "path", path, "from", now, "to", want));
	return 0;
}

/* Does this CPU's cpufreq driver offer the governor? */
static bool has_governor(int cpu, const char *gov)
{
	char path[160], avail[512];

	snprintf(path, sizeof(path), SYS_CPU "/cpu%d/cpufreq/scaling_available_governors", cpu);
	if (file_read_line(path, avail, sizeof(avail)) < 0)
		return false;
	for (char *w = strtok(avail, " "); w; w = strtok(NULL, " "))
		if (!strcmp(w, gov))
			return true;
	return false;
}

json_t *tune_apply(char *why, size_t len)
{
	json_t *done = json_array();
	int ncpu = cpu_count();
	bool boost_done = false;

	/* what the whole host shares: one run at a time changes it */
	if (journal_hostwide("cpufreq", why, len) < 0)
		goto fail;
	for (int c = 0; c < ncpu; c++) {
		char path[160];

		snprintf(path, sizeof(path), SYS_CPU "/cpu%d/cpufreq/scaling_governor", c);
		if (access(path, F_OK) == 0 && has_governor(c, "performance") &&
		    tune_one(path, "performance", done, why, len) < 0)
			goto fail;
		snprintf(path, sizeof(path), SYS_CPU "/cpufreq/policy%d/boost", c);
		if (access(path, F_OK) == 0) {
			boost_done = true;
			if (tune_one(path, "0", done, why, len) < 0)
				goto fail;
		}
	}
	if (!boost_done && access(SYS_CPU "/cpufreq/boost", F_OK) == 0 &&
	    tune_one(SYS_CPU "/cpufreq/boost", "0", done, why, len) < 0)
		goto fail;
	if (access(SYS_CPU "/intel_pstate/no_turbo", F_OK) == 0 &&
	    tune_one(SYS_CPU "/intel_pstate/no_turbo", "1", done, why, len) < 0)
		goto fail;
	return done;
fail:
	json_decref(done);
	return NULL;
}

int tune_undo(json_t *r)
{
	const char *path = json_string_value(json_object_get(r, "path"));
	const char *value = json_string_value(json_object_get(r, "value"));

	if (!path || !value || !path_ok(path) || !value_ok(value)) {
		pr_warn("journal: a sysfs record that --tune did not write: left as it is");
		return JOURNAL_LEFT;
	}
	if (write_value(path, value) < 0) {
		pr_warn("journal: cannot write %s back to %s: %s", value, path, strerror(errno));
		return -1;
	}
	return 0;
}
