/* SPDX-License-Identifier: GPL-2.0 */
/*
 * USDT (SystemTap SDT) probes of a user binary (DESIGN.md section 11):
 * the .note.stapsdt notes read with libelf, each probe's address as a
 * file offset (adjusted by .stapsdt.base, as a prelinked binary needs),
 * its semaphore's file offset for the uprobe's (ref_ctr_offset), and its
 * argument specs ("-4@%eax", "8@-80(%rbx)", "4@$5") as fetch arguments.
 */
#ifndef USDT_H
#define USDT_H

#include <stdbool.h>

#include "fe_error.h"

struct fe_usdt_arg {
	int size;		/* bytes: 1, 2, 4 or 8 */
	bool is_signed;
	char fetch[64];		/* "%ax", "+112(%sp)", "\5" */
	bool memory;		/* fetch reads memory (a string is read from it) */
	const char *why;	/* set: the spec cannot be a fetch argument */
};

struct fe_usdt {
	char *provider;
	char *name;
	char *spec;		/* the note's argument text */
	unsigned long offset;	/* the probe's file offset */
	unsigned long ref_ctr;	/* the semaphore's file offset, 0: none */
	struct fe_usdt_arg *args;
	int nr_args;
	/* PROVIDER:NAME's notes (one macro expanded at several places: an
	 * inlined function's, a macro written twice) are its sites, each an
	 * event: this note is site (0-based, in note order) of nr_sites */
	int site, nr_sites;
	/* its event is NAME (0) or NAME_event_nr: site k's is the k-th
	 * NAME_j no note of the binary is named, so that a probe NAME_1 of
	 * its own keeps its name (docs/decisions.md) */
	int event_nr;
};

/* Every SDT probe of path, in note order, each with its site among its
 * name's notes.  0 (none is 0 probes), or -1
 * with err set (not an ELF file, a note that does not fit). */
int fe_usdt_read(const char *path, struct fe_usdt **out, int *n, struct fe_error *err);
void fe_usdt_free(struct fe_usdt *u, int n);
/* The indexes of u[0..n-1] by provider, name, then place in the file
 * (a name's sites together, in note order); malloc'd, NULL out of memory. */
int *fe_usdt_order(const struct fe_usdt *u, int n);

/* One argument spec ("-4@%eax"); false if it is no spec at all. */
bool fe_usdt_parse_arg(const char *spec, struct fe_usdt_arg *a);

#endif
