/* SPDX-License-Identifier: GPL-2.0 */
/* Bytes as hex text and back: keys on the peer agent's request lines, public keys in its answers. */
#ifndef IPSECPERF_HEX_H
#define IPSECPERF_HEX_H

#include <stddef.h>
#include <stdint.h>

/* n bytes as 2n lowercase hex digits and a NUL into out (len >= 2n + 1, else ""). */
void hex_encode(const uint8_t *in, size_t n, char *out, size_t len);

/* Hex text to bytes; returns the byte count or -1 (odd length, not hex, more than max). */
int hex_decode(const char *hex, uint8_t *out, size_t max);

#endif
