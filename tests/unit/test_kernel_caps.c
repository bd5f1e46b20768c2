// SPDX-License-Identifier: GPL-2.0
/*
 * The capability parser (kernel_caps.c) on the tracefs READMEs and top
 * directories of the four kernels of the matrix, saved from the test VM
 * by tests/test_vm_kernel_caps.py (FEVENT_SAVE_README=1), and on the
 * development machine's 6.18, which has uprobe events and no kprobe
 * events.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_caps.h"
#include "tap.h"

static char *slurp(const char *name)
{
	char path[4096], *text = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", FE_FIXTURES, name);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	if (getdelim(&text, &cap, '\0', f) < 0) {
		free(text);
		text = NULL;
	}
	fclose(f);
	return text;
}

/* the capabilities each kernel has, in enum order */
struct want {
	const char *suite;
	bool can[FE_CAP_NR];
};

#define Y true
#define N false

static const struct want kernels[] = {
	/* kprobe uprobe retargs maxactive tprobe fprobe hist synth common_stack subbuf tgid
	 * mono imm group-remove; mono is a word of trace_clock, read when asked (no
	 * fixture here: the listing has no words), so the parse says no */
	{ "bullseye", { Y, Y, N, Y, N, N, N, N, N, N, Y, N, Y, N } },	/* 5.10 */
	{ "bookworm", { Y, Y, N, Y, N, N, Y, Y, N, N, Y, N, Y, Y } },	/* 6.1 */
	{ "trixie",   { Y, Y, Y, Y, Y, Y, Y, Y, Y, Y, Y, N, Y, Y } },	/* 6.12 */
	{ "sid",      { Y, Y, Y, Y, Y, Y, Y, Y, Y, Y, Y, N, Y, Y } },	/* 7.2 */
};

static void test_kernel(const struct want *w)
{
	char name[64];
	char *readme, *files;
	struct fe_kcaps caps = { 0 };
	int i;

	snprintf(name, sizeof(name), "%s.txt", w->suite);
	readme = slurp(name);
	snprintf(name, sizeof(name), "%s.files", w->suite);
	files = slurp(name);
	tap_ok(readme && files, "%s: the fixtures are there", w->suite);
	fe_kcaps_parse(&caps, readme, files);
	for (i = 0; i < FE_CAP_NR; i++)
		tap_ok(caps.can[i] == w->can[i], "%s: %s %s", w->suite,
		       w->can[i] ? "can" : "cannot", fe_cap_name(i));
	free(readme);
	free(files);
}

/* a word of a file, in the listing as "FILE WORD" (trace_clock's clocks) */
static void test_word_of_a_file(void)
{
	struct fe_kcaps caps = { 0 };

	fe_kcaps_parse(&caps, NULL, "trace_clock\ntrace_clock mono\n");
	tap_ok(caps.can[FE_CAP_CLOCK_MONO], "a listed word: can %s", fe_cap_name(FE_CAP_CLOCK_MONO));
	fe_kcaps_parse(&caps, NULL, "trace_clock\ntrace_clock monotonic\n");
	tap_ok(!caps.can[FE_CAP_CLOCK_MONO], "another word: cannot %s",
	       fe_cap_name(FE_CAP_CLOCK_MONO));
}

/* 6.18 without kprobe events lists $arg<N> and r[maxactive] in the help
 * it shares with uprobe events: no kprobe events, no kernel return probes */
static void test_uprobes_only(void)
{
	static const char readme[] =
		"  uprobe_events\t\t- Create/append/remove/show the userspace dynamic events\n"
		"\t   Format: p[:[<group>/][<event>]] <place> [<args>]\n"
		"\t           r[maxactive][:[<group>/][<event>]] <place> [<args>]\n"
		"\t     kernel return probes support: $retval, $arg<N>, $comm\n";
	struct fe_kcaps caps = { 0 };

	fe_kcaps_parse(&caps, readme, "uprobe_events\nbuffer_subbuf_size_kb\n");
	tap_ok(caps.can[FE_CAP_UPROBE_EVENTS] && !caps.can[FE_CAP_KPROBE_EVENTS],
	       "uprobes alone: uprobe events, no kprobe events");
	tap_ok(!caps.can[FE_CAP_RETPROBE_ARGS] && !caps.can[FE_CAP_KRETPROBE_MAXACTIVE],
	       "uprobes alone: no kernel return probes of any kind");
	tap_ok(caps.can[FE_CAP_SUBBUF_SIZE], "a file of the listing says it");
	tap_ok(!caps.can[FE_CAP_IMMEDIATES],
	       "a README with no '\\imm-value' (before 4.20): no immediate fetch arguments");
	fe_kcaps_parse(&caps, readme, "buffer_subbuf_size_kb_not\n");
	tap_ok(!caps.can[FE_CAP_SUBBUF_SIZE], "a name is a whole line of the listing");
}

/* no kernel known: it can nothing, and a tracefs that cannot be read is
 * no kernel */
static void test_none(void)
{
	int i, any = 0;

	for (i = 0; i < FE_CAP_NR; i++)
		any |= fe_kcaps_can(NULL, i);
	tap_ok(!any, "no kernel known: can nothing");
	tap_ok(fe_kcaps_at("/nonexistent") == NULL, "no README: no kernel");
	tap_ok(fe_kcaps_at("/nonexistent") == NULL, "asked again, the same");
}

static void test_refusal(void)
{
	static const struct fe_kcaps caps = { .dir = "/sys/kernel/tracing" };
	struct fe_error err = { 0 };

	tap_ok(fe_kcaps_refuse(&caps, FE_CAP_TPROBE_EVENTS, "tp:sched_process_exec", 4, &err) == -1 &&
	       err.col == 4, "a refusal is an error at its column");
	tap_str(err.msg, "this kernel has no tracepoint probe events (t:), which tp:sched_process_exec "
		"needs: its tracefs README (/sys/kernel/tracing/README) has no "
		"'t[:[<group>/][<event>]] <tracepoint>' line (CONFIG_FPROBE_EVENTS is off, or "
		"the kernel predates them)", "  naming the feature, the file and the option");
}

int main(void)
{
	size_t i;

	for (i = 0; i < sizeof(kernels) / sizeof(kernels[0]); i++)
		test_kernel(&kernels[i]);
	test_uprobes_only();
	test_word_of_a_file();
	test_none();
	test_refusal();
	return tap_done();
}
