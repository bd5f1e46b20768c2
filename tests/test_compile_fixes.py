"""Messages and system calls from field testing (issue 9, items 10 and 11):
each error says what is wrong where, and a suggestion, followed, compiles."""
import os
import subprocess
import tempfile

import fe
from fe import check, expect_eq
from test_debuginfo import fixture

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
_clone = {}


def clone_lib():
    if "so" not in _clone:
        tmp = tempfile.mkdtemp(prefix="fevent-clone-")
        _clone["so"] = os.path.join(tmp, "libfxclone.so")
        subprocess.run(["gcc", "-g", "-O2", "-shared", "-fPIC", os.path.join(FIXTURES, "fx_clone.c"),
                        "-o", _clone["so"]], check=True)
    return _clone["so"]


def need_btf():
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        raise fe.Skip("no running-kernel BTF")


def test_return_of_a_system_call_from_the_wrappers_btf():
    need_btf()
    r = fe.run("compile", "-r", "SyS_kill(int pid, int sig)")
    expect_eq((r.returncode, r.stderr), (0, ""))
    expect_eq(r.stdout.splitlines(), [
        "p:functions/SyS_kill __x64_sys_kill __caller=$stack0:symbol pid=+112(%di):s32 "
        "sig=+104(%di):s32",
        "r:functions/SyS_kill__return __x64_sys_kill ret=$retval:s64"])


def test_proto_of_a_system_call():
    need_btf()
    if not os.path.exists("/sys/kernel/tracing/events/syscalls/sys_enter_openat/format"):
        raise fe.Skip("no syscall trace events readable here")
    r = fe.run("proto", "SyS_openat")
    expect_eq((r.returncode, r.stderr), (0, ""))
    lines = r.stdout.splitlines()
    expect_eq(lines[0], "long SyS_openat(int dfd, const char * filename, int flags, umode_t mode)")
    expect_eq(lines[1], "#   p:functions/SyS_openat __x64_sys_openat __caller=$stack0:symbol "
                        "dfd=+112(%di):s32 filename=+0(+104(%di)):ustring flags=+96(%di):s32 "
                        "mode=+56(%di):u16")
    # the printed signature compiles as it stands
    c = fe.run("compile", "-r", lines[0])
    expect_eq(c.returncode, 0, c.stderr)
    r = fe.run("proto", "SyS_nosuchcall")
    expect_eq(r.returncode, 2)
    check("no function '__x64_sys_nosuchcall'" in r.stderr, r.stderr)


def test_hop_after_a_label_path_says_where_hops_go():
    need_btf()
    r = fe.run("compile", "futex_wait(x16 port=uaddr+2)")
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq(r.stderr.splitlines()[0],
              "fevent: error: column 26: '+N' is a hop from a slot ('x16 port+2' reads 2 bytes "
              "past this slot's value), not part of a 'LABEL=' path, which takes '->', '.' and '[I]'")
    r = fe.run("compile", "futex_wait(x16 port+2)")
    expect_eq(r.stdout.split()[-1], "port=+2(%di):x16", "the suggestion compiles")


def test_struct_return_says_what_is_unsupported():
    r = fe.run("compile", "-x", fixture()["so"], "struct fx_small fx_walk(o)")
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq(r.stderr.splitlines()[0],
              "fevent: error: column 1: 'struct fx_small' is returned by value, which $retval "
              "(%ax alone) cannot fetch; write no return type, or a pointer or integer one")


def test_a_clone_is_suggested_and_compiles():
    so = clone_lib()
    r = fe.run("compile", "-x", so, "fx_clone_impl(a)")
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq(r.stderr.splitlines()[0],
              f"fevent: error: column 1: no function 'fx_clone_impl' in {so}, but its clone "
              "'fx_clone_impl.constprop.0' is there: probe that ('fx_clone_impl.constprop.0(...)' "
              "reads its parameters as the compiler changed them)")
    r = fe.run("compile", "-x", so, "fx_clone_impl.constprop.0(...)")
    expect_eq(r.returncode, 0, r.stderr)


def test_a_kernel_clone_is_suggested_over_a_neighbour():
    with tempfile.NamedTemporaryFile("w", suffix=".kallsyms", delete=False) as f:
        f.write("ffffffff81216fbd t do_execveat_common.isra.0.cold\n"
                "ffffffff816e1d70 t do_execveat_common.isra.0\n"
                "ffffffff816e2000 t do_check_common\n")
    try:
        r = fe.run("compile", "--kallsyms", f.name, "do_execveat_common(x64 a)")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(r.stderr, "fevent: warning: 'do_execveat_common' is not a function of the "
                            "running kernel (/proc/kallsyms), but its clone "
                            "'do_execveat_common.isra.0' is: probe that\n")
    finally:
        os.unlink(f.name)
