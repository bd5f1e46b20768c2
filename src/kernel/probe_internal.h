/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by install (probe_install.c), list (probe_list.c) and clear
 * (probe_clear.c), and private to them: the API is probe_install.h.
 */
#ifndef PROBE_INTERNAL_H
#define PROBE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "probe_install.h"

struct tracefs_instance;

/* Remove one event and what add noted of it; 0, or -1. */
int fe_probe_remove_event(const char *group, const char *name);
/* What add noted beside an event (/run/fevent/GROUP/EVENT*), removed. */
void fe_probe_forget_event(const char *group, const char *name);
/* The group's directory of notes (/run/fevent/GROUP), removed if empty. */
void fe_probe_forget_group(const char *group);
/* The maxactive in a listed definition, "r10:G/E ...": 0 if none. */
unsigned int fe_probe_listed_maxactive(const char *line);
/* Is group/event enabled in inst (NULL: the top instance)? */
bool fe_probe_enabled_in(struct tracefs_instance *inst, const char *group, const char *event);
/* The "t:" and "f:" events of group, appended to *ev (*count entries). */
int fe_probe_add_tprobes(const char *group, struct fe_event_info **ev, int *count);
/* /run/fevent/GROUP/EVENT.filter: the filter add kept beside the event */
void fe_probe_filter_path(char *buf, size_t size, const char *group, const char *name);

#endif
