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
struct fe_dir_names;
/* The notes of group's events that are gone (tracing: the tracefs
 * directory; NULL: all are) taken out of add's files, of those notes
 * lists (the group's notes directory, listed before the events were). */
void fe_probe_notes_prune(const char *tracing, const char *group,
			  const struct fe_dir_names *notes);
/* The group's directory of notes (/run/fevent/GROUP), removed if empty. */
void fe_probe_forget_group(const char *group);
/* fe_list_events without hits, call filters and values (clear);
 * *others: the group's definitions of kinds not listed (eprobes) */
int fe_probe_list_bare(const char *group, struct fe_event_info **out, int *n, int *others,
		       struct fe_error *err);
/* The maxactive in a listed definition, "r10:G/E ...": 0 if none. */
unsigned int fe_probe_listed_maxactive(const char *line);
/* Is group/event enabled in inst (NULL: the top instance)? */
bool fe_probe_enabled_in(struct tracefs_instance *inst, const char *group, const char *event);
/* The kprobes, uprobes, "t:" and "f:" events of group (NULL: all), with
 * where the top instance enables them; *others (NULL: not asked) counts
 * the group's definitions of other kinds.  -1 when out of memory. */
int fe_probe_read_all(const char *group, struct fe_event_info **out, int *n, int *others);
/* /run/fevent/GROUP/EVENT.filter: the filter add kept beside the event */
void fe_probe_filter_path(char *buf, size_t size, const char *group, const char *name);

/* add's notes beside its events (probe_notes.c) */
#define FE_NOTES_DIR	"/run/fevent"

/*
 * The names in one directory, read once: an add of thousands of events
 * asks of each whether its event or its old notes are there, and most are
 * not; a stat or an unlink that fails an event cost more than a tenth of
 * add's time for 3,378 uprobes.  known false: the directory could not be
 * read (not for want of it), and each name is asked of the file system.
 */
struct fe_dir_names {
	char *path;		/* NULL: nothing read */
	char **names;		/* sorted */
	int nr;
	bool known;
};

/* d lists path (kept when it is path already). */
void fe_dir_names_read(struct fe_dir_names *d, const char *path);
/* name may be in d's directory (where it was not read: maybe) */
bool fe_dir_names_may_have(const struct fe_dir_names *d, const char *name);
void fe_dir_names_free(struct fe_dir_names *d);
/* fe_probe_forget_event, d listing the group's notes once for many */
void fe_probe_forget_listed(struct fe_dir_names *d, const char *group, const char *name);
/* /run/fevent/GROUP (its path into path) made where it is not; 0, or
 * -1 with errno. */
int fe_probe_notes_mkdir(const char *group, char *path, size_t size);
/* What the events cannot say of themselves, noted beside them. */
void fe_probe_note_all(struct fe_definition *const *defs, int n);

#endif
