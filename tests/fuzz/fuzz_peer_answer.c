// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the peer agent's run answers
 * (collector/host/peer_run.c): the input is what a program printed. Its
 * first byte picks the exit status and the limits hit, the second how many
 * times the rest is repeated (so that the output reaches and passes what an
 * answer holds), the third where stdout ends and stderr begins. The answer
 * is made with peer_run_answer() as the agent makes it, then read with
 * peer_run_result() as the run reads it. Aborts if the line is longer than
 * the run's reader takes (REMOTE_ANSWER_MAX) or is not JSON, if an answer
 * that carries the output does not give back the very bytes printed, if
 * one that does not is taken as output or as not run, or if text with a
 * NUL is taken at all. Build and run: make fuzz (docs/fuzzing.md).
 */
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "peer_run.h"
#include "remote.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct peer_run_output o = { 0 };
	size_t reps, len, split;
	char *buf, *line, *out = NULL, *err = NULL;
	json_t *r;
	int st;

	if (size < 3)
		return 0;
	o.status = data[0] & 0x80 ? -1 : data[0] & 0x3f;
	o.too_long = data[0] & 0x40 && data[0] & 1;
	o.timed_out = data[0] & 0x40 && data[0] & 2;
	reps = 1 + data[1] % 64;
	len = (size - 3) * reps;
	buf = malloc(len + 1);
	if (!buf)
		abort();
	for (size_t i = 0; i < reps; i++)
		memcpy(buf + i * (size - 3), data + 3, size - 3);
	buf[len] = '\0';
	split = len ? (size_t)data[2] * len / 255 : 0;
	o.out = buf;
	o.out_len = split;
	o.err = buf + split;
	o.err_len = len - split;

	line = peer_run_answer(&o);
	if (!line || strlen(line) > REMOTE_ANSWER_MAX)
		abort();
	r = json_loads(line, 0, NULL);
	if (!json_is_object(r))
		abort();
	st = peer_run_result(r, &out, &err);
	if (json_is_true(json_object_get(r, "ok"))) {
		/* carried: the very bytes, and never a NUL, a limit hit or a program that did not start */
		if (o.status < 0 || o.too_long || o.timed_out || st != o.status || !out || !err ||
		    strlen(out) != o.out_len || memcmp(out, o.out, o.out_len) || strlen(err) != o.err_len ||
		    memcmp(err, o.err, o.err_len))
			abort();
	} else if (o.status < 0) {
		if (st != PEER_RUN_NOT_RUN)
			abort();
	} else if (st != (json_is_true(json_object_get(r, "too_long")) ? PEER_RUN_TOO_LONG : -1) || !out || *out ||
		   !err || !*err ||
		   json_object_get(r, "out")) {
		abort(); /* it ran: said why, nothing taken as output, never run again (but a read too long) */
	}
	free(out);
	free(err);
	json_decref(r);
	free(line);
	free(buf);
	return 0;
}
