// SPDX-License-Identifier: GPL-2.0
/*
 * Checks on files the user names, before any library reads them.  The ELF
 * headers are read here by hand, in either byte order and class, because
 * the point is to check them before libelf follows them.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "input_file.h"

static const char *file_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR:
		return "a directory";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFIFO:
		return "a FIFO";
	case S_IFSOCK:
		return "a socket";
	default:
		return "not a file";
	}
}

static int check_stat(const struct stat *st, struct fe_error *err)
{
	if (!S_ISREG(st->st_mode))
		return fe_err(err, 0, "not a regular file (%s)", file_kind(st->st_mode));
	if (st->st_size == 0)
		return fe_err(err, 0, "an empty file");
	return 0;
}

int fe_input_check_text(const char *path, struct fe_error *err)
{
	struct stat st;

	if (stat(path, &st))
		return fe_err(err, 0, "%s", strerror(errno));
	/* /proc/kallsyms says size 0; <(...) is a pipe that ends; /dev/null
	 * is the empty table ('no symbols known') */
	if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) &&
	    !(S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3)))
		return fe_err(err, 0, "not a regular file (%s)", file_kind(st.st_mode));
	return 0;
}

int fe_input_open(const char *path, off_t *size, struct fe_error *err)
{
	struct stat st, fst;
	int fd;

	if (stat(path, &st))
		return fe_err(err, 0, "%s", strerror(errno));
	if (check_stat(&st, err))
		return -1;
	/* O_NONBLOCK: should a FIFO be renamed in between, the open still
	 * returns, and the fstat below refuses it */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return fe_err(err, 0, "%s", strerror(errno));
	if (fstat(fd, &fst)) {
		fe_err(err, 0, "%s", strerror(errno));
		goto fail;
	}
	if (check_stat(&fst, err))
		goto fail;
	if (fst.st_dev != st.st_dev || fst.st_ino != st.st_ino) {
		fe_err(err, 0, "replaced while being opened");
		goto fail;
	}
	*size = fst.st_size;
	return fd;
fail:
	close(fd);
	return -1;
}

/* Exactly n bytes at off, which the caller checked lie inside the file. */
static int read_at(int fd, void *buf, size_t n, off_t off, struct fe_error *err)
{
	char *p = buf;

	while (n) {
		ssize_t r = pread(fd, p, n, off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return fe_err(err, 0, "%s", strerror(errno));
		if (r == 0)	/* shrunk since the stat */
			return fe_err(err, 0, "shorter than when it was opened");
		p += r;
		n -= (size_t)r;
		off += r;
	}
	return 0;
}

bool fe_input_is_elf(int fd, off_t size)
{
	unsigned char magic[SELFMAG];

	return size >= SELFMAG && read_at(fd, magic, SELFMAG, 0, NULL) == 0 &&
	       !memcmp(magic, ELFMAG, SELFMAG);
}

/* The fields read from an ELF file, in its class and byte order. */
struct elf_layout {
	bool is64;
	bool msb;
};

static uint64_t field(const struct elf_layout *l, const unsigned char *p, int width)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < width; i++)
		v |= (uint64_t)p[l->msb ? width - 1 - i : i] << (8 * i);
	return v;
}

/* A field that is 4 bytes in ELF32 and 8 in ELF64 (offsets, sizes). */
static uint64_t word(const struct elf_layout *l, const unsigned char *p, int off32, int off64)
{
	return l->is64 ? field(l, p + off64, 8) : field(l, p + off32, 4);
}

/* Does [off, off + n * entsize) lie inside size bytes? */
static bool fits(uint64_t off, uint64_t n, uint64_t entsize, uint64_t size)
{
	return off <= size && (!entsize || n <= (size - off) / entsize);
}

struct shdr {
	uint32_t name;
	uint32_t type;
	uint64_t offset;
	uint64_t size;
	uint32_t link;
	uint32_t info;
};

static int read_shdr(int fd, const struct elf_layout *l, uint64_t shoff, uint64_t i,
		     struct shdr *sh, struct fe_error *err)
{
	unsigned char b[sizeof(Elf64_Shdr)];
	size_t entsize = l->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);

	if (read_at(fd, b, entsize, (off_t)(shoff + i * entsize), err))
		return -1;
	sh->name = field(l, b, 4);
	sh->type = field(l, b + 4, 4);
	sh->offset = word(l, b, 16, 24);
	sh->size = word(l, b, 20, 32);
	sh->link = field(l, b + (l->is64 ? 40 : 24), 4);
	sh->info = field(l, b + (l->is64 ? 44 : 28), 4);
	return 0;
}

/* A section's name for messages, if the name table holds it whole. */
static void section_name(int fd, const struct shdr *strtab, const struct shdr *sh,
			 char *buf, size_t len)
{
	size_t n;

	buf[0] = '\0';
	if (!strtab || sh->name >= strtab->size)
		return;
	n = strtab->size - sh->name < len - 1 ? strtab->size - sh->name : len - 1;
	if (read_at(fd, buf, n, (off_t)(strtab->offset + sh->name), NULL)) {
		buf[0] = '\0';
		return;
	}
	buf[n] = '\0';
	if (strlen(buf) == n && n == len - 1)
		buf[0] = '\0';	/* longer than a message wants */
}

int fe_input_check_elf(int fd, off_t fsize, struct fe_error *err)
{
	unsigned char eh[sizeof(Elf64_Ehdr)];
	struct elf_layout l;
	struct shdr sh0 = { 0 }, strtab, sh;
	uint64_t size = (uint64_t)fsize, phoff, shoff, phnum, shnum, shstrndx, i;
	size_t ehsize, phentsize, shentsize;
	bool have_strtab = false;

	if (!fe_input_is_elf(fd, fsize))
		return fe_err(err, 0, "not an ELF file");
	if (read_at(fd, eh, EI_NIDENT, 0, err))
		return -1;
	if ((eh[EI_CLASS] != ELFCLASS32 && eh[EI_CLASS] != ELFCLASS64) ||
	    (eh[EI_DATA] != ELFDATA2LSB && eh[EI_DATA] != ELFDATA2MSB))
		return fe_err(err, 0, "a malformed ELF header (class %u, byte order %u)",
			      eh[EI_CLASS], eh[EI_DATA]);
	l.is64 = eh[EI_CLASS] == ELFCLASS64;
	l.msb = eh[EI_DATA] == ELFDATA2MSB;
	ehsize = l.is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	phentsize = l.is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	shentsize = l.is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	if (size < ehsize)
		return fe_err(err, 0, "a truncated ELF file: %llu bytes, less than its %zu-byte ELF header",
			      (unsigned long long)size, ehsize);
	if (read_at(fd, eh, ehsize, 0, err))
		return -1;
	phoff = word(&l, eh, 28, 32);
	shoff = word(&l, eh, 32, 40);
	phnum = field(&l, eh + (l.is64 ? 56 : 44), 2);
	shnum = field(&l, eh + (l.is64 ? 60 : 48), 2);
	shstrndx = field(&l, eh + (l.is64 ? 62 : 50), 2);

	if (shoff) {
		if (field(&l, eh + (l.is64 ? 58 : 46), 2) != shentsize)
			return fe_err(err, 0, "a malformed ELF header (section headers of %llu bytes, not %zu)",
				      (unsigned long long)field(&l, eh + (l.is64 ? 58 : 46), 2),
				      shentsize);
		if (!fits(shoff, 1, shentsize, size))
			return fe_err(err, 0, "a truncated or corrupt ELF file: its section header table at offset %llu is past the end of the file (%llu bytes)",
				      (unsigned long long)shoff, (unsigned long long)size);
		if (read_shdr(fd, &l, shoff, 0, &sh0, err))
			return -1;
		/* more sections, or a higher name table index, than the
		 * header's 16 bits hold are in the first section header */
		if (shnum == 0)
			shnum = sh0.size;
		if (shstrndx == SHN_XINDEX)
			shstrndx = sh0.link;
		if (!fits(shoff, shnum, shentsize, size))
			return fe_err(err, 0, "a truncated or corrupt ELF file: its section header table (%llu entries of %zu bytes at offset %llu) runs past the end of the file (%llu bytes)",
				      (unsigned long long)shnum, shentsize,
				      (unsigned long long)shoff, (unsigned long long)size);
		if (shstrndx != SHN_UNDEF && shstrndx >= shnum)
			return fe_err(err, 0, "a malformed ELF header (section name table %llu of %llu sections)",
				      (unsigned long long)shstrndx, (unsigned long long)shnum);
	} else {
		shnum = 0;
	}
	if (phnum == PN_XNUM)
		phnum = sh0.info;
	if (phoff && phnum) {
		if (field(&l, eh + (l.is64 ? 54 : 42), 2) != phentsize)
			return fe_err(err, 0, "a malformed ELF header (program headers of %llu bytes, not %zu)",
				      (unsigned long long)field(&l, eh + (l.is64 ? 54 : 42), 2),
				      phentsize);
		/* only the table: a separate debug file keeps the program
		 * headers of the binary it was split from, whose segments
		 * it does not hold */
		if (!fits(phoff, phnum, phentsize, size))
			return fe_err(err, 0, "a truncated or corrupt ELF file: its program header table (%llu entries of %zu bytes at offset %llu) runs past the end of the file (%llu bytes)",
				      (unsigned long long)phnum, phentsize,
				      (unsigned long long)phoff, (unsigned long long)size);
	}
	if (shstrndx != SHN_UNDEF && shnum) {
		if (read_shdr(fd, &l, shoff, shstrndx, &strtab, err))
			return -1;
		have_strtab = strtab.type == SHT_STRTAB && fits(strtab.offset, 1, strtab.size, size);
	}
	for (i = 1; i < shnum; i++) {
		char name[64];

		if (read_shdr(fd, &l, shoff, i, &sh, err))
			return -1;
		if (sh.type == SHT_NOBITS || sh.type == SHT_NULL || !sh.size ||
		    fits(sh.offset, 1, sh.size, size))
			continue;
		section_name(fd, have_strtab ? &strtab : NULL, &sh, name, sizeof(name));
		return fe_err(err, 0, "a truncated or corrupt ELF file: section %llu%s%s (%llu bytes at offset %llu) runs past the end of the file (%llu bytes)",
			      (unsigned long long)i, name[0] ? " " : "", name,
			      (unsigned long long)sh.size, (unsigned long long)sh.offset,
			      (unsigned long long)size);
	}
	return 0;
}

int fe_input_check(const char *path, bool elf, struct fe_error *err)
{
	off_t size;
	int fd = fe_input_open(path, &size, err);
	int ret = 0;

	if (fd < 0)
		return -1;
	if (elf)
		ret = fe_input_check_elf(fd, size, err);
	close(fd);
	return ret;
}
