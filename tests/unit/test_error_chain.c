// SPDX-License-Identifier: GPL-2.0
/*
 * record --errors' chains (src/error_chain.c) of a task whose failed calls
 * nest deeper than a chain keeps: its 512 innermost and 512 outermost
 * links are shown, the ones between counted, in text and JSON, and what
 * it holds stays bounded however deep the calls go.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_chain.h"
#include "tap.h"

#define DEPTH	100000

/* dive(n=DEPTH-1-depth) = -2 for every depth, innermost first, as the
 * view hands returns over */
static char *chain_of(bool json, int depth_max)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	struct fe_errors *e = fe_errors_new(out, json);
	char args[32];
	int d;

	for (d = depth_max - 1; d >= 0; d--) {
		struct fe_view_call c = {
			.group = "g", .func = "dive", .event = "dive", .pid = 7, .cpu = 0,
			.comm = "deep", .has_entry = true, .has_return = true,
			.entry_ts = 1000, .return_ts = 2000 + d, .depth = d,
			.ret = "-2",
			/* a kernel return of -ENOENT, as the view judges it */
			.failed = true, .err = 2,
		};

		snprintf(args, sizeof(args), json ? "{\"n\":%d}" : "n=%d", d);
		c.args = args;
		fe_errors_call(e, &c);
	}
	tap_ok(fe_errors_shown(e) == 1, "one chain shown");
	fe_errors_free(e);
	fclose(out);
	return text;
}

static int count_lines(const char *s, const char *prefix)
{
	int n = 0;

	for (; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : s + strlen(s))
		n += !strncmp(s, prefix, strlen(prefix));
	return n;
}

int main(void)
{
	char *text = chain_of(false, DEPTH), *json;
	char want[128];

	/* header, innermost link, 511 more, the gap, 512 outermost */
	tap_ok(count_lines(text, "        dive(") == 1, "the innermost link first");
	tap_ok(count_lines(text, "     <- dive(") == 1023, "1,023 links more (got %d)",
	       count_lines(text, "     <- dive("));
	tap_ok(strstr(text, "        dive(n=99999) = -2 (ENOENT) <1") != NULL, "the innermost");
	snprintf(want, sizeof(want), "\n     <- dive(n=%d) = -2 (ENOENT) <100.488 us>\n     <- ...",
		 DEPTH - 512);
	tap_ok(strstr(text, want) != NULL, "the 512th innermost, then the gap");
	tap_ok(strstr(text, "\n     <- ... 98976 calls not kept (a chain keeps its 512 innermost "
			  "and 512 outermost)\n     <- dive(n=511) = -2") != NULL,
	       "then the count of those not kept, then the outermost 512");
	tap_ok(strstr(text, "\n     <- dive(n=0) = -2 (ENOENT) <1.000 us>\n") != NULL &&
	       text[strlen(text) - 1] == '\n' && strstr(text, "<1.000 us>\n")[11] == 0,
	       "the outermost last");
	tap_ok(strstr(text, ": dive failed: -2 (ENOENT)\n") != NULL, "the header");
	free(text);

	json = chain_of(true, DEPTH);
	tap_ok(json && strstr(json, "],\"dropped\":98976}\n") != NULL, "JSON: dropped");
	tap_ok(json && strstr(json, "{\"event\":\"dive\",\"args\":{\"n\":511},") != NULL &&
	       !strstr(json, "{\"n\":512}") && strstr(json, "{\"n\":99488}") &&
	       !strstr(json, "{\"n\":99487}"), "JSON: the 512 innermost and 512 outermost");
	free(json);

	/* a chain within the bounds: all of it, nothing said */
	text = chain_of(false, 1024);
	tap_ok(count_lines(text, "     <- dive(") == 1023 && !strstr(text, "not kept"),
	       "1,024 links: all kept");
	free(text);
	json = chain_of(true, 1025);
	tap_ok(strstr(json, "],\"dropped\":1}\n") != NULL, "1,025: one not kept");
	free(json);
	return tap_done();
}
