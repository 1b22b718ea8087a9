// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the guest channel as the host reads it
 * (collector/testbed/guest_tar.c, collector/vm/guest_check.c): the input is read as
 * the tar a VM guest sends back, each entry checked against the reader's
 * promises (a relative path of plain names, data inside the input, caps);
 * what it holds as guest.json, run/meta.json and run/runs.jsonl goes
 * through the checks the host makes before it keeps anything. The input is
 * also given to those checks directly (its first byte picks which), since
 * a tar's checksum keeps most mutations away from them. Pure: nothing is
 * written. Build and run: make fuzz (docs/fuzzing.md).
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "guest_check.h"
#include "guest_tar.h"

static const uint8_t *input;
static size_t input_len;

/* Every path the reader hands out keeps its promises. */
static int entry(const struct guest_tar_entry *e, void *ctx, char *err, size_t errlen)
{
	char path[GUEST_TAR_MAX_PATH + 1], *pos = path, *comp;
	size_t n = strlen(e->path);
	int depth = 0;

	(void)ctx;
	(void)err;
	(void)errlen;
	if (!n || n > GUEST_TAR_MAX_PATH || e->size > (size_t)GUEST_TAR_MAX_FILE || (e->dir && e->size))
		abort();
	if (e->data < input || e->size > input_len || e->data + e->size > input + input_len)
		abort();
	memcpy(path, e->path, n + 1);
	while ((comp = strsep(&pos, "/")))
		if (!guest_name_ok(comp) || ++depth > GUEST_TAR_MAX_DEPTH)
			abort();
	return 0;
}

static void terminated(const char *why, size_t len)
{
	if (!memchr(why, '\0', len))
		abort();
}

/* guest.json, meta.json and records, as vm_home.c takes them; release: the one guest.json gave */
static void check(const char *info, size_t info_len, const char *meta, size_t meta_len,
		  const char *runs, size_t runs_len)
{
	const char *release = "6.1.0-57-cloud-amd64";
	json_t *ginfo = NULL, *kernel = NULL;
	char why[512] = "";

	if (info) {
		ginfo = json_loadb(info, info_len, JSON_REJECT_DUPLICATES, NULL);
		if (guest_info_check(ginfo, why, sizeof(why)) == 0) {
			release = json_string_value(json_object_get(ginfo, "release"));
			if (!guest_name_ok(release))
				abort();
		}
		terminated(why, sizeof(why));
	}
	if (meta && guest_meta_kernel(meta, meta_len, release, &kernel, why, sizeof(why)) == 0 && kernel) {
		const char *r = json_string_value(json_object_get(kernel, "release"));

		if ((r && strcmp(r, release)) || guest_json_clean(kernel, why, sizeof(why)) < 0)
			abort();
	}
	terminated(why, sizeof(why));
	json_decref(kernel);
	if (runs) {
		int n = guest_records_check("runs.jsonl", runs, runs_len, release, why, sizeof(why));

		terminated(why, sizeof(why));
		if (n < 0)
			abort();
	}
	json_decref(ginfo);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct guest_out g;
	char why[512];
	int n;

	input = data;
	input_len = size;
	n = guest_tar_parse(data, size, entry, NULL, why, sizeof(why));
	terminated(why, sizeof(why));
	if (guest_out_scan(data, size, &g, why, sizeof(why)) == 0) {
		if (n < 0)
			abort(); /* the same archive, read twice, read alike */
		check(g.info, g.info_len, g.meta, g.meta_len, g.runs, g.runs_len);
	} else if (n >= 0) {
		abort();
	}
	if (size) {
		const char *rest = (const char *)data + 1;

		switch (data[0] % 3) {
		case 0:
			check(rest, size - 1, NULL, 0, NULL, 0);
			break;
		case 1:
			check(NULL, 0, rest, size - 1, NULL, 0);
			break;
		default:
			check(NULL, 0, NULL, 0, rest, size - 1);
		}
	}
	return 0;
}
