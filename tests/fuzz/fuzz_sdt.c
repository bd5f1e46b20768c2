// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: SDT notes as an untrusted binary has them
 * (DESIGN.md: every file a user hands fevent is untrusted), read by
 * fe_usdt_read, then PROVIDER:NAME prototypes compiled against them as
 * 'compile -x BIN' does, and with bit 0x08 the commands that print SDT
 * probes without compiling them: 'proto -x BIN' of the first note's
 * PROVIDER:NAME, 'funcs -x BIN' of its 'PROVIDER:*' and of '*:*', and
 * 'check -x BIN -x BIN' of its 'PROVIDER:NAME(...)', each run through
 * the command's own option parsing (their lines go to /dev/null).  The
 * harness writes the ELF file around the input's notes, so that every
 * input is a file whose notes are read:
 *
 *   byte 0	bit 0x01: a .stapsdt.base section; 0x02: the prototypes
 *		compiled as compile's own way (its lines rendered as made);
 *		0x04 --strict; 0x08 the commands above
 *   bytes 1-8	.stapsdt.base's address (little-endian)
 *   then	notes, each a 16-bit little-endian length and that many
 *		bytes of the note's desc (three addresses, then provider,
 *		name and argument specs, each ended by a 0, when it is
 *		well made); a length of 0 ends them
 *   then	up to 8 prototypes, one a line
 *
 * The file is one PT_LOAD of FILE_SIZE bytes at address 0, so that an
 * address below it is in a loaded segment.  What the reader gives back
 * is checked: printable names and specs, offsets inside the file, each
 * argument a why or a fetch of 1, 2, 4 or 8 bytes.
 */
#include <elf.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "compile.h"
#include "fe_util.h"
#include "usdt.h"

#define FILE_SIZE	0x5000
#define NOTES_OFF	0x100

static const char shstrtab[] = "\0.note.stapsdt\0.stapsdt.base\0.shstrtab";

/* The ELF file of the input's notes in buf (FILE_SIZE bytes); the
 * prototypes' text at *rest; false: the notes do not fit. */
static bool make_elf(const uint8_t *data, size_t size, uint8_t *buf, const char **rest,
		     size_t *rest_len)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	Elf64_Phdr *ph = (Elf64_Phdr *)(buf + sizeof(*eh));
	Elf64_Shdr *sh;
	bool base = data[0] & 1;
	size_t pos = 9, off = NOTES_OFF, strtab, shoff;
	uint64_t base_addr;

	memset(buf, 0, FILE_SIZE);
	memcpy(&base_addr, data + 1, 8);
	while (pos + 2 <= size) {
		size_t len = data[pos] | data[pos + 1] << 8;
		Elf64_Nhdr nh = { 8, 0, 3 };

		pos += 2;
		if (!len)
			break;
		if (len > size - pos)
			len = size - pos;
		if (off + sizeof(nh) + 8 + ((len + 3) & ~3UL) > FILE_SIZE / 2)
			return false;
		nh.n_descsz = len;
		memcpy(buf + off, &nh, sizeof(nh));
		memcpy(buf + off + sizeof(nh), "stapsdt", 8);
		memcpy(buf + off + sizeof(nh) + 8, data + pos, len);
		off += sizeof(nh) + 8 + ((len + 3) & ~3UL);
		pos += len;
	}
	*rest = (const char *)data + (pos < size ? pos : size);
	*rest_len = pos < size ? size - pos : 0;
	strtab = off;
	memcpy(buf + strtab, shstrtab, sizeof(shstrtab));
	shoff = (strtab + sizeof(shstrtab) + 7) & ~7UL;

	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_shoff = shoff;
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 1;
	eh->e_shentsize = sizeof(*sh);
	eh->e_shnum = 4;
	eh->e_shstrndx = 3;
	ph->p_type = PT_LOAD;
	ph->p_flags = PF_R | PF_X;
	ph->p_filesz = ph->p_memsz = FILE_SIZE;
	ph->p_align = 0x1000;

	sh = (Elf64_Shdr *)(buf + shoff);
	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_NOTE, .sh_offset = NOTES_OFF,
			      .sh_addr = NOTES_OFF, .sh_size = off - NOTES_OFF,
			      .sh_addralign = 4 };
	/* no .stapsdt.base: a section of another name */
	sh[2] = (Elf64_Shdr){ .sh_name = base ? 15 : 17, .sh_type = SHT_PROGBITS,
			      .sh_addr = base_addr, .sh_offset = strtab, .sh_size = 1,
			      .sh_addralign = 1 };
	sh[3] = (Elf64_Shdr){ .sh_name = 29, .sh_type = SHT_STRTAB, .sh_offset = strtab,
			      .sh_size = sizeof(shstrtab), .sh_addralign = 1 };
	return true;
}

static bool printable(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			return false;
	return true;
}

/* What fe_usdt_read gives back is what its header says */
static void check_notes(const struct fe_usdt *u, int n)
{
	int i, k;

	for (i = 0; i < n; i++) {
		if (!printable(u[i].provider) || !printable(u[i].name) || !printable(u[i].spec) ||
		    u[i].offset >= FILE_SIZE || u[i].ref_ctr >= FILE_SIZE ||
		    u[i].site < 0 || u[i].site >= u[i].nr_sites || u[i].event_nr < 0)
			abort();
		for (k = 0; k < u[i].nr_args; k++) {
			const struct fe_usdt_arg *a = &u[i].args[k];

			/* a spec that is none has no size: only its why is read */
			if (!memchr(a->fetch, 0, sizeof(a->fetch)) || !printable(a->fetch) ||
			    (!a->why && (!*a->fetch || (a->size != 1 && a->size != 2 &&
							a->size != 4 && a->size != 8))))
				abort();
		}
	}
}

/* compile's renderer, as fuzz_compile's */
static bool render_entry(const struct fe_compiled *it, struct fe_buf *b)
{
	fe_buf_printf(b, "%s\n", it->def.entry);
	return !b->failed;
}

static void compile_protos(const char *path, const char *text, size_t len, uint8_t flags)
{
	struct fe_compile_opts opts = { 0 };
	struct fe_compile_set set = { 0 };
	struct fe_error err;
	char *copy = strndup(text, len), *line, *nl;
	int n = 0;

	if (!copy)
		return;
	opts.binary = path;
	opts.strict = flags & 4;
	if (flags & 2)
		opts.render = render_entry;
	for (line = copy; line && n < 8; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		if (*line && fe_compile_add_text(&set, line, ++n))
			break;
	}
	if (n)
		fe_compile_run(&set, &opts, &err);
	fe_compile_set_free(&set);
	free(copy);
}

/* The file made of an input: a real path, which -x resolves (a memfd's
 * /proc/self/fd/N names a deleted file) */
static char dir[] = "/tmp/fuzz_sdt-XXXXXX";
static char bin[64];

static void remove_bin(void)
{
	unlink(bin);
	rmdir(dir);
}

/* A command run as main runs it; glibc's getopt forgets the last
 * command's scan first (a process runs one command, the fuzzer many). */
static void run_command(const struct fe_command *cmd, char **argv)
{
	static char *none[] = { "fevent", NULL };
	int argc = 0;

	while (argv[argc])
		argc++;
	optind = 0;
	getopt(1, none, "");
	fe_command_run(cmd, argc, argv);
}

static void run_commands(const struct fe_usdt *u)
{
	char want[600], glob[300], proto[620];
	char *p[] = { "fevent", "proto", "-x", bin, want, NULL };
	char *f[] = { "fevent", "funcs", "-x", bin, glob, NULL };
	char *all[] = { "fevent", "funcs", "-x", bin, "*:*", NULL };
	char *c[] = { "fevent", "check", "-x", bin, "-x", bin, proto, NULL };

	snprintf(want, sizeof(want), "%s:%s", u->provider, u->name);
	snprintf(glob, sizeof(glob), "%s:*", u->provider);
	snprintf(proto, sizeof(proto), "%s(...)", want);
	run_command(&fe_command_proto, p);
	run_command(&fe_command_funcs, f);
	run_command(&fe_command_funcs, all);
	run_command(&fe_command_check, c);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd;

	(void)argc;
	(void)argv;
	/* the made file has no build ID, but nothing is to be fetched */
	unsetenv("DEBUGINFOD_URLS");
	if (!mkdtemp(dir))
		abort();
	snprintf(bin, sizeof(bin), "%s/bin", dir);
	atexit(remove_bin);
	/* the commands' lines; libFuzzer and the sanitizers write to stderr */
	fd = open("/dev/null", O_WRONLY);
	if (fd < 0 || dup2(fd, 1) < 0)
		abort();
	close(fd);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t buf[FILE_SIZE];
	struct fe_usdt *u;
	struct fe_error err;
	const char *rest;
	size_t rest_len;
	int fd, n;

	if (size < 9 || size > 8192 || !make_elf(data, size, buf, &rest, &rest_len))
		return 0;
	fd = open(bin, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (fd < 0)
		abort();
	if (write(fd, buf, FILE_SIZE) != FILE_SIZE)
		abort();
	close(fd);
	if (!fe_usdt_read(bin, &u, &n, &err)) {
		check_notes(u, n);
		if (n && (data[0] & 8))
			run_commands(u);
		fe_usdt_free(u, n);
	} else if (!printable(err.msg)) {
		abort();
	}
	if (rest_len)
		compile_protos(bin, rest, rest_len, data[0]);
	return 0;
}
