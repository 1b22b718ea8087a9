// SPDX-License-Identifier: GPL-2.0
/* What the chart writers share: gnuplot strings, the subtitle, running gnuplot, new files. */
#include "gnuplot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "exec.h"
#include "notes.h"
#include "provenance.h"
#include "report.h"

/*
 * A name from the results as a gnuplot single-quoted string. Inside one,
 * gnuplot substitutes nothing (no backquotes, no @macros, no backslash
 * escapes) and only a quote ends it, written twice to stand for itself; a
 * newline would end the command, so a control character is refused here
 * too, although the reader never lets one through.
 */
int gp_str(FILE *f, const char *s)
{
	if (results_bad_char(s, strlen(s)))
		return -1;
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
	return 0;
}

int run_gnuplot(int dfd, const char *fmt, const char *vars, const char *script)
{
	char expr[32];
	char *argv[] = { "gnuplot", "-e", expr, (char *)vars, (char *)script, NULL };

	snprintf(expr, sizeof(expr), "fmt='%s'", fmt);
	return exec_in_dirfd(dfd, argv, NULL);
}

FILE *chart_file(int dfd, const char *name, mode_t mode)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, mode), err;
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");

	if (!f && fd >= 0) {
		err = errno;
		close(fd);
		errno = err;
	}
	return f;
}

/*
 * The provenance under each chart's title, so that a chart pasted on its
 * own still says where it was measured: kernels, hosts, testbed and
 * accelerator, and the TCG caution. Names come from the results: they go
 * to gnuplot as a quoted string (gp_str), never as script text.
 */
void report_chart_subtitle(const struct report *rep, char *buf, size_t len)
{
	bool emulated = false;
	size_t o;

	o = snprintf(buf, len, "kernels ");
	for (int k = 0; k < rep->nkernels && o < len; k++)
		o += snprintf(buf + o, len - o, "%s%s", k ? ", " : "", rep->kernels[k]);
	for (int i = 0; i < rep->nsrc && o < len; i++) {
		const struct results_meta *m = &rep->src[i].meta;
		char accel[128];

		o += snprintf(buf + o, len - o, "%s%s, %s, accelerator %s", i ? "; " : " on ",
			      m->host ? m->host : "host not recorded", m->testbed ? m->testbed : "testbed not recorded",
			      prov_accel(rep->src, &rep->all, i, accel, sizeof(accel)));
		emulated |= prov_emulated(rep->src, &rep->all, i);
	}
	if (emulated && o < len)
		snprintf(buf + o, len - o, " (emulated CPU: compare ratios, not absolute figures)");
	text_clean(buf);
}

int gp_subtitle(FILE *f, const struct report *rep)
{
	/* the provenance in lines of at most 110 characters, broken at spaces */
	char sub[1024], *p = sub;
	int nsub = 0, err = 0;

	report_chart_subtitle(rep, sub, sizeof(sub));
	fprintf(f, "\narray subtitle[8]");
	while (*p && nsub < 8) {
		size_t n = strlen(p);
		char save;

		if (n > 110) {
			n = 110;
			while (n > 40 && p[n] != ' ')
				n--;
		}
		save = p[n];
		p[n] = '\0';
		fprintf(f, "\nsubtitle[%d] = ", ++nsub);
		err |= gp_str(f, p);
		p[n] = save;
		p += n;
		while (*p == ' ')
			p++;
	}
	fprintf(f, "\nnsubtitle = %d", nsub);
	return err;
}
