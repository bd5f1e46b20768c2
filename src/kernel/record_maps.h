/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mappings the kernel reports as the processes record follows make
 * them (PERF_RECORD_MMAP2), kept a process at a time, so that the user
 * stacks of a process that has exited are still named.
 */
#ifndef RECORD_MAPS_H
#define RECORD_MAPS_H

#include <stdbool.h>
#include <sys/types.h>

struct fe_maps_watch;

/*
 * Watch pid and the processes it makes (-1: every process); on_exec: from
 * its next exec (a command fevent holds before it execs), else from what
 * /proc says it has mapped now.  NULL where the kernel has no perf
 * events: stacks are then named from /proc alone.
 */
struct fe_maps_watch *fe_maps_watch_open(pid_t pid, bool on_exec);
/* path is a file of this mount namespace that processes may map from
 * another (a probed binary): a mapping of it is named by path. */
void fe_maps_watch_know(struct fe_maps_watch *w, const char *path);
/* tgid's mappings as /proc/PID/maps lines (malloc'd), NULL if none are
 * known: a struct fe_maps_watch * as void *, to be the view's source. */
char *fe_maps_watch_text(void *watch, int tgid);
/* The records the kernel wrote, taken out of its rings (often enough
 * that they do not fill while no stack asks). */
void fe_maps_watch_drain(struct fe_maps_watch *w);
/* Mapping records the kernel could not keep in the rings. */
unsigned long long fe_maps_watch_lost(const struct fe_maps_watch *w);
void fe_maps_watch_close(struct fe_maps_watch *w);

#endif
