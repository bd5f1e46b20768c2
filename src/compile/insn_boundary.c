// SPDX-License-Identifier: GPL-2.0
#include <capstone/capstone.h>
#include <dlfcn.h>

#include "fe_config.h"
#include "insn_boundary.h"

/*
 * capstone, opened the first time an offset is checked: linked in, its
 * 77,000 relocations (every architecture's tables) were a third of the
 * time of every fevent start, for the few commands that check an offset.
 */
static struct {
	cs_err (*open)(cs_arch, cs_mode, csh *);
	cs_insn *(*malloc)(csh);
	bool (*disasm_iter)(csh, const uint8_t **, size_t *, uint64_t *, cs_insn *);
	void (*free)(cs_insn *, size_t);
	cs_err (*close)(csh *);
} cs_fn;

static int load_capstone(struct fe_error *err)
{
	static void *lib;

	if (lib)
		return 0;
	lib = dlopen(FE_CAPSTONE_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return fe_err(err, 0, "capstone is needed to check an offset, and %s", dlerror());
	cs_fn.open = (cs_err (*)(cs_arch, cs_mode, csh *))dlsym(lib, "cs_open");
	cs_fn.malloc = (cs_insn *(*)(csh))dlsym(lib, "cs_malloc");
	cs_fn.disasm_iter = (bool (*)(csh, const uint8_t **, size_t *, uint64_t *, cs_insn *))
			    dlsym(lib, "cs_disasm_iter");
	cs_fn.free = (void (*)(cs_insn *, size_t))dlsym(lib, "cs_free");
	cs_fn.close = (cs_err (*)(csh *))dlsym(lib, "cs_close");
	if (!cs_fn.open || !cs_fn.malloc || !cs_fn.disasm_iter || !cs_fn.free || !cs_fn.close) {
		dlclose(lib);
		lib = NULL;
		return fe_err(err, 0, "%s lacks the functions fevent calls", FE_CAPSTONE_SONAME);
	}
	return 0;
}

int fe_insn_boundary(const unsigned char *code, size_t size, uint64_t addr,
		     unsigned long off, unsigned long *before, unsigned long *after,
		     struct fe_error *err)
{
	const uint8_t *p = code;
	size_t left = size;
	uint64_t at = addr;
	cs_insn *insn;
	csh cs;
	int ret = -1;

	if (off >= size)
		return fe_err(err, 0, "offset %lu is past the function's end (%zu bytes)", off, size);
	if (load_capstone(err))
		return -1;
	if (cs_fn.open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return fe_err(err, 0, "capstone cannot decode x86-64");
	insn = cs_fn.malloc(cs);
	if (!insn) {
		fe_err(err, 0, "out of memory");
		goto out;
	}
	/* one instruction at a time from the entry: no table of them */
	for (;;) {
		unsigned long start = at - addr;

		if (start == off) {
			ret = 1;
			break;
		}
		if (!cs_fn.disasm_iter(cs, &p, &left, &at, insn)) {
			fe_err(err, 0, "the bytes at offset %lu do not decode as an x86-64 instruction, so offset %lu cannot be checked",
			       start, off);
			break;
		}
		if (at - addr > off) {
			*before = start;
			*after = at - addr;
			ret = 0;
			break;
		}
	}
	cs_fn.free(insn, 1);
out:
	cs_fn.close(&cs);
	return ret;
}
