// SPDX-License-Identifier: GPL-2.0
#include "notes.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void text_clean(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

int notes_add(struct notes *ns, const char *code, const char *field, const char *fmt, ...)
{
	struct note *nv = realloc(ns->v, (ns->n + 1) * sizeof(*nv));
	va_list ap;
	char *text;
	int len;

	if (!nv)
		return -1;
	ns->v = nv;
	va_start(ap, fmt);
	len = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (len < 0)
		return -1;
	text_clean(text);
	nv[ns->n] = (struct note){ .code = code, .field = field, .text = text };
	return ns->n++;
}

void notes_append(struct notes *ns, int i, const char *fmt, ...)
{
	char *more, *joined;
	va_list ap;
	int len;

	if (i < 0 || i >= ns->n)
		return;
	va_start(ap, fmt);
	len = vasprintf(&more, fmt, ap);
	va_end(ap);
	if (len < 0)
		return;
	text_clean(more);
	if (asprintf(&joined, "%s%s", ns->v[i].text, more) >= 0) {
		free(ns->v[i].text);
		ns->v[i].text = joined;
	}
	free(more);
}

struct note *notes_find(const struct notes *ns, const char *code, const char *field)
{
	for (int i = 0; i < ns->n; i++)
		if (!strcmp(ns->v[i].code, code) &&
		    (!field || (ns->v[i].field && !strcmp(ns->v[i].field, field))))
			return &ns->v[i];
	return NULL;
}

void notes_free(struct notes *ns)
{
	for (int i = 0; i < ns->n; i++)
		free(ns->v[i].text);
	free(ns->v);
	ns->v = NULL;
	ns->n = 0;
}

json_t *notes_json(const struct notes *ns)
{
	json_t *a = json_array();

	for (int i = 0; i < ns->n; i++) {
		const struct note *n = &ns->v[i];
		json_t *o = json_pack("{s:s, s:s}", "code", n->code, "text", n->text);

		if (n->field)
			json_object_set_new(o, "field", json_string(n->field));
		if (!strcmp(n->code, "mismatch"))
			json_object_set_new(o, "allowed", json_boolean(n->allowed));
		json_array_append_new(a, o);
	}
	return a;
}
