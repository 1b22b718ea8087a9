/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the host takes from a VM guest, checked as data (docs/security.md: a guest
 * is not trusted). The guest's /out arrives as a tar (guest_tar.h) holding
 * guest.json, run/runs.jsonl, run/meta.json and run/raw/...; its records
 * also arrive one by one on a serial port. All checks here are pure: they
 * read bytes in memory and write nothing, except guest_out_raw.
 */
#ifndef IPSECPERF_GUEST_CHECK_H
#define IPSECPERF_GUEST_CHECK_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define GUEST_JSON_DEPTH 16
#define GUEST_PROC_VERSION_MAX 512

/* The files of the guest's /out that the host reads, inside the archive. */
struct guest_out {
	const char *info, *runs, *meta; /* guest.json, run/runs.jsonl, run/meta.json; NULL if absent */
	size_t info_len, runs_len, meta_len;
	int nraw;                       /* files under run/raw/ */
};

/*
 * Read the guest's tar (len bytes) with guest_tar_parse and note where its
 * files are. 0, or -1 with why (the archive is refused as a whole).
 */
int guest_out_scan(const void *tar, size_t len, struct guest_out *g, char *why, size_t whylen);

/*
 * Write the archive's run/raw/ files under rawfd (guest_write_file: new
 * files only, 0644, no link followed), all or none: they are unpacked into
 * a staging folder under rawfd and moved into place only once the whole
 * archive is taken, none over a name that is there, none of the names
 * the host writes itself (guest_raw_name_reserved). 0, or -1 with why and
 * nothing written.
 */
int guest_out_raw(const void *tar, size_t len, int rawfd, char *why, size_t whylen);

/* console[-receiver][-rN].log and vm-guest[-rN].json: the host's own names in raw/<release>/. */
bool guest_raw_name_reserved(const char *name);

/*
 * Every string in v, object keys included, is free of control characters
 * (C0, DEL, C1), and v is at most GUEST_JSON_DEPTH levels deep. 0 or -1.
 */
int guest_json_clean(json_t *v, char *why, size_t whylen);

/*
 * guest.json: "release" a plain name (guest_name_ok), "rc" an integer,
 * "proc_version" absent or a string of at most GUEST_PROC_VERSION_MAX
 * bytes, every string clean. 0 or -1 with why.
 */
int guest_info_check(json_t *info, char *why, size_t whylen);

/*
 * The guest's meta.json read as any results file's (results_parse_meta),
 * then its kernel entry (the first of "kernels", or "kernel"): clean, and
 * of release `release` if it names one. *entry gets a copy (NULL when the
 * file has no kernel object). 0, or -1 with why.
 */
int guest_meta_kernel(const char *buf, size_t len, const char *release, json_t **entry,
		      char *why, size_t whylen);

/*
 * The guest's records (complete lines of runs.jsonl) read as any results
 * file's (results_parse_runs), then each must name kernel `release` and be
 * clean (guest_json_clean: also the keys the reader does not use, since
 * the line is kept whole). Returns how many leading lines passed; why is ""
 * when all did, else it names the first line refused ("NAME:LINE: why").
 */
int guest_records_check(const char *name, const char *buf, size_t len, const char *release,
			char *why, size_t whylen);

#endif
