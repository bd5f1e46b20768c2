/* SPDX-License-Identifier: GPL-2.0 */
/* The path -x names, as uprobe_events and fevent's own opens take it:
 * a process's binary inside its own mount namespace (a container) is
 * reached through /proc/PID/root. */
#ifndef FE_EXEC_PATH_H
#define FE_EXEC_PATH_H

/*
 * path as given to -x; pid > 0 when -p PID says path is as that process
 * sees it.  A path "/proc/N/root/REST" is REST as process N sees it.
 * In another root or mount namespace, *out is "/proc/N/root" and the
 * path resolved inside that root (its symlinks followed there, an
 * absolute link from that root); otherwise the realpath.  Returns 0, or
 * -1 with *why a message (allocated) naming the path and the cause.
 */
int fe_exec_path(const char *path, int pid, char **out, char **why);

#endif
