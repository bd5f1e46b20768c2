/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which events a name given to -e or clear means: the place the user
 * wrote is one name for all its events.
 */
#ifndef FE_EVENT_NAMES_H
#define FE_EVENT_NAMES_H

#include <stdbool.h>

/*
 * True if event is one of the events name means: the event itself, its
 * __return, and the further addresses of the same place (NAME_1, NAME_2,
 * ... and their returns: a line's or an inlined function's copies).  A
 * name with '*', '?' or '[' is a glob, matched against the events and
 * against the names of their places.
 */
bool fe_event_named(const char *event, const char *name);

/* True if any of the n names means event (no names: every event). */
bool fe_event_named_any(const char *event, char *const *names, int n);

#endif
