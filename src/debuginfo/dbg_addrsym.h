/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The symbol that holds an address of a DWARF module, as libdwfl's
 * dwfl_module_addrinfo() names it, without its walk of every symbol on
 * every question.
 */
#ifndef DBG_ADDRSYM_H
#define DBG_ADDRSYM_H

#include <elfutils/libdwfl.h>

struct fe_dbg;

/* dwfl_module_addrinfo(dbg->mod, addr, off, sym, shndx, NULL, NULL),
 * answered alike. */
const char *fe_dwarf_addrinfo(struct fe_dbg *dbg, GElf_Addr addr, GElf_Off *off, GElf_Sym *sym,
			      GElf_Word *shndx);

#endif
