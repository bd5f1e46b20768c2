"""Probes inside a function (issue 11, DESIGN.md section 8): FUNC:N, FILE:N
and FUNC+OFF places on a fixture built here (tests/fixtures/fx_places.c),
with the locals in scope read where DWARF says they are at each address.
Addresses and fetches are compared with perf probe -D on the same binary;
values with what the program computes; errors with what was asked."""
import json
import os
import re
import subprocess

import fe
from fe import check, expect_eq
from test_events_host import FIXTURES, GROUP, clean, need_uprobes

SRC = os.path.join(FIXTURES, "fx_places.c")
_bin = {}


def binary():
    if "path" not in _bin:
        tmp = fe.tmpdir("fevent-places-")
        os.chmod(tmp, 0o755)
        path = os.path.join(tmp, "fx_places")
        subprocess.run(["gcc", "-g", "-O2", SRC, "-o", path], check=True)
        obj = os.path.join(tmp, "fx_places.o")
        subprocess.run(["gcc", "-g", "-O2", "-c", SRC, "-o", obj], check=True)
        subprocess.run(["pahole", "-J", obj], check=True, capture_output=True)
        _bin.update(path=path, obj=obj)
    return _bin["path"]


def rel_line(mark, func="walk"):
    """The line of a MARK comment, counted from func's declaration."""
    text = open(SRC).read().splitlines()
    decl = next(i for i, l in enumerate(text, 1) if f" {func}(" in l)
    return next(i for i, l in enumerate(text, 1) if f"MARK: {mark}" in l) - decl


def abs_line(mark):
    return next(i for i, l in enumerate(open(SRC).read().splitlines(), 1)
                if f"MARK: {mark}" in l)


def insn_starts(func, binary_path=None):
    """The offsets objdump decodes instructions of func at."""
    path = binary_path or binary()
    nm = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
    start = next(int(l.split()[0], 16) for l in nm.splitlines() if l.split()[-1] == func)
    size = int(subprocess.run(["nm", "-S", path], capture_output=True, text=True, check=True)
               .stdout.split(f" {func}\n")[0].splitlines()[-1].split()[1], 16)
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn",
                          f"--start-address={start:#x}", f"--stop-address={start + size:#x}",
                          path], capture_output=True, text=True, check=True).stdout
    return [int(m.group(1), 16) - start for m in re.finditer(r"^ *([0-9a-f]+):\t", out, re.M)]


def compile_(*protos, extra=()):
    return fe.run("compile", "-g", GROUP, "-x", binary(), *extra, *protos)


def defs(out):
    """[(event, offset, {name: fetch})] from definitions."""
    got = []
    for l in out.splitlines():
        parts = l.split()
        event = parts[0].split("/")[1]
        off = int(parts[1].rsplit(":", 1)[1], 16)
        args = dict(a.split("=", 1) for a in parts[2:])
        got.append((event, off, args))
    return got


def perf_defs(spec):
    r = subprocess.run(["perf", "probe", "-x", binary(), "-D", spec], capture_output=True,
                       text=True, timeout=60)
    if "sharing the address with other lines" in r.stderr:
        return None     # perf refuses (tests/test_lines.py says why)
    expect_eq(r.returncode, 0, r.stderr)
    return defs(r.stdout)


def canon(fetch):
    """perf writes the stack pointer %sp, fevent the kernel's $stack: one
    register."""
    return fetch.replace("($stack)", "(%sp)")


def file_offset(symbol):
    """What a uprobe's @+OFFSET takes for a data symbol: the kernel reads
    at the probed mapping's base (the address of file offset 0 in the
    code's segment) plus OFFSET."""
    nm = subprocess.run(["nm", binary()], capture_output=True, text=True, check=True).stdout
    # a static local's symbol is NAME.N (gcc), which perf's @NAME misses
    addr = next(int(l.split()[0], 16) for l in nm.splitlines()
                if re.fullmatch(re.escape(symbol) + r"(\.\d+)?", l.split()[-1]))
    segs = subprocess.run(["readelf", "-lW", binary()], capture_output=True, text=True,
                          check=True).stdout
    for l in segs.splitlines():
        f = l.split()
        if f and f[0] == "LOAD" and "E" in f[6:-1]:
            return addr - (int(f[2], 16) - int(f[1], 16))
    raise AssertionError("no code segment")


def perf_fetch(fetch):
    """perf writes a static as @NAME+N even for a uprobe, which the
    kernel refuses there (SYM_ON_UPROBE, "Symbol is not allowed for
    uprobe"), and with the variable's name, not its symbol's (calls.0):
    the same memory by file offset, as uprobes take it."""
    m = re.match(r"@([\w.]+)\+(\d+)$", fetch)
    return f"@+0x{file_offset(m.group(1)) + int(m.group(2)):x}" if m else fetch


def test_line_addresses_and_fetches_agree_with_perf():
    # every line fevent lines marks, and at each the variables perf can read
    r = fe.run("lines", "-x", binary(), "walk")
    expect_eq(r.returncode, 0, r.stderr)
    lines = [int(m.group(1)) for m in re.finditer(r"^ *(\d+)  \+", r.stdout, re.M)]
    check(len(lines) >= 6, r.stdout)
    compared = 0
    for n in lines:
        v = fe.run("vars", "-x", binary(), f"walk:{n}", "--json")
        expect_eq(v.returncode, 0, v.stderr)
        scopes = [json.loads(l) for l in v.stdout.splitlines()]
        names = [x["name"] for x in scopes[0]["vars"] if "fetch" in x]
        mine = compile_(f"walk:{n}()")
        expect_eq(mine.returncode, 0, mine.stderr)
        perf = perf_defs(f"walk:{n}")
        if perf is None:
            continue
        expect_eq([d[1] for d in defs(mine.stdout)], [d[1] for d in perf], f"walk:{n}")
        expect_eq([o["offset"] for o in scopes],
                  [d[1] - defs(compile_("walk()").stdout)[0][1] for d in perf], f"walk:{n}")
        for name in names:
            p = subprocess.run(["perf", "probe", "-x", binary(), "-D", f"walk:{n} {name}"],
                               capture_output=True, text=True, timeout=60)
            if p.returncode != 0:
                continue    # perf cannot read it here (an entry value, say)
            m = compile_(f"walk:{n}({name})")
            expect_eq(m.returncode, 0, m.stderr)
            for (_, po, pa), (_, mo, ma) in zip(defs(p.stdout), defs(m.stdout)):
                expect_eq(mo, po)
                # perf leaves arrays untyped; the location is what counts
                expect_eq(canon(ma[name]).split(":")[0], perf_fetch(pa[name].split(":")[0]),
                          f"walk:{n} {name}")
                if ":" in pa[name]:
                    expect_eq(ma[name].split(":")[1], pa[name].split(":")[1])
                compared += 1
    check(compared >= 10, f"only {compared} variables compared")


def test_a_line_with_two_addresses_gives_two_events():
    n = rel_line("walk")
    r = compile_(f"walk:{n}(k, sum, p)")
    expect_eq(r.returncode, 0, r.stderr)
    got = defs(r.stdout)
    expect_eq([d[0] for d in got], [f"walk_L{n}", f"walk_L{n}_1"])
    expect_eq([d[1] for d in got], [d[1] for d in perf_defs(f"walk:{n}")])
    r = compile_(f"walk:{n}(k, sum, p)", extra=("-n", "loop"))
    expect_eq([d[0] for d in defs(r.stdout)], ["loop", "loop_1"])
    # FILE:N is the same line, by the end of the file's path
    for f in ("fx_places.c", "fixtures/fx_places.c", SRC):
        r2 = compile_(f"{f}:{abs_line('walk')}(k, sum, p)")
        expect_eq(r2.returncode, 0, r2.stderr)
        expect_eq(defs(r2.stdout), got, f)


def test_offset_place_and_its_name():
    base = defs(compile_("walk()").stdout)[0][1]
    r = compile_("walk+0(k)", "walk:0(k)")
    expect_eq(r.returncode, 0, r.stderr)
    (e1, o1, a1), (e2, o2, a2) = defs(r.stdout)
    expect_eq((e1, e2), ("walk_0", "walk_L0"))
    expect_eq((o1, o2), (base, base))
    expect_eq(a1, a2)
    n = rel_line("arr")
    line = defs(compile_(f"walk:{n}(i, sum)").stdout)[0]
    r = compile_(f"walk+{line[1] - base}(i, sum)")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(defs(r.stdout), [(f"walk_{line[1] - base}", line[1], line[2])])


def test_values_recorded_at_lines():
    need_uprobes()
    clean()
    try:
        n, m = rel_line("walk"), rel_line("arr")
        r = fe.run("add", "-g", GROUP, "-x", binary(), f"walk:{n}(k, sum, p, p->val)",
                   f"walk:{m}(i, arr[1], sum)")
        expect_eq(r.returncode, 0, r.stderr)
        r = fe.run("record", "-g", GROUP, "--json", "--", binary())
        expect_eq(r.returncode, 0, r.stderr)
        got = []
        for o in map(json.loads, [l for l in r.stdout.splitlines() if l.startswith("{")]):
            if not o.get("event", "").startswith("walk"):
                continue
            a = o["args"]
            if "p" in a:
                # the list's nodes are on main's stack: a pointer, or
                # NULL at the last test (p->val is then unreadable)
                # NULL at the last test (p->val is then unreadable); a
                # pointer is hex-typed: a "0x..." string in JSON
                check(a["p"] != "0x0" or o["event"].endswith("_1"), o)
                if a["p"] == "0x0":
                    a.pop("val")
                a["p"] = "NULL" if a["p"] == "0x0" else "node"
            got.append((o["event"], a))
        # sink(x) is x + 1: v = val * k is 20, 40, 60, so sum after each
        # node is 21, 62, 123; the line's first address is the loop's
        # entry, the second each later test.  Then arr[i & 3] is i, so
        # sum grows by 1, 2, 3 while arr[1] is i + 1
        expect_eq(got, [
            (f"walk_L{n}", {"k": 2, "sum": 0, "p": "node", "val": 10}),
            (f"walk_L{n}_1", {"k": 2, "sum": 21, "p": "node", "val": 20}),
            (f"walk_L{n}_1", {"k": 2, "sum": 62, "p": "node", "val": 30}),
            (f"walk_L{n}_1", {"k": 2, "sum": 123, "p": "NULL"}),
            (f"walk_L{m}", {"i": 0, "arr": 1, "sum": 123}),
            (f"walk_L{m}", {"i": 1, "arr": 2, "sum": 124}),
            (f"walk_L{m}", {"i": 2, "arr": 3, "sum": 127}),
        ])
    finally:
        clean()


def test_list_keeps_the_place():
    need_uprobes()
    clean()
    try:
        n = rel_line("walk")
        r = fe.run("add", "-g", GROUP, "-x", binary(), f"walk:{n}(k, sum)", f"walk+{insn_starts('walk')[1]}()")
        expect_eq(r.returncode, 0, r.stderr)
        added = {d[0]: d for d in defs(r.stdout)}
        r = fe.run("list", "-g", GROUP, "--json")
        expect_eq(r.returncode, 0, r.stderr)
        base = defs(compile_("walk()").stdout)[0][1]
        for o in map(json.loads, r.stdout.splitlines()):
            event, off, args = added[o["event"]]
            check(o["prototype"].startswith(f"walk+{off - base}("), o["prototype"])
            back = compile_(o["prototype"], extra=("-n", o["event"]))
            expect_eq(back.returncode, 0, back.stderr)
            expect_eq(defs(back.stdout), [added[o["event"]]])
    finally:
        clean()


def error(*args):
    r = fe.run(*args)
    expect_eq(r.returncode, 2, r.stdout + r.stderr)
    return r.stderr


def test_errors_name_what_is_wrong():
    b = binary()
    n = rel_line("walk")
    e = error("compile", "-x", b, f"walk:{n}(k, i)")
    check(f"no 'i' in scope at walk:{n}" in e and "(in scope: head, k, sum, p, calls)" in e, e)
    check(re.search(r"\n {4}walk:\d+\(k, i\)\n {4}" + " " * (len(f"walk:{n}(k, ")) + r"\^", e), e)
    # the line's two addresses fail alike: said once (a name out of
    # scope is said per address: the scopes differ)
    e = error("compile", "-x", b, f"walk:{n}(k) if kk == 1")
    expect_eq(e.count("no field 'kk' in this event"), 1, e)
    e = error("compile", "-x", b, f"walk:{n}(k, nope)")
    expect_eq(e.count("no 'nope' in scope"), 2, e)
    r = fe.run("compile", "-v", "-x", b, f"fx_places.c:{abs_line('walk')}(k)")
    expect_eq(r.returncode, 0, r.stderr)
    check(f"fevent: walk: probe on {b}:0x" in r.stderr, r.stderr)
    e = error("compile", "-x", b, f"int walk:{n}(k)")
    check("a return value belongs to a function's entry" in e, e)
    e = error("compile", "-r", "-x", b, f"walk:{n}(k)")
    check("leave out -r" in e, e)
    e = error("compile", "-x", b, "walk:5(k)")
    check("has no code of its own; lines near it that have:" in e, e)
    e = error("compile", "-x", b, "walk:500(k)")
    check("'walk' has" in e and "lines" in e, e)
    e = error("compile", "-x", b, "nosuch.c:3(k)")
    check("no source file 'nosuch.c'" in e, e)
    e = error("compile", "-x", b, "nosuch:3(k)")
    check("no function 'nosuch'" in e, e)
    # BTF has no lines or locals: the fix is DWARF
    binary()
    e = error("compile", "--btf", _bin["obj"], f"walk:{n}(k)")
    check("--vmlinux FILE" in e, e)
    e = error("compile", "--btf", _bin["obj"], "walk+4(k)")
    check("BTF" in e and "--vmlinux FILE" in e, e)
    e = error("vars", "-x", b, "walk")
    check("expected a line or an offset" in e, e)
    # nothing half-made: a failing place adds nothing
    need_uprobes()
    clean()
    try:
        e = error("add", "-g", GROUP, "-x", b, f"walk:{n}(k)", f"walk:{n}(nope)")
        r = fe.run("list", "-g", GROUP)
        expect_eq(r.stdout, "")
    finally:
        clean()


def test_lines_of_a_file_range_are_the_functions_lines():
    r = fe.run("lines", "-x", binary(), "walk")
    expect_eq(r.returncode, 0, r.stderr)
    decl = abs_line("walk") - rel_line("walk")
    want = {decl + int(m.group(1)): [f"walk+{o}" for o in m.group(2).split(",")]
            for m in re.finditer(r"^ *(\d+)  (\S+)", r.stdout, re.M)
            if m.group(2).startswith("+")}
    want = {k: [o.replace("walk++", "walk+") for o in v] for k, v in want.items()}
    for place in (f"fx_places.c:{decl}-{decl + 30}", f"{SRC}:{decl}-{decl + 30}"):
        r = fe.run("lines", "-x", binary(), place)
        expect_eq(r.returncode, 0, r.stderr)
        check(r.stdout.startswith(f"<{SRC}:{decl}-{decl + 30}>\n"), r.stdout)
        got = {int(m.group(1)): [o for o in m.group(2).split(",") if o.startswith("walk+")]
               for m in re.finditer(r"^ *(\d+)  (\S+)", r.stdout, re.M)}
        got = {k: v for k, v in got.items() if v}
        expect_eq(got, want, place)
        # the text is the file's
        text = open(SRC).read().splitlines()
        check(text[abs_line("arr") - 1] in r.stdout, r.stdout)
    e = error("lines", "-x", binary(), "nosuch.c:3")
    check("no source file 'nosuch.c'" in e, e)
    e = error("lines", "-x", binary(), "fx_places.c:0")
    check("expected FILE:N or FILE:N-M" in e, e)


def test_callee_saved_register_stack_slot_and_a_late_parameter():
    """keep(7, 5): kept = 21 before the loop, 36 after it; vol = 5 in its
    stack slot; a = 7, long after %rdi was reused for the calls."""
    n, m = rel_line("kept", "keep"), rel_line("late", "keep")
    r = compile_(f"keep:{n}(a, kept, vol)", f"keep:{m}(a, kept, vol)")
    expect_eq(r.returncode, 0, r.stderr)
    saved = ("%bx", "%bp", "%r12", "%r13", "%r14", "%r15")
    for _, _, args in defs(r.stdout):
        check(args["kept"].split(":")[0] in saved, args)
        check(args["a"].split(":")[0] in saved, args)
        check(re.fullmatch(r"\+\d+\(\$stack\):s64", args["vol"]), args)
    # a slot reads its parameter where DWARF puts it there, not %di
    r2 = compile_(f"keep:{m}(s64 first, x64 second)")
    expect_eq(r2.returncode, 0, r2.stderr)
    late = defs(r.stdout)[-1][2]
    expect_eq(defs(r2.stdout)[0][2], {"first": late["a"],
                                     "second": late["vol"].replace(":s64", ":x64")})
    # perf puts them in the same places, asked at the same addresses
    # (perf refuses keep:8 itself, "sharing the address with other lines")
    base = defs(compile_("keep()").stdout)[0][1]
    for _, mo, ma in defs(r.stdout):
        (_, po, pa), = perf_defs(f"keep+{mo - base} a kept vol")
        expect_eq(mo, po)
        expect_eq({k: canon(v) for k, v in ma.items()}, pa)
    need_uprobes()
    clean()
    try:
        r = fe.run("add", "-g", GROUP, "-x", binary(), f"keep:{n}(a, kept, vol)",
                   f"keep:{m}(a, kept, vol)")
        expect_eq(r.returncode, 0, r.stderr)
        r = fe.run("record", "-g", GROUP, "--json", "--", binary())
        expect_eq(r.returncode, 0, r.stderr)
        got = [(o["event"], o["args"]) for o in
               map(json.loads, [l for l in r.stdout.splitlines() if l.startswith("{")])
               if o.get("event", "").startswith("keep")]
        # the loop is unrolled: line n has one address per iteration,
        # kept before each addition (21, then 21 + sink(0) * 5)
        expect_eq(got, [(f"keep_L{n}", {"a": 7, "kept": 21, "vol": 5}),
                        (f"keep_L{n}_1", {"a": 7, "kept": 26, "vol": 5}),
                        (f"keep_L{m}", {"a": 7, "kept": 36, "vol": 5})])
    finally:
        clean()


def test_a_file_place_under_a_directory_with_a_dot_and_digits():
    """FILE:N with the file under /tmp/tmp.9J2u... (mktemp's names): the
    word after the dot is part of the path, not a number."""
    d = fe.tmpdir("tmp.9")
    src = os.path.join(d, "fx_places.c")
    with open(os.path.join(FIXTURES, "fx_places.c")) as f, open(src, "w") as g:
        g.write(f.read())
    out = os.path.join(d, "fxp")
    subprocess.run(["gcc", "-g", "-O2", "-o", out, src], check=True)
    n = abs_line("arr")
    r = fe.run("compile", "-x", out, f"{src}:{n}(i)")
    expect_eq(r.returncode, 0, r.stderr)
    here = fe.run("compile", "-x", binary(), f"fx_places.c:{n}(i)")
    expect_eq([l.split()[2:] for l in r.stdout.splitlines()],
              [l.split()[2:] for l in here.stdout.splitlines()])


def test_one_name_for_every_address_of_a_place():
    """walk's loop line has two addresses, walk_L<n> and walk_L<n>_1: the
    place's name reaches both in record -e, stats -e and clear, and -e
    takes globs."""
    need_uprobes()
    clean()
    try:
        n = rel_line("walk")
        r = fe.run("add", "-g", GROUP, "-x", binary(), f"walk:{n}(k)", "main()")
        expect_eq(r.returncode, 0, r.stderr)
        name = f"walk_L{n}"
        r = fe.run("record", "-g", GROUP, "--json", "-e", name, "--", binary())
        expect_eq(r.returncode, 0, r.stderr)
        events = [json.loads(l)["event"] for l in r.stdout.splitlines() if l.startswith("{")]
        expect_eq(events, [name] + [f"{name}_1"] * 3)
        r = fe.run("record", "-g", GROUP, "--json", "-e", "walk_*", "--", binary())
        expect_eq(r.returncode, 0, r.stderr)
        events = [json.loads(l)["event"] for l in r.stdout.splitlines() if l.startswith("{")]
        expect_eq(events, [name] + [f"{name}_1"] * 3)
        r = fe.run("stats", "-g", GROUP, "--json", "-e", name, "--", binary())
        expect_eq(r.returncode, 0, r.stderr)
        counts = {o["event"]: o["count"] for o in map(json.loads, [
            l for l in r.stdout.splitlines() if l.startswith("{")])}
        expect_eq(counts, {f"{GROUP}/{name}": 1, f"{GROUP}/{name}_1": 3})
        r = fe.run("clear", "-g", GROUP, name)
        expect_eq(r.returncode, 0, r.stderr)
        r = fe.run("list", "-g", GROUP, "--json")
        expect_eq([json.loads(l)["event"] for l in r.stdout.splitlines() if l.startswith("{")],
                  ["main"])
    finally:
        clean()


SHADOW = """static int counter;
int shadow_param(int counter)
{
	return counter * 3 + 1;
}
int use_global(void)
{
	return counter++;
}
"""


def test_a_parameter_hides_the_units_variable_of_its_name():
    """Inside a function a parameter hides a variable of its unit of the
    same name, as in C: at an offset and at a line, as at the entry; the
    unit's variable is read where no parameter or local has the name."""
    d = fe.tmpdir("fevent-shadow-")
    src = os.path.join(d, "shadow.c")
    with open(src, "w") as f:
        f.write(SHADOW)
    lib = os.path.join(d, "libshadow.so")
    subprocess.run(["gcc", "-g", "-O2", "-shared", "-fPIC", "-o", lib, src], check=True)
    for place in ("shadow_param", "shadow_param+0", "shadow_param:0"):
        r = fe.run("compile", "-x", lib, f"{place}(counter)")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(r.stdout.split()[2:], ["counter=%di:s32"], place)
    r = fe.run("compile", "-x", lib, "use_global+0(counter)")
    expect_eq(r.returncode, 0, r.stderr)
    check(re.fullmatch(r"counter=@\+0x[0-9a-f]+:s32", r.stdout.split()[2]), r.stdout)
