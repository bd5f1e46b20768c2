// SPDX-License-Identifier: GPL-2.0
/*
 * Install (list and clear: probe_list.c, probe_clear.c).  Each event is
 * the line compile prints, written to the tracefs file libtracefs opens
 * (see struct writer); what the kernel says when it refuses one comes
 * from its error_log, with the caret mapped back to the prototype's
 * argument.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <unistd.h>

#include <tracefs.h>

#include "fe_util.h"
#include "kernel_caps.h"
#include "kprobe_rules.h"
#include "kmodule.h"
#include "out_file.h"
#include "probe_install.h"
#include "probe_internal.h"
#include "value_format.h"
#include "event_names.h"

#define TRACEFS_MOUNT	"/sys/kernel/tracing"

int fe_tracefs_ready(const char *dir, bool kprobes, bool uprobes, struct fe_error *err)
{
	if (geteuid() != 0)
		return fe_err(err, 0, "this needs root: tracefs and its dynamic events belong to root");
	if (dir) {
		struct statfs sf;

		/* a plain directory or a tmpfs would take the probes' writes
		 * and say nothing: every command would blame something else */
		if (statfs(dir, &sf)) {
			fe_err(err, 0, "cannot use %s as tracefs: %s", dir, strerror(errno));
			return -2;
		}
		if (sf.f_type != TRACEFS_MAGIC) {
			fe_err(err, 0, "--tracefs %s is not a tracefs (mount one there with: mount -t tracefs nodev %s)",
			       dir, dir);
			return -2;
		}
		if (access(dir, R_OK | X_OK) || tracefs_set_tracing_dir((char *)dir))
			return fe_err(err, 0, "cannot use %s as tracefs: %s", dir, strerror(errno));
	} else if (!tracefs_tracing_dir() || !tracefs_file_exists(NULL, "trace")) {
		/* not mounted anywhere: mount it where the kernel documents */
		if (mount("nodev", TRACEFS_MOUNT, "tracefs", 0, NULL) && errno != EBUSY)
			return fe_err(err, 0,
				      "tracefs is not mounted and mounting it at %s failed (%s); try: mount -t tracefs nodev %s",
				      TRACEFS_MOUNT, strerror(errno), TRACEFS_MOUNT);
		if (tracefs_set_tracing_dir(TRACEFS_MOUNT) || !tracefs_file_exists(NULL, "trace"))
			return fe_err(err, 0, "no tracefs at %s", TRACEFS_MOUNT);
	}
	if (kprobes && !fe_kernel_can(FE_CAP_KPROBE_EVENTS))
		return fe_err(err, 0,
			      "this kernel has no kprobe events (no kprobe_events in %s: CONFIG_KPROBE_EVENTS is off); probe a user-space binary with -x BIN, or run kernel probes in the test VM (scripts/demo does)",
			      tracefs_tracing_dir());
	if (uprobes && !fe_kernel_can(FE_CAP_UPROBE_EVENTS))
		return fe_err(err, 0,
			      "this kernel has no uprobe events (no uprobe_events in %s: CONFIG_UPROBE_EVENTS is off)",
			      tracefs_tracing_dir());
	return 0;
}

/*
 * The top instance as an object: libtracefs 1.6 looks the tracefs mount
 * up in /proc/mounts at every call given NULL (tracefs_set_tracing_dir
 * does not spare it), several times an event over hundreds of them; an
 * instance of no name is the top one at the directory found once.  NULL
 * (libtracefs's own look-up) if it cannot be made.
 */
static struct tracefs_instance *top(void)
{
	static struct tracefs_instance *inst;
	const char *dir;

	if (!inst && (dir = tracefs_tracing_dir()))
		inst = tracefs_instance_alloc(dir, NULL);
	return inst;
}

void fe_refusal_clear(struct fe_refusal *r)
{
	free(r->log);
	memset(r, 0, sizeof(*r));
	r->def = -1;
	r->arg = -1;
}

/* Is a line of a file exactly "word ..." at its start (a field match)? */
static bool file_has_word(const char *path, int column, const char *word)
{
	char *line = NULL;
	size_t cap = 0;
	bool found = false;
	FILE *f = fopen(path, "re");

	if (!f)
		return false;
	while (!found && getline(&line, &cap, f) > 0) {
		char *tok, *save = NULL;
		int c = 0;

		for (tok = strtok_r(line, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save))
			if (c++ == column) {
				found = !strcmp(tok, word);
				break;
			}
	}
	free(line);
	fclose(f);
	return found;
}

/* A module target whose module is not loaded: refused before anything
 * is written (the kernel would keep the probe, unarmed, without a word). */
static int check_module(const struct fe_definition *def, struct fe_error *err)
{
	const char *colon;
	char module[128], file[PATH_MAX];

	if (def->uprobe || def->tracepoint)
		return 0;
	colon = strchr(def->target, ':');
	if (!colon)
		return 0;
	snprintf(module, sizeof(module), "%.*s", (int)(colon - def->target), def->target);
	if (file_has_word("/proc/modules", 0, module))
		return 0;
	/* the kernel keeps it and arms it when the module loads; its rules
	 * are judged then */
	if (def->module_waits ||
	    (fe_kmod_builtin(module) != 1 && fe_kmod_file(module, file, sizeof(file)) == 1))
		return 0;
	return fe_err(err, 0, "module '%s' is not loaded (not in /proc/modules): load it first, then add '%s'",
		      module, def->event);
}

/*
 * Why the kernel refused a kprobe, where its error_log does not tell: the
 * kprobe blacklist, or a function without an ftrace entry.  Asked only
 * once the kernel has refused: reading the rules (available_filter_functions,
 * tens of thousands of lines the kernel formats) cost add more than the
 * kernel's own work for 100 probes (docs/speed.md, "Many probes").  0 if
 * neither rule says why.
 */
static int check_rules(const struct fe_definition *def, struct fe_error *err)
{
	const char *colon = strchr(def->target, ':'), *why;
	struct fe_kprobe_rules *rules;
	char func[256], module[128];
	int ret = 0;

	if (def->uprobe || def->tracepoint)
		return 0;
	/* a module not loaded yet: its rules are judged when it loads */
	snprintf(module, sizeof(module), "%.*s", colon ? (int)(colon - def->target) : 0,
		 def->target);
	if (colon && !file_has_word("/proc/modules", 0, module))
		return 0;
	rules = fe_kprobe_rules_load();
	/* a module's functions are keyed MODULE:func, as the target; the
	 * kernel judges FUNC+OFF by its function */
	snprintf(func, sizeof(func), "%.*s", (int)strcspn(def->target, "+"), def->target);
	why = fe_kprobe_rules_refuse(rules, func);
	if (why)
		ret = fe_err(err, 0, "kprobes cannot trace '%s': %s", def->target, why);
	fe_kprobe_rules_free(rules);
	return ret;
}

static struct tracefs_dynevent *alloc_event(const struct fe_definition *def, bool ret)
{
	const char *name = ret ? def->ret_event : def->event;
	const char *args = ret ? def->ret_args : def->entry_args;

	if (def->uprobe)
		return ret ? tracefs_uretprobe_alloc(def->group, name, def->target, def->offset, args) :
			     tracefs_uprobe_alloc(def->group, name, def->target, def->offset, args);
	return ret ? tracefs_kretprobe_alloc(def->group, name, def->target, args, 0) :
		     tracefs_kprobe_alloc(def->group, name, def->target, args);
}

/*
 * Return instances of a kretprobe ("rN:").  Each call in flight holds one
 * until it returns; a call that finds none is a miss, an entry without
 * its __return event.  The kernel's default is sized by CPUs, not by
 * callers: 5.10 without preemption gives one a CPU ("r1:" on one CPU),
 * later kernels max(10, 2 per CPU), and calls that sleep (readers of
 * pipes, poll, nanosleep) outnumber that at once.  fevent asks for
 * max(64, 4 per CPU), at most the kernel's 4096 (KRETPROBE_MAXACTIVE_MAX),
 * unless the kernel's own default is larger.  The default is learnt from
 * the kernel: the first return probe is created as "r:" and its line in
 * dynamic_events read back ("r10:..."); if that is fewer, it is created
 * again with "rN:", and so are the others.  Only where the tracefs README
 * offers r[maxactive].
 */
#define MAXACTIVE_MIN		64
#define MAXACTIVE_PER_CPU	4
#define MAXACTIVE_MAX		4096

struct maxactive {
	bool learnt;		/* the kernel's default is known */
	unsigned int use;	/* what to ask for: 0 the default */
};

static unsigned int maxactive_wanted(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	unsigned long n = cpus > 0 ? (unsigned long)cpus * MAXACTIVE_PER_CPU : 0;

	if (n < MAXACTIVE_MIN)
		n = MAXACTIVE_MIN;
	return n > MAXACTIVE_MAX ? MAXACTIVE_MAX : n;
}

/* The maxactive in a listed definition, "r10:G/E ...": 0 if none. */
unsigned int fe_probe_listed_maxactive(const char *line)
{
	return line && line[0] == 'r' ? strtoul(line + 1, NULL, 10) : 0;
}

/*
 * Which argument the error_log's caret points at, -1 if none.  The log
 * reads "  Command: p:G/E TARGET ARGS" and under it a line whose '^' marks
 * the offending character.
 */
static int caret_arg(const struct fe_definition *def, bool ret, const char *log)
{
	const char *cmd = strstr(log, "Command: ");
	const char *line, *nl, *caret, *args;
	long pos;
	int i, arg = -1;

	if (!cmd || ret)
		return -1;
	for (line = cmd; line > log && line[-1] != '\n'; line--)
		;
	cmd += strlen("Command: ");
	nl = strchr(cmd, '\n');
	if (!nl)
		return -1;
	caret = strchr(nl + 1, '^');
	if (!caret || memchr(nl + 1, '\n', caret - (nl + 1)))
		return -1;
	pos = (caret - (nl + 1)) - (cmd - line);
	args = strstr(cmd, def->entry_args);
	if (!args || args > nl || pos < args - cmd)
		return -1;
	pos -= args - cmd;
	for (i = 0; i < def->nr_args; i++)
		if (def->arg_pos[i] <= pos)
			arg = i;
	return arg;
}

static void refuse(struct fe_refusal *r, const struct fe_definition *def, int index, bool ret,
		   int saved_errno, struct fe_error *err)
{
	const char *name = ret ? def->ret_event : def->event;
	char *log;

	if (check_rules(def, err))
		return;		/* the rule says why: no log, no caret */
	log = tracefs_error_last(top());
	r->def = index;
	r->ret = ret;
	r->log = log;
	r->arg = log ? caret_arg(def, ret, log) : -1;
	r->col = r->arg >= 0 ? def->arg_col[r->arg] : 0;
	if (log)
		fe_err(err, r->col, "the kernel refused %s/%s", def->group, name);
	else if (def->tracepoint && saved_errno == EEXIST)
		fe_err(err, 0,
		       "the kernel refused %s/%s (%s): this kernel takes one tracepoint probe event on a tracepoint, and another is on '%s' already (fevent list, or dynamic_events, says which)",
		       def->group, name, strerror(saved_errno), def->target);
	else if (def->tracepoint)
		fe_err(err, 0, "the kernel refused %s/%s (%s)", def->group, name,
		       strerror(saved_errno));
	else
		fe_err(err, 0,
		       "the kernel refused %s/%s (%s): '%s' may be notrace, __kprobes or blacklisted; dmesg says which",
		       def->group, name, strerror(saved_errno), def->target);
}

struct installed {
	struct tracefs_dynevent **created;
	int nr_created;
	char **replaced;	/* definitions of replaced events, to restore */
	int nr_replaced;
};

static int remember(struct installed *in, struct tracefs_dynevent *ev)
{
	struct tracefs_dynevent **nv = realloc(in->created, (in->nr_created + 1) * sizeof(*nv));

	if (!nv)
		return -1;
	nv[in->nr_created++] = ev;
	in->created = nv;
	return 0;
}

/* Undo: remove what was created, put back what was replaced. */
static void roll_back(struct installed *in)
{
	int i;

	for (i = in->nr_created - 1; i >= 0; i--) {
		char *sys = NULL, *name = NULL;

		tracefs_dynevent_info(in->created[i], &sys, &name, NULL, NULL, NULL);
		if (sys && name)
			fe_probe_remove_event(sys, name);
		free(sys);
		free(name);
	}
	for (i = 0; i < in->nr_replaced; i++)
		tracefs_instance_file_append(NULL, "dynamic_events", in->replaced[i]);
}

static void installed_free(struct installed *in)
{
	int i;

	for (i = 0; i < in->nr_created; i++)
		tracefs_dynevent_free(in->created[i]);
	for (i = 0; i < in->nr_replaced; i++)
		free(in->replaced[i]);
	free(in->created);
	free(in->replaced);
}

/*
 * Removal and existence go through dynamic_events and events/GROUP/EVENT,
 * the same for every kind: libtracefs 1.6 mistakes a uprobe's "r:" line
 * for a kretprobe and then looks for it in kprobe_events.
 */
static bool event_exists(const char *group, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "events/%s/%s", group, name);
	return tracefs_dir_exists(top(), path);
}

int fe_probe_remove_event(const char *group, const char *name)
{
	char cmd[256];

	fe_probe_forget_event(group, name);
	snprintf(cmd, sizeof(cmd), "-:%s/%s", group, name);
	return tracefs_instance_file_append(NULL, "dynamic_events", cmd) < 0 ? -1 : 0;
}

/* The definition of an existing event, from dynamic_events. */
static char *definition_of(const char *group, const char *name)
{
	char *all = tracefs_instance_file_read(NULL, "dynamic_events", NULL);
	char needle[256], *line, *found = NULL;

	snprintf(needle, sizeof(needle), ":%s/%s ", group, name);
	for (line = all; line && *line; ) {
		char *nl = strchr(line, '\n');
		char *colon = strchr(line, ':');

		if (nl)
			*nl = 0;
		if (colon && !strncmp(colon, needle, strlen(needle))) {
			found = strdup(line);
			break;
		}
		line = nl ? nl + 1 : NULL;
	}
	free(all);
	return found;
}

/* An event of that name exists already: refuse, or take it out (force). */
static int make_room(const char *group, const char *name, bool force, struct installed *in,
		     const char *tracing, struct fe_dir_names *events, struct fe_error *err)
{
	char path[512], *old, **v;

	/* the group's events listed once; one there is asked again (an
	 * earlier one replaced with --force is gone) */
	if (tracing && (size_t)snprintf(path, sizeof(path), "%s/events/%s", tracing, group) <
	    sizeof(path))
		fe_dir_names_read(events, path);
	else
		fe_dir_names_free(events);	/* not listed: each asked */
	if (!fe_dir_names_may_have(events, name) || !event_exists(group, name))
		return 0;
	if (!force)
		return fe_err(err, 0, "event %s/%s exists already; --force replaces it", group, name);
	old = definition_of(group, name);
	fe_event_set_enabled(top(), group, name, false);
	if (!old || fe_probe_remove_event(group, name)) {
		int e = errno;

		free(old);
		return fe_err(err, 0, "cannot remove the existing %s/%s: %s (is it enabled in an instance?)",
			      group, name, strerror(e));
	}
	v = realloc(in->replaced, (in->nr_replaced + 1) * sizeof(*v));
	if (!v) {
		free(old);
		return fe_err(err, 0, "out of memory");
	}
	v[in->nr_replaced++] = old;
	in->replaced = v;
	return 0;
}

/*
 * 'if FILTER': the event's filter file.  A filter the kernel refuses is
 * an error with the kernel's words (the filter file reads back the
 * parse error), and the add is undone.
 */
static int set_filter(const struct fe_definition *def, struct fe_refusal *r, int index,
		      struct fe_error *err)
{
	const char *name = def->filter_on_return ? def->ret_event : def->event;
	char *why;

	if (def->filter_on_call) {
		/*
		 * Over the entry's arguments and the return value: no kernel
		 * event has both fields here, so fevent keeps the filter
		 * beside the events (gone at reboot, as they are) and
		 * applies it to each call in record, report and stats.
		 */
		char path[512], *line;
		int ret;

		if (fe_probe_notes_mkdir(def->group, path, sizeof(path)))
			return fe_err(err, 0, "cannot keep the filter of %s/%s in %s: %s", def->group,
				      def->event, path, strerror(errno));
		fe_probe_filter_path(path, sizeof(path), def->group, def->event);
		if (asprintf(&line, "%s\n", def->filter) < 0)
			return fe_err(err, 0, "out of memory");
		ret = fe_out_write_text(path, line, err);
		free(line);
		return ret ? -1 : 0;
	}

	if (tracefs_event_file_write(top(), def->group, name, "filter", def->filter) >= 0)
		return 0;
	why = tracefs_event_file_read(top(), def->group, name, "filter", NULL);
	r->def = index;
	r->ret = def->filter_on_return;
	r->arg = -1;
	r->col = 0;
	r->log = why;
	return fe_err(err, 0, "the kernel refused the filter of %s/%s", def->group, name);
}

/*
 * The lines go to the kernel through one open file each, dynamic_events
 * (uprobe_events for an SDT probe's semaphore), as a shell's echo would
 * write them: exactly the lines compile prints.  error_log is emptied
 * once an install (fe_install), not before each line: the writes before
 * a refused one succeeded and logged nothing, so its entry is the last.
 * Per line that spares an open of error_log and libtracefs's look-ups,
 * a fifth of add's own cost at 100 functions in the test VM
 * (docs/speed.md).
 */
struct writer {
	int fd[2];		/* dynamic_events, uprobe_events; -1 until used */
};

static int writer_put(struct writer *w, bool uprobe_events, const char *line)
{
	int *fd = &w->fd[uprobe_events];
	size_t len = strlen(line);
	ssize_t n;

	if (*fd < 0)
		*fd = tracefs_instance_file_open(top(), uprobe_events ? "uprobe_events" :
						 "dynamic_events", O_WRONLY | O_APPEND | O_CLOEXEC);
	if (*fd < 0)
		return -1;
	do
		n = write(*fd, line, len);
	while (n < 0 && errno == EINTR);
	if (n >= 0 && (size_t)n != len) {
		errno = EIO;	/* the kernel takes a line whole or refuses it */
		n = -1;
	}
	return n < 0 ? -1 : 0;
}

static void writer_close(struct writer *w)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (w->fd[i] >= 0)
			close(w->fd[i]);
		w->fd[i] = -1;
	}
}

/*
 * Create one event through libtracefs; NULL after saying why.  ma: a
 * kretprobe's maxactive decision, taken at the first (see above).
 */
static struct tracefs_dynevent *create_event(const struct fe_definition *def, bool ret,
					     struct maxactive *ma, struct writer *w,
					     struct fe_refusal *refusal, int index,
					     struct fe_error *err)
{
	struct tracefs_dynevent *ev;
	unsigned int want = 0;

	if (ma && !ma->learnt) {
		ma->learnt = true;
		if (fe_kernel_can(FE_CAP_KRETPROBE_MAXACTIVE))
			want = maxactive_wanted();
	}
	if (ma && ma->use) {
		char *line;
		int failed;

		/* libtracefs 1.6 writes "r64::G/E" for a maxactive: the line
		 * is written as is, and the event read back to be undone */
		if (asprintf(&line, "r%u:%s/%s %s%s%s", ma->use, def->group, def->ret_event,
			     def->target, def->ret_args && *def->ret_args ? " " : "",
			     def->ret_args ? def->ret_args : "") < 0) {
			fe_err(err, 0, "out of memory");
			return NULL;
		}
		failed = writer_put(w, false, line);
		free(line);
		if (failed) {
			refuse(refusal, def, index, ret, errno, err);
			return NULL;
		}
		ev = tracefs_dynevent_get(TRACEFS_DYNEVENT_KRETPROBE, def->group, def->ret_event);
		if (!ev) {
			fe_probe_remove_event(def->group, def->ret_event);
			fe_err(err, 0, "cannot read back %s/%s", def->group, def->ret_event);
		}
		return ev;
	}
	/* the event object is only the note roll_back reads */
	ev = alloc_event(def, ret);
	if (!ev) {
		fe_err(err, 0, "out of memory");
		return NULL;
	}
	if (writer_put(w, false, ret ? def->ret : def->entry)) {
		refuse(refusal, def, index, ret, errno, err);
		tracefs_dynevent_free(ev);
		return NULL;
	}
	if (want) {
		char *line = definition_of(def->group, def->ret_event);

		/* the kernel's default, seen on the probe just made; one that
		 * cannot be taken out again keeps it (never left behind) */
		if (fe_probe_listed_maxactive(line) < want && !fe_probe_remove_event(def->group, def->ret_event)) {
			free(line);
			tracefs_dynevent_free(ev);
			ma->use = want;
			return create_event(def, ret, ma, w, refusal, index, err);
		}
		free(line);
	}
	return ev;
}

/* Can this kernel take each definition?  compile refused these for it
 * already (add compiles for it); definitions made elsewhere are checked
 * again. */
static int check_all(struct fe_definition *const *defs, int n, struct fe_error *err)
{
	int i;

	for (i = 0; i < n; i++) {
		char user[300];

		snprintf(user, sizeof(user), "%s/%s", defs[i]->group, defs[i]->event);
		if ((defs[i]->tracepoint && !fe_kernel_can(FE_CAP_TPROBE_EVENTS)) ||
		    (defs[i]->fprobe && !fe_kernel_can(FE_CAP_FPROBE_EVENTS)))
			return fe_kcaps_refuse(fe_kernel_caps(), defs[i]->tracepoint ?
					       FE_CAP_TPROBE_EVENTS : FE_CAP_FPROBE_EVENTS,
					       user, 0, err);
	}
	for (i = 0; i < n; i++)
		if (check_module(defs[i], err))
			return -1;
	return 0;
}

/* Room for every event the definitions make: an existing one is an
 * error, or with --force replaced. */
static int make_rooms(struct fe_definition *const *defs, int n, bool force,
		      struct installed *in, struct fe_error *err)
{
	/* asked once: libtracefs checks the directory at each call */
	const char *tracing = tracefs_tracing_dir();
	struct fe_dir_names events = { 0 };
	int i, ret = -1;

	for (i = 0; i < n; i++) {
		char old_ret[256];

		if (make_room(defs[i]->group, defs[i]->event, force, in, tracing, &events, err) ||
		    (defs[i]->ret_event &&
		     make_room(defs[i]->group, defs[i]->ret_event, force, in, tracing, &events, err)))
			goto out;
		/* --force replaces what the earlier prototype made: its return
		 * event too, where the new one has none */
		if (force && !defs[i]->ret_event &&
		    (size_t)snprintf(old_ret, sizeof(old_ret), "%s__return", defs[i]->event) <
		    sizeof(old_ret) && make_room(defs[i]->group, old_ret, force, in, tracing, &events, err))
			goto out;
	}
	ret = 0;
out:
	fe_dir_names_free(&events);
	return ret;
}

/*
 * A "t:" or "f:" event: libtracefs 1.6 knows none, so the line goes to
 * dynamic_events as it is, and a kprobe of that name is only the note
 * roll_back reads.
 */
static struct tracefs_dynevent *create_line_event(const struct fe_definition *def, bool ret,
						  struct writer *w, struct fe_refusal *refusal,
						  int index, struct fe_error *err)
{
	const char *name = ret ? def->ret_event : def->event;
	struct tracefs_dynevent *ev;

	if (writer_put(w, false, ret ? def->ret : def->entry)) {
		refuse(refusal, def, index, ret, errno, err);
		return NULL;
	}
	ev = tracefs_kprobe_alloc(def->group, name, def->target, NULL);
	if (!ev) {
		fe_probe_remove_event(def->group, name);
		fe_err(err, 0, "out of memory");
	}
	return ev;
}

/*
 * An SDT probe's semaphore, '(0xREF)' after the address: libtracefs
 * 1.6's uprobe API has no place for it, so the line is written as is and
 * the event read back to be undone with the rest.
 */
static struct tracefs_dynevent *create_sdt_event(const struct fe_definition *def,
						 struct writer *w, struct fe_refusal *refusal,
						 int index, struct fe_error *err)
{
	struct tracefs_dynevent *ev;

	if (writer_put(w, true, def->entry)) {
		refuse(refusal, def, index, false, errno, err);
		return NULL;
	}
	ev = tracefs_dynevent_get(TRACEFS_DYNEVENT_UPROBE, def->group, def->event);
	if (!ev) {
		fe_probe_remove_event(def->group, def->event);
		fe_err(err, 0, "cannot read back %s/%s", def->group, def->event);
	}
	return ev;
}

/* One definition's events, remembered to be undone on a failure. */
static int create_events(const struct fe_definition *def, int index, struct maxactive *ma,
			 struct writer *w, struct installed *in, struct fe_refusal *refusal,
			 struct fe_error *err)
{
	int pass;

	/*
	 * The return probe first: the kernel runs the handlers of one
	 * address in the order they were registered, and a kretprobe's
	 * handler puts its trampoline in the return address that the entry
	 * event's __caller=$stack0 reads.
	 */
	for (pass = 0; pass < 2; pass++) {
		bool ret = pass == 0;
		struct tracefs_dynevent *ev;

		if (ret && !def->ret_event)
			continue;
		if (def->tracepoint || def->fprobe)
			ev = create_line_event(def, ret, w, refusal, index, err);
		else if (!ret && def->ref_ctr)
			ev = create_sdt_event(def, w, refusal, index, err);
		else
			ev = create_event(def, ret, ret && !def->uprobe ? ma : NULL, w, refusal,
					  index, err);
		if (!ev)
			return -1;
		if (remember(in, ev)) {
			fe_probe_remove_event(def->group, ret ? def->ret_event : def->event);
			tracefs_dynevent_free(ev);
			return fe_err(err, 0, "out of memory");
		}
	}
	return 0;
}

int fe_install(struct fe_definition *const *defs, int n, bool force,
	       struct fe_refusal *refusal, struct fe_error *err)
{
	struct maxactive ma = { 0 };
	struct installed in = { 0 };
	struct writer w = { { -1, -1 } };
	int i;

	fe_refusal_clear(refusal);
	if (check_all(defs, n, err))
		return -1;
	if (make_rooms(defs, n, force, &in, err))
		goto fail;
	tracefs_error_clear(top());
	for (i = 0; i < n; i++)
		if (create_events(defs[i], i, &ma, &w, &in, refusal, err))
			goto fail;
	writer_close(&w);
	for (i = 0; i < n; i++)
		if (defs[i]->filter && set_filter(defs[i], refusal, i, err))
			goto fail;
	fe_probe_note_all(defs, n);
	installed_free(&in);
	return 0;
fail:
	writer_close(&w);
	roll_back(&in);
	installed_free(&in);
	return -1;
}
