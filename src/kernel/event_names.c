// SPDX-License-Identifier: GPL-2.0
/* The events a name means (event_names.h). */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "event_names.h"
#include "kprobe_emit.h"

/* The place's name of event: without __return, then without _N. */
static void place_of(const char *event, char *out, size_t size)
{
	size_t len = strlen(event), r = strlen(FE_RETURN_SUFFIX), d;

	if (len > r && !strcmp(event + len - r, FE_RETURN_SUFFIX))
		len -= r;
	for (d = len; d > 0 && event[d - 1] >= '0' && event[d - 1] <= '9'; d--)
		;
	if (d < len && d > 1 && event[d - 1] == '_')
		len = d - 1;
	snprintf(out, size, "%.*s", (int)len, event);
}

bool fe_event_named(const char *event, const char *name)
{
	char place[512];

	if (!strcmp(event, name))
		return true;
	place_of(event, place, sizeof(place));
	if (strpbrk(name, "*?["))
		return fnmatch(name, event, 0) == 0 || fnmatch(name, place, 0) == 0;
	return !strcmp(place, name);
}

bool fe_event_named_any(const char *event, char *const *names, int n)
{
	int i;

	if (!n)
		return true;
	for (i = 0; i < n; i++)
		if (fe_event_named(event, names[i]))
			return true;
	return false;
}
