// SPDX-License-Identifier: GPL-2.0
/*
 * fevent clear: a group's events removed, and what a fevent that died
 * left behind (its instances, triggers and synthetic events).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "fe_util.h"
#include "kernel_caps.h"
#include "probe_install.h"
#include "probe_internal.h"
#include "event_names.h"

#define OWN_INSTANCE_PREFIX	"fevent-"

/* Take every trigger off one event of inst; -1 if one stays. */
static int remove_event_triggers(struct tracefs_instance *inst, const char *system,
				 const char *event)
{
	char *text = tracefs_event_file_read(inst, system, event, "trigger", NULL);
	char *line, *save = NULL;
	int ret = 0;

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *state = strstr(line, " [");
		char *cmd;

		if (line[0] == '#')
			continue;
		if (state)
			*state = 0;	/* " [active]": how it is, not what it is */
		if (asprintf(&cmd, "!%s", line) < 0)
			break;
		if (tracefs_event_file_append(inst, system, event, "trigger", cmd) < 0)
			ret = -1;
		free(cmd);
	}
	free(text);
	return ret;
}

/*
 * A killed stats run's instance holds hist triggers, which keep the
 * kernel from removing it (EBUSY) and hold its events and synthetic
 * event.  They are on synthetic events and fevent's dynamic events only;
 * one that another still uses (a variable onmatch() reads) goes in a
 * later round.
 */
static void remove_triggers(struct tracefs_instance *inst)
{
	struct tracefs_dynevent **synth = tracefs_dynevent_get_all(TRACEFS_DYNEVENT_SYNTH, NULL);
	struct fe_event_info *probes = NULL;
	int round, i, nr_probes = 0;
	bool again = true;

	if (fe_probe_read_all(NULL, &probes, &nr_probes, NULL)) {
		/* out of memory: their triggers stay */
		fe_event_infos_free(probes, nr_probes);
		probes = NULL;
		nr_probes = 0;
	}
	for (round = 0; round < 3 && again; round++) {
		again = false;
		for (i = 0; synth && synth[i]; i++) {
			char *system = NULL, *event = NULL;

			tracefs_dynevent_info(synth[i], &system, &event, NULL, NULL, NULL);
			if (system && event && remove_event_triggers(inst, system, event))
				again = true;
			free(system);
			free(event);
		}
		for (i = 0; i < nr_probes; i++)
			if (remove_event_triggers(inst, probes[i].group, probes[i].event))
				again = true;
	}
	fe_event_infos_free(probes, nr_probes);
	tracefs_dynevent_list_free(synth);
}

/* The start of /proc/PID/FILE, NUL-terminated: its bytes, or -1. */
static ssize_t read_proc(long pid, const char *file, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/%s", pid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n >= 0)
		buf[n] = 0;
	return n;
}

/*
 * Is pid's process an fevent?  Its name, its program's or one of its
 * arguments' (fevent under valgrind or gdb) begins with "fevent".  When
 * /proc does not say, it may be: what it owns is kept.
 */
static bool is_fevent(long pid)
{
	char path[64], buf[4096];
	const char *base;
	ssize_t n;
	int i;

	snprintf(path, sizeof(path), "/proc/%ld/exe", pid);
	n = readlink(path, buf, sizeof(buf) - 1);
	if (n > 0) {
		buf[n] = 0;
		base = strrchr(buf, '/');
		if (!strncmp(base ? base + 1 : buf, "fevent", 6))
			return true;
	}
	n = read_proc(pid, "comm", buf, sizeof(buf));
	if (n <= 0 || !strncmp(buf, "fevent", 6))
		return true;
	n = read_proc(pid, "cmdline", buf, sizeof(buf));
	if (n < 0)
		return true;
	for (i = 0; i < n; i += strlen(buf + i) + 1) {
		base = strrchr(buf + i, '/');
		if (!strncmp(base ? base + 1 : buf + i, "fevent", 6))
			return true;
	}
	return false;
}

/*
 * Is the fevent whose pid a tracefs name carries gone: no such process,
 * or one that is no fevent (the pid was reused)?  A live fevent's names
 * are never taken, nor this one's.
 */
static bool owner_gone(long pid)
{
	if (pid <= 0 || pid == (long)getpid())
		return false;
	if (kill(pid, 0) == 0)
		return !is_fevent(pid);
	return errno == ESRCH;
}

/* fevent-PID instances of processes that are gone: a killed record's. */
static int remove_stale(const char *name, void *arg)
{
	struct tracefs_instance *inst;
	int *removed = arg;
	char *end;
	long pid;

	if (strncmp(name, OWN_INSTANCE_PREFIX, strlen(OWN_INSTANCE_PREFIX)))
		return 0;
	pid = strtol(name + strlen(OWN_INSTANCE_PREFIX), &end, 10);
	/* fevent-PID, and the fevent-PID-countN instances beside it */
	if (end == name + strlen(OWN_INSTANCE_PREFIX) || (*end && strncmp(end, "-count", 6)) ||
	    !owner_gone(pid))
		return 0;
	inst = tracefs_instance_alloc(NULL, name);
	if (!inst)
		return 0;
	tracefs_event_disable(inst, NULL, NULL);
	remove_triggers(inst);
	if (tracefs_instance_destroy(inst) == 0)
		(*removed)++;
	tracefs_instance_free(inst);
	return 0;
}

/*
 * stats --latency's synthetic events (fevent_PID_N) of processes that are
 * gone; after their instances, whose triggers were what held them.
 */
static int remove_stale_synthetic(void)
{
	struct tracefs_dynevent **all;
	int i, removed = 0;

	if (!tracefs_file_exists(NULL, "synthetic_events"))
		return 0;
	all = tracefs_dynevent_get_all(TRACEFS_DYNEVENT_SYNTH, NULL);
	for (i = 0; all && all[i]; i++) {
		char *system = NULL, *event = NULL, *end;
		long pid;

		tracefs_dynevent_info(all[i], &system, &event, NULL, NULL, NULL);
		if (event && !strncmp(event, "fevent_", 7)) {
			pid = strtol(event + 7, &end, 10);
			if (end != event + 7 && *end == '_' && owner_gone(pid) &&
			    tracefs_dynevent_destroy(all[i], true) == 0)
				removed++;
		}
		free(system);
		free(event);
	}
	tracefs_dynevent_list_free(all);
	return removed;
}

int fe_remove_leftovers(char *msg, size_t size)
{
	int inst = 0, synth;

	*msg = 0;
	tracefs_instances_walk(remove_stale, &inst);
	synth = remove_stale_synthetic();
	if (inst && synth)
		snprintf(msg, size, "removed %d stale %s* instance%s and %d synthetic event%s "
			 "of records that are gone", inst, OWN_INSTANCE_PREFIX, inst == 1 ? "" : "s",
			 synth, synth == 1 ? "" : "s");
	else if (inst)
		snprintf(msg, size, "removed %d stale %s* instance%s of records that are gone",
			 inst, OWN_INSTANCE_PREFIX, inst == 1 ? "" : "s");
	else if (synth)
		snprintf(msg, size, "removed %d stale synthetic event%s of records that are gone",
			 synth, synth == 1 ? "" : "s");
	return inst + synth;
}

static bool selected(const struct fe_event_info *e, char *const *names, int nr)
{
	return fe_event_named_any(e->event, names, nr);
}

/* The whole group in one write, where the kernel takes "-:GROUP/" and
 * the group has no other kind of event (an eprobe, which list does not
 * show, would go with it). */
static bool remove_group(const char *group, const struct fe_event_info *ev, int n, int others,
			 struct fe_dir_names *notes)
{
	char cmd[256];
	int i;

	if (!fe_kernel_can(FE_CAP_DYNEVENT_GROUP_REMOVE) || others ||
	    (size_t)snprintf(cmd, sizeof(cmd), "-:%s/", group) >= sizeof(cmd) ||
	    tracefs_instance_file_append(NULL, "dynamic_events", cmd) < 0)
		return false;
	for (i = 0; i < n; i++)
		fe_probe_forget_listed(notes, ev[i].group, ev[i].event);
	return true;
}

/*
 * The events of ev that gone lists, one write each to one open
 * dynamic_events (not an open, a write and a close each): how many went.
 */
static int remove_each(const struct fe_event_info *ev, const int *gone, int nr,
		       struct fe_dir_names *notes, struct fe_warnings *undone)
{
	char *path = tracefs_instance_get_file(NULL, "dynamic_events");
	int fd = path ? open(path, O_WRONLY | O_APPEND | O_CLOEXEC) : -1;
	int i, removed = 0;

	tracefs_put_tracing_file(path);
	for (i = 0; i < nr; i++) {
		const struct fe_event_info *e = &ev[gone[i]];
		char cmd[256];
		int failed;

		if (fd < 0) {
			failed = fe_probe_remove_event(e->group, e->event);
		} else {
			size_t len = snprintf(cmd, sizeof(cmd), "-:%s/%s", e->group, e->event);

			fe_probe_forget_listed(notes, e->group, e->event);
			failed = len >= sizeof(cmd) || write(fd, cmd, len) != (ssize_t)len;
		}
		/* a "-:GROUP/" the kernel refused part way took it already */
		if (failed && errno == ENOENT) {
			snprintf(cmd, sizeof(cmd), "events/%s/%s", e->group, e->event);
			failed = tracefs_dir_exists(NULL, cmd);
		}
		if (failed)
			fe_warn(undone, "cannot remove %s/%s: %s", e->group, e->event,
				strerror(errno));
		else
			removed++;
	}
	if (fd >= 0)
		close(fd);
	return removed;
}

int fe_clear_events(const char *group, char *const *names, int nr_names, bool force,
		    struct fe_warnings *undone, struct fe_error *err)
{
	struct fe_dir_names notes = { 0 };	/* the group's notes, listed once */
	struct fe_event_info *ev;
	int i, j, n, nr = 0, removed, others;
	char path[512];
	int *gone;

	/* add's notes of the group as they are before its events are read:
	 * a file an add writes meanwhile, of events not read, stays */
	if ((size_t)snprintf(path, sizeof(path), FE_NOTES_DIR "/%s", group) < sizeof(path))
		fe_dir_names_read(&notes, path);
	if (fe_probe_list_bare(group, &ev, &n, &others, err)) {
		fe_dir_names_free(&notes);
		return -1;
	}
	for (i = 0; i < nr_names; i++) {
		for (j = 0; j < n && !fe_event_named(ev[j].event, names[i]); j++)
			;
		if (j == n)
			fe_warn(undone, "no event '%s' in group '%s'", names[i], group);
	}
	gone = malloc((n ? n : 1) * sizeof(*gone));
	if (!gone) {
		fe_event_infos_free(ev, n);
		fe_dir_names_free(&notes);
		return fe_err(err, 0, "out of memory");
	}
	for (i = 0; i < n; i++) {
		if (!selected(&ev[i], names, nr_names))
			continue;
		if (ev[i].nr_enabled && !force) {
			fe_warn(undone, "%s/%s is enabled in %s%s; left in place (--force disables and removes it)",
				ev[i].group, ev[i].event,
				ev[i].enabled_in[0][0] ? "instance " : "the top-level buffer",
				ev[i].enabled_in[0]);
			continue;
		}
		for (j = 0; j < ev[i].nr_enabled; j++) {
			struct tracefs_instance *inst = ev[i].enabled_in[j][0] ?
				tracefs_instance_alloc(NULL, ev[i].enabled_in[j]) : NULL;

			fe_event_set_enabled(inst, ev[i].group, ev[i].event, false);
			tracefs_instance_free(inst);
		}
		gone[nr++] = i;
	}
	/* the whole group: one write where the kernel allows it */
	if (nr && nr == n && remove_group(group, ev, n, others, &notes))
		removed = n;
	else
		removed = remove_each(ev, gone, nr, &notes, undone);
	if (removed == n)
		fe_probe_notes_prune(NULL, group, &notes);
	else if (removed && tracefs_tracing_dir())
		fe_probe_notes_prune(tracefs_tracing_dir(), group, &notes);
	fe_dir_names_free(&notes);
	/* the group's notes' directory too, once nothing of it is left */
	if (removed == n)
		fe_probe_forget_group(group);
	free(gone);
	fe_event_infos_free(ev, n);
	return removed;
}
