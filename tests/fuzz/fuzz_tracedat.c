// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: trace.dat bytes through the reader 'fevent report -i'
 * runs (fe_tracedat_report_buf) into the live view's decoder, its events,
 * summary and warnings thrown away.  The first byte picks the output: bit
 * 0 JSON, bit 1 -q, bit 2 --graph; the rest is the file, so a crash input
 * reproduces with 'tail -c +2 CRASH > t.dat; fevent report -i t.dat
 * [--json | --graph] [-q]'.
 */
#include <stdint.h>
#include <stdio.h>

#include "trace_dat.h"

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	devnull = fopen("/dev/null", "we");
	return devnull ? 0 : -1;
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
	fe_tracedat_report_buf("fuzz.dat", data + 1, size - 1, &opts, devnull, &warn, &err);
	fe_warnings_free(&warn);
	return 0;
}
