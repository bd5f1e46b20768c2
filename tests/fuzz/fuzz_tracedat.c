// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: trace.dat bytes through the reader 'fevent report -i'
 * runs (fe_tracedat_report_buf) into the live view's decoder, its summary
 * and warnings thrown away.  Its events, text or JSON, must be UTF-8 (RFC
 * 8259 section 8.1) with nothing a terminal takes for a control: no C0 byte
 * but newline, no DEL, no C1 character (text_escape.h), or the target
 * aborts.  The first byte picks the output: bit
 * 0 JSON, bit 1 -q, bit 2 --graph; the rest is the file, so a crash input
 * reproduces with 'tail -c +2 CRASH > t.dat; fevent report -i t.dat
 * [--json | --graph] [-q]'.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "trace_dat.h"

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	devnull = fopen("/dev/null", "we");
	return devnull ? 0 : -1;
}

/*
 * Whether s is UTF-8: decoded to code points, each checked for its shortest
 * form, no surrogate, none past U+10FFFF.  On purpose not fevent's own
 * fe_utf8_seq, which it checks.
 */
static int is_utf8(const unsigned char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		unsigned int cp, n, k;
		unsigned char c = s[i];

		if (c < 0x80) {
			i++;
			continue;
		}
		if ((c & 0xe0) == 0xc0)
			n = 2, cp = c & 0x1f;
		else if ((c & 0xf0) == 0xe0)
			n = 3, cp = c & 0x0f;
		else if ((c & 0xf8) == 0xf0)
			n = 4, cp = c & 0x07;
		else
			return 0;
		if (len - i < n)
			return 0;
		for (k = 1; k < n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
			return 0;
		i += n;
	}
	return 1;
}

/* UTF-8 with no C0 but newline, no DEL, no U+0080..U+009F */
static int terminal_safe(const unsigned char *s, size_t len)
{
	size_t i;

	if (!is_utf8(s, len))
		return 0;
	for (i = 0; i < len; i++)
		if ((s[i] < 0x20 && s[i] != '\n') || s[i] == 0x7f ||
		    (s[i] == 0xc2 && i + 1 < len && s[i + 1] < 0xa0))
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fe_view_opts opts = { .out = devnull };
	struct fe_warnings warn = { 0 };
	struct fe_error err;

	if (size < 1)
		return 0;
	opts.json = data[0] & 1;
	opts.quiet = data[0] & 2;
	opts.graph = data[0] & 4;
	{
		char *mem = NULL;
		size_t len = 0;

		opts.out = open_memstream(&mem, &len);
		if (!opts.out)
			abort();
		fe_tracedat_report_buf("fuzz.dat", data + 1, size - 1, &opts, devnull, &warn, &err);
		if (fclose(opts.out) || !terminal_safe((const unsigned char *)mem, len)) {
			fprintf(stderr, "fuzz_tracedat: report%s wrote what is not UTF-8 or a "
				"terminal control:\n%.*s\n", opts.json ? " --json" : "", (int)len, mem);
			abort();
		}
		free(mem);
	}
	fe_warnings_free(&warn);
	return 0;
}
