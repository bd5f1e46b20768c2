"""Lines and variables perf probe -D places and reads, against fevent
(issue 32 item 8), over a deterministic sample of the pyenv libpython.

The sample: the library's defined Py* function symbols, sorted, every
STEP-th; for each, lines 1..LINES (relative to the declaration, fevent's
and perf's FUNC:N); at each line perf probe -V --range lists, every
variable it marks [VAL] at every address of the line, named once, of a
scalar C type, at most VARS per line, plus the line alone.  Each case is
asked of `perf probe -x LIB -D 'FUNC:N VAR'` and of `fevent compile -x LIB
'FUNC:N(VAR)'`; definitions are canonicalised by line_xcheck.parse_defs.

Every case is counted as an agreement (both place the same addresses and
read the variable at the same location with the same type class, or both
refuse), or classified:
  - perf wrong: perf reads memory where DWARF makes the value a computed
    one (DW_OP_stack_value), which fevent refuses, saying so;
  - perf fails: perf refuses and fevent places it;
  - policy: a known, deliberate difference (POLICY below, by fevent's
    reason), or perf placing the line also where the line table has a row
    of it but DWARF's scope (llvm-dwarfdump --lookup) holds no copy of the
    function: fevent places a line only in the function or its inlined
    copies, whose variables the probe reads;
and the test fails on any other (fevent wrong or unexplained).  It also
checks by name the cases the issue gave: PyInstanceMethod_New:6.

The same over Debian's 6.1 -dbg vmlinux (perf probe -k VMLINUX, fevent
compile --vmlinux VMLINUX): every KSTEP-th C function, at most KFUNCS;
tests/fetch-vmlinux-dbg brings it from the Debian archive, else those
tests skip saying why (FEVENT_NO_DBG=1 skips them)."""
import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor

import fe
import line_xcheck as lx
from fe import check, expect_eq

STEP = 40
# the vmlinux: every KSTEP-th function, at most KFUNCS (perf -V and -D
# cost about a second each there)
KSTEP = 1499
KFUNCS = 13
LINES = 8
VARS = 2
SCALAR = re.compile(r"^(?:(?:const |volatile |unsigned |signed |long |short |struct |enum )*"
                    r"\w+\s*\**|.*\*)$")

# fevent's reason (a regular expression over its error) -> why the
# difference is deliberate.
POLICY = {
    r"DWARF knows it only as the value it had at the function's entry":
        "DW_OP_entry_value: perf reads the register as it is now, which no longer holds it",
    r"it is a pointer the compiler optimized away":
        "DW_OP_implicit_pointer: there is no memory to read",
    r"is a (struct|union): name one of its members":
        "a struct or union read whole: perf reads its first word, fevent asks which member",
    r"is an array of elements that cannot be fetched":
        "va_list: perf reads its first word, fevent asks for an element",
}

# fevent's reason -> why perf's definition is wrong (perf reads memory, or
# a place, that is not the variable).
PERF_WRONG = {
    r"its value is an address in the binary":
        "DWARF gives the address itself as the value (DW_OP_addr, DW_OP_stack_value); "
        "perf reads memory there",
    r"DWARF computes it from other values":
        "DWARF computes the value (DW_OP_stack_value); perf reads memory or a register "
        "as if it were the variable",
}


def target():
    return lx.libpython_target()


# perf probe's and llvm-dwarfdump's answers do not depend on which fevent
# build runs: the sanitized pass (tests/run.py imports this file again)
# asks fevent every case again and compares with the answers the plain pass
# had from them, kept in line_xcheck's module, which is imported once.
_PEER = lx.__dict__.setdefault("_perf_lines_peer_answers", {})


def peer(argv, **kw):
    """subprocess.run(argv, capture_output=True, text=True) once a run."""
    key = tuple(argv)
    if key not in _PEER:
        _PEER[key] = subprocess.run(argv, capture_output=True, text=True, **kw)
    return _PEER[key]


def perf(t, *args):
    return peer(["perf", "probe", *t.perf_args, *args], timeout=600)


def sample_functions(t):
    out = subprocess.run(["nm", "-D", "--defined-only", t.path], capture_output=True,
                         text=True, check=True).stdout
    names = sorted({l.split()[2] for l in out.splitlines()
                    if len(l.split()) == 3 and l.split()[1] == "T"
                    and re.fullmatch(r"Py[A-Za-z_]\w*", l.split()[2])})
    return names[STEP // 2::STEP]


def perf_vars_of(t, func):
    """{N: [var dicts at every address]} for lines 1..LINES perf places."""
    got = {}
    for n in range(1, LINES + 1):
        r = perf(t, "--range", "-V", f"{func}:{n}")
        v = lx.parse_vars(r.stdout).get(f"{func}:{n}")
        if r.returncode == 0 and v:
            got[n] = v
    return got


def pick_vars(where_vars):
    """{variable: C type}: [VAL] at every address, named once, scalar; at
    most VARS."""
    per_addr = []
    for _, vs in where_vars:
        names = [v["name"] for v in vs]
        per_addr.append({v["name"]: v["ctype"] for v in vs
                         if v["flag"] == "VAL" and names.count(v["name"]) == 1
                         and SCALAR.match(v["ctype"]) and "[" not in v["ctype"]})
    if not per_addr:
        return []
    common = sorted(set.intersection(*(set(p) for p in per_addr)))
    return {v: per_addr[0][v] for v in common[:VARS]}


def perf_side(t, func, n, var):
    spec = f"{func}:{n}" + (f" {var}" if var else "")
    r = perf(t, "-D", spec)
    if r.returncode:
        return None, lx._perf_message(r.stderr)
    return r.stdout, None


def fevent_side(t, func, n, var):
    r = subprocess.run([fe.binary(), "compile", *t.fevent_args, f"{func}:{n}({var or ''})"],
                       capture_output=True, text=True)
    if r.returncode:
        return None, r.stderr.strip()
    return r.stdout, None


def canon(t, out, var, ctype=None):
    """{address: (loc, class) of var or None}."""
    defs = lx.parse_defs(t, out, {var: ctype} if var else None, names=[var] if var else None)
    return {d[1]: (d[2][var][:2] if var and var in d[2] else None) for d in defs}


def refused(func, n, reason, pout):
    """A refusal of fevent's as (kind, why), or None if unexplained."""
    m = re.match(r"'(\S+)' has (\d+) lines", reason)
    if m and m.group(1) == func and n > int(m.group(2)):
        return "perf wrong", (f"the function has {m.group(2)} lines: perf places line {n} "
                              f"past its end, in the code after it ({pout.split()[1]})")
    for pat, why in POLICY.items():
        if re.search(pat, reason):
            return "policy", why
    for pat, why in PERF_WRONG.items():
        if re.search(pat, reason):
            return "perf wrong", why
    return None


def differs(pc, fc):
    """Why perf's and fevent's definitions differ, as (kind, why), or None."""
    if set(pc) != set(fc):
        return None
    for a in pc:
        (ploc, pcls), (floc, fcls) = pc[a] or (None, None), fc[a] or (None, None)
        if (ploc, pcls) == (floc, fcls):
            continue
        if ploc and re.match(r"@[A-Za-z_]", ploc):
            return "perf wrong", lx.perf_is_wrong(None, ploc)
        if ploc == floc and pcls == ("default", 0) and fcls and "[" in str(fcls[1]):
            continue    # an array: perf one word with no type, fevent its elements
        return None
    return "agree", None


def _hex(a):
    return f"0x{a:x}" if isinstance(a, int) else str(a)


def outside_copies(t, func, addrs):
    """Does DWARF's scope at each address (llvm-dwarfdump --lookup) hold
    no subprogram or inlined copy of func?"""
    for a in addrs:
        if not isinstance(a, int):
            return False
        va = a if t.kind == "k" else t.offset_to_vaddr(a)
        r = peer(["llvm-dwarfdump", f"--lookup=0x{va:x}", t.path], timeout=600)
        if r.returncode or "Line info" not in r.stdout or f'"{func}"' in r.stdout:
            return False
    return True


def classify(t, func, n, var, ctype=None):
    """('agree'|'perf wrong'|'perf fails'|'policy'|'unclassified', text)."""
    what = f"{func}:{n}" + (f" {var}" if var else "")
    pout, perr = perf_side(t, func, n, var)
    fout, ferr = fevent_side(t, func, n, var)
    if perr and ferr:
        return "agree", what
    if perr:
        return "perf fails", f"{what}: perf: {perr}"
    if ferr:
        reason = re.sub(r"^fevent: error: (column \d+: )?", "", ferr.splitlines()[0])
        got = refused(func, n, reason, pout)
        if got:
            return got[0], f"{what}: {got[1]}"
        return "unclassified", f"{what}: perf: {pout.strip()}; fevent refuses: {reason}"
    pc, fc = canon(t, pout, var, ctype), canon(t, fout, var, ctype)
    extra = sorted(set(pc) - set(fc), key=str)
    if fc and extra and set(fc) < set(pc) and outside_copies(t, func, extra):
        got = differs({a: pc[a] for a in fc}, fc)
        if got and got[0] == "agree":
            return "policy", (f"{what}: perf places it also at {', '.join(map(_hex, extra))}, "
                              f"where the line table has a row of the line but DWARF's scope holds "
                              f"no copy of {func} (another function's code, whose variables "
                              "those are)")
    got = differs(pc, fc)
    if got:
        return got[0], what + (f": {got[1]}" if got[1] else "")
    return "unclassified", f"{what}: perf {pout.strip()} | fevent {fout.strip()}"


def cases_of(t, func):
    """[(kind, text)] of every case of func."""
    got = []
    for n, where_vars in sorted(perf_vars_of(t, func).items()):
        vars_ = pick_vars(where_vars)
        for var in [None] + sorted(vars_):
            got.append(classify(t, func, n, var, vars_.get(var)))
    return got


def cross_check(t, funcs, min_agree):
    tally, bad = {}, []
    # two at a time: perf probe on a vmlinux is a second of CPU a case
    with ThreadPoolExecutor(2) as pool:
        for got in pool.map(lambda f: cases_of(t, f), funcs):
            for kind, text in got:
                tally.setdefault(kind, []).append(text)
                if kind == "unclassified":
                    bad.append(text)
    print("     " + ", ".join(f"{k}: {len(v)}" for k, v in sorted(tally.items())))
    for k in ("perf wrong", "perf fails", "policy"):
        for text in tally.get(k, [])[:5]:
            print(f"     {k}: {text}")
    check(len(tally.get("agree", [])) >= min_agree,
          f"only {len(tally.get('agree', []))} agree")
    check(not bad, f"{len(bad)} disagreements with perf probe -D nobody explains:\n  "
          + "\n  ".join(bad[:40]))


def test_lines_and_variables_against_perf():
    lx.need_tools()
    t = target()
    cross_check(t, sample_functions(t), 100)


def vmlinux_functions(t):
    """Every KSTEP-th of the vmlinux's C functions that are one symbol
    (a static function of two files is two functions to perf), sorted."""
    out = subprocess.run(["nm", t.path], capture_output=True, text=True, check=True).stdout
    text = {f[2] for f in (l.split() for l in out.splitlines()) if len(f) == 3 and f[1] in "tT"}
    names = sorted(n for n, a in t.symbols().items()
                   if n in text and len(a) == 1 and re.fullmatch(r"[a-z][a-z0-9_]*", n)
                   and not n.startswith(("__pfx_", "__x64_sys_", "__ia32_", "__do_sys_",
                                         "__se_sys_", "__bpf_trace_", "trace_event_raw_",
                                         "perf_trace_", "trace_raw_output_")))
    return names[KSTEP // 2::KSTEP][:KFUNCS]


def test_vmlinux_lines_and_variables_against_perf():
    """The same over lines of Debian's 6.1 -dbg vmlinux (perf probe -k
    VMLINUX, fevent compile --vmlinux VMLINUX): tests/fetch-vmlinux-dbg
    brings it from the Debian archive, else this skips saying why."""
    lx.need_tools()
    t = lx.vmlinux_target()
    cross_check(t, vmlinux_functions(t), 40)


def test_a_vmlinux_line_perf_places_outside_its_copies():
    """maybe_pmd_mkwrite:4: perf also places it at do_huge_pmd_wp_page+348,
    where llvm-dwarfdump --lookup gives do_huge_pmd_wp_page's own line
    1398 and no copy of maybe_pmd_mkwrite."""
    lx.need_tools()
    t = lx.vmlinux_target()
    kind, text = classify(t, "maybe_pmd_mkwrite", 4, None)
    expect_eq(kind, "policy", text)
    check(f"0x{t.sym_addr('do_huge_pmd_wp_page') + 348:x}" in text, text)


def test_a_line_whose_address_starts_an_inlined_callee():
    """gdb: 'Line 363 of Objects/classobject.c starts at address 0x15b5b0'."""
    lx.need_tools()
    t = target()
    expect_eq(classify(t, "PyInstanceMethod_New", 6, None)[0], "agree")
    r = fe.run("compile", "-x", t.path, "PyInstanceMethod_New:6()")
    expect_eq((r.returncode, r.stderr), (0, ""))
    expect_eq([d[1] for d in lx.parse_defs(t, r.stdout)], [t.vaddr_to_offset(0x15b5b0)])


def test_the_variables_of_an_inlined_callee_in_scope():
    """PyList_Append:4 is in the inlined _PyList_AppendTakeRef, whose
    allocated and len perf probe -V lists and -D reads."""
    lx.need_tools()
    t = target()
    for var in ("allocated", "len"):
        expect_eq(classify(t, "PyList_Append", 4, var, "Py_ssize_t"),
                  ("agree", f"PyList_Append:4 {var}"))
