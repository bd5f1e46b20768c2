/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files the user hands fevent to read (-x BIN, --btf FILE, --vmlinux FILE)
 * are untrusted: a FIFO blocks whoever opens it, /dev/zero never ends, and
 * a truncated ELF names offsets past its end.  These checks run before
 * libelf, libdw or libbpf see the file, and say what is wrong in words.
 *
 * The messages in err are the reason alone ("not a regular file (a FIFO)");
 * the caller puts the file's name and what it wanted in front.
 */
#ifndef INPUT_FILE_H
#define INPUT_FILE_H

#include <stdbool.h>
#include <sys/types.h>

#include "fe_error.h"

/*
 * Open path for reading if it is a non-empty regular file: stat first (a
 * FIFO would block the open, a device may act on it), then open without
 * blocking and check that the same file was opened.  Returns the
 * descriptor and its size, or -1 with err set.
 */
int fe_input_open(const char *path, off_t *size, struct fe_error *err);

/* A text file read line by line (--kallsyms): a regular file, even of
 * size 0 as /proc's are, or a pipe; never a device or a directory.
 * 0, or -1 with err set. */
int fe_input_check_text(const char *path, struct fe_error *err);

/* Does the file begin with the ELF magic? */
bool fe_input_is_elf(int fd, off_t size);

/*
 * Check an ELF file's headers against its size before a library follows
 * them: the ELF header is whole, and the program and section header tables
 * and every section's bytes lie inside the file.  0, or -1 with err set.
 */
int fe_input_check_elf(int fd, off_t size, struct fe_error *err);

/* fe_input_open and, when elf, fe_input_check_elf, then close: for a
 * library that opens the file by its name. */
int fe_input_check(const char *path, bool elf, struct fe_error *err);

#endif
