"""A kernel module's own DWARF named with --ko FILE, on this machine: the
debug file of Debian's 6.1 binfmt_misc.ko (tests/fetch-vmlinux-dbg takes
it from the package of the 6.1 vmlinux) compiles MODULE:FUNC:N lines with
their locals, a module function's inlined copy and its entry, for 6.1
(--vmlinux), to exactly what the 6.1 VM compiles from the module's DWARF
found on its own (tests/test_vm_debuginfod.py, which records them); proto,
lines and vars read it; a compressed --ko reads as a .ko.zst module does;
a file that is not there, or not DWARF, or a module no --ko names for
another kernel, are errors that say so (exit status 2)."""
import atexit
import json
import os
import shutil
import subprocess
import tempfile

import fe
from fe import check, expect_eq
from test_kernel_dwarf import need_vmlinux

LINE = "binfmt_misc:load_misc_binary:19(string fmt->interpreter, string fmt->name, retval)"
ENTRY = "int binfmt_misc:load_misc_binary(string bprm->filename)"
COPY = "binfmt_misc:get_binfmt_handler(string bprm->interp)"
DEFS = ("p:functions/load_misc_binary_L19 binfmt_misc:load_misc_binary+214 "
        "interpreter=+0(+48(%r13)):string name=+0(+56(%r13)):string retval=\\-2:s32\n"
        "p:functions/load_misc_binary binfmt_misc:load_misc_binary __caller=$stack0:symbol "
        "filename=+0(+96(%di)):string\n"
        "r:functions/load_misc_binary__return binfmt_misc:load_misc_binary ret=$retval:s32\n"
        "p:functions/get_binfmt_handler binfmt_misc:load_misc_binary+30 "
        "interp=+0(+104(%di)):string\n")
_state = {}


def files():
    """(vmlinux, a temporary dir holding binfmt_misc.ko, the debug file)"""
    if _state:
        return _state["v"]
    v = need_vmlinux()
    dko = v[:-len(".vmlinux")] + ".dbg-binfmt_misc.ko"
    if not os.path.exists(dko):
        raise fe.Skip(f"no {dko} (tests/fetch-vmlinux-dbg extracts it)")
    tmp = tempfile.mkdtemp(prefix="fevent-moddwarf-")
    atexit.register(shutil.rmtree, tmp, True)
    shutil.copy(dko, os.path.join(tmp, "binfmt_misc.ko"))
    _state["v"] = (v, tmp)
    return _state["v"]


def test_ko_compiles_a_modules_lines_locals_and_copies():
    v, d = files()
    ko = os.path.join(d, "binfmt_misc.ko")
    r = fe.run("compile", "--vmlinux", v, "--ko", ko, LINE, ENTRY, COPY)
    expect_eq((r.returncode, r.stdout, r.stderr), (0, DEFS, ""))


def test_ko_types_proto_and_vars():
    v, d = files()
    ko = os.path.join(d, "binfmt_misc.ko")
    r = fe.run("proto", "--vmlinux", v, "--ko", ko, "binfmt_misc:load_misc_binary")
    expect_eq((r.returncode, r.stdout, r.stderr), (0,
              "int binfmt_misc:load_misc_binary(struct linux_binprm *bprm)\n"
              "#   p:functions/load_misc_binary binfmt_misc:load_misc_binary "
              "__caller=$stack0:symbol bprm=%di:x64\n"
              "#   r:functions/load_misc_binary__return binfmt_misc:load_misc_binary "
              "ret=$retval:s32\n", ""))
    r = fe.run("vars", "--vmlinux", v, "--ko", ko, "binfmt_misc:load_misc_binary:19")
    expect_eq((r.returncode, r.stdout, r.stderr), (0,
              "binfmt_misc:load_misc_binary:19 at binfmt_misc:load_misc_binary+0xd6\n"
              "\tparam  struct linux_binprm *bprm         %bx:x64\n"
              "\tlocal  Node *fmt                         %r13:x64\n"
              "\tlocal  struct file *interp_file          \\0:x64\n"
              "\tlocal  int retval                        \\-2:s32\n", ""))
    # --json names the module apart from the function
    r = fe.run("vars", "--json", "--vmlinux", v, "--ko", ko, "binfmt_misc:load_misc_binary:19")
    expect_eq((r.returncode, json.loads(r.stdout)["module"], json.loads(r.stdout)["func"],
               json.loads(r.stdout)["line"]), (0, "binfmt_misc", "load_misc_binary", 19), r.stderr)


def test_ko_lists_a_modules_lines():
    v, d = files()
    ko = os.path.join(d, "binfmt_misc.ko")
    r = fe.run("lines", "-q", "--ko", ko, "binfmt_misc:load_misc_binary:19-20")
    expect_eq((r.returncode, r.stdout), (0,
              "<load_misc_binary@fs/binfmt_misc.c:19>\n"
              "     19  +0xd6       \n"
              "     20  +0xe1       \n"), r.stderr)


def test_a_compressed_ko_reads_as_a_ko_zst_module_does():
    v, d = files()
    zst = os.path.join(d, "binfmt_misc.ko.zst")
    with open(zst, "wb") as f:
        subprocess.run(["zstd", "-q", "-c", os.path.join(d, "binfmt_misc.ko")], stdout=f,
                       check=True)
    r = fe.run("compile", "--vmlinux", v, "--ko", zst, LINE, ENTRY, COPY)
    expect_eq((r.returncode, r.stdout, r.stderr), (0, DEFS, ""))
    # cut in its middle: named, nothing compiled
    with open(zst, "rb") as f:
        whole = f.read()
    cut = os.path.join(d, "cut", "binfmt_misc.ko.zst")
    os.makedirs(os.path.dirname(cut), exist_ok=True)
    with open(cut, "wb") as f:
        f.write(whole[:len(whole) // 2])
    r = fe.run("compile", "--vmlinux", v, "--ko", cut, LINE)
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq(r.stderr,
              f"fevent: error: column 30: a line needs DWARF line tables: {cut} is cut: its zstd "
              "data ends inside a frame (--ko)\n"
              f"    {LINE}\n"
              "                                 ^\n")


def test_a_modules_dwarf_that_is_not_there_is_an_error():
    v, d = files()
    caret = f"    {LINE}\n                                 ^\n"
    # another kernel's module: only --ko says where its DWARF is
    r = fe.run("compile", "--vmlinux", v, LINE)
    expect_eq((r.returncode, r.stdout, r.stderr), (2, "",
              "fevent: error: column 30: a line needs DWARF line tables: no DWARF for module "
              "'binfmt_misc': another kernel's module (--btf, --vmlinux or --kallsyms) is read "
              "from --ko FILE only\n" + caret))
    missing = os.path.join(d, "none", "binfmt_misc.ko")
    r = fe.run("compile", "--vmlinux", v, "--ko", missing, LINE)
    expect_eq((r.returncode, r.stdout, r.stderr), (2, "",
              "fevent: error: column 30: a line needs DWARF line tables: cannot read "
              f"{missing}: No such file or directory\n" + caret))
    # a file without DWARF (the module as Debian installs it, stripped)
    stripped = os.path.join(d, "stripped", "binfmt_misc.ko")
    os.makedirs(os.path.dirname(stripped), exist_ok=True)
    subprocess.run(["strip", "-g", os.path.join(d, "binfmt_misc.ko"), "-o", stripped],
                   check=True)
    r = fe.run("compile", "--vmlinux", v, "--ko", stripped, LINE)
    expect_eq((r.returncode, r.stdout), (2, ""))
    check(r.stderr.startswith("fevent: error: column 30: a line needs DWARF line tables: "
                              f"no DWARF for {stripped} ("), r.stderr)
    # a --ko of another module is not this one's
    other = os.path.join(d, "other", "binfmt_elf.ko")
    os.makedirs(os.path.dirname(other), exist_ok=True)
    shutil.copy(os.path.join(d, "binfmt_misc.ko"), other)
    r = fe.run("compile", "--vmlinux", v, "--ko", other, LINE)
    expect_eq((r.returncode, r.stdout, r.stderr), (2, "",
              "fevent: error: column 30: a line needs DWARF line tables: no DWARF for module "
              "'binfmt_misc': another kernel's module (--btf, --vmlinux or --kallsyms) is read "
              "from --ko FILE only\n" + caret))


def test_lines_of_a_module_function_with_x_is_refused():
    r = fe.run("lines", "-x", fe.binary(), "binfmt_misc:load_misc_binary")
    expect_eq((r.returncode, r.stdout, r.stderr), (2, "",
              "fevent: error: 'binfmt_misc:load_misc_binary': MODULE:FUNC is a kernel module's "
              "function; with -x the binary's functions are named alone\n"))
