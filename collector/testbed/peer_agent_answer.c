// SPDX-License-Identifier: GPL-2.0
/* The peer agent's answers, and what its requests say (peer_agent_int.h). */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "log.h"
#include "peer_agent.h"
#include "peer_agent_int.h"
#include "remote.h"

static FILE *agent_out; /* NULL: stdout */

void peer_agent_answer_to(FILE *f)
{
	agent_out = f;
}

/* The line and its newline; fixed when it is too long for the run's reader, or missing. */
void agent_answer_line(const char *line)
{
	FILE *f = agent_out ? agent_out : stdout;

	if (!line)
		line = "{\"ok\":false,\"error\":\"the agent could not make its answer\"}";
	else if (strlen(line) > REMOTE_ANSWER_MAX)
		line = "{\"ok\":false,\"error\":\"the answer is longer than the run reads\"}";
	fprintf(f, "%s\n", line);
	fflush(f);
}

void agent_answer(json_t *o)
{
	char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;

	agent_answer_line(s);
	free(s);
	json_decref(o);
}

void agent_answer_err(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* a cut message stays UTF-8, so that it is sent */
	msg_cut_utf8(buf);
	msg_clean(buf, false);
	agent_answer(json_pack("{s:b, s:s}", "ok", 0, "error", buf));
}

const char *agent_shown(const char *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s", s);
	msg_cut_utf8(buf);
	return buf;
}

const char *agent_str(json_t *req, const char *key)
{
	const char *v = json_string_value(json_object_get(req, key));

	return v ? v : "";
}

int agent_family(json_t *req)
{
	return json_integer_value(json_object_get(req, "family")) == 6 ? AF_INET6 : AF_INET;
}
