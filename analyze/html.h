/* SPDX-License-Identifier: GPL-2.0 */
/* What the HTML pages (report -f html, compare -f html) and SVG pictures share. */
#ifndef IPSECPERF_HTML_H
#define IPSECPERF_HTML_H

#include <stddef.h>
#include <stdio.h>

/* s with < > & " ' escaped: for text and quoted attribute values. */
void html_esc(FILE *f, const char *s);

/*
 * s for XML (an SVG file on its own must parse): escaped as html_esc, a
 * byte that does not start a valid UTF-8 character (or one XML forbids)
 * written as U+FFFD, and at most max characters, "..." ending a cut one.
 */
void xml_esc(FILE *f, const char *s, size_t max);

/* xml_esc, whole, with newline and tab as &#10; and &#9;: an attribute value keeps them. */
void xml_esc_attr(FILE *f, const char *s);

/* The number of characters xml_esc counts in s. */
size_t xml_chars(const char *s);

/* The page's start: head, the style of every page, <body> and <h1>title</h1> (title is ours, not escaped). */
void html_page_head(FILE *f, const char *title);

#endif
