"""Inlined functions (DESIGN.md section 15) on the host, with uprobes:
FUNC(...) probes every copy of a function GCC inlined at -O2
(tests/fixtures/fx_inlined.c: helper inlined at three calls with other
arguments, twice inlined at one call and kept out of line for a pointer),
each copy's event reads the arguments where that copy's DWARF puts them,
and the values recorded are exactly those the program prints; -e, stats
and clear take the function's name for all its copies; a return event is
the out-of-line copy's only, said in a warning, and refused where there
is none; lines of an inlined function (FUNC:N, FILE:N, 'fevent lines')
are found in its copies."""
import json
import os
import re
import subprocess

import fe
from fe import check, expect_eq
from test_events_host import FIXTURES, need_uprobes

GROUP = "fevent_inline" + fe.TAG
SRC = os.path.join(FIXTURES, "fx_inlined.c")
_bin = {}


def binary(name="fx_inlined", src=SRC):
    if name not in _bin:
        tmp = fe.tmpdir("fevent-inline-")
        os.chmod(tmp, 0o755)
        path = os.path.join(tmp, name)
        subprocess.run(["gcc", "-g", "-O2", src, "-o", path], check=True)
        _bin[name] = path
    return _bin[name]


def printed(n):
    """What the program prints with argument n: [(func, {arg: value})]."""
    out = subprocess.run([binary(), str(n)], capture_output=True, text=True).stdout
    return [(l.split()[0], {k: int(v) for k, v in re.findall(r"(\w+)=(-?\d+)", l)})
            for l in out.splitlines()]


def sym_off(name):
    """The file offset of a function symbol (the fixture is a PIE whose
    text is where the file has it)."""
    nm = subprocess.run(["nm", binary()], capture_output=True, text=True, check=True).stdout
    return next(int(l.split()[0], 16) for l in nm.splitlines() if l.split()[-1] == name)


def defs(out):
    """{event: (offset, {name: fetch})} of compiled definitions."""
    got = {}
    for l in out.splitlines():
        parts = l.split()
        got[parts[0].split("/")[1]] = (int(parts[1].rsplit(":", 1)[1], 16),
                                      dict(a.split("=", 1) for a in parts[2:]))
    return got


def clear():
    fe.run("clear", "-g", GROUP, "--force")


def test_every_copy_is_an_event_named_after_the_function():
    r = fe.run("compile", "-g", GROUP, "-x", binary(), "helper(a, b)", "twice(x)")
    expect_eq((r.returncode, r.stderr), (0, ""))
    d = defs(r.stdout)
    expect_eq(sorted(d), ["helper", "helper_1", "helper_2", "twice", "twice_1"])
    # helper's copies are in first and second (twice in main); the
    # out-of-line twice is the function itself, named first
    check(sym_off("first") < d["helper"][0] < sym_off("second") < d["helper_1"][0]
          < d["helper_2"][0], d)
    expect_eq(d["twice"][0], sym_off("twice"))
    expect_eq(d["twice"][1], {"x": "%di:s32"})
    # b is the constant -3 at the second call
    expect_eq(d["helper_1"][1]["b"], "\\-3:s64")
    # perf probe agrees where it gives a definition (it cannot say
    # helper's constant: "we don't support this variable location yet")
    p = subprocess.run(["perf", "probe", "-x", binary(), "-D", "twice x"],
                       capture_output=True, text=True)
    if p.returncode == 0:
        got = {(int(l.split()[1].rsplit(":", 1)[1], 16), l.split()[2])
               for l in p.stdout.splitlines()}
        expect_eq(got, {(off, f"x={args['x']}") for e, (off, args) in d.items()
                        if e.startswith("twice")})


def test_the_values_recorded_are_those_each_copy_was_called_with():
    need_uprobes()
    clear()
    try:
        r = fe.run("add", "-g", GROUP, "-x", binary(), "helper(a, b)", "twice(x)")
        expect_eq(r.returncode, 0, r.stderr)
        for n in (4, -9):
            r = fe.run("record", "-g", GROUP, "--json", "--", binary(), str(n))
            lines = r.stdout.splitlines()
            prog = [l for l in lines if not l.startswith("{")]
            events = [json.loads(l) for l in lines if l.startswith("{")]
            want = printed(n)
            expect_eq(len(prog), len(want), r.stdout)
            expect_eq([(re.sub(r"_\d+$", "", e["event"]), e["args"]) for e in events], want,
                      r.stderr)
            # every copy fired once: helper at three, twice at two
            expect_eq(sorted(e["event"] for e in events),
                      ["helper", "helper_1", "helper_2", "twice", "twice_1"])
        # -e helper is every copy of helper, and only those
        r = fe.run("record", "-g", GROUP, "--json", "-e", "helper", "--", binary(), "2")
        expect_eq(sorted(json.loads(l)["event"] for l in r.stdout.splitlines()
                         if l.startswith("{")), ["helper", "helper_1", "helper_2"])
        r = fe.run("stats", "-g", GROUP, "--json", "-e", "twice", "--", binary(), "2")
        counts = {o["event"]: o["count"] for o in map(json.loads, (
            l for l in r.stdout.splitlines() if l.startswith("{"))) if o.get("event")}
        expect_eq(counts, {f"{GROUP}/twice": 1, f"{GROUP}/twice_1": 1}, r.stdout + r.stderr)
        r = fe.run("clear", "-g", GROUP, "helper")
        expect_eq(r.returncode, 0, r.stderr)
        r = fe.run("list", "-g", GROUP, "--json")
        expect_eq(sorted(json.loads(l)["event"] for l in r.stdout.splitlines()),
                  ["twice", "twice_1"])
    finally:
        clear()


def test_list_says_which_functions_copy_an_event_is():
    """list renders an inlined copy's event at CALLER+OFF, its address, and
    says whose copy it is beside it, as for a line's addresses: it showed
    'first+24(s32 a=%ax, ...)' alone, a probe of 'first' by all it said
    (and 'outer(...)' for a copy at the caller's entry)."""
    need_uprobes()
    clear()
    try:
        r = fe.run("compile", "-g", GROUP, "-x", binary(), "helper(a, b)", "twice(x)")
        expect_eq(r.returncode, 0, r.stderr)
        d = defs(r.stdout)
        r = fe.run("add", "-q", "-g", GROUP, "-x", binary(), "helper(a, b)", "twice(x)")
        expect_eq(r.returncode, 0, r.stderr)
        r = fe.run("list", "-g", GROUP, "--json")
        expect_eq(r.returncode, 0, r.stderr)
        got = {o["event"]: (o["prototype"].split("(")[0], o.get("place"))
               for o in map(json.loads, r.stdout.splitlines())}

        def at(event, caller):
            return f"{caller}+{d[event][0] - sym_off(caller)}"

        expect_eq(got, {
            "helper": (at("helper", "first"), "helper, address 1 of 3"),
            "helper_1": (at("helper_1", "second"), "helper, address 2 of 3"),
            "helper_2": (at("helper_2", "second"), "helper, address 3 of 3"),
            "twice": ("twice", None),
            "twice_1": (at("twice_1", "main"), "twice, address 2 of 2")})
        r = fe.run("list", "-g", GROUP)
        expect_eq(r.returncode, 0, r.stderr)
        check(re.search(r"\n    main\+\d+\(s32 x=%\w+\)  # twice, address 2 of 2\n", r.stdout),
              r.stdout)
    finally:
        clear()


def test_a_return_is_the_out_of_line_copys_only():
    r = fe.run("compile", "-g", GROUP, "-x", binary(), "int twice(x)")
    expect_eq(r.returncode, 0, r.stderr)
    d = r.stdout.splitlines()
    expect_eq([l.split()[0] for l in d], [f"p:{GROUP}/twice", f"r:{GROUP}/twice__return",
                                          f"p:{GROUP}/twice_1"])
    off = defs("\n".join(d[2:]))["twice_1"][0] - sym_off("main")
    expect_eq(r.stderr, f"fevent: warning: only the out-of-line copy of 'twice' returns: its 1 "
              f"inlined copy (main+{off:#x}) is not called, so it has no return event\n")
    r = fe.run("compile", "-g", GROUP, "-x", binary(), "int helper(a, b)")
    expect_eq((r.returncode, r.stdout), (2, ""))
    check(re.match(r"fevent: error: column 1: 'helper' is inlined everywhere in \S+ \(3 copies: "
                   r"first\+0x[0-9a-f]+, second\+0x[0-9a-f]+, second\+0x[0-9a-f]+\): an inlined "
                   r"copy is not called, so nothing returns from it and no return event can go "
                   r"there; drop the return type to probe the copies' entries\n", r.stderr),
          r.stderr)
    r = fe.run("compile", "-r", "-g", GROUP, "-x", binary(), "helper(a, b)")
    expect_eq(r.returncode, 2)
    check("leave out -r to probe the copies' entries" in r.stderr, r.stderr)


def test_a_parameter_a_copy_lost_is_left_out_of_that_copys_event():
    # tests/fixtures/fx_inline.c: helper's a and b are folded into arr_fn's
    # loop at its only copy; perf probe refuses the whole probe there
    path = binary("fx_inline", os.path.join(FIXTURES, "fx_inline.c"))
    r = fe.run("compile", "-g", GROUP, "-x", path, "helper(a, b)")
    expect_eq(r.returncode, 0, r.stderr)
    off = int(r.stdout.split()[1].rsplit(":", 1)[1], 16)
    expect_eq(r.stdout, f"p:{GROUP}/helper {path}:{off:#x}\n")
    check(re.fullmatch(r"fevent: warning: event 'helper' \(the copy of 'helper' inlined into "
                       r"arr_fn\+0x[0-9a-f]+\) leaves out 'a', 'b': the compiler kept no value "
                       r"for them there \(a: it is optimized out here; b: it is optimized out "
                       r"here\)\n", r.stderr), r.stderr)


def test_what_dots_skip_at_a_copy_names_the_copy():
    # the same copy with '...': each skipped parameter names the event and
    # where the copy is inlined (not a bare name, as if the function's own)
    path = binary("fx_inline", os.path.join(FIXTURES, "fx_inline.c"))
    r = fe.run("compile", "-g", GROUP, "-x", path, "helper(...)")
    expect_eq(r.returncode, 0, r.stderr)
    where = re.search(r"inlined into (arr_fn\+0x[0-9a-f]+)\)", r.stderr)
    check(where, r.stderr)
    expect_eq(r.stderr, "".join(
        f"fevent: warning: '...' skips '{p}': it is optimized out here (event 'helper', the "
        f"copy of 'helper' inlined into {where[1]})\n" for p in "ab"))


def test_a_copys_locals_are_not_read_at_its_entry():
    # helper's local c has no value before helper's code sets it: at a
    # copy's entry, as at a function's own, '...' reads parameters only
    # (it read c, and libpython's compiler_visit_expr(...) failed on a
    # local kept in an SSE register), and a read by name is refused alike
    path = binary("fx_inline", os.path.join(FIXTURES, "fx_inline.c"))
    for proto, col in (("helper(c)", 8), ("arr_fn(s)", 8)):
        r = fe.run("compile", "-g", GROUP, "-x", path, proto)
        func = proto.split("(")[0]
        expect_eq((r.returncode, r.stdout, r.stderr.splitlines()[0]),
                  (2, "", f"fevent: error: column {col}: '{func}' has no parameter "
                   f"'{proto[len(func) + 1]}'; did you mean '{'a' if func == 'helper' else 'v'}'?"),
                  r.stderr)


def test_a_line_of_an_inlined_function_is_found_in_its_copies():
    # helper:3 ('total += a') has code in the three copies, as perf probe
    # -D places it: the third's row lies in a hole of the copy's ranges
    # (issue 32 item 7); b is read in each, a is -n in the third, a value
    # DWARF computes, which is said
    r = fe.run("lines", "-x", binary(), "helper")
    expect_eq((r.returncode, r.stderr), (0, ""))
    marked = {l.split()[0]: l.split()[1] for l in r.stdout.splitlines()[1:] if l[:7].strip()}
    d = defs(fe.run("compile", "-g", GROUP, "-x", binary(), "helper(a, b)").stdout)
    entries = ",".join(f"{f}+{off - sym_off(f):#x}" for off, f in
                       sorted((d[e][0], "first" if d[e][0] < sym_off("second") else "second")
                              for e in d))
    expect_eq(marked["0"], entries)
    check(re.fullmatch(r"first\+0x[0-9a-f]+,second\+0x[0-9a-f]+,second\+0x[0-9a-f]+",
                       marked["3"]), marked)
    line = next(i for i, l in enumerate(open(SRC), 1) if "total += a;" in l)
    for place in ("helper:3", f"fx_inlined.c:{line}"):
        r = fe.run("compile", "-g", GROUP, "-x", binary(), f"{place}(b)")
        expect_eq(r.returncode, 0, r.stderr)
        got = defs(r.stdout)
        expect_eq(sorted(got), ["helper_L3", "helper_L3_1", "helper_L3_2"])
        expect_eq([f"{'first' if off < sym_off('second') else 'second'}+"
                   f"{off - sym_off('first' if off < sym_off('second') else 'second'):#x}"
                   for off, _ in sorted(got.values())], marked["3"].split(","))
        p = subprocess.run(["perf", "probe", "-x", binary(), "-D", place],
                           capture_output=True, text=True)
        if p.returncode == 0:
            expect_eq(sorted(int(l.split()[1].rsplit(":", 1)[1], 16)
                             for l in p.stdout.splitlines()),
                      sorted(off for off, _ in got.values()))
    third = marked["3"].split(",")[2]
    r = fe.run("compile", "-g", GROUP, "-x", binary(), "helper:3(a)")
    expect_eq((r.returncode, r.stdout), (2, ""))
    check(f"'a' cannot be read: DWARF computes it from other values, which a fetch argument "
          f"cannot (at the copy of 'helper' inlined into {third})" in r.stderr, r.stderr)
    need_uprobes()
    clear()
    try:
        r = fe.run("add", "-g", GROUP, "-x", binary(), "helper:3(b)")
        expect_eq(r.returncode, 0, r.stderr)
        r = fe.run("record", "-g", GROUP, "--json", "--", binary(), "6")
        got = [json.loads(l)["args"]["b"] for l in r.stdout.splitlines() if l.startswith("{")]
        expect_eq(got, [a["b"] for f, a in printed(6) if f == "helper"])
    finally:
        clear()


def test_funcs_and_proto_count_the_copies():
    r = fe.run("funcs", "-x", binary(), "[ht]*")
    expect_eq((r.returncode, r.stdout, r.stderr),
              (0, "helper  (inlined: 3 copies)\ntwice  (and 1 inlined copy)\n", ""))
    r = fe.run("proto", "-x", binary(), "helper", "twice")
    expect_eq((r.returncode, r.stderr), (0, ""))
    expect_eq([l for l in r.stdout.splitlines() if not l.startswith("#   ")],
              ["helper(int a, long int b)",
               "# inlined everywhere: 3 copies, each an event at its entry, none with a return event",
               "int twice(int x)",
               "# also inlined: 1 copy, each an event at its entry, none with a return event"])
    # what proto prints compiles, to one event per copy
    r = fe.run("compile", "-x", binary(), "helper(int a, long int b)")
    expect_eq((r.returncode, len(r.stdout.splitlines())), (0, 3), r.stderr)


def test_a_glob_matching_only_inlined_functions_names_them():
    # funcs lists helper (inlined everywhere); a glob probes out-of-line
    # functions, and its error says which matched inlined and how to probe them
    r = fe.run("compile", "-x", binary(), "h*()")
    expect_eq((r.returncode, r.stdout, r.stderr.splitlines()[0]),
              (2, "", "fevent: error: column 1: no function matches 'h*' out of line; inlined "
               "everywhere: helper (a glob probes out-of-line functions: name one, "
               "'helper(...)', to probe each of its copies)"))
    r = fe.run("compile", "-x", binary(), "zz*()")
    expect_eq((r.returncode, r.stderr.splitlines()[0]),
              (2, "fevent: error: column 1: no function matches 'zz*' ('fevent funcs GLOB' "
               "lists what can be probed)"))
    # the name it gives compiles, to an event a copy
    r = fe.run("compile", "-x", binary(), "helper(...)")
    expect_eq((r.returncode, len(r.stdout.splitlines())), (0, 3), r.stderr)


def test_where_only_btf_is_at_hand_the_refusal_says_dwarf_is_needed():
    # the 6.1 vmlinux's own BTF (--btf): do_fsync, inlined everywhere there,
    # is in neither its BTF nor a symbol table
    from test_kernel_dwarf import need_vmlinux
    v = need_vmlinux()
    hint = ("(if the compiler inlined it, its copies are found in the kernel's DWARF: give "
            "--vmlinux FILE, the vmlinux of the kernel's linux-image-*-dbg package; install that "
            "package; or set DEBUGINFOD_URLS to a debuginfod server)")
    r = fe.run("compile", "--btf", v, "do_fsync(fd)")
    expect_eq((r.returncode, r.stdout), (2, ""))
    # BTF alone cannot tell inlined from renamed: the near name, as add
    # says it, and the way to the copies
    expect_eq(r.stderr.splitlines()[0], f"fevent: error: column 10: unknown parameter 'fd': {v} "
              f"does not describe 'do_fsync'; did you mean 'io_fsync'? {hint}")
    r = fe.run("proto", "--btf", v, "do_fsync")
    expect_eq((r.returncode, r.stdout), (2, ""))
    check(r.stderr.startswith(f"fevent: error: no function 'do_fsync' in {v}")
          and r.stderr.endswith(f" {hint}\n"), r.stderr)
    # with the DWARF, the copies
    r = fe.run("compile", "--vmlinux", v, "do_fsync(fd)")
    expect_eq((r.returncode, len(r.stdout.splitlines())), (0, 4), r.stderr)


def test_a_static_function_of_the_same_name_elsewhere_is_not_a_copy():
    # tests/fixtures/fx_samename_*.c: fx_samename_b.c's dup and only_a
    # (other parameters) are inlined there; they are other functions than
    # the header's dup and fx_samename_a.c's only_a, whose copies alone
    # are probed (they were taken as copies: dup_2(a, b), only_a_1(p, q))
    tmp = fe.tmpdir("fevent-inline-")
    os.chmod(tmp, 0o755)
    path = os.path.join(tmp, "fx_samename")
    subprocess.run(["gcc", "-g", "-O2", "-o", path] +
                   [os.path.join(FIXTURES, f"fx_samename_{s}.c") for s in "ab"], check=True)
    nm = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
    addr = {f[2]: int(f[0], 16) for f in (l.split() for l in nm.splitlines()) if len(f) == 3}
    r = fe.run("compile", "-g", GROUP, "-x", path, "dup(...)", "only_a(...)")
    expect_eq((r.returncode, r.stdout, r.stderr), (0,
              f"p:{GROUP}/dup {path}:{addr['dup']:#x} x=%di:s32\n"
              f"p:{GROUP}/dup_1 {path}:{addr['call_a']:#x}\n"
              f"p:{GROUP}/only_a {path}:{addr['only_a']:#x} x=%di:s32\n",
              "fevent: warning: '...' skips 'x': it is optimized out here (event 'dup_1', the "
              "copy of 'dup' inlined into call_a+0x0)\n"))


def test_a_symbol_another_function_is_named_has_not_its_namesakes_copies():
    # tests/fixtures/fx_asmlabel.c: impl's code has the symbol twin (an
    # asm label); fx_asmlabel.h's static inline twin, another function,
    # is inlined into user1 and user2.  twin(...) is impl's entry alone,
    # asked alone and among more functions than a compile looks up one
    # at a time (then the roots are indexed first); the header's copies
    # were taken as its copies (twin_1, twin_2, twin_3)
    tmp = fe.tmpdir("fevent-inline-")
    os.chmod(tmp, 0o755)
    path = os.path.join(tmp, "fx_asmlabel")
    subprocess.run(["gcc", "-g", "-O2", "-I", FIXTURES, "-o", path,
                    os.path.join(FIXTURES, "fx_asmlabel.c")], check=True)
    nm = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
    addr = {f[2]: int(f[0], 16) for f in (l.split() for l in nm.splitlines()) if len(f) == 3}
    for protos in (["twin(int x)"],
                   ["main()", "user1(int x)", "user2(int x)", "impl(int x)", "twin(int x)"]):
        r = fe.run("compile", "-q", "-g", GROUP, "-x", path, *protos)
        expect_eq(r.returncode, 0, r.stderr)
        twins = [l for l in r.stdout.splitlines() if l.startswith(f"p:{GROUP}/twin")]
        expect_eq(twins, [f"p:{GROUP}/twin {path}:{addr['twin']:#x} x=%di:s32"], protos)
