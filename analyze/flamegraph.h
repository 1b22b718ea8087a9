/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Flame graphs drawn by ipsecperf: folded stacks merged into a tree of
 * frames (root "all", then the command, then the functions, root first),
 * laid out and written as one self-contained SVG with its own small
 * script (tooltips' details line, click to zoom). A tree has two sides:
 * side 1 is the graph's own profile; side 0, when given, the base of a
 * differential graph, whose frames are coloured by the change.
 */
#ifndef IPSECPERF_FLAMEGRAPH_H
#define IPSECPERF_FLAMEGRAPH_H

#include <stdbool.h>
#include <stdio.h>

#include "profile.h"

#define FG_WIDTH 1200       /* the SVG's width in px (user units) */
#define FG_PAD 10           /* left and right margin */
#define FG_FRAME_H 16
#define FG_MAX_DEPTH 200    /* frames deeper than this are counted in their ancestor */
#define FG_MAX_NODES 2000000

struct fg_tree;

struct fg_tree *fg_tree_new(void);
void fg_tree_free(struct fg_tree *t);

/*
 * Add the busy (not idle) stacks of f to side 0 or 1; each sample weighs
 * weight in the graph's unit (cycles per byte, or a share). -1 when out
 * of memory or beyond FG_MAX_NODES frames.
 */
int fg_tree_add(struct fg_tree *t, int side, const struct prof_folded *f, double weight);

struct fg_labels {
	const char *id;        /* unique in a page: [A-Za-z0-9-] only */
	const char *title;     /* from a results directory: escaped here */
	const char *unit;      /* "cycles/byte" or "% of busy samples" */
	const char *side[2];   /* differential: the base's and the new side's names */
	bool diff;
};

/*
 * The SVG of t: standalone adds the XML prolog (a file of its own), else
 * it is for inlining into an HTML page. A single graph's frames are as
 * wide as their value on side 1; a differential's as their two sides'
 * sum, so that a frame of either side shows. Returns -1 on a write error.
 */
int fg_svg(FILE *f, const struct fg_tree *t, const struct fg_labels *l, bool standalone);

/* The root's value on a side: what the whole graph stands for. */
double fg_total(const struct fg_tree *t, int side);

#endif
