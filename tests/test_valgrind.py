"""valgrind memcheck on compile, add, list, clear, record, report (fevent's
files and trace-cmd's) and stats: no errors, no leaks that are fevent's
("definitely" and "indirectly")."""
import os
import shutil
import subprocess
import tempfile

import fe
from fe import check, expect_eq
from test_events_host import GROUP, clean, need_uprobes, prog

VG = ["valgrind", "-q", "--error-exitcode=99", "--leak-check=full",
      "--errors-for-leak-kinds=definite,indirect", "--show-leak-kinds=definite,indirect"]


def vg(*args, ok=(0,)):
    r = subprocess.run(VG + [fe.binary(), *args], capture_output=True, text=True, timeout=600)
    check(r.returncode in ok, f"{args}: exit {r.returncode}\n{r.stderr[-3000:]}")
    check("==" not in r.stderr, f"{args}: valgrind says\n{r.stderr[-3000:]}")
    return r


def test_compile_paths_under_valgrind():
    if not shutil.which("valgrind"):
        raise fe.Skip("valgrind not installed")
    golden = os.path.join(fe.GOLDEN, "design_table.txt")
    protos = [l[2:].strip() for l in open(golden) if l.startswith("> ")]
    vg("compile", "--kallsyms", os.path.join(fe.GOLDEN, "kallsyms"), *protos)
    vg("compile", "f(int x", "g(x64 a, b->c)", "long h(int32 q)", ok=(2,))
    vg("compile", "-x", prog(), "long traced(n, string s, r->id, string r->name)", "main(...)")
    vg("proto", "-x", prog(), "traced", "nosuch", ok=(2,))
    vg("funcs", "-x", prog(), "tr*")
    if os.path.exists("/usr/bin/python3.11"):
        vg("compile", "-x", "/usr/bin/python3.11", "python:line(...)",
           "python:import__find__load__start(string mod)")
        vg("compile", "-x", "/usr/bin/python3.11", "python:nope(x)", ok=(2,))
        vg("funcs", "-x", "/usr/bin/python3.11", "python:*")
        vg("proto", "-x", "/usr/bin/python3.11", "python:line")
        vg("compile", "-x", "/usr/bin/python3.11", "python:import__*(...)")
    # globs: expanded, some skipped, the rest's warnings gathered; errors
    vg("compile", "-v", "-x", prog(), "*(n)", "tr*(...)", "re[c-z]urse(depth)")
    vg("compile", "-x", prog(), "*(no_such)", "zz*(x)", "-n", "x", ok=(2,))
    vg("compile", "-x", prog(), "*(no_such)", "zz*(x)", "tr*:3(n)", ok=(2,))
    if os.path.exists("/sys/kernel/btf/vmlinux"):
        vg("compile", "tcp_v4_*(sk)", "vfs_*(...)")
        vg("compile", "--max", "3", "tcp_v4_*(sk)", ok=(2,))


def test_line_places_under_valgrind():
    if not shutil.which("valgrind"):
        raise fe.Skip("valgrind not installed")
    import test_line_places as lp
    b = lp.binary()
    n = lp.rel_line("walk")
    vg("compile", "-x", b, f"walk:{n}(k, sum, p->val)", f"walk+{lp.insn_starts('walk')[1]}()", f"fx_places.c:{lp.abs_line('arr')}(i, arr[1], ...)")
    vg("compile", "-x", b, f"walk:{n}(nope)", "walk:999(k)", ok=(2,))
    vg("vars", "-x", b, f"walk:{n}")
    vg("vars", "-x", b, "walk:13", "--json")
    vg("lines", "-x", b, f"fx_places.c:1-40")


def test_trace_cmd_files_under_valgrind():
    """report of the version 7 seeds: zstd and zlib, chunks, instance
    buffers, a file trace-cmd extract wrote."""
    if not shutil.which("valgrind"):
        raise fe.Skip("valgrind not installed")
    seeds = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz", "tracedat-seeds")
    for name in ("v7-fork-zstd.dat", "v7-values-zlib.dat", "v6-instance.dat", "tc-v7-zstd.dat"):
        vg("report", "-i", os.path.join(seeds, name))
        vg("report", "--json", "-i", os.path.join(seeds, name))


def test_events_paths_under_valgrind():
    if not shutil.which("valgrind"):
        raise fe.Skip("valgrind not installed")
    need_uprobes()
    clean()
    tmp = tempfile.mkdtemp()
    try:
        vg("add", "-g", GROUP, "-x", prog(), "long traced(n, string s, r->id, string r->name)")
        vg("add", "-g", GROUP, "-x", prog(), "traced(n)", ok=(1,))
        vg("list", "-g", GROUP)
        vg("list", "-g", GROUP, "--json")
        dat = os.path.join(tmp, "t.dat")
        vg("record", "-g", GROUP, "-o", dat, "--", prog(), "3", "fork")
        vg("record", "-g", GROUP, "--json", "--", prog(), "2")
        vg("report", "-i", dat)
        vg("report", "--json", "-i", dat)
        vg("stats", "-g", GROUP, "--", prog(), "2", "fork")
        vg("stats", "-g", GROUP, "--by", "comm,pid,n", "--json", "--", prog(), "2", "fork")
        vg("stats", "-g", GROUP, "--hist", "n", "-i", "0.5", "--", prog(), "3")
        vg("stats", "-g", GROUP, "--latency", "--by", "comm", "--", prog(), "2")
        vg("stats", "-g", GROUP, "--hist", "nosuch", "-e", "traced", "--", prog(), ok=(125,))
        vg("clear", "-g", GROUP)
        expect_eq(fe.run("list", "-g", GROUP).stdout, "")
    finally:
        shutil.rmtree(tmp)
        clean()
