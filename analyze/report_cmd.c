// SPDX-License-Identifier: GPL-2.0
/* `ipsecperf report`: the table of formats -f chooses from, the output file, the charts. */
#include "report.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec.h"
#include "files.h"
#include "log.h"

/* What a format's writer is given: the report, the options, the charts drawn. */
struct report_out {
	const struct report *rep;
	const struct report_opts *o;
	int chart_dfd;
	int ncharts;
	char **names;
	const char *no_charts;
};

static int write_text(FILE *f, const struct report_out *out)
{
	if (out->o->summary)
		return report_summary(f, out->rep);
	return out->o->side_by_side ? report_side_by_side(f, out->rep) : report_text(f, out->rep);
}

static int write_md(FILE *f, const struct report_out *out)
{
	return report_markdown(f, out->rep);
}

static int write_csv(FILE *f, const struct report_out *out)
{
	return report_csv(f, out->rep);
}

static int write_json(FILE *f, const struct report_out *out)
{
	return report_json(f, out->rep);
}

static int write_html(FILE *f, const struct report_out *out)
{
	return report_html(f, out->rep, out->chart_dfd, out->ncharts, out->names, out->no_charts);
}

/*
 * The formats -f chooses from, written once: name, writer, whether it
 * draws the charts (without -c into a temporary folder), and whether a
 * failed write goes unsaid (the HTML page's never said it).
 */
#define REPORT_FORMATS(F)                        \
	F("text", write_text, false, false)     \
	F("md", write_md, false, false)         \
	F("csv", write_csv, false, false)       \
	F("json", write_json, false, false)     \
	F("html", write_html, true, true)       \
	F("markdown", write_md, false, false)

struct report_format {
	const char *name;
	int (*write)(FILE *f, const struct report_out *out);
	bool charts;
	bool quiet;
};

#define FORMAT_ENTRY(n, w, c, q) { .name = n, .write = w, .charts = c, .quiet = q },
static const struct report_format formats[] = { REPORT_FORMATS(FORMAT_ENTRY) };
#define FORMAT_NAME(n, w, c, q) n,
const char *const report_format_names[] = { REPORT_FORMATS(FORMAT_NAME) NULL };

static const struct report_format *format_find(const char *name)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(formats[i].name, name))
			return &formats[i];
	return NULL;
}

/* The report in fmt, to o->output or standard output. */
static int write_to(const struct report_format *fmt, const struct report_out *out)
{
	const char *path = out->o->output;
	FILE *f = stdout;
	char why[256];
	int ret, fd;

	/* never through a symbolic link, never opening a FIFO or a device node */
	if (path) {
		fd = file_open_out_at(AT_FDCWD, path, 0666, why, sizeof(why));
		f = fd < 0 ? NULL : fdopen(fd, "w");
		if (!f) {
			pr_warn("report: %s: %s", path, fd < 0 ? why : strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
	}
	ret = fmt->write(f, out);
	if (path && fclose(f) != 0)
		ret = -1;
	if (ret < 0 && !fmt->quiet)
		pr_warn("report: cannot write %s", path ? path : "standard output");
	return ret;
}

static int rm_rf_charts(const char *dir, int dfd)
{
	/*
	 * Everything in it: the folder is our own (mkdtemp, 0700), and each
	 * chart writes files of its own beside the ones it is named by
	 * (latency.dat without a latency chart, the templates, replot.sh).
	 */
	int fd = dup(dfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (!d && fd >= 0)
		close(fd);
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dfd, e->d_name, 0);
	if (d)
		closedir(d);
	return rmdir(dir);
}

/*
 * The folder the charts go into, open (O_NOFOLLOW, checked through the
 * descriptor), kept open while they are drawn: -c DIR (new, or empty and
 * ours), or a new temporary one (*tmp set). -1 after a message.
 */
static int charts_open(const char *charts, char *tmpdir, bool *tmp)
{
	char why[256];
	int dfd;

	if (!charts) {
		if (!mkdtemp(tmpdir)) {
			pr_warn("report: %s: %s", tmpdir, strerror(errno));
			return -1;
		}
		*tmp = true;
		dfd = open(tmpdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dfd < 0)
			pr_warn("report: %s: %s", tmpdir, strerror(errno));
		return dfd;
	}
	dfd = out_dir_open(charts, why, sizeof(why));
	if (dfd < 0)
		pr_warn("report: %s: %s; choose another with -c", charts, why);
	return dfd;
}

int report_run(const struct report_opts *o, char *const dirs[], int ndirs)
{
	char tmpdir[PATH_MAX], why[256];
	const char *tmp = getenv("TMPDIR");
	const char *charts = o->charts, *no_charts = NULL;
	const struct report_format *fmt = format_find(o->format);
	bool tmp_charts = false;
	struct report rep;
	char **names = NULL;
	int ret = EXIT_OK, ncharts = 0, dfd = -1;

	if (!fmt) {
		pr_warn("report: no format %s", o->format);
		return EXIT_USAGE;
	}
	/* charts without -c are drawn in a temporary folder under $TMPDIR (default /tmp), removed after */
	if (snprintf(tmpdir, sizeof(tmpdir), "%s/ipsecperf-charts-XXXXXX", tmp && *tmp ? tmp : "/tmp") >= (int)sizeof(tmpdir)) {
		pr_warn("report: TMPDIR is too long");
		return EXIT_USAGE;
	}
	if (charts && out_dir_check(charts, false, why, sizeof(why)) < 0) {
		pr_warn("report: -c %s: %s; choose another folder", charts, why);
		return EXIT_USAGE;
	}
	if (report_load(&rep, dirs, ndirs) < 0)
		return EXIT_USAGE;
	if (report_check_pool(&rep, o->allow) < 0) {
		report_free(&rep);
		return EXIT_USAGE;
	}
	if (charts && !fmt->charts && !exec_have("gnuplot")) {
		pr_warn("report: gnuplot not found: cannot draw charts (install gnuplot-nox)");
		ret = EXIT_FAIL;
		goto out;
	}
	if (charts || fmt->charts) {
		dfd = charts_open(charts, tmpdir, &tmp_charts);
		if (dfd < 0) {
			ret = EXIT_FAIL;
			goto out;
		}
		if (!charts)
			charts = tmpdir;
	}
	if (charts && fmt->charts && !exec_have("gnuplot")) {
		/* the page without charts is still worth having */
		no_charts = "gnuplot was not found (install gnuplot-nox), so the figures are in tables only";
		pr_warn("report: gnuplot not found: the HTML page has tables but no charts (install gnuplot-nox)");
	} else if (charts) {
		ncharts = report_charts(&rep, dfd, charts, &names);
		if (ncharts < 0) {
			ret = EXIT_FAIL;
			goto out;
		}
	}
	ret = write_to(fmt, &(struct report_out){ .rep = &rep, .o = o, .chart_dfd = dfd, .ncharts = ncharts,
						  .names = names, .no_charts = no_charts }) < 0 ? EXIT_FAIL : EXIT_OK;
out:
	if (tmp_charts)
		rm_rf_charts(tmpdir, dfd);
	if (dfd >= 0)
		close(dfd);
	for (int i = 0; i < ncharts; i++)
		free(names[i]);
	free(names);
	report_free(&rep);
	return ret;
}
