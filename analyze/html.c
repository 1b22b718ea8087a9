// SPDX-License-Identifier: GPL-2.0
/* HTML and XML escaping, and the head every page of ipsecperf's shares. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "html.h"

void html_esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}

/*
 * The length of the valid UTF-8 character at s that XML allows (1-4), or
 * 0: a stray or overlong byte, a surrogate, U+FFFE/U+FFFF, a control
 * character other than tab and newline.
 */
static int utf8_len(const unsigned char *s)
{
	uint32_t c;
	int n, i;

	if (s[0] < 0x80)
		return s[0] >= 0x20 || s[0] == '\t' || s[0] == '\n' ? 1 : 0;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		c = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		c = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((n == 2 && c < 0x80) || (n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	if ((c >= 0xd800 && c <= 0xdfff) || c == 0xfffe || c == 0xffff || (c >= 0x7f && c <= 0x9f))
		return 0;
	return n;
}

size_t xml_chars(const char *s)
{
	size_t n = 0;

	while (s && *s) {
		int l = utf8_len((const unsigned char *)s);

		s += l ? l : 1;
		n++;
	}
	return n;
}

/* xml_esc, and with attr newline and tab as references (an attribute value keeps them). */
static void xml_esc_as(FILE *f, const char *s, size_t max, bool attr)
{
	bool cut = xml_chars(s) > max;
	size_t n = 0, keep = cut ? (max > 3 ? max - 3 : 0) : max;

	while (s && *s && n < keep) {
		int l = utf8_len((const unsigned char *)s);
		char one[2] = { *s, '\0' };

		if (!l)
			fputs("\xef\xbf\xbd", f);
		else if (attr && (*s == '\n' || *s == '\t'))
			fputs(*s == '\n' ? "&#10;" : "&#9;", f);
		else if (l == 1)
			html_esc(f, one);
		else
			fwrite(s, 1, l, f);
		s += l ? l : 1;
		n++;
	}
	if (cut)
		fputs("...", f);
}

void xml_esc(FILE *f, const char *s, size_t max)
{
	xml_esc_as(f, s, max, false);
}

void xml_esc_attr(FILE *f, const char *s)
{
	xml_esc_as(f, s, SIZE_MAX, true);
}

void html_page_head(FILE *f, const char *title)
{
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		   "<meta name=viewport content=\"width=device-width\">\n"
		   "<title>%s</title>\n<style>\n"
		   "body{font-family:sans-serif;max-width:1200px;margin:1em auto;padding:0 1em;"
		   "box-sizing:border-box}\n"
		   "table{border-collapse:collapse;margin:.5em 0;max-width:100%%}td,th{border:1px solid #bbb;"
		   "padding:.2em .5em;overflow-wrap:anywhere}td.n{text-align:right;"
		   "font-variant-numeric:tabular-nums;white-space:nowrap}\n"
		   "th{background:#eee}pre{background:#f6f6f6;padding:.5em;overflow-x:auto}\n"
		   ".warn{background:#fff3cd}div.warn pre{background:#fff3cd}.caution{background:#fde2e2}\n"
		   "figure{margin:1em 0}figcaption{font-size:.9em;color:#444}"
		   "svg{max-width:100%%;height:auto;display:block}\n"
		   "</style></head><body>\n<h1>%s</h1>\n",
		title, title);
}
