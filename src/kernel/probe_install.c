// SPDX-License-Identifier: GPL-2.0
/*
 * Install, list and clear through libtracefs.  Events are created with the
 * dynamic-event API; what the kernel says when it refuses one comes from
 * its error_log, with the caret mapped back to the prototype's argument.
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
#include "value_format.h"
#include "event_names.h"

#define PROBE_TYPES (TRACEFS_DYNEVENT_KPROBE | TRACEFS_DYNEVENT_KRETPROBE | \
		     TRACEFS_DYNEVENT_UPROBE | TRACEFS_DYNEVENT_URETPROBE)
#define OWN_INSTANCE_PREFIX	"fevent-"

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

/* What the kernel would refuse for reasons the error_log does not tell. */
static int check_target(const struct fe_definition *def, const struct fe_kprobe_rules *rules,
			struct fe_error *err)
{
	const char *colon, *why;
	char func[256];

	if (def->uprobe || def->tracepoint)
		return 0;
	colon = strchr(def->target, ':');
	if (colon) {
		char module[128];

		snprintf(module, sizeof(module), "%.*s", (int)(colon - def->target), def->target);
		if (!file_has_word("/proc/modules", 0, module)) {
			char file[PATH_MAX];

			/* the kernel keeps it and arms it when the module
			 * loads; its rules are judged then */
			if (def->module_waits ||
			    (fe_kmod_builtin(module) != 1 &&
			     fe_kmod_file(module, file, sizeof(file)) == 1))
				return 0;
			return fe_err(err, 0, "module '%s' is not loaded (not in /proc/modules): load it first, then add '%s'",
				      module, def->event);
		}
	}
	/* a module's functions are keyed MODULE:func, as the target; the
	 * kernel judges FUNC+OFF by its function */
	snprintf(func, sizeof(func), "%.*s", (int)strcspn(def->target, "+"), def->target);
	why = fe_kprobe_rules_refuse(rules, func);
	if (why)
		return fe_err(err, 0, "kprobes cannot trace '%s': %s", def->target, why);
	return 0;
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
static unsigned int listed_maxactive(const char *line)
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
	char *log = tracefs_error_last(NULL);
	const char *name = ret ? def->ret_event : def->event;

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

static int remove_event(const char *group, const char *name);

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
			remove_event(sys, name);
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
	return tracefs_dir_exists(NULL, path);
}

/*
 * A uprobe holds the inode its path named when it was created; a linker
 * writes a new inode under the same path, and the event then silently
 * never fires.  fevent notes the file's identity at add time in
 * /run/fevent/GROUP/EVENT (gone at reboot, like the event) so list can say.
 */
#define STATE_DIR	"/run/fevent"

static void state_path(char *buf, size_t size, const char *group, const char *name)
{
	snprintf(buf, size, STATE_DIR "/%s/%s", group, name);
}

static void note_uprobe_file(const char *group, const char *name, const char *file)
{
	struct fe_error ignored;
	char path[512], *line;
	struct stat st;

	if (stat(file, &st))
		return;
	snprintf(path, sizeof(path), STATE_DIR "/%s", group);
	if ((mkdir(STATE_DIR, 0700) && errno != EEXIST) || (mkdir(path, 0700) && errno != EEXIST))
		return;		/* then list cannot tell; nothing else depends on it */
	state_path(path, sizeof(path), group, name);
	if (asprintf(&line, "%llu %llu %s\n", (unsigned long long)st.st_dev,
		     (unsigned long long)st.st_ino, file) < 0)
		return;
	fe_out_write_text(path, line, &ignored);
	free(line);
}

int fe_uprobe_file_changed(const struct fe_event_info *e)
{
	unsigned long long dev, ino;
	char path[512], file[4096];
	struct stat st;
	FILE *f;
	int n;

	if (e->kind != FE_KIND_UPROBE && e->kind != FE_KIND_URETPROBE)
		return -1;
	state_path(path, sizeof(path), e->group, e->event);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fscanf(f, "%llu %llu %4095[^\n]", &dev, &ino, file);
	fclose(f);
	if (n != 3)
		return -1;
	if (stat(file, &st)) {
		int pid;
		char proc[32];

		/* a container's file, named through a process that has exited:
		 * not replaced, only no longer reachable by that name */
		if (sscanf(file, "/proc/%d/root/", &pid) == 1) {
			snprintf(proc, sizeof(proc), "/proc/%d", pid);
			if (access(proc, F_OK))
				return 2;
		}
		return 1;	/* gone */
	}
	return st.st_dev != dev || st.st_ino != ino;
}

static void filter_path(char *buf, size_t size, const char *group, const char *name)
{
	snprintf(buf, size, STATE_DIR "/%s/%s.filter", group, name);
}

static void values_path(char *buf, size_t size, const char *group, const char *name)
{
	snprintf(buf, size, STATE_DIR "/%s/%s.values", group, name);
}

/*
 * How the view shows the event's fields beyond their fetch types
 * (enumerators, whole structs: fe_definition's *_values), kept beside the
 * event like its filter; empty when there is nothing to say, so that a
 * missing file means "not kept" and the view asks the debug info again
 * (value_derive.h).  Errno names and error pointers are the definition's
 * own (value_format.h).
 */
static void note_values(const char *group, const char *name, const char *values)
{
	struct fe_error ignored;
	char path[512];

	values_path(path, sizeof(path), group, name);
	unlink(path);
	if (!values)
		values = "";
	snprintf(path, sizeof(path), STATE_DIR "/%s", group);
	if ((mkdir(STATE_DIR, 0700) && errno != EEXIST) || (mkdir(path, 0700) && errno != EEXIST))
		return;
	values_path(path, sizeof(path), group, name);
	fe_out_write_text(path, values, &ignored);
}

char *fe_event_values(const char *group, const char *name, bool *kept)
{
	char path[512];
	FILE *f;
	struct fe_buf b = { 0 };
	char buf[4096];
	size_t n;

	values_path(path, sizeof(path), group, name);
	f = fopen(path, "re");
	*kept = f != NULL;
	if (!f)
		return NULL;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fe_buf_add(&b, buf, n);
	fclose(f);
	return fe_buf_take(&b);
}

static void place_path(char *buf, size_t size, const char *group, const char *name)
{
	snprintf(buf, size, STATE_DIR "/%s/%s.place", group, name);
}

/* The place a line or offset was written as: what list shows of it. */
static void note_place(const struct fe_definition *def)
{
	struct fe_error ignored;
	char path[512], *line;

	snprintf(path, sizeof(path), STATE_DIR "/%s", def->group);
	if ((mkdir(STATE_DIR, 0700) && errno != EEXIST) || (mkdir(path, 0700) && errno != EEXIST))
		return;		/* then list shows FUNC+OFF */
	place_path(path, sizeof(path), def->group, def->event);
	if (asprintf(&line, "%d %d %s\n", def->place_index, def->place_count, def->place) < 0)
		return;
	fe_out_write_text(path, line, &ignored);
	free(line);
}

int fe_event_place(const char *group, const char *event, char *place, size_t size, int *index,
		   int *count)
{
	char path[512], fmt[32];
	FILE *f;
	int n;

	if (size < 2)
		return -1;
	place_path(path, sizeof(path), group, event);
	f = fopen(path, "re");
	if (!f)
		return -1;
	snprintf(fmt, sizeof(fmt), "%%d %%d %%%zu[^\n]", size - 1);
	n = fscanf(f, fmt, index, count, place);
	fclose(f);
	return n == 3 && *index >= 0 && *count > *index ? 0 : -1;
}

static int remove_event(const char *group, const char *name)
{
	char cmd[256];

	state_path(cmd, sizeof(cmd), group, name);
	unlink(cmd);
	values_path(cmd, sizeof(cmd), group, name);
	unlink(cmd);
	filter_path(cmd, sizeof(cmd), group, name);
	unlink(cmd);
	place_path(cmd, sizeof(cmd), group, name);
	unlink(cmd);
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
		     struct fe_error *err)
{
	char *old, **v;

	if (!event_exists(group, name))
		return 0;
	if (!force)
		return fe_err(err, 0, "event %s/%s exists already; --force replaces it", group, name);
	old = definition_of(group, name);
	fe_event_set_enabled(NULL, group, name, false);
	if (!old || remove_event(group, name)) {
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

		snprintf(path, sizeof(path), STATE_DIR "/%s", def->group);
		if ((mkdir(STATE_DIR, 0700) && errno != EEXIST) ||
		    (mkdir(path, 0700) && errno != EEXIST))
			return fe_err(err, 0, "cannot keep the filter of %s/%s in %s: %s", def->group,
				      def->event, path, strerror(errno));
		filter_path(path, sizeof(path), def->group, def->event);
		if (asprintf(&line, "%s\n", def->filter) < 0)
			return fe_err(err, 0, "out of memory");
		ret = fe_out_write_text(path, line, err);
		free(line);
		return ret ? -1 : 0;
	}

	if (tracefs_event_file_write(NULL, def->group, name, "filter", def->filter) >= 0)
		return 0;
	why = tracefs_event_file_read(NULL, def->group, name, "filter", NULL);
	r->def = index;
	r->ret = def->filter_on_return;
	r->arg = -1;
	r->col = 0;
	r->log = why;
	return fe_err(err, 0, "the kernel refused the filter of %s/%s", def->group, name);
}

/*
 * Create one event through libtracefs; NULL after saying why.  ma: a
 * kretprobe's maxactive decision, taken at the first (see above).
 */
static struct tracefs_dynevent *create_event(const struct fe_definition *def, bool ret,
					     struct maxactive *ma, struct fe_refusal *refusal,
					     int index, struct fe_error *err)
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
		tracefs_error_clear(NULL);
		failed = tracefs_instance_file_append(NULL, "kprobe_events", line) < 0;
		free(line);
		if (failed) {
			refuse(refusal, def, index, ret, errno, err);
			return NULL;
		}
		ev = tracefs_dynevent_get(TRACEFS_DYNEVENT_KRETPROBE, def->group, def->ret_event);
		if (!ev) {
			remove_event(def->group, def->ret_event);
			fe_err(err, 0, "cannot read back %s/%s", def->group, def->ret_event);
		}
		return ev;
	}
	ev = alloc_event(def, ret);
	if (!ev) {
		fe_err(err, 0, "out of memory");
		return NULL;
	}
	tracefs_error_clear(NULL);
	if (tracefs_dynevent_create(ev)) {
		refuse(refusal, def, index, ret, errno, err);
		tracefs_dynevent_free(ev);
		return NULL;
	}
	if (want) {
		char *line = definition_of(def->group, def->ret_event);

		/* the kernel's default, seen on the probe just made; one that
		 * cannot be taken out again keeps it (never left behind) */
		if (listed_maxactive(line) < want && !remove_event(def->group, def->ret_event)) {
			free(line);
			tracefs_dynevent_free(ev);
			ma->use = want;
			return create_event(def, ret, ma, refusal, index, err);
		}
		free(line);
	}
	return ev;
}

int fe_install(struct fe_definition *const *defs, int n, bool force,
	       struct fe_refusal *refusal, struct fe_error *err)
{
	struct maxactive ma = { 0 };
	struct installed in = { 0 };
	struct fe_kprobe_rules *rules = NULL;
	int i, pass;

	fe_refusal_clear(refusal);
	/* compile refused these for this kernel already (add compiles for
	 * it); definitions made elsewhere are checked again */
	for (i = 0; i < n; i++) {
		char user[300];

		snprintf(user, sizeof(user), "%s/%s", defs[i]->group, defs[i]->event);
		if ((defs[i]->tracepoint && !fe_kernel_can(FE_CAP_TPROBE_EVENTS)) ||
		    (defs[i]->fprobe && !fe_kernel_can(FE_CAP_FPROBE_EVENTS)))
			return fe_kcaps_refuse(fe_kernel_caps(), defs[i]->tracepoint ?
					       FE_CAP_TPROBE_EVENTS : FE_CAP_FPROBE_EVENTS,
					       user, 0, err);
	}
	for (i = 0; i < n && !rules; i++)
		if (!defs[i]->uprobe && !defs[i]->tracepoint)
			rules = fe_kprobe_rules_load();
	for (i = 0; i < n; i++)
		if (check_target(defs[i], rules, err)) {
			fe_kprobe_rules_free(rules);
			return -1;
		}
	fe_kprobe_rules_free(rules);
	for (i = 0; i < n; i++) {
		char old_ret[256];

		if (make_room(defs[i]->group, defs[i]->event, force, &in, err) ||
		    (defs[i]->ret_event &&
		     make_room(defs[i]->group, defs[i]->ret_event, force, &in, err)))
			goto fail;
		/* --force replaces what the earlier prototype made: its return
		 * event too, where the new one has none */
		if (force && !defs[i]->ret_event &&
		    (size_t)snprintf(old_ret, sizeof(old_ret), "%s__return", defs[i]->event) <
		    sizeof(old_ret) && make_room(defs[i]->group, old_ret, force, &in, err))
			goto fail;
	}
	for (i = 0; i < n; i++) {
		/*
		 * The return probe first: the kernel runs the handlers of one
		 * address in the order they were registered, and a kretprobe's
		 * handler puts its trampoline in the return address that the
		 * entry event's __caller=$stack0 reads.
		 */
		for (pass = 0; pass < 2; pass++) {
			bool ret = pass == 0;
			struct tracefs_dynevent *ev;

			if (ret && !defs[i]->ret_event)
				continue;
			if (defs[i]->tracepoint || defs[i]->fprobe) {
				const char *name = ret ? defs[i]->ret_event : defs[i]->event;

				/*
				 * libtracefs 1.6 knows no "t:" or "f:" events:
				 * the line goes to dynamic_events as it is, and
				 * a kprobe of that name is only the note
				 * roll_back reads.
				 */
				tracefs_error_clear(NULL);
				if (tracefs_instance_file_append(NULL, "dynamic_events",
								 ret ? defs[i]->ret : defs[i]->entry) < 0) {
					refuse(refusal, defs[i], i, ret, errno, err);
					goto fail;
				}
				ev = tracefs_kprobe_alloc(defs[i]->group, name, defs[i]->target, NULL);
				if (!ev) {
					remove_event(defs[i]->group, name);
					fe_err(err, 0, "out of memory");
					goto fail;
				}
			} else if (!ret && defs[i]->ref_ctr) {
				/*
				 * An SDT probe's semaphore, '(0xREF)' after the
				 * address: libtracefs 1.6's uprobe API has no
				 * place for it, so the line is written as is
				 * and the event read back to be undone with
				 * the rest.
				 */
				tracefs_error_clear(NULL);
				if (tracefs_instance_file_append(NULL, "uprobe_events",
								 defs[i]->entry) < 0) {
					refuse(refusal, defs[i], i, ret, errno, err);
					goto fail;
				}
				ev = tracefs_dynevent_get(TRACEFS_DYNEVENT_UPROBE, defs[i]->group,
							  defs[i]->event);
				if (!ev) {
					remove_event(defs[i]->group, defs[i]->event);
					fe_err(err, 0, "cannot read back %s/%s", defs[i]->group,
					       defs[i]->event);
					goto fail;
				}
			} else {
				bool kret = ret && !defs[i]->uprobe;

				ev = create_event(defs[i], ret, kret ? &ma : NULL, refusal, i, err);
				if (!ev)
					goto fail;
			}
			if (remember(&in, ev)) {
				remove_event(defs[i]->group, ret ? defs[i]->ret_event : defs[i]->event);
				tracefs_dynevent_free(ev);
				fe_err(err, 0, "out of memory");
				goto fail;
			}
		}
	}
	for (i = 0; i < n; i++)
		if (defs[i]->filter && set_filter(defs[i], refusal, i, err))
			goto fail;
	for (i = 0; i < n; i++) {
		char path[512];

		if (defs[i]->place) {
			note_place(defs[i]);
			continue;
		}
		/* an earlier event of the name, removed by another tool */
		place_path(path, sizeof(path), defs[i]->group, defs[i]->event);
		unlink(path);
	}
	for (i = 0; i < n; i++) {
		note_values(defs[i]->group, defs[i]->event, defs[i]->entry_values);
		if (defs[i]->ret_event)
			note_values(defs[i]->group, defs[i]->ret_event, defs[i]->ret_values);
		if (!defs[i]->uprobe)
			continue;
		note_uprobe_file(defs[i]->group, defs[i]->event, defs[i]->target);
		if (defs[i]->ret_event)
			note_uprobe_file(defs[i]->group, defs[i]->ret_event, defs[i]->target);
	}
	installed_free(&in);
	return 0;
fail:
	roll_back(&in);
	installed_free(&in);
	return -1;
}

const char *fe_event_kind_name(enum fe_event_kind kind)
{
	static const char *const names[] = {
		"kprobe", "kretprobe", "uprobe", "uretprobe", "tprobe", "fprobe", "fexit",
	};

	return names[kind];
}

/*
 * hits and misses of one event from kprobe_profile / uprobe_profile.  The
 * kernel prints no group there: uprobes are told apart by their file,
 * kprobes of one name in two groups cannot be.
 */
static bool profile(const char *text, bool uprobe, const char *event, const char *target,
		    unsigned long long *hits, unsigned long long *misses)
{
	size_t flen = 0;

	if (uprobe && target && strrchr(target, ':'))
		flen = strrchr(target, ':') - target;
	const char *line = text;

	*hits = *misses = 0;
	while (line && *line) {
		char f[3][512];
		int n = sscanf(line, "%511s %511s %511s", f[0], f[1], f[2]);

		/* kprobe_profile: EVENT HITS MISSES; uprobe_profile: FILE EVENT HITS */
		if (!uprobe && n == 3 && !strcmp(f[0], event)) {
			*hits = strtoull(f[1], NULL, 10);
			*misses = strtoull(f[2], NULL, 10);
			return true;
		}
		if (uprobe && n == 3 && !strcmp(f[1], event) &&
		    (!flen || (strlen(f[0]) == flen && !strncmp(f[0], target, flen)))) {
			*hits = strtoull(f[2], NULL, 10);
			return true;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return false;
}

bool fe_profile_find(const char *text, const struct fe_event_info *e, unsigned long long *hits,
		     unsigned long long *misses)
{
	if (e->no_hits)
		return false;
	return profile(text, fe_kind_is_uprobe(e->kind), e->event, e->target, hits, misses);
}

/*
 * Its enable file, written: tracefs_event_enable() takes the names as
 * regexes and lists every system, and the events of the group, at each
 * call, which over a glob's hundreds of events is quadratic (322 kprobes
 * in the test VM: seconds of record's start-up and end).
 */
int fe_event_set_enabled(struct tracefs_instance *inst, const char *group, const char *event,
			 bool on)
{
	return tracefs_event_file_write(inst, group, event, "enable", on ? "1" : "0") < 0 ? -1 : 0;
}

int fe_profile_counts(struct fe_event_info *ev, int n, bool *unread)
{
	char *kprof = tracefs_instance_file_read(NULL, "kprobe_profile", NULL);
	char *uprof = tracefs_instance_file_read(NULL, "uprobe_profile", NULL);
	int i, ret = 0;

	for (i = 0; i < n; i++) {
		bool uprobe = fe_kind_is_uprobe(ev[i].kind);
		bool found;

		if (ev[i].no_hits)
			continue;	/* no profile counts them */
		found = profile(uprobe ? uprof : kprof, uprobe, ev[i].event, ev[i].target,
				     &ev[i].hits, &ev[i].misses);

		if (unread)
			unread[i] = !found;
		if (!found)
			ret = -1;
	}
	free(kprof);
	free(uprof);
	return ret;
}

static bool enabled_in(struct tracefs_instance *inst, const char *group, const char *event)
{
	char *s = tracefs_event_file_read(inst, group, event, "enable", NULL);
	bool on = s && s[0] == '1';

	free(s);
	return on;
}

struct walk {
	struct fe_event_info *ev;
	int n;
	bool failed;
};

static int add_enabled(struct fe_event_info *e, const char *where)
{
	char **v = realloc(e->enabled_in, (e->nr_enabled + 1) * sizeof(*v));

	if (!v)
		return -1;
	e->enabled_in = v;
	v[e->nr_enabled] = strdup(where);
	if (!v[e->nr_enabled])
		return -1;
	e->nr_enabled++;
	return 0;
}

static int walk_instance(const char *name, void *arg)
{
	struct walk *w = arg;
	struct tracefs_instance *inst = tracefs_instance_alloc(NULL, name);
	int i;

	if (!inst)
		return 0;
	for (i = 0; i < w->n; i++)
		if (enabled_in(inst, w->ev[i].group, w->ev[i].event) &&
		    add_enabled(&w->ev[i], name))
			w->failed = true;
	tracefs_instance_free(inst);
	return 0;
}

/* An event's filter file, or NULL when it has none. */
static char *filter_file(const char *group, const char *event)
{
	char *f = tracefs_event_file_read(NULL, group, event, "filter", NULL);

	if (f)
		f[strcspn(f, "\n")] = 0;
	if (f && (!f[0] || !strcmp(f, "none"))) {
		free(f);
		f = NULL;
	}
	return f;
}

/* The filter kept for a call over both of its events, or NULL. */
static char *kept_filter(const char *group, const char *event)
{
	char path[512], *line = NULL;
	size_t cap = 0;
	FILE *f;

	filter_path(path, sizeof(path), group, event);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	if (getline(&line, &cap, f) <= 0) {
		free(line);
		line = NULL;
	} else {
		line[strcspn(line, "\n")] = 0;
	}
	fclose(f);
	return line;
}

/* Each entry's filter on its calls (ev sorted by name). */
static int call_filters(struct fe_event_info *ev, int n)
{
	int i, j;

	for (i = 0; i < n; i++) {
		size_t len = strlen(ev[i].event);
		char *a, *b;

		if (ev[i].kind != FE_KIND_KPROBE && ev[i].kind != FE_KIND_UPROBE)
			continue;
		for (j = 0; j < n; j++)
			if ((ev[j].kind == FE_KIND_KRETPROBE || ev[j].kind == FE_KIND_URETPROBE) &&
			    !strncmp(ev[j].event, ev[i].event, len) &&
			    !strcmp(ev[j].event + len, "__return") &&
			    !strcmp(ev[j].group, ev[i].group))
				break;
		if (j == n)
			continue;
		ev[i].call_filter = kept_filter(ev[i].group, ev[i].event);
		if (ev[i].call_filter) {
			ev[i].call_filter_kept = true;
			continue;
		}
		a = filter_file(ev[i].group, ev[i].event);
		b = filter_file(ev[j].group, ev[j].event);
		if (!a && b && strstr(ev[j].args, "$arg")) {
			/* the return is the whole call: the kernel filters it */
			ev[i].calls_filtered_in_kernel = true;
			free(b);
			continue;
		}
		if (a && b) {
			if (asprintf(&ev[i].call_filter, "(%s) && (%s)", a, b) < 0)
				ev[i].call_filter = NULL;
			free(a);
			free(b);
			if (!ev[i].call_filter)
				return -1;
		} else {
			ev[i].call_filter = a ? a : b;
		}
	}
	return 0;
}

static int by_name(const void *a, const void *b)
{
	const struct fe_event_info *x = a, *y = b;

	return strcmp(x->event, y->event);
}

static void info_clear(struct fe_event_info *e)
{
	int j;

	free(e->group);
	free(e->event);
	free(e->target);
	free(e->args);
	free(e->definition);
	free(e->call_filter);
	free(e->values);
	for (j = 0; j < e->nr_enabled; j++)
		free(e->enabled_in[j]);
	free(e->enabled_in);
	memset(e, 0, sizeof(*e));
}

/*
 * libtracefs 1.6 reads a uprobe's "p:" line from dynamic_events as a kprobe
 * too: the kind is decided here from the line itself, a uprobe's target
 * being FILE:0xOFFSET.
 */
static enum fe_event_kind event_kind(enum tracefs_dynevent_type t, const char *prefix,
				     const char *addr)
{
	bool ret = prefix ? prefix[0] == 'r' : (t == TRACEFS_DYNEVENT_KRETPROBE ||
						t == TRACEFS_DYNEVENT_URETPROBE);
	bool user = addr && addr[0] == '/' && strstr(addr, ":0x");

	if (user)
		return ret ? FE_KIND_URETPROBE : FE_KIND_UPROBE;
	return ret ? FE_KIND_KRETPROBE : FE_KIND_KPROBE;
}

/* ...and lists it twice: keep one entry an event. */
static int drop_doubles(struct fe_event_info *ev, int n)
{
	int i, j, kept = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < kept; j++)
			if (!strcmp(ev[j].group, ev[i].group) && !strcmp(ev[j].event, ev[i].event))
				break;
		if (j < kept) {
			info_clear(&ev[i]);
			continue;
		}
		if (kept != i)
			ev[kept] = ev[i];
		kept++;
	}
	return kept;
}

/*
 * The "t:" and "f:" events of group, which libtracefs 1.6 does not list,
 * from dynamic_events: "t:GROUP/EVENT TRACEPOINT ARGS", "f:GROUP/EVENT
 * FUNC[%return] ARGS".  Appended to *ev (*count entries); -1 when out of
 * memory.
 */
static int add_tprobes(const char *group, struct fe_event_info **ev, int *count)
{
	char *all = tracefs_instance_file_read(NULL, "dynamic_events", NULL);
	char *line, *save = NULL;
	int ret = 0;

	for (line = all ? strtok_r(all, "\n", &save) : NULL; line && !ret;
	     line = strtok_r(NULL, "\n", &save)) {
		char *slash, *sp, *target, *args;
		struct fe_event_info *e, *v;

		if ((line[0] != 't' && line[0] != 'f') || line[1] != ':')
			continue;
		slash = strchr(line + 2, '/');
		sp = strchr(line, ' ');
		if (!slash || !sp || slash > sp ||
		    (group && ((size_t)(slash - line - 2) != strlen(group) ||
			       strncmp(line + 2, group, slash - line - 2))))
			continue;
		target = sp + 1;
		args = target + strcspn(target, " ");
		v = realloc(*ev, (*count + 1) * sizeof(*v));
		if (!v) {
			ret = -1;
			break;
		}
		*ev = v;
		e = &v[*count];
		memset(e, 0, sizeof(*e));
		e->kind = line[0] == 't' ? FE_KIND_TPROBE : FE_KIND_FPROBE;
		if (line[0] == 'f' && args - target > 7 && !strncmp(args - 7, "%return", 7)) {
			e->kind = FE_KIND_FEXIT;
			args -= 7;	/* the function alone is the target */
		}
		e->no_hits = true;
		e->group = strndup(line + 2, slash - line - 2);
		e->event = strndup(slash + 1, sp - slash - 1);
		e->target = strndup(target, args - target);
		if (e->kind == FE_KIND_FEXIT)
			args += 7;
		e->args = strdup(*args ? args + 1 : "");
		e->definition = strdup(line);
		(*count)++;
		if (!e->group || !e->event || !e->target || !e->args || !e->definition ||
		    (enabled_in(NULL, e->group, e->event) && add_enabled(e, "")))
			ret = -1;
	}
	free(all);
	return ret;
}

int fe_list_events(const char *group, struct fe_event_info **out, int *n,
		   struct fe_error *err)
{
	struct tracefs_dynevent **all = tracefs_dynevent_get_all(PROBE_TYPES, group);
	char *kprof = tracefs_instance_file_read(NULL, "kprobe_profile", NULL);
	char *uprof = tracefs_instance_file_read(NULL, "uprobe_profile", NULL);
	struct fe_event_info *ev = NULL;
	struct walk w;
	int i, count = 0;

	*out = NULL;
	*n = 0;
	for (i = 0; all && all[i]; i++)
		count++;
	ev = calloc(count ? count : 1, sizeof(*ev));
	if (!ev)
		goto oom;
	for (i = 0; i < count; i++) {
		char *sys = NULL, *name = NULL, *prefix = NULL, *addr = NULL, *format = NULL;
		enum tracefs_dynevent_type t;

		t = tracefs_dynevent_info(all[i], &sys, &name, &prefix, &addr, &format);
		ev[i].group = sys;
		ev[i].event = name;
		ev[i].target = addr;
		ev[i].args = format ? format : strdup("");
		ev[i].kind = event_kind(t, prefix, addr);
		if (ev[i].kind == FE_KIND_KRETPROBE)
			ev[i].maxactive = listed_maxactive(prefix);
		if (!sys || !name || !addr || !ev[i].args ||
		    asprintf(&ev[i].definition, "%s:%s/%s %s%s%s", prefix ? prefix : "p", sys, name,
			     addr, *ev[i].args ? " " : "", ev[i].args) < 0) {
			free(prefix);
			ev[i].definition = NULL;
			*n = i + 1;
			goto oom;
		}
		free(prefix);
		profile(fe_kind_is_uprobe(ev[i].kind) ? uprof : kprof, fe_kind_is_uprobe(ev[i].kind),
			name, addr, &ev[i].hits, &ev[i].misses);
		if (enabled_in(NULL, sys, name) && add_enabled(&ev[i], "")) {
			*n = i + 1;
			goto oom;
		}
	}
	*n = count;
	if (add_tprobes(group, &ev, n))
		goto oom;
	count = drop_doubles(ev, *n);
	*n = count;
	w.ev = ev;
	w.n = count;
	w.failed = false;
	if (count)
		tracefs_instances_walk(walk_instance, &w);
	if (w.failed)
		goto oom;
	qsort(ev, count, sizeof(*ev), by_name);
	if (call_filters(ev, count))
		goto oom;
	/* how the view shows the fields: what each definition says, then
	 * what add kept beside it (value_format.h) */
	for (i = 0; i < count; i++) {
		char *kept = fe_event_values(ev[i].group, ev[i].event, &ev[i].values_kept);
		bool oom;

		ev[i].values = fe_values_of_event(ev[i].args, fe_kind_is_uprobe(ev[i].kind), kept,
						  &oom);
		free(kept);
		if (oom)
			goto oom;
	}
	*out = ev;
	tracefs_dynevent_list_free(all);
	free(kprof);
	free(uprof);
	return 0;
oom:
	tracefs_dynevent_list_free(all);
	free(kprof);
	free(uprof);
	fe_event_infos_free(ev, *n);
	*n = 0;
	return fe_err(err, 0, "out of memory");
}


void fe_event_infos_free(struct fe_event_info *ev, int n)
{
	int i;

	if (!ev)
		return;
	for (i = 0; i < n; i++)
		info_clear(&ev[i]);
	free(ev);
}

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
	struct tracefs_dynevent **all = tracefs_dynevent_get_all(TRACEFS_DYNEVENT_KPROBE |
								 TRACEFS_DYNEVENT_KRETPROBE |
								 TRACEFS_DYNEVENT_UPROBE |
								 TRACEFS_DYNEVENT_URETPROBE |
								 TRACEFS_DYNEVENT_SYNTH, NULL);
	struct fe_event_info *other = NULL;	/* t: and f: events */
	int round, i, nr_other = 0;
	bool again = true;

	if (add_tprobes(NULL, &other, &nr_other)) {
		/* out of memory: their triggers stay */
		fe_event_infos_free(other, nr_other);
		other = NULL;
		nr_other = 0;
	}
	for (round = 0; round < 3 && again; round++) {
		again = false;
		for (i = 0; all && all[i]; i++) {
			char *system = NULL, *event = NULL;

			tracefs_dynevent_info(all[i], &system, &event, NULL, NULL, NULL);
			if (system && event && remove_event_triggers(inst, system, event))
				again = true;
			free(system);
			free(event);
		}
		for (i = 0; i < nr_other; i++)
			if (other[i].group && other[i].event &&
			    remove_event_triggers(inst, other[i].group, other[i].event))
				again = true;
	}
	fe_event_infos_free(other, nr_other);
	tracefs_dynevent_list_free(all);
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
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%ld/exe", pid);
	n = readlink(path, buf, sizeof(buf) - 1);
	if (n > 0) {
		buf[n] = 0;
		base = strrchr(buf, '/');
		if (!strncmp(base ? base + 1 : buf, "fevent", 6))
			return true;
	}
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || !strncmp(buf, "fevent", 6))
		return true;
	snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return true;
	buf[n] = 0;
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

int fe_clear_events(const char *group, char *const *names, int nr_names, bool force,
		    struct fe_warnings *undone, struct fe_error *err)
{
	struct fe_event_info *ev;
	int i, j, n, removed = 0;

	if (fe_list_events(group, &ev, &n, err))
		return -1;
	for (i = 0; i < nr_names; i++) {
		for (j = 0; j < n && !fe_event_named(ev[j].event, names[i]); j++)
			;
		if (j == n)
			fe_warn(undone, "no event '%s' in group '%s'", names[i], group);
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
		if (remove_event(ev[i].group, ev[i].event))
			fe_warn(undone, "cannot remove %s/%s: %s", ev[i].group, ev[i].event,
				strerror(errno));
		else
			removed++;
	}
	fe_event_infos_free(ev, n);
	return removed;
}
