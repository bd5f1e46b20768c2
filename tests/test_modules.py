"""Module functions on this machine (issue 9, item 9): funcs lists them as
MOD:func from a kallsyms with a [mod] column, proto and compile read the
module's split BTF beside the base's, and a module that is not loaded is
said to be so, told apart from a function the loaded module lacks.  The
real kernel's side (/sys/kernel/btf/MOD, rmmod, list) is test_vm_modules.py.
"""
import atexit
import os
import shutil
import subprocess
import tempfile

import fe
from fe import check, expect_eq

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")

# kernel and module text symbols, module data, and the kernel's pseudo
# modules (BPF programs, trampolines), which are not modules
KALLSYMS = """\
ffffffff81000000 T _stext
ffffffff81000100 T fx_walk
ffffffff81000200 t load_elf_binary
ffffffff81200000 D jiffies
ffffffffc0000000 t load_misc_binary\t[binfmt_misc]
ffffffffc0000100 t bm_status_write\t[binfmt_misc]
ffffffffc0000200 d misc_format\t[binfmt_misc]
ffffffffc0001000 t load_misc_binary\t[othermod]
ffffffffc0002000 t fxm_open\t[fxmod]
ffffffffc0002100 t fxm_no_btf\t[fxmod]
ffffffffc0003000 d only_data\t[datamod]
ffffffffc0004000 t bpf_prog_6deef7357e7b4530_sd_fw_egress\t[bpf]
ffffffffc0005000 t ftrace_trampoline\t[__builtin__ftrace]
"""

_tmp = {}


def files():
    """A fake kallsyms, and fx.o's BTF as a base ("vmlinux") with
    fx_mod.c's split BTF beside it ("fxmod"), once."""
    if _tmp:
        return _tmp
    tmp = tempfile.mkdtemp(prefix="fevent-modules-")
    atexit.register(shutil.rmtree, tmp, True)
    ks = os.path.join(tmp, "kallsyms")
    with open(ks, "w") as f:
        f.write(KALLSYMS)
    base = os.path.join(tmp, "vmlinux")
    subprocess.run(["gcc", "-g", "-O2", "-c", os.path.join(FIXTURES, "fx.c"), "-o", base],
                   check=True)
    subprocess.run(["pahole", "-J", "--btf_gen_floats", base], check=True, capture_output=True)
    mod = os.path.join(tmp, "fxmod")
    subprocess.run(["gcc", "-g", "-O2", "-c", os.path.join(FIXTURES, "fx_mod.c"), "-o", mod],
                   check=True)
    subprocess.run(["pahole", "-J", "--btf_base", base, mod], check=True, capture_output=True)
    _tmp.update(ks=ks, base=base, mod=mod)
    return _tmp


def funcs(glob, *opts):
    r = fe.run("funcs", *opts, "--kallsyms", files()["ks"], glob)
    expect_eq((r.returncode, r.stderr), (0, ""), glob)
    return r.stdout


def test_funcs_lists_module_functions_as_mod_func():
    # the kernel's first, then each module's, in the form add takes
    expect_eq(funcs("load_*"),
              "load_elf_binary\nbinfmt_misc:load_misc_binary\nothermod:load_misc_binary\n")
    expect_eq(funcs("binfmt_misc:*"), "binfmt_misc:bm_status_write\nbinfmt_misc:load_misc_binary\n")
    expect_eq(funcs("*:load_misc_binary"),
              "binfmt_misc:load_misc_binary\nothermod:load_misc_binary\n")
    # data, BPF programs and trampolines are not functions of modules
    expect_eq(funcs("*"), "_stext\nfx_walk\nload_elf_binary\nbinfmt_misc:bm_status_write\n"
              "binfmt_misc:load_misc_binary\nfxmod:fxm_no_btf\nfxmod:fxm_open\n"
              "othermod:load_misc_binary\n")
    expect_eq(funcs("datamod:*"), "")


def test_funcs_filters_module_functions_by_the_modules_btf():
    # fxmod has split BTF beside the base: only what it describes, as the
    # kernel's functions are filtered by vmlinux's
    expect_eq(funcs("fxmod:*", "--btf", files()["base"]), "fxmod:fxm_open\n")
    expect_eq(funcs("fx_walk", "--btf", files()["base"]), "fx_walk\n")


def test_proto_reads_the_modules_split_btf():
    r = fe.run("proto", "--btf", files()["base"], "fxmod:fxm_open")
    expect_eq(r.stdout,
              "int fxmod:fxm_open(struct fxm_dev *d, int flags)\n"
              "#   p:functions/fxm_open fxmod:fxm_open __caller=$stack0:symbol d=%di:x64 flags=%si:s32\n"
              "#   r:functions/fxm_open__return fxmod:fxm_open ret=$retval:s32\n", r.stderr)
    expect_eq((r.returncode, r.stderr), (0, ""))
    # the printed prototype compiles back to the same event
    r = fe.run("compile", "--btf", files()["base"], "int fxmod:fxm_open(struct fxm_dev *d, int flags)")
    expect_eq(r.stdout, "p:functions/fxm_open fxmod:fxm_open __caller=$stack0:symbol d=%di:x64 flags=%si:s32\n"
              "r:functions/fxm_open__return fxmod:fxm_open ret=$retval:s32\n", r.stderr)


def test_proto_a_function_the_module_lacks():
    mod = files()["mod"]
    r = fe.run("proto", "--btf", files()["base"], "fxmod:fxm_opn")
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq(r.stderr, f"fevent: error: no function 'fxm_opn' in module 'fxmod' ({mod}); "
              "did you mean 'fxmod:fxm_open'?\n")
    # a function of the base is not the module's
    r = fe.run("proto", "--btf", files()["base"], "fxmod:fx_walk")
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq(r.stderr, f"fevent: error: no function 'fx_walk' in module 'fxmod' ({mod})\n")
    r = fe.run("compile", "--btf", files()["base"], "fxmod:fx_walk(o->id)")
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq(r.stderr.splitlines()[0],
              f"fevent: error: column 15: unknown parameter 'o': {mod} does not describe 'fx_walk': "
              "a parameter is read by its slot ('TYPE NAME') or by a label an earlier slot gave it")


def test_proto_a_module_not_loaded():
    ks, base = files()["ks"], files()["base"]
    r = fe.run("proto", "--btf", base, "--kallsyms", ks, "nomod:f")
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq(r.stderr, f"fevent: error: module 'nomod' is not loaded (not in {ks})\n")
    # loaded, but no BTF beside the base's: that is what is missing
    r = fe.run("proto", "--btf", base, "--kallsyms", ks, "binfmt_misc:load_misc_binary")
    expect_eq((r.returncode, r.stdout), (1, ""))
    expect_eq(r.stderr, f"fevent: error: no BTF for module 'binfmt_misc' "
              f"({os.path.dirname(base)}/binfmt_misc: No such file or directory)\n")


def test_compile_a_module_not_loaded():
    ks = files()["ks"]
    # typed slots compile (the kernel takes such a probe and arms it when
    # the module loads), with a warning
    r = fe.run("compile", "--kallsyms", ks, "nomod:f(x64 a)")
    expect_eq((r.returncode, r.stdout), (0, "p:functions/f nomod:f __caller=$stack0:symbol a=%di:x64\n"))
    expect_eq(r.stderr, f"fevent: warning: module 'nomod' is not loaded (not in {ks})\n")
    # a module with symbols but no functions is loaded all the same
    r = fe.run("compile", "--kallsyms", ks, "datamod:f(x64 a)")
    expect_eq((r.returncode, r.stderr), (0, f"fevent: warning: 'f' is not a function of module "
                                            f"'datamod' ({ks})\n"))
    # names need the module's BTF, which comes with the module
    r = fe.run("compile", "--kallsyms", ks, "binfmt_mix:load_misc_binary(bprm->filename)")
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq(r.stderr, f"fevent: error: column 29: unknown parameter 'bprm': module 'binfmt_mix' "
              f"is not loaded (not in {ks})\n"
              "    binfmt_mix:load_misc_binary(bprm->filename)\n"
              "                                ^\n")


def test_compile_a_function_the_loaded_module_lacks():
    ks = files()["ks"]
    r = fe.run("compile", "--kallsyms", ks, "binfmt_misc:load_misc_binry(x64 a)")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stderr, f"fevent: warning: 'load_misc_binry' is not a function of module "
              f"'binfmt_misc' ({ks})\n")
    r = fe.run("compile", "--kallsyms", ks, "binfmt_misc:load_misc_binary(x64 a)")
    expect_eq((r.returncode, r.stderr), (0, ""))
    # with the module's BTF, the closest of its functions
    r = fe.run("compile", "--btf", files()["base"], "--kallsyms", ks, "fxmod:fxm_opn(x64 a)")
    expect_eq((r.returncode, r.stderr), (0, f"fevent: warning: 'fxm_opn' is not a function of "
                                            f"module 'fxmod' ({ks}); did you mean 'fxmod:fxm_open'?\n"))


def test_add_refuses_a_module_not_loaded():
    # before tracefs is touched: the prototype, with a caret on the module
    ks = files()["ks"]
    r = fe.run("add", "--kallsyms", ks, "x64 nomod:f(x64 a)")
    expect_eq((r.returncode, r.stdout), (1, ""))
    expect_eq(r.stderr, f"fevent: error: column 5: module 'nomod' is not loaded (not in {ks})\n"
              "    x64 nomod:f(x64 a)\n"
              "        ^\n")


NO_MODULE_BTF = ("no BTF for module 'binfmt_misc': {dir} holds the kernel's BTF (vmlinux) and "
                 "no module's (no {dir}/binfmt_misc): module BTF came with Linux 5.11, built "
                 "with CONFIG_DEBUG_INFO_BTF_MODULES; without it, a module's types come from its "
                 "DWARF (the -dbg package's, or debuginfod's), or read its arguments by their "
                 "slots ('x64 NAME'), which need no debug info")


def test_a_kernel_without_module_btf_is_named_the_cause():
    """issue 20 item 7: a BTF directory with vmlinux and no module's file
    at all (5.10's /sys/kernel/btf) is a kernel that makes no module BTF:
    the message says so and what works instead, not only the file."""
    ks = files()["ks"]
    with tempfile.TemporaryDirectory(prefix="fevent-nomodbtf-") as d:
        base = os.path.join(d, "vmlinux")
        shutil.copy(files()["base"], base)
        why = NO_MODULE_BTF.format(dir=d)
        r = fe.run("proto", "--btf", base, "--kallsyms", ks, "binfmt_misc:load_misc_binary")
        expect_eq((r.returncode, r.stdout, r.stderr), (1, "", f"fevent: error: {why}\n"))
        # names need the BTF: the error is the cause, with its caret
        r = fe.run("compile", "--btf", base, "--kallsyms", ks,
                   "binfmt_misc:load_misc_binary(string bprm->filename)")
        expect_eq((r.returncode, r.stdout), (2, ""))
        expect_eq(r.stderr, f"fevent: error: column 37: unknown parameter 'bprm': {why}\n"
                  "    binfmt_misc:load_misc_binary(string bprm->filename)\n"
                  "                                        ^\n")
        # slots compile, with the cause as a warning
        r = fe.run("compile", "--btf", base, "--kallsyms", ks, "binfmt_misc:load_misc_binary(x64 bprm)")
        expect_eq((r.returncode, r.stdout, r.stderr),
                  (0, "p:functions/load_misc_binary binfmt_misc:load_misc_binary "
                   "__caller=$stack0:symbol bprm=%di:x64\n", f"fevent: warning: {why}\n"))
