// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the peer agent's request reader
 * (collector/testbed/testbed_peer_parse.c): the input is what the agent reads on
 * its stdin, fed in reads of a size taken from the first byte into a line
 * buffer as small as 512 bytes, and taken out line by line with
 * peer_request_take() as cmd_peer_agent() does, with jansson's frees
 * wiping (peer_json_wipe_frees()). Each request's fields are read as the
 * agent's operations read them and its "key" decoded with
 * peer_hex_decode(). Aborts if anything of a taken line stays in the
 * buffer (a key would), if a request is not an object, or if a decoded
 * key is longer than its buffer. Build and run: make fuzz (docs/fuzzing.md).
 */
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testbed_peer.h"

#define KEY_MAX 80 /* the agent's largest key buffer */

static void use_request(json_t *req)
{
	static const char *const ints[] = { "port", "cpu", "family", "spi", "enc_key_bits", "auth_key_bits",
					    "auth_icv_bits", "aead_key_bits", "aead_icv_bits" };
	json_t *key = json_object_get(req, "key");
	uint8_t out[KEY_MAX + 1];
	volatile long long sink = 0;

	if (!json_is_object(req))
		abort();
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		sink += json_integer_value(json_object_get(req, ints[i]));
	sink += json_is_true(json_object_get(req, "tunnel"));
	if (json_string_value(json_object_get(req, "op")))
		sink += (long long)strlen(json_string_value(json_object_get(req, "op")));
	if (json_is_string(key)) {
		memset(out, 0xa5, sizeof(out));
		int n = peer_hex_decode(json_string_value(key), out, KEY_MAX);

		if (n > KEY_MAX || out[KEY_MAX] != 0xa5)
			abort();
		/* as the agent does: the key's text wiped once decoded */
		explicit_bzero((char *)json_string_value(key), strlen(json_string_value(key)));
	}
	(void)sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool wiping;
	size_t cap, chunk, off = 1, have = 0, filled = 0;
	char *buf;
	json_t *req;

	if (!wiping) {
		peer_json_wipe_frees();
		wiping = true;
	}
	if (size < 1)
		return 0;
	chunk = data[0] % 64 + 1;
	cap = 512 + (size_t)data[0] * 16;
	buf = calloc(1, cap);
	if (!buf)
		abort();
	for (;;) {
		int got = peer_request_take(buf, &have, &req);

		if (got) {
			for (size_t i = have; i < filled; i++)
				if (buf[i])
					abort(); /* a taken line left something behind */
			if (req)
				use_request(req);
			json_decref(req);
			continue;
		}
		if (off == size || have == cap)
			break; /* the end of stdin, or a line longer than any request */
		size_t n = size - off < chunk ? size - off : chunk;

		if (n > cap - have)
			n = cap - have;
		memcpy(buf + have, data + off, n);
		off += n;
		have += n;
		if (have > filled)
			filled = have;
	}
	free(buf);
	return 0;
}
