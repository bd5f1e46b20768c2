// SPDX-License-Identifier: GPL-2.0
/*
 * record --graph-below FUNC: the function graph tracer in fevent's own
 * instance, its records (ftrace/funcgraph_entry, funcgraph_exit) given to
 * the view, which keeps the calls below FUNC.  An instance has no
 * set_graph_function (the top directory's alone, on every kernel of the
 * matrix): the instance traces every function of the traced tasks
 * (set_ftrace_pid, options/function-fork) and the view cuts the tree.
 * The top instance's tracer is never taken (docs/decisions.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

#include "btf_or_dwarf.h"
#include "dbg_locate.h"
#include "fe_util.h"
#include "kernel_caps.h"
#include "record_internal.h"

/* Is func a line of available_filter_functions ("name" or "name [mod]")? */
static bool traceable(const char *list, const char *func)
{
	size_t len = strlen(func);
	const char *p;

	for (p = list; (p = strstr(p, func)); p += len)
		if ((p == list || p[-1] == '\n') && (p[len] == '\n' || p[len] == ' ' || !p[len]))
			return true;
	return false;
}

int fe_rec_graph_check(const char *func, struct fe_error *err)
{
	char *list;
	bool ok;

	if (!fe_kernel_can(FE_CAP_FUNCGRAPH)) {
		fe_err(err, 0, "--graph-below needs %s, which this kernel lacks "
		       "(%s/available_tracers has no function_graph; "
		       "CONFIG_FUNCTION_GRAPH_TRACER is off)",
		       fe_cap_name(FE_CAP_FUNCGRAPH), tracefs_tracing_dir());
		return -2;
	}
	if (!*func || strpbrk(func, " \t\n*?[]!")) {
		fe_err(err, 0, "--graph-below '%s': one function's name, no pattern", func);
		return -2;
	}
	list = tracefs_instance_file_read(NULL, "available_filter_functions", NULL);
	if (!list)
		return fe_err(err, 0, "cannot read %s/available_filter_functions: %s",
			      tracefs_tracing_dir(), strerror(errno));
	ok = traceable(list, func);
	free(list);
	if (!ok) {
		fe_err(err, 0, "--graph-below %s: not a function the kernel's function tracer "
		       "can trace (not in %s/available_filter_functions)", func,
		       tracefs_tracing_dir());
		return -2;
	}
	return 0;
}

/* The instance's tracers for the refusal: "function nop". */
static void tracers_of(struct tracefs_instance *inst, char *buf, size_t size)
{
	char *t = tracefs_instance_file_read(inst, "available_tracers", NULL);

	snprintf(buf, size, "%s", t ? t : "?");
	buf[strcspn(buf, "\n")] = 0;
	free(t);
}

static int fe_rec_graph_can(struct session *s, struct fe_error *err)
{
	char *dir = tracefs_instance_get_dir(s->inst);
	char tracers[256];
	bool ok = dir && fe_kernel_instance_can(dir, FE_CAP_INSTANCE_FUNCGRAPH);

	if (ok) {
		s->graph_args = fe_kernel_instance_can(dir, FE_CAP_FUNCGRAPH_ARGS);
		s->graph_retval = fe_kernel_instance_can(dir, FE_CAP_FUNCGRAPH_RETVAL);
	}
	tracefs_put_tracing_file(dir);
	if (ok)
		return 0;
	tracers_of(s->inst, tracers, sizeof(tracers));
	fe_err(err, 0, "--graph-below needs %s, which this kernel lacks: its instances offer "
	       "only '%s' (instances/%s/available_tracers); the function graph tracer is the "
	       "top instance's alone, and fevent does not take over the system's tracer",
	       fe_cap_name(FE_CAP_INSTANCE_FUNCGRAPH), tracers,
	       tracefs_instance_get_name(s->inst));
	return -2;
}

int fe_rec_graph_follow(struct session *s, int pid, struct fe_error *err)
{
	char p[32];

	snprintf(p, sizeof(p), "%d", pid);
	if (tracefs_instance_file_write(s->inst, "set_ftrace_pid", p) < 0)
		return fe_err(err, 0, "cannot set set_ftrace_pid to %d: %s", pid, strerror(errno));
	if (tracefs_option_enable(s->inst, TRACEFS_OPTION_FUNCTION_FORK))
		return fe_err(err, 0, "cannot set options/function-fork: %s", strerror(errno));
	return 0;
}

static int option(struct session *s, const char *name, const char *val, struct fe_error *err)
{
	char file[64];

	snprintf(file, sizeof(file), "options/%s", name);
	if (tracefs_instance_file_write(s->inst, file, val) < 0)
		return fe_err(err, 0, "cannot set %s: %s", file, strerror(errno));
	return 0;
}

/*
 * The tracer is set before the buffers are opened (a reader of
 * trace_pipe_raw holds the current tracer: a change is EBUSY then), with
 * the instance not tracing: nothing is recorded until fe_rec_graph_arm,
 * once whom to trace is set.
 */
int fe_rec_graph_start(struct session *s, struct fe_error *err)
{
	int ret = fe_rec_graph_can(s, err);

	if (ret)
		return ret;
	if (tracefs_trace_off(s->inst))
		return fe_err(err, 0, "cannot stop %s's tracing: %s",
			      tracefs_instance_get_name(s->inst), strerror(errno));
	/* interrupts taken meanwhile are not calls below FUNC */
	if (option(s, "funcgraph-irqs", "0", err) ||
	    (s->graph_args && option(s, "funcgraph-args", "1", err)) ||
	    (s->graph_retval && option(s, "funcgraph-retval", "1", err)))
		return -1;
	if (tracefs_instance_file_write(s->inst, "current_tracer", "function_graph") < 0)
		return fe_err(err, 0, "cannot start the function graph tracer in %s: %s",
			      tracefs_instance_get_name(s->inst), strerror(errno));
	s->graph_on = true;
	return 0;
}

int fe_rec_graph_arm(struct session *s, struct fe_error *err)
{
	if (tracefs_trace_on(s->inst))
		return fe_err(err, 0, "cannot start %s's tracing: %s",
			      tracefs_instance_get_name(s->inst), strerror(errno));
	return 0;
}

void fe_rec_graph_end(struct session *s)
{
	if (s->graph_on)
		tracefs_instance_file_write(s->inst, "current_tracer", "nop");
	s->graph_on = false;
	fe_dbg_close(s->graph_btf);
	s->graph_btf = NULL;
}

/*
 * The names of func's parameters from the running kernel's BTF (opened at
 * the first ask), for the arguments funcgraph-args records.  A function
 * BTF does not describe (a module's, a compiler's copy such as
 * dput.part.0) has none shown, as the kernel's own trace shows it; NULL
 * (every word shown, unnamed) only where the kernel has no BTF.
 */
char *fe_rec_graph_params(void *ctx, const char *func)
{
	struct session *s = ctx;
	struct fe_dfunc f = { 0 };
	struct fe_error err = { 0 };
	struct fe_buf b = { 0 };
	int i;

	if (!s->graph_btf && !s->graph_btf_tried) {
		s->graph_btf_tried = true;
		s->graph_btf = fe_dbg_open_btf(FE_RUNNING_KERNEL_BTF, &err);
	}
	if (!s->graph_btf)
		return NULL;
	if (fe_dbg_func(s->graph_btf, func, &f, &err) != 1)
		return strdup("");
	fe_buf_add(&b, "", 0);	/* "" for a function without any */
	for (i = 0; i < f.nr_params; i++) {
		if (f.params[i].name)
			fe_buf_printf(&b, "%s%s", i ? " " : "", f.params[i].name);
		else
			fe_buf_printf(&b, "%sarg%d", i ? " " : "", i + 1);
	}
	fe_dfunc_clear(&f);
	return fe_buf_take(&b);
}
