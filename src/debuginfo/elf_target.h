/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a function or datum of a user binary is in the file: uprobes are
 * placed by file offset ("BIN:0xOFFSET"), and '@+OFFSET' reads memory at a
 * file offset, so virtual addresses are turned into file offsets through
 * the PT_LOAD program headers.
 */
#ifndef ELF_TARGET_H
#define ELF_TARGET_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "fe_error.h"

/* Returns 1 and the file offset of a symbol (a function when want_func),
 * 0 when there is no such symbol, -1 with err set on failure. */
int fe_elf_symbol_offset(const char *path, const char *name, bool want_func,
			 unsigned long *off, struct fe_error *err);

/* Has the ELF file (a binary, a kernel module's .ko) a function symbol
 * name?  1 yes, 0 no, -1 with err set. */
int fe_elf_has_func(const char *path, const char *name, struct fe_error *err);

/* The place a uprobe at file offset off is on: the function holding it
 * in buf, and *delta bytes past its start; 1, or 0 when no function holds
 * it (or the file cannot be read). */
int fe_elf_place_of(const char *path, unsigned long off, char *buf, size_t size,
		    unsigned long *delta);

/* A function symbol that is a compiler's clone of func ("func.isra.0"):
 * 1 with its name in clone, or 0. */
int fe_elf_clone_of(const char *path, const char *func, char *clone, size_t size);

/*
 * The '@+OFFSET' that reads a symbol's (or a virtual address's) memory from
 * a uprobe on func.  The kernel turns it into an address as the probe's
 * load base plus OFFSET, that base being the probe's address less its file
 * offset; so OFFSET is the datum's virtual address less (func's virtual
 * address - func's file offset), wherever the datum is (.data, .bss).
 */
int fe_elf_fetch_offset(const char *path, const char *func, const char *symbol,
			unsigned long addr, unsigned long *off, struct fe_error *err);

/* The code of function func (an STT_FUNC symbol) in an ELF file: its
 * address and its st_size bytes, malloc'd in *code.  1 found, 0 no such
 * function, -1 with err set (no size, not in an executable section, more
 * than 1 MiB, unreadable). */
int fe_elf_func_code(const char *path, const char *func, uint64_t *addr, unsigned char **code,
		     size_t *size, struct fe_error *err);

#endif
