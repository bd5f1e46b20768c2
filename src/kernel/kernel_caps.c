// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's capabilities from its tracefs README.  The README is built
 * from the kernel's configuration (kernel/trace/trace.c, readme_msg): a
 * feature the kernel was built without has no line there, so one read of
 * one file answers every question, on every kernel, without probing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "fe_util.h"
#include "kernel_caps.h"

/* How the README says it: a line that starts (blanks aside) with line,
 * or, with anywhere, a line that has it; or, where the README is silent,
 * a file of tracefs' top directory that only such a kernel has. */
struct cap_rule {
	const char *name;	/* for messages */
	const char *line;
	bool anywhere;
	const char *option;	/* the kernel option behind it */
	const char *file;
	const char *word;	/* set: a word file lists ("[local] global mono") */
	bool instance;		/* file is an instance's (fe_kernel_instance_can) */
};

static const struct cap_rule rules[FE_CAP_NR] = {
	[FE_CAP_KPROBE_EVENTS] = { "kprobe events", "kprobe_events", false,
				   "CONFIG_KPROBE_EVENTS" },
	[FE_CAP_UPROBE_EVENTS] = { "uprobe events", "uprobe_events", false,
				   "CONFIG_UPROBE_EVENTS" },
	[FE_CAP_RETPROBE_ARGS] = { "return probes that read the entry's arguments ($arg<N>)",
				   "kernel return probes support: $retval, $arg<N>", true,
				   "CONFIG_KPROBE_EVENTS" },
	[FE_CAP_KRETPROBE_MAXACTIVE] = { "return probes of a given number of instances (rN:)",
					 "r[maxactive]", false, "CONFIG_KPROBE_EVENTS" },
	[FE_CAP_TPROBE_EVENTS] = { "tracepoint probe events (t:)",
				   "t[:[<group>/][<event>]] <tracepoint>", false,
				   "CONFIG_FPROBE_EVENTS" },
	[FE_CAP_FPROBE_EVENTS] = { "fprobe events (f:)", "f[:[<group>/][<event>]] <func-name>",
				   false, "CONFIG_FPROBE_EVENTS" },
	[FE_CAP_HIST_TRIGGERS] = { "hist triggers", "hist trigger", false,
				   "CONFIG_HIST_TRIGGERS" },
	/* the README lists "events/synthetic_events", which is not where
	 * the file is: the file says it */
	[FE_CAP_SYNTH_EVENTS] = { "synthetic events", NULL, false, "CONFIG_SYNTH_EVENTS",
				  "synthetic_events" },
	[FE_CAP_HIST_COMMON_STACKTRACE] = { "the hist key common_stacktrace",
					    "common_stacktrace", true, "CONFIG_HIST_TRIGGERS" },
	/* 6.8; not in the README of 6.12 */
	[FE_CAP_SUBBUF_SIZE] = { "ring-buffer sub-buffers larger than a page", NULL, false,
				 "CONFIG_RING_BUFFER", "buffer_subbuf_size_kb" },
	[FE_CAP_RECORD_TGID] = { "each task's process recorded (saved_tgids)", NULL, false,
				 "CONFIG_TRACING", "saved_tgids" },
	/* the README lists the clocks of 2.6; the file lists them all */
	[FE_CAP_CLOCK_MONO] = { "the trace clock mono (CLOCK_MONOTONIC)", NULL, false,
				"CONFIG_TRACING", "trace_clock", "mono" },
	/* the fetch arguments' help: "+|-[u]<offset>(<fetcharg>), \imm-value, ..." */
	[FE_CAP_IMMEDIATES] = { "immediate fetch arguments (\\imm-value)", "\\imm-value", true,
				"CONFIG_PROBE_EVENTS" },
	[FE_CAP_DYNEVENT_GROUP_REMOVE] = { "removing a group's dynamic events at once (-:GROUP/)",
					   "-:[<group>/][<event>]", false, "CONFIG_DYNAMIC_EVENTS" },
	[FE_CAP_FUNCGRAPH] = { "the function graph tracer", NULL, false,
			       "CONFIG_FUNCTION_GRAPH_TRACER", "available_tracers", "function_graph" },
	[FE_CAP_INSTANCE_FUNCGRAPH] = { "the function graph tracer in a tracefs instance", NULL,
					false, "CONFIG_FUNCTION_GRAPH_TRACER",
					"available_tracers", "function_graph", true },
	[FE_CAP_FUNCGRAPH_ARGS] = { "the function graph tracer's arguments (funcgraph-args)",
				    NULL, false, "CONFIG_FUNCTION_TRACE_ARGS",
				    "options/funcgraph-args", NULL, true },
	[FE_CAP_FUNCGRAPH_RETVAL] = { "the function graph tracer's return values "
				      "(funcgraph-retval)", NULL, false,
				      "CONFIG_FUNCTION_GRAPH_RETVAL", "options/funcgraph-retval",
				      NULL, true },
};

static bool said(const char *readme, const struct cap_rule *r)
{
	const char *line = readme;
	size_t len = r->line ? strlen(r->line) : 0;

	if (!r->line)
		return false;
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		const char *p = line + strspn(line, " \t");

		if (r->anywhere ? memmem(line, n, r->line, len) != NULL :
		    (size_t)(line + n - p) >= len && !strncmp(p, r->line, len))
			return true;
		line = nl ? nl + 1 : NULL;
	}
	return false;
}

/* Is name a line of the listing? */
static bool listed(const char *listing, const char *name)
{
	size_t len = strlen(name);
	const char *p;

	for (p = listing; p && (p = strstr(p, name)); p += len)
		if ((p == listing || p[-1] == '\n') && (p[len] == '\n' || !p[len]))
			return true;
	return false;
}

/* Is word one of text's words, "[word]" (the one chosen) too? */
static bool has_word(const char *text, const char *word)
{
	size_t len = strlen(word);
	const char *p;

	for (p = text; (p = strstr(p, word)); p += len) {
		bool starts = p == text || p[-1] == ' ' || p[-1] == '[';
		char end = p[len];

		if (starts && (!end || end == ' ' || end == ']' || end == '\n'))
			return true;
	}
	return false;
}

void fe_kcaps_parse(struct fe_kcaps *caps, const char *readme, const char *files)
{
	int i;

	for (i = 0; i < FE_CAP_NR; i++) {
		char both[64];

		if (rules[i].instance)
			continue;	/* fe_kernel_instance_can's */

		snprintf(both, sizeof(both), "%s %s", rules[i].file ? rules[i].file : "",
			 rules[i].word ? rules[i].word : "");
		caps->can[i] = rules[i].word ? listed(files, both) :
			       rules[i].file ? listed(files, rules[i].file) :
			       readme && said(readme, &rules[i]);
	}
	/*
	 * The dynamic events' help is one text for kprobes and uprobes: a
	 * kernel with uprobe events alone lists "$arg<N>" for "kernel return
	 * probes" and r[maxactive] too (6.18 without kprobe events).
	 */
	if (!caps->can[FE_CAP_KPROBE_EVENTS]) {
		caps->can[FE_CAP_RETPROBE_ARGS] = false;
		caps->can[FE_CAP_KRETPROBE_MAXACTIVE] = false;
	}
	caps->can[FE_CAP_HIST_COMMON_STACKTRACE] &= caps->can[FE_CAP_HIST_TRIGGERS];
}

/* Every tracefs asked about, read once each (a command asks of one or two) */
struct cache {
	struct fe_kcaps caps;
	bool words_read[FE_CAP_NR];	/* word_cap's, read */
	bool readable;
	struct cache *next;
};

static struct cache *cached;

const struct fe_kcaps *fe_kcaps_at(const char *dir)
{
	struct fe_buf files = { 0 };
	struct cache *c;
	char path[PATH_MAX + 64];
	char *readme;
	int i;

	if (!dir || !*dir)
		return NULL;
	for (c = cached; c; c = c->next)
		if (!strcmp(c->caps.dir, dir))
			return c->readable ? &c->caps : NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	snprintf(c->caps.dir, sizeof(c->caps.dir), "%s", dir);
	snprintf(path, sizeof(path), "%s/README", dir);
	readme = fe_read_file(path);
	c->readable = readme != NULL;
	for (i = 0; i < FE_CAP_NR; i++) {
		if (!rules[i].file || rules[i].instance)
			continue;
		/* a word of a file is read when asked (word_cap): compile
		 * reads no more of tracefs than the README and its listing */
		if (rules[i].word)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, rules[i].file);
		if (!access(path, F_OK))
			fe_buf_printf(&files, "%s\n", rules[i].file);
	}
	fe_kcaps_parse(&c->caps, readme, files.s);
	free(readme);
	fe_buf_free(&files);
	/* a user's way to compare the two (bench/fprobe_cost.py) */
	if (getenv("FEVENT_NO_FPROBES"))
		c->caps.can[FE_CAP_FPROBE_EVENTS] = false;
	c->next = cached;
	cached = c;
	return c->readable ? &c->caps : NULL;
}

const struct fe_kcaps *fe_kernel_caps(void)
{
	return fe_kcaps_at(tracefs_tracing_dir());
}

bool fe_kcaps_mounted_dir(char *buf, size_t size)
{
	char dev[256], dir[4096], type[64];
	bool found = false;
	FILE *f = fopen("/proc/mounts", "re");

	if (!f)
		return false;
	while (!found && fscanf(f, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3)
		found = !strcmp(type, "tracefs");
	fclose(f);
	if (found)
		snprintf(buf, size, "%s", dir);
	return found;
}

/* A capability that is a word of a file (trace_clock's mono), read the
 * first time it is asked, into the cache's copy. */
static bool word_cap(const struct fe_kcaps *caps, enum fe_cap cap)
{
	struct cache *c;
	char path[PATH_MAX + 64];
	char *text;

	for (c = cached; c && &c->caps != caps; c = c->next)
		;
	if (!c)
		return caps->can[cap];	/* fe_kcaps_parse's, not read from a dir */
	if (!c->words_read[cap]) {
		c->words_read[cap] = true;
		snprintf(path, sizeof(path), "%s/%s", caps->dir, rules[cap].file);
		text = fe_read_file(path);
		c->caps.can[cap] = text && has_word(text, rules[cap].word);
		free(text);
	}
	return c->caps.can[cap];
}

bool fe_kcaps_can(const struct fe_kcaps *caps, enum fe_cap cap)
{
	if (!caps || cap < 0 || cap >= FE_CAP_NR)
		return false;
	return rules[cap].word && !rules[cap].instance ? word_cap(caps, cap) : caps->can[cap];
}

bool fe_kernel_instance_can(const char *inst_dir, enum fe_cap cap)
{
	const struct fe_kcaps *caps = fe_kernel_caps();
	char path[PATH_MAX + 64];
	struct cache *c;
	char *text;

	if (!caps || cap < 0 || cap >= FE_CAP_NR || !rules[cap].instance)
		return false;
	for (c = cached; c && &c->caps != caps; c = c->next)
		;
	if (!c)
		return false;
	if (!c->words_read[cap]) {
		/* the same for every instance of the kernel: read once */
		c->words_read[cap] = true;
		snprintf(path, sizeof(path), "%s/%s", inst_dir, rules[cap].file);
		if (rules[cap].word) {
			text = fe_read_file(path);
			c->caps.can[cap] = text && has_word(text, rules[cap].word);
			free(text);
		} else {
			c->caps.can[cap] = !access(path, F_OK);
		}
	}
	return c->caps.can[cap];
}

bool fe_kernel_can(enum fe_cap cap)
{
	return fe_kcaps_can(fe_kernel_caps(), cap);
}

const char *fe_cap_name(enum fe_cap cap)
{
	return cap >= 0 && cap < FE_CAP_NR ? rules[cap].name : "?";
}

int fe_kcaps_refuse(const struct fe_kcaps *caps, enum fe_cap cap, const char *user, int col,
		    struct fe_error *err)
{
	const struct cap_rule *r = &rules[cap];
	const char *dir = caps && caps->dir[0] ? caps->dir : "tracefs";

	if (r->file)
		return fe_err(err, col,
			      "this kernel has no %s, which %s needs: its tracefs (%s) has no %s (%s is off, or the kernel predates them)",
			      r->name, user, dir, r->file, r->option);
	return fe_err(err, col,
		      "this kernel has no %s, which %s needs: its tracefs README (%s/README) has no '%s' line (%s is off, or the kernel predates them)",
		      r->name, user, dir, r->line, r->option);
}
