"""Cross-check of inlined functions (DESIGN.md section 15) against perf probe.

perf probe -D puts a probe on every inlined copy of a function (and its
out-of-line copy), and finds FUNC:N in the copies too.  This module picks
inlined functions by a rule, asks perf and fevent compile for the same
places and compares addresses and parameter locations.  Nothing is chosen
by hand.

Picking (pick)
--------------
- units: perf probe -F's functions (C identifiers defined once; libpython
  only Py*/_Py*), sorted, every k-th (k = len // N_UNITS) taken until
  N_UNITS distinct compile units hold them (llvm-dwarfdump --lookup);
- each unit dumped (llvm-dwarfdump --debug-info=UNIT -c): its abstract
  roots (top-level DW_TAG_subprogram with DW_AT_inline, C identifier
  names) and, per root, how many DW_TAG_inlined_subroutine copies the unit
  has of it; roots with no copy are left out;
- three buckets by that count: one copy, several (2..9), dozens (10 and
  more); from each, sorted by name, PER_BUCKET functions spread evenly;
- per function: its first PARAMS named parameters, and the lines
  1..LINES (from its declaration).

perf's side
-----------
`perf probe -D F` gives the addresses of every copy; `perf probe -D 'F P'`
for each parameter P alone (perf refuses the whole probe when one copy
has no location it can say: a constant, an optimized-out value), and
`perf probe -D F:N` for each line.  A refusal leaves the case out (it is
counted and printed), as perf's own failure.  Cached in
FEVENT_CACHE/inline-xcheck by the binary's build-id, perf's version and
this file's picking parameters.

Comparison
----------
Addresses are canonical as in line_xcheck (file offsets for uprobes,
kernel addresses for kprobes).  For FUNC: the set of addresses must be
the same; at each address, every parameter perf gives a location for must
be read by fevent at the same canonical location and type class.  For
FUNC:N: the same set of addresses wherever perf gives one.
"""
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import fe
import line_xcheck as lx

N_UNITS = 10
PER_BUCKET = 4
PARAMS = 3
LINES = 3
JOBS = 2
CACHE_VERSION = 1
BUCKETS = (("one copy", 1, 1), ("several copies", 2, 9), ("dozens of copies", 10, 10 ** 9))


def _unit_of(target, name):
    out = subprocess.run(["llvm-dwarfdump", f"--lookup={target.sym_addr(name):#x}", target.path],
                         capture_output=True, text=True).stdout
    m = re.search(r"^(0x[0-9a-f]+): DW_TAG_compile_unit", out, re.M)
    return int(m.group(1), 16) if m else None


def parse_unit(text):
    """{root name: {"copies": n, "params": [names]}} of one unit's dump."""
    roots, counts, params = {}, {}, {}
    top = None          # indent of the unit's children
    cur = None          # (offset, tag, indent) of the DIE whose attributes follow
    root_open = None    # (offset, indent) of the root whose children follow
    for line in text.splitlines():
        m = re.match(r"^0x([0-9a-f]+):(\s+)(DW_TAG_\w+|NULL)", line)
        if m:
            off, indent, tag = int(m.group(1), 16), len(m.group(2)), m.group(3)
            if tag == "DW_TAG_compile_unit":
                top = None
                continue
            if top is None:
                top = indent
            if root_open and indent <= root_open[1]:
                root_open = None
            cur = (off, tag, indent)
            continue
        if not cur:
            continue
        a = re.match(r"^\s+(DW_AT_\w+)\s+\((.*)\)$", line)
        if not a:
            continue
        attr, val = a.group(1), a.group(2)
        off, tag, indent = cur
        if tag == "DW_TAG_subprogram" and indent == top and attr == "DW_AT_name":
            roots.setdefault(off, {})["name"] = val.strip('"')
        elif tag == "DW_TAG_subprogram" and indent == top and attr == "DW_AT_inline":
            roots.setdefault(off, {})["inline"] = True
            root_open = (off, indent)
            params[off] = []
        elif (tag == "DW_TAG_formal_parameter" and root_open and indent == root_open[1] + 2
              and attr == "DW_AT_name"):
            params[root_open[0]].append(val.strip('"'))
        elif tag == "DW_TAG_inlined_subroutine" and attr == "DW_AT_abstract_origin":
            o = re.match(r"0x([0-9a-f]+)", val)
            if o:
                counts[int(o.group(1), 16)] = counts.get(int(o.group(1), 16), 0) + 1
    out = {}
    for off, r in roots.items():
        if r.get("inline") and r.get("name") and re.fullmatch(r"[A-Za-z_]\w*", r["name"]) \
                and counts.get(off):
            out[r["name"]] = {"copies": counts[off], "params": params.get(off, [])}
    return out


def pick(target, names):
    """[{"func", "copies" (in its unit), "params", "bucket"}]."""
    k = max(1, len(names) // (3 * N_UNITS))
    units, roots = [], {}
    for n in names[k // 2::k]:
        if len(units) >= N_UNITS:
            break
        u = _unit_of(target, n)
        if u is None or u in units:
            continue
        units.append(u)
        text = subprocess.run(["llvm-dwarfdump", f"--debug-info={u:#x}", "-c", target.path],
                              capture_output=True, text=True).stdout
        for name, r in parse_unit(text).items():
            if name not in roots or r["copies"] > roots[name]["copies"]:
                roots[name] = r
    chosen = []
    for label, lo, hi in BUCKETS:
        cands = sorted(n for n, r in roots.items() if lo <= r["copies"] <= hi)
        step = max(1, len(cands) // PER_BUCKET)
        for n in cands[step // 2::step][:PER_BUCKET]:
            chosen.append({"func": n, "copies": roots[n]["copies"],
                           "params": roots[n]["params"][:PARAMS], "bucket": label})
    return chosen


def _perf_d(target, spec):
    r = lx._perf(target, "-D", spec, timeout=300)
    if r.returncode:
        err = [l.strip() for l in r.stderr.splitlines() if l.strip()]
        return {"error": err[0] if err else f"exit {r.returncode}", "defs": []}
    return {"error": None, "defs": [l for l in r.stdout.splitlines() if l.startswith("p:")]}


def perf_side(target, cases):
    specs = []
    for c in cases:
        specs.append(c["func"])
        specs += [f"{c['func']} {p}" for p in c["params"]]
        specs += [f"{c['func']}:{n}" for n in range(1, LINES + 1)]
    with ThreadPoolExecutor(JOBS) as ex:
        return dict(zip(specs, ex.map(lambda s: _perf_d(target, s), specs)))


def cache_path(target):
    h = hashlib.sha256(open(__file__, "rb").read()).hexdigest()[:12]
    key = f"{target.build_id()}-{lx._perf_version()}-{h}-{CACHE_VERSION}"
    d = os.path.join(lx.cache_dir(), "inline-xcheck")
    os.makedirs(d, exist_ok=True)
    return os.path.join(d, re.sub(r"[^\w.-]", "_", key) + ".json")


def perf_data(target, names, refresh=False):
    path = cache_path(target)
    if not refresh and os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    t0 = time.monotonic()
    cases = pick(target, names)
    data = {"cases": cases, "perf": perf_side(target, cases),
            "seconds": round(time.monotonic() - t0, 1)}
    with open(path + ".part", "w") as f:
        json.dump(data, f)
    os.replace(path + ".part", path)
    return data


def _addr_args(target, lines):
    """{address: {name: (location, class, raw)}} of definition lines."""
    out = {}
    for l in lines:
        p = lx.parse_definition_line(l)
        if not p:
            continue
        _, tgt, args = p
        a = lx.canon_address(target, tgt)
        out[a] = {n: (*lx.canon_var(target, f, t), f"{f}:{t}") for n, f, t in args}
    return out


def fevent_defs(target, spec_text):
    r = fe.run("compile", *target.fevent_args, spec_text)
    if r.returncode:
        return {"error": r.stderr.strip().splitlines()[0] if r.stderr.strip() else "?",
                "defs": []}
    return {"error": None, "defs": [l for l in r.stdout.splitlines() if l.startswith("p:")]}


PERF_NO_VALUE = "\\deade12d"   # perf's immediate for an argument a copy has no value of


def _entry(d):
    for a in ("DW_AT_entry_pc", "DW_AT_low_pc"):
        if a in d.attrs:
            return int(d.attrs[a].strip("()").split()[0], 16)
    r = d.ranges()
    return r[0][0] if r else None


def copy_die(oracle, func, vaddr):
    """The DW_TAG_inlined_subroutine of func whose entry is vaddr, or None
    (llvm-dwarfdump's reading, for the cases where perf and fevent differ)."""
    root = oracle.tree(vaddr)
    todo = [root] if root else []
    while todo:
        d = todo.pop()
        if d.tag == "DW_TAG_inlined_subroutine" and d.name == func and _entry(d) == vaddr:
            return d
        todo.extend(d.children)
    return None


def perf_wrong_var(oracle, target, func, addr, var):
    """Why perf's read of a copy's parameter is wrong, from the DWARF, or None."""
    va = target.offset_to_vaddr(addr) if target.kind == "x" else addr
    d = copy_die(oracle, func, va)
    if d is None:
        return None
    p = next((c for c in d.children if c.tag == "DW_TAG_formal_parameter" and c.name == var), None)
    expr = p.expr_at(va) if p else None
    if expr is None:
        return f"the copy at {va:#x} has no location for it there (optimized out)"
    problem = lx.expr_problem(expr)
    return f"DWARF says {expr}: {problem}" if problem else None


_init = {}


def init_section(target, addr):
    """The name of the kernel's init or exit section holding addr, or None."""
    if target.kind != "k":
        return None
    if target.path not in _init:
        out = subprocess.run(["readelf", "-SW", target.path], capture_output=True,
                             text=True).stdout
        _init[target.path] = [(m.group(1), int(m.group(2), 16), int(m.group(3), 16))
                              for m in re.finditer(r"\]\s+(\.(?:init|exit)\.text)\s+\S+\s+"
                                                   r"([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", out)]
    return next((n for n, a, size in _init[target.path] if a <= addr < a + size), None)


def compare(target, data):
    """(mismatches, perf_wrong, stats) of fevent against perf's side."""
    cases, perf = data["cases"], data["perf"]
    oracle = lx.oracle_for(target)
    mism, wrong = [], []
    st = {"funcs": 0, "copies": 0, "reads": 0, "lines": 0, "line_addrs": 0,
          "perf_refused": 0, "no_value": 0}
    for c in cases:
        f = c["func"]
        pe = perf[f]
        if pe["error"]:
            st["perf_refused"] += 1
            continue
        fv = fevent_defs(target, f"{f}({', '.join(c['params'])})")
        if fv["error"]:
            # a parameter fevent cannot read at any copy: the places alone
            fv = fevent_defs(target, f"{f}()")
        if fv["error"]:
            mism.append(f"{f}: perf gives {len(pe['defs'])} copies; fevent refuses: {fv['error']}")
            continue
        pa, fa = _addr_args(target, pe["defs"]), _addr_args(target, fv["defs"])
        extra = []
        for a in sorted(set(fa) - set(pa), key=str):
            va = target.offset_to_vaddr(a) if target.kind == "x" else a
            d = isinstance(a, int) and copy_die(oracle, f, va)
            if d:
                wrong.append(f"{f} @{lx._hex(a)}: perf misses this copy: DWARF has "
                             f"DW_TAG_inlined_subroutine {d.off:#x} of {f} with its entry there")
            else:
                extra.append(a)
        lacks = []
        for a in sorted(set(pa) - set(fa), key=str):
            sec = isinstance(a, int) and init_section(target, a)
            if sec:
                wrong.append(f"{f} @{lx._hex(a)}: perf probes a copy in {sec}, which the kernel "
                             f"frees after boot and refuses probes in; fevent skips it, saying so")
            else:
                lacks.append(a)
        if extra or lacks:
            mism.append(f"{f}: addresses differ: perf lacks "
                        f"{[lx._hex(a) for a in extra]}, fevent lacks "
                        f"{[lx._hex(a) for a in lacks]}")
        st["funcs"] += 1
        st["copies"] += len(pa)
        for p in c["params"]:
            pp = perf[f"{f} {p}"]
            if pp["error"]:
                st["perf_refused"] += 1
                continue
            for a, args in _addr_args(target, pp["defs"]).items():
                if p not in args:
                    continue
                ploc, pcls, praw = args[p]
                got = fa.get(a, {}).get(p)
                if got and got[2].startswith("+0(") and got[1] == ("string", 0) and \
                        lx.canon_location(target, got[2][3:].rsplit(")", 1)[0]) == ploc:
                    got = (ploc, pcls, got[2])   # a char * read as the text it points at
                if ploc == PERF_NO_VALUE and not got:
                    st["no_value"] += 1         # both: no value at this copy
                    continue
                why = (perf_wrong_var(oracle, target, f, a, p)
                       if not got or (got[0], got[1]) != (ploc, pcls) else None)
                if why:
                    wrong.append(f"{f} {p} @{lx._hex(a)}: perf reads {praw}; {why}; fevent "
                                 + (got[2] if got else "leaves it out"))
                    continue
                if not got:
                    mism.append(f"{f} {p} @{lx._hex(a)}: perf reads {praw}, fevent "
                                f"{'has no such argument' if a in fa else 'has no such address'}")
                elif (got[0], got[1]) != (ploc, pcls):
                    mism.append(f"{f} {p} @{lx._hex(a)}: perf {praw}, fevent {got[2]}")
                else:
                    st["reads"] += 1
        for n in range(1, LINES + 1):
            pl = perf[f"{f}:{n}"]
            if pl["error"]:
                continue
            fl = fevent_defs(target, f"{f}:{n}()")
            pa_l = set(_addr_args(target, pl["defs"]))
            fa_l = set(_addr_args(target, fl["defs"]))
            if fl["error"] or pa_l != fa_l:
                mism.append(f"{f}:{n}: perf {sorted(lx._hex(a) for a in pa_l)}, fevent "
                            + (fl["error"] if fl["error"] else
                               str(sorted(lx._hex(a) for a in fa_l))))
            else:
                st["lines"] += 1
                st["line_addrs"] += len(pa_l)
    return mism, wrong, st


def run_tier(which, refresh=False):
    lx.need_tools()
    if which == "libpython":
        t = lx.libpython_target()
        names = lx.perf_functions(t, ("Py", "_Py"))
    else:
        t = lx.vmlinux_target()
        names = lx.perf_functions(t)
    data = perf_data(t, names, refresh)
    mism, wrong, st = compare(t, data)
    return {"target": t, "data": data, "mismatches": mism, "perf_wrong": wrong, "stats": st}


def summary(res):
    st, cases = res["stats"], res["data"]["cases"]
    buckets = {}
    for c in cases:
        buckets[c["bucket"]] = buckets.get(c["bucket"], 0) + 1
    return (f"{len(cases)} inlined functions ({', '.join(f'{n} with {b}' for b, n in buckets.items())}); "
            f"{st['funcs']} probed by perf at {st['copies']} copies, {st['reads']} parameter reads "
            f"agree ({st['no_value']} more with no value at a copy on both sides), "
            f"{st['lines']} lines at {st['line_addrs']} addresses agree; "
            f"{st['perf_refused']} perf refusals and {len(res['perf_wrong'])} perf errors left out")


if __name__ == "__main__":
    # python3 tests/inline_xcheck.py libpython|vmlinux [--refresh]
    which = sys.argv[1] if len(sys.argv) > 1 else "libpython"
    r = run_tier(which, "--refresh" in sys.argv)
    print(summary(r))
    for c in r["data"]["cases"]:
        print(f"  {c['bucket']}: {c['func']} ({c['copies']} in its unit) {c['params']}")
    for w in r["perf_wrong"]:
        print("LEFT OUT", w)
    for m in r["mismatches"]:
        print("MISMATCH", m)
