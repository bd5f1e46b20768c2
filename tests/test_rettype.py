"""Return types against the debug info, and void return events (issue 21
items 1 and 10, issue 20 item 1; DESIGN.md sections 2 and 13).

A written return type never shows bits the function did not return: wider
than the declared integer, it is read at the declared width (signed as
declared, hex if written in hex) with a warning naming the declaration,
an error at its column with --strict; in a glob each function gets its
own width, silently.  Without debug info the written type stands.

'void FUNC(...)' and -r on a void function add a return event with no
value: the call's duration in the live view, JSON, --graph, list and
stats --latency.  No return type at all stays entry only."""
import json
import os
import re
import subprocess

import fe
from fe import caret_column, check, expect_eq
from test_events_host import need_uprobes

HERE = os.path.dirname(os.path.abspath(__file__))
GROUP = "fevent_test_rettype"
BTF = "/sys/kernel/btf/vmlinux"
_bin = {}
HEAD = re.compile(r"^ *\S+-\d+ \[\d{3}\] +\d+\.\d{6}: (.*)$")


def binary(debug=True):
    """fx_rettype, with DWARF (debug) or without any debug info."""
    key = "g" if debug else "nodebug"
    if key not in _bin:
        d = fe.tmpdir("fevent-rettype-")
        os.chmod(d, 0o755)
        out = os.path.join(d, "fx_rettype")
        subprocess.run(["gcc", *(["-g"] if debug else []), "-O2", "-o", out,
                        os.path.join(HERE, "fixtures", "fx_rettype.c")], check=True)
        _bin[key] = out
    return _bin[key]


def compile_x(*args, debug=True):
    return fe.run("compile", "-x", binary(debug), *args)


def warning(proto, written, nbytes, decl, why, then):
    size = f" as {nbytes} byte{'s' if nbytes != 1 else ''}" if nbytes else ""
    return (f"fevent: warning: column 1: '{written}' reads the return value of '{proto}'{size}, "
            f"but {binary()} declares it '{decl}': {why}{then} (--strict makes this an error)")


def clean():
    fe.run("clear", "-q", "-g", GROUP, "--force")


def lines(out):
    return [HEAD.match(l).group(1) for l in out.splitlines() if HEAD.match(l)]


def test_wider_return_type_reads_the_declared_width():
    b = binary()
    cases = [
        # written, the read, the warning's reason and outcome
        ("long", "s32", "the bytes past it are not its value", "; it is read as s32"),
        ("unsigned long", "s32", "the bytes past it are not its value", "; it is read as s32"),
        ("ssize_t", "s32", "the bytes past it are not its value", "; it is read as s32"),
        ("x64", "x32", "the bytes past it are not its value", "; it is read as x32"),
        ("void *", "x32", "it holds no address", "; it is read as x32"),
    ]
    for written, read, why, then in cases:
        r = compile_x(f"{written} work(int n)")
        expect_eq((r.returncode, r.stdout.splitlines()), (0, [
            f"p:functions/work {b}:{offset('work')} n=%di:s32 __retaddr=$stack0:x64",
            f"r:functions/work__return {b}:{offset('work')} ret=$retval:{read}"]), written)
        expect_eq(r.stderr.splitlines(),
                  [warning("work", written, 8, "int work(int n)", why, then)], written)
        # --strict: an error at the type's column, nothing printed
        r = compile_x("--strict", f"{written} work(int n)")
        expect_eq((r.returncode, r.stdout), (2, ""), written)
        expect_eq(r.stderr.splitlines()[0],
                  f"fevent: error: column 1: '{written}' reads the return value of 'work' as 8 "
                  f"bytes, but {b} declares it 'int work(int n)': {why}")
        expect_eq(caret_column(r.stderr), 1)
    # a bool comes back in %al: 'int' would show bits 8..31 of %eax
    r = compile_x("int flag(n)")
    expect_eq(r.stdout.splitlines()[1].split(" ", 2)[2], "ret=$retval:u8")
    expect_eq(r.stderr.splitlines(),
              [warning("flag", "int", 4, "_Bool flag(int n)", "the bytes past it are not its value",
                       "; it is read as u8")])


def test_narrower_or_matching_return_types():
    # narrower: what was written, with the warning (as a typed slot)
    r = compile_x("short work(int n)")
    expect_eq((r.returncode, r.stdout.splitlines()[1].split(" ", 2)[2]), (0, "ret=$retval:s16"))
    expect_eq(r.stderr.splitlines(), [warning("work", "short", 2, "int work(int n)",
                                              "part of its value is cut off", "")])
    # the same size in another spelling is no drift (DESIGN.md section 13)
    for written, read in [("int", "s32"), ("unsigned int", "u32"), ("x32", "x32"),
                          ("s32", "s32")]:
        for strict in ([], ["--strict"]):
            r = compile_x(*strict, f"{written} work(int n)")
            expect_eq((r.returncode, r.stderr), (0, ""), written)
            expect_eq(r.stdout.splitlines()[1].split(" ", 2)[2], f"ret=$retval:{read}")
    # without debug info the written type stands, and nothing is said
    r = compile_x("long work(int n)", debug=False)
    expect_eq((r.returncode, r.stderr), (0, ""))
    expect_eq(r.stdout.splitlines()[1].split(" ", 2)[2], "ret=$retval:s64")


def offset(func):
    r = compile_x(f"{func}()")
    return r.stdout.split()[1].rsplit(":", 1)[1]


def test_return_value_is_the_functions_live_and_in_json():
    need_uprobes()
    clean()
    try:
        r = fe.run("add", "-g", GROUP, "-x", binary(), "long work(int n)")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(r.stderr.splitlines(),
                  [warning("work", "long", 8, "int work(int n)",
                           "the bytes past it are not its value", "; it is read as s32")])
        # work(-4) returns -8: was '= 4294967288'
        r = fe.run("record", "-g", GROUP, "--", binary(), "-4", "0")
        expect_eq(r.returncode, 0, r.stderr)
        (line,) = lines(r.stdout)
        check(re.fullmatch(r"work\(n=-4\) = -8 <\d+\.\d{3} us>", line), line)
        r = fe.run("record", "-g", GROUP, "--json", "--", binary(), "-4", "0")
        (obj,) = [json.loads(l) for l in r.stdout.splitlines()]
        expect_eq((obj["args"], obj["ret"]), ({"n": -4}, -8))
        # the filter on ret sees -8 too: 'ret < 0' keeps the call
        clean()
        r = fe.run("add", "-q", "-g", GROUP, "-x", binary(), "long work(int n) if ret < 0")
        expect_eq(r.returncode, 0, r.stderr)
        r = fe.run("record", "-g", GROUP, "--", binary(), "-4", "0")
        (line,) = lines(r.stdout)
        check(re.fullmatch(r"work\(n=-4\) = -8 <\d+\.\d{3} us>", line), line)
    finally:
        clean()


def test_glob_gives_each_function_its_declared_width():
    if not os.access(BTF, os.R_OK):
        raise fe.Skip("no kernel BTF here")
    for strict in ([], ["--strict"]):
        r = fe.run("compile", *strict, "ssize_t vfs_r*(...)")
        expect_eq((r.returncode, r.stderr), (0, ""), strict)
        got = {}
        for l in r.stdout.splitlines():
            if l.startswith("r:"):
                got[l.split()[1]] = l.split()[2]
        check(len(got) >= 2, r.stdout)
        p = fe.run("proto", *sorted(got))
        expect_eq(p.returncode, 0, p.stderr)
        declared = {}
        for l in p.stdout.splitlines():
            m = re.match(r"^(\w+) (vfs_r\w*)\(", l)
            if m:
                declared[m[2]] = m[1]
        expect_eq(sorted(declared), sorted(got))
        width = {"int": "s32", "ssize_t": "s64", "long": "s64"}
        for func, ret in got.items():
            expect_eq(ret, f"ret=$retval:{width[declared[func]]}", func)
        # both kinds are there: an -ENOTEMPTY of vfs_rmdir reads -39
        expect_eq((got.get("vfs_rmdir"), got.get("vfs_read")),
                  ("ret=$retval:s32", "ret=$retval:s64"))


def test_long_do_sys_openat2_on_the_running_kernel():
    if not os.access(BTF, os.R_OK):
        raise fe.Skip("no kernel BTF here")
    p = fe.run("proto", "do_sys_openat2")
    decl = p.stdout.splitlines()[0]
    r = fe.run("compile", "long do_sys_openat2(int dfd)")
    expect_eq(r.returncode, 0, r.stderr)
    if decl.startswith("long "):
        expect_eq((r.stdout.splitlines()[1].split(" ", 2)[2], r.stderr), ("ret=$retval:s64", ""))
        return
    check(decl.startswith("int "), decl)
    # 6.18 and 7.2: an int, so a failed open reads -2, never 4294967294
    expect_eq(r.stdout.splitlines()[1].split(" ", 2)[2], "ret=$retval:s32")
    expect_eq(r.stderr, "fevent: warning: column 1: 'long' reads the return value of "
                        f"'do_sys_openat2' as 8 bytes, but {BTF} declares it '{decl}': the bytes "
                        "past it are not its value; it is read as s32 (--strict makes this an "
                        "error)\n")
    r = fe.run("compile", "--strict", "long do_sys_openat2(int dfd)")
    expect_eq((r.returncode, r.stdout, caret_column(r.stderr)), (2, "", 1))


def test_void_adds_a_return_event_without_a_value():
    b = binary()
    entry = f"p:functions/naps {b}:{offset('naps')} ms=%di:s32"
    # with its return event, the entry reads the return address too
    # (user stacks under return probes: test_uret_stacks_host.py)
    entry_r = entry + " __retaddr=$stack0:x64"
    ret = f"r:functions/naps__return {b}:{offset('naps')}"
    for args in (["void naps(int ms)"], ["-r", "naps(int ms)"], ["--strict", "void naps(ms)"],
                 ["-r", "void naps(int ms)"]):
        r = compile_x(*args)
        expect_eq((r.returncode, r.stdout.splitlines(), r.stderr), (0, [entry_r, ret], ""), args)
    # no return type: the entry only (DESIGN.md section 2)
    r = compile_x("naps(int ms)")
    expect_eq((r.returncode, r.stdout.splitlines(), r.stderr), (0, [entry], ""))
    # a value written for a void function: none is read
    r = compile_x("long naps(int ms)")
    expect_eq((r.returncode, r.stdout.splitlines()), (0, [entry_r, ret]))
    expect_eq(r.stderr.splitlines(), [warning("naps", "long", 0, "void naps(int ms)",
                                              "it returns no value",
                                              "; the return event has none")])
    r = compile_x("--strict", "long naps(int ms)")
    expect_eq((r.returncode, r.stdout, caret_column(r.stderr)), (2, "", 1))
    check(f"but {b} declares it 'void naps(int ms)': it returns no value\n" in r.stderr,
          r.stderr)
    # proto's signature compiles to the return event too
    r = fe.run("proto", "-x", b, "naps")
    expect_eq(r.stdout.splitlines(), ["void naps(int ms)", f"#   {entry_r}", f"#   {ret}"])


def test_void_return_event_live_json_graph_list_and_latency():
    need_uprobes()
    clean()
    try:
        r = fe.run("add", "-g", GROUP, "-x", binary(), "void naps(int ms)", "int work(n)")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(len(r.stdout.splitlines()), 4, r.stdout)
        # the call with its duration, no '= value'
        r = fe.run("record", "-g", GROUP, "--", binary(), "3", "2")
        expect_eq(r.returncode, 0, r.stderr)
        got = lines(r.stdout)
        expect_eq(len(got), 3, got)
        check(re.fullmatch(r"work\(n=3\) = 6 <\d+\.\d{3} us>", got[0]), got)
        for l in got[1:]:
            check(re.fullmatch(r"naps\(ms=1\) <\d+\.\d{3} us>", l), l)
            # each sleeps a millisecond at least
            check(float(l.split("<")[1].split()[0]) >= 1000, l)
        r = fe.run("record", "-g", GROUP, "--json", "-e", "naps", "--", binary(), "3", "1")
        (obj,) = [json.loads(l) for l in r.stdout.splitlines()]
        expect_eq((obj["event"], obj["args"], "ret" in obj), ("naps", {"ms": 1}, False))
        check(obj["dur_ns"] >= 1000000, obj)
        r = fe.run("record", "-g", GROUP, "--graph", "-e", "naps", "--", binary(), "3", "1")
        (l,) = lines(r.stdout)
        check(re.fullmatch(r"naps\(ms=1\) <\d+\.\d{3} us>", l), l)
        # list renders the entry as 'void naps(...)', which adds both
        # events back; the return event names its entry
        r = fe.run("list", "-g", GROUP, "--json")
        ev = {o["event"]: o for o in map(json.loads, r.stdout.splitlines())}
        expect_eq(ev["naps"]["prototype"], "void naps(s32 ms)")
        e = ev["naps__return"]
        expect_eq((e["prototype"], e["return_of"], e["args"]), ("", "naps", ""))
        # stats --latency pairs the calls (the event stream on this kernel)
        r = fe.run("stats", "-g", GROUP, "--latency", "--json", "-e", "naps", "--",
                   binary(), "3", "4")
        expect_eq(r.returncode, 0, r.stderr)
        (o,) = [json.loads(l) for l in r.stdout.splitlines()]
        expect_eq((o["event"], o["field"], o["count"]), (f"{GROUP}/naps", "latency_us", 4))
        check(o["min"] >= 1000, o)
    finally:
        clean()
