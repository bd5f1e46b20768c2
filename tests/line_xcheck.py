"""Cross-check of line probes (DESIGN.md section 8) against perf probe.

For a binary with DWARF (the pyenv libpython, the 6.1 -dbg vmlinux) this
module picks line probes by a rule from what perf probe itself lists, asks
perf probe -D for their definitions, asks fevent compile for the same
places, and compares the two.  Nothing here is chosen by hand.

Picking (pick_libpython / pick_vmlinux)
---------------------------------------
- functions: perf probe -F (the symbol table), names made of C identifier
  characters only, defined once (a static function defined in two files is
  two functions), for libpython only Py*/_Py*; sorted; every k-th one
  (k = len // (3 * n_funcs), starting at k // 2), taken in that order
  until n_funcs functions gave a case and there are min_cases cases
  (libpython 36 and 110, the vmlinux 24 and 60);
- lines: perf probe -L FUNC marks the probe-able lines (relative to the
  declaration line).  perf -L needs the source file, which is not on this
  machine: the module gives it a tree of blank files at the paths the DWARF
  names (perf -v says which) through -s, which is enough for the marks.
  Line 0 (the entry) is left out; of the rest, LINES_PER_FUNC spread
  evenly over the function;
- variables: perf probe -V --range at each picked line, the ones it marks
  [VAL] at every address of the line (never [INV]: its location list does
  not cover the address), of a scalar C type (a pointer, an integer, an
  enum, a typedef of one; not a struct, union, array or floating type),
  named once in perf's list; of those, VARS_PER_LINE: first the function's
  own parameters and locals (in C scope at the address, per the DWARF
  scope tree), those in memory (stack, globals) or constants before those
  in a register, then the ones perf lists from an inlined callee.  A line
  with none is skipped.

perf's side is cached in FEVENT_CACHE (/var/cache/fevent)/line-xcheck,
keyed by the binary's build-id, perf's version and this module's picking
parameters.

Parsing (perf_defs, fevent_defs)
--------------------------------
Both print kprobe_events/uprobe_events lines: `p:GROUP/EVENT TARGET ARGS`.
One line per address; EVENT is FUNC_L<N> (perf: FUNC_L<N>; the extra
addresses of a line _1, _2, ...).  An argument is NAME=FETCH[:TYPE];
arguments named __caller* (fevent's entry-event caller) are ignored.

Canonical forms
---------------
Address:  TARGET is `BIN:0xADDR` (uprobe: an offset in the file),
  `BIN:SYM+OFF`, or `SYM+OFF`/`SYM` (kprobe).  Canonical: one integer,
  the file offset for uprobes and the kernel address for kprobes (SYM
  resolved through the binary's symbol table, file offsets through its
  PT_LOAD headers).
Location: a FETCH without its type, rewritten so equal spellings compare
  equal:
  - registers by their kernel fetch names: %rdi, %edi, %di -> %di;
    %r8d -> %r8; %rip -> %ip;
  - memory: [+|-]N(X), +uN(X) (user memory: same address), hex or decimal
    offsets -> +N(X) / -N(X) with N decimal, X canonical;
  - $stackN -> +8N(%sp), $stack -> %sp;
  - globals: @SYM, @SYM+N, @0xADDR, @+0xOFF (uprobe: file offset)
    -> @0xADDR (kernel address; file offset for uprobes), via the symbol
    table; a symbol the table lacks stays @SYM;
  - constants: \\N, \\0xN -> \\N (decimal, signed);
  - a char pointer read as a string: +0(X):string where the C type
    (from perf -V) is char * -> X (perf reads the pointer, fevent the
    characters it points at: the same location).
Type class: (kind, bits):
  - sN -> ('signed', N); uN and xN -> ('unsigned', N): perf prints every
    unsigned integer and pointer in hex (x types), fevent pointers in hex
    and unsigned integers in decimal: the same bits in another radix;
  - string, ustring -> ('string', 0); and a char * variable (C type from
    perf -V) read as x64/u64 -> ('string', 0) too;
  - bN@O/C -> ('bitfield', 'N@O/C'); symbol -> ('symbol', 64);
  - no type (perf when DWARF gives no size) -> ('default', 0);
  - anything else -> ('other', TYPE).

The DWARF oracle (dwarf_facts)
------------------------------
To tell where perf is wrong rather than fevent, each compared variable is
looked up in the DWARF itself (llvm-dwarfdump: the subprogram around the
address, its lexical blocks, inlined subroutines and location lists):
- `own`: the DIE C's scope rules give at the address: the innermost block
  of FUNC (or of FUNC's inlined copy) that contains the address and
  declares the name, not looking into inlined callees;
- `perf`: the DIE perf's search takes: the first DIE with that name and
  any location, in DWARF order, descending into every DIE that contains the
  address (inlined callees too);
- `expr`: the own DIE's location expression at the address.
compare() leaves out, as perf's error and not fevent's, a variable whose
own DIE is missing (an inlined callee's variable), differs from perf's
(perf reads another variable of the same name), or whose expression perf
cannot translate (more than one operation: perf keeps the first, e.g. a
DW_OP_breg read as memory when DW_OP_stack_value makes it a value;
DW_OP_entry_value, DW_OP_piece ...).  Each is reported with its evidence.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import fe

HERE = os.path.dirname(os.path.abspath(__file__))
LIBPYTHON = "/root/.pyenv/versions/3.11.7/lib/libpython3.11.so.1.0"
LINES_PER_FUNC = 4
VARS_PER_LINE = 3
JOBS = 2
CACHE_VERSION = 1
BLANK_LINES = 100000


class Target:
    """A binary and how perf and fevent are pointed at it."""

    def __init__(self, kind, path):
        self.kind = kind          # 'x' (uprobe, -x) or 'k' (kprobe, --vmlinux)
        self.path = os.path.realpath(path)
        self._syms = None
        self._loads = None
        self._srcdir = None

    @property
    def perf_args(self):
        return ["-x", self.path] if self.kind == "x" else ["-k", self.path]

    @property
    def fevent_args(self):
        return ["-x", self.path] if self.kind == "x" else ["--vmlinux", self.path]

    def build_id(self):
        out = subprocess.run(["readelf", "-n", self.path], capture_output=True, text=True).stdout
        m = re.search(r"Build ID: ([0-9a-f]+)", out)
        if m:
            return m.group(1)
        st = os.stat(self.path)
        return f"{st.st_size}-{int(st.st_mtime)}"

    def symbols(self):
        """name -> [addresses] of the function and object symbols."""
        if self._syms is None:
            self._syms = {}
            out = subprocess.run(["nm", self.path], capture_output=True, text=True).stdout
            for line in out.splitlines():
                f = line.split()
                if len(f) == 3 and f[1] in "tTwWdDbBrRvV":
                    self._syms.setdefault(f[2], []).append(int(f[0], 16))
        return self._syms

    def sym_addr(self, name):
        a = self.symbols().get(name)
        return a[0] if a and len(set(a)) == 1 else None

    def loads(self):
        """[(vaddr, offset, filesz)] of the PT_LOAD segments."""
        if self._loads is None:
            out = subprocess.run(["readelf", "-lW", self.path], capture_output=True,
                                 text=True).stdout
            self._loads = [(int(m.group(2), 16), int(m.group(1), 16), int(m.group(3), 16))
                           for m in re.finditer(r"LOAD\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+"
                                                r"0x[0-9a-f]+\s+0x([0-9a-f]+)", out)]
        return self._loads

    def vaddr_to_offset(self, va):
        for v, o, sz in self.loads():
            if v <= va < v + sz:
                return va - v + o
        return va

    def offset_to_vaddr(self, off):
        for v, o, sz in self.loads():
            if o <= off < o + sz:
                return off - o + v
        return off

    def probe_addr(self, vaddr):
        """What a probe target spells: file offset (uprobe) or address."""
        return self.vaddr_to_offset(vaddr) if self.kind == "x" else vaddr


# ---------------------------------------------------------------- perf runs

def _perf(target, *args, timeout=600):
    return subprocess.run(["perf", "probe", *target.perf_args, *args], capture_output=True,
                          text=True, timeout=timeout)


def perf_functions(target, prefix=()):
    """perf probe -F, C identifiers defined once, sorted."""
    r = _perf(target, "-F")
    syms = target.symbols()
    names = sorted({n for n in r.stdout.split()
                    if re.fullmatch(r"[A-Za-z_]\w*", n) and len(syms.get(n, ())) == 1})
    if prefix:
        names = [n for n in names if n.startswith(tuple(prefix))]
    return names


def _blank_source(target, srcdir, path):
    full = os.path.join(srcdir, path.lstrip("/"))
    if not os.path.exists(full):
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full + ".part", "w") as f:
            f.write("\n" * BLANK_LINES)
        os.replace(full + ".part", full)


def perf_lines(target, func, srcdir, where=None):
    """The lines perf probe -L marks in FUNC (relative numbers), or None;
    where, a dict, gets perf's file and declaration line of FUNC."""
    for _ in range(3):
        r = _perf(target, "-v", "-s", srcdir, "-L", func, timeout=120)
        if r.returncode == 0:
            out = r.stdout.splitlines()
            if not out or not out[0].startswith("<"):
                return None
            m = re.search(r"fname: (.+?), lineno:\s*(\d+)", r.stderr)
            if m and where is not None:
                where.update(file=m.group(1), decl_line=int(m.group(2)))
            return [int(m.group(1)) for l in out[1:] for m in [re.match(r"\s*(\d+)\s", l)] if m]
        m = re.search(r"^path: (.+)$", r.stderr, re.M)
        if not m or "Failed to find source file path" not in r.stderr:
            return None
        _blank_source(target, srcdir, m.group(1))
    return None


def parse_vars(out):
    """perf probe -V [--range] output -> {spec: [(where, [var dicts])]}."""
    res, spec, cur = {}, None, None
    for line in out.splitlines():
        m = re.match(r"Available variables at (.+)$", line)
        if m:
            spec = m.group(1).strip()
            res[spec] = []
            continue
        m = re.match(r"\t@<(.+)>$", line)
        if m and spec:
            cur = []
            res[spec].append((m.group(1), cur))
            continue
        if line.startswith("\t\t") and cur is not None and "(No matched" not in line:
            f = line.strip("\t").split("\t")
            flag = None
            if f[0] in ("[VAL]", "[INV]", "[EXT]"):
                flag, f = f[0][1:-1], f[1:]
            if len(f) >= 2:
                cur.append({"flag": flag, "ctype": f[0], "name": f[1],
                            "range": f[2] if len(f) > 2 else ""})
    return res


def perf_vars(target, specs):
    """perf probe -V --range for several FUNC:N at once (perf takes many -V)."""
    if not specs:
        return {}
    argv = ["--range"]
    for s in specs:
        argv += ["-V", s]
    r = _perf(target, *argv)
    got = parse_vars(r.stdout)
    if len(got) < len(specs) and len(specs) > 1:
        # one failing spec (no address for that line) stops perf: one by one
        got = {}
        for s in specs:
            got.update(parse_vars(_perf(target, "--range", "-V", s).stdout))
    return got


# ------------------------------------------------------------- definitions

TYPE_RE = re.compile(r"^(?:[sux](?:8|16|32|64)(?:\[\d+\])?|string|ustring|symbol|char"
                     r"|b\d+@\d+/\d+)$")
REG_ALIASES = {}
for _r in ("ax", "bx", "cx", "dx", "si", "di", "bp", "sp"):
    REG_ALIASES.update({"r" + _r: _r, "e" + _r: _r, _r: _r})
for _n in range(8, 16):
    REG_ALIASES.update({f"r{_n}": f"r{_n}", f"r{_n}d": f"r{_n}", f"r{_n}w": f"r{_n}",
                        f"r{_n}b": f"r{_n}"})
REG_ALIASES.update({"rip": "ip", "ip": "ip", "flags": "flags"})


def parse_definition_line(line):
    """'p:G/E TARGET a=F:T ...' -> (event, target, [(name, fetch, type)])."""
    f = line.split()
    if len(f) < 2 or not re.match(r"^[pr](?::|$)", f[0]):
        return None
    event = f[0].split("/", 1)[1] if "/" in f[0] else f[0]
    args = []
    for a in f[2:]:
        if "=" not in a:
            continue
        name, val = a.split("=", 1)
        if name.startswith("__caller"):
            continue
        typ = None
        if ":" in val:
            head, tail = val.rsplit(":", 1)
            if TYPE_RE.match(tail):
                val, typ = head, tail
        args.append((name, val, typ))
    return event, f[1], args


def canon_address(target, text):
    """A probe target -> int (file offset for uprobes, address for kprobes),
    or the text when it cannot be resolved."""
    if target.kind == "x":
        if ":" in text:
            text = text.rsplit(":", 1)[1]
        if re.fullmatch(r"0x[0-9a-fA-F]+|\d+", text):
            return int(text, 0)
        m = re.fullmatch(r"([\w.]+)(?:\+(0x[0-9a-fA-F]+|\d+))?", text)
        if m and target.sym_addr(m.group(1)) is not None:
            return target.vaddr_to_offset(target.sym_addr(m.group(1)) + int(m.group(2) or "0", 0))
        return text
    m = re.fullmatch(r"([\w.]+)(?:\+(0x[0-9a-fA-F]+|\d+))?", text)
    if m and target.sym_addr(m.group(1)) is not None:
        return target.sym_addr(m.group(1)) + int(m.group(2) or "0", 0)
    if re.fullmatch(r"0x[0-9a-fA-F]+", text):
        return int(text, 16)
    return text


def _split_deref(s):
    """'+8(+16(%di))' -> (8, '+16(%di)') or None."""
    m = re.match(r"^([+-]?)(u?)(0x[0-9a-fA-F]+|\d+)\((.*)\)$", s)
    if not m:
        return None
    n = int(m.group(3), 0)
    return (-n if m.group(1) == "-" else n), m.group(4)


def canon_location(target, fetch):
    s = fetch.strip()
    d = _split_deref(s)
    if d:
        off, inner = d
        return f"{off:+d}({canon_location(target, inner)})"
    m = re.fullmatch(r"%(\w+)", s)
    if m:
        return "%" + REG_ALIASES.get(m.group(1), m.group(1))
    m = re.fullmatch(r"\$stack(\d*)", s)
    if m:
        return f"{8 * int(m.group(1)):+d}(%sp)" if m.group(1) else "%sp"
    m = re.fullmatch(r"\\(-?(?:0x[0-9a-fA-F]+|\d+))", s)
    if m:
        return "\\" + str(int(m.group(1), 0))
    m = re.fullmatch(r"@\+(0x[0-9a-fA-F]+|\d+)", s)
    if m:  # uprobe: a file offset
        return "@" + hex(int(m.group(1), 0))
    m = re.fullmatch(r"@(0x[0-9a-fA-F]+)", s)
    if m:
        a = int(m.group(1), 16)
        return "@" + hex(target.vaddr_to_offset(a) if target.kind == "x" else a)
    m = re.fullmatch(r"@([A-Za-z_][\w.]*)(?:([+-])(0x[0-9a-fA-F]+|\d+))?", s)
    if m:
        base = target.sym_addr(m.group(1))
        off = int(m.group(3) or "0", 0) * (-1 if m.group(2) == "-" else 1)
        if base is None:
            return f"@{m.group(1)}{off:+d}"
        return "@" + hex(target.probe_addr(base + off))
    return s


def is_char_pointer(ctype):
    return bool(ctype) and re.fullmatch(r"(?:const )?(?:signed |unsigned )?char\s*\*",
                                        ctype.strip()) is not None


def type_class(typ, ctype=None):
    if typ is None:
        return ("default", 0)
    m = re.fullmatch(r"([sux])(8|16|32|64)", typ)
    if m:
        if is_char_pointer(ctype) and typ in ("x64", "u64"):
            return ("string", 0)
        return ("signed" if m.group(1) == "s" else "unsigned", int(m.group(2)))
    if typ in ("string", "ustring"):
        return ("string", 0)
    if typ.startswith("b"):
        return ("bitfield", typ[1:])
    if typ == "symbol":
        return ("symbol", 64)
    return ("other", typ)


def canon_var(target, fetch, typ, ctype=None):
    """(canonical location, type class) of one fetch argument."""
    if typ in ("string", "ustring") and is_char_pointer(ctype):
        d = _split_deref(fetch)
        if d and d[0] == 0:
            fetch = d[1]
    return canon_location(target, fetch), type_class(typ, ctype)


def parse_defs(target, out, ctypes=None, names=None):
    """Definition lines -> [(event, address, {var: (loc, class, raw)}, line)]
    (perf -D repeats a line's event name for each address, fevent suffixes
    _1, _2...).  names: the variables asked for, in order: an argument
    whose name is not one of them (a field renamed to avoid a reserved or
    repeated name) is taken as the one at its position."""
    ctypes = ctypes or {}
    defs = []
    for line in out.splitlines():
        p = parse_definition_line(line)
        if not p:
            continue
        event, tgt, args = p
        vs = {}
        for i, (name, fetch, typ) in enumerate(args):
            if names and name not in names and len(args) == len(names):
                name = names[i]
            loc, cls = canon_var(target, fetch, typ, ctypes.get(name))
            vs[name] = (loc, cls, f"{name}={fetch}:{typ}" if typ else f"{name}={fetch}")
        defs.append((event, canon_address(target, tgt), vs, line.strip()))
    return defs


def event_base(func, line):
    return re.sub(r"[^A-Za-z0-9_]", "_", func) + f"_L{line}"


def _by_case(cases, defs):
    """Group event definitions by case: [(address, {var: ...}, raw)] per case."""
    out = {}
    for c in cases:
        base = event_base(c["func"], c["line"])
        pat = re.compile(re.escape(base) + r"(?:_\d+)?$")
        out[c["key"]] = sorted((d[1:] for d in defs if pat.match(d[0])),
                               key=lambda d: str(d[0]))
    return out


def _perf_spec(c, vars_):
    return " ".join([f"{c['func']}:{c['line']}", *vars_])


def _perf_batch(target, specs):
    argv = []
    for s in specs:
        argv += ["-D", s]
    return _perf(target, *argv)


def _perf_run_cases(target, cases):
    """Run perf -D on cases, halving failing batches.  key -> (stdout, err)."""
    if not cases:
        return {}
    r = _perf_batch(target, [_perf_spec(c, c["vars"]) for c in cases])
    if r.returncode == 0:
        return {c["key"]: (r.stdout, None) for c in cases}
    if len(cases) == 1:
        return {cases[0]["key"]: (None, _perf_message(r.stderr))}
    h = len(cases) // 2
    return {**_perf_run_cases(target, cases[:h]), **_perf_run_cases(target, cases[h:])}


def _perf_message(err):
    lines = [l.strip() for l in err.splitlines()
             if l.strip() and not l.startswith("  Error: Failed to add events")]
    return " ".join(lines) or err.strip()


def perf_defs(target, cases, jobs=JOBS):
    """perf probe -D for every case.  Returns {key: {"defs": [(address,
    {var: (loc, class, raw)}, line)], "failed": {var: message},
    "error": message-or-None}}: where a case's spec fails, the line alone
    and each variable alone are tried, so one unreadable variable does not
    hide the others."""
    chunks = [cases[i:i + 16] for i in range(0, len(cases), 16)]
    raw = {}
    with ThreadPoolExecutor(jobs) as pool:
        for part in pool.map(lambda ch: _perf_run_cases(target, ch), chunks):
            raw.update(part)
    res = {}
    retry = []
    for c in cases:
        out, err = raw[c["key"]]
        if out is not None:
            ct = {v: c["ctypes"].get(v) for v in c["vars"]}
            res[c["key"]] = {"defs": _by_case([c], parse_defs(target, out, ct,
                                                              c["vars"]))[c["key"]],
                             "failed": {}, "error": None}
        else:
            retry.append((c, err))

    def isolate(item):
        c, err = item
        alone = _perf(target, "-D", _perf_spec(c, []))
        if alone.returncode != 0:
            return c["key"], {"defs": [], "failed": {}, "error": _perf_message(alone.stderr)}
        ok, failed = [], {}
        for v in c["vars"]:
            r = _perf(target, "-D", _perf_spec(c, [v]))
            (ok.append(v) if r.returncode == 0 else
             failed.__setitem__(v, _perf_message(r.stderr)))
        defs = []
        if ok:
            r = _perf(target, "-D", _perf_spec(c, ok))
            if r.returncode == 0:
                ct = {v: c["ctypes"].get(v) for v in ok}
                defs = _by_case([c], parse_defs(target, r.stdout, ct, ok))[c["key"]]
            else:
                failed.update({v: _perf_message(r.stderr) for v in ok})
        else:
            defs = _by_case([c], parse_defs(target, alone.stdout))[c["key"]]
        return c["key"], {"defs": defs, "failed": failed, "error": None}

    with ThreadPoolExecutor(jobs) as pool:
        for k, v in pool.map(isolate, retry):
            res[k] = v
    return res


def fevent_proto(func, line, vars_):
    """fevent's spelling of a line probe reading variables by name."""
    return f"{func}:{line}({', '.join(vars_)})"


def _fevent_compile(target, protos):
    with tempfile.NamedTemporaryFile("w", suffix=".protos") as f:
        f.write("".join(p + "\n" for p in protos))
        f.flush()
        return subprocess.run([fe.binary(), "compile", *target.fevent_args, "-f", f.name],
                              capture_output=True, text=True, timeout=600)


def _fevent_run(target, items):
    """items: [(key, proto)] -> {key: (stdout, err)}; halves failing batches
    (fevent compile is all or nothing)."""
    if not items:
        return {}
    r = _fevent_compile(target, [p for _, p in items])
    if r.returncode == 0:
        return {k: (r.stdout, None) for k, _ in items}
    if len(items) == 1:
        return {items[0][0]: (None, r.stderr.strip() or f"exit {r.returncode}")}
    h = len(items) // 2
    return {**_fevent_run(target, items[:h]), **_fevent_run(target, items[h:])}


def fevent_defs(target, cases, read=None):
    """fevent compile for every case.  read: {key: [vars]} to read instead
    of the case's own list (the variables perf gave a right definition
    for).  Same shape as perf_defs, "error" holding fevent's message when
    it refused."""
    items = [(c["key"], fevent_proto(c["func"], c["line"],
                                     c["vars"] if read is None else read[c["key"]]))
             for c in cases]
    raw = _fevent_run(target, items)
    res = {}
    for c in cases:
        out, err = raw[c["key"]]
        names = c["vars"] if read is None else read[c["key"]]
        if out is None:
            res[c["key"]] = {"defs": [], "failed": {}, "error": err}
        else:
            ct = {v: c["ctypes"].get(v) for v in c["vars"]}
            res[c["key"]] = {"defs": _by_case([c], parse_defs(target, out, ct, names))[c["key"]],
                             "failed": {}, "error": None}
    return res


def fevent_on_perf_errors(target, cases, perf, facts, known=None):
    """What fevent says for each variable perf is wrong about (one prototype
    per variable): {(key, var): fevent's definition line(s) or error}."""
    todo = {c["key"]: wrong_vars(c, perf, facts, known) for c in cases}
    by_key = {c["key"]: c for c in cases}
    out = {}
    for i in range(max((len(v) for v in todo.values()), default=0)):
        items = [(k, fevent_proto(by_key[k]["func"], by_key[k]["line"], [vs[i]]))
                 for k, vs in todo.items() if len(vs) > i]
        for k, (stdout, err) in _fevent_run(target, items).items():
            c = by_key[k]
            if stdout is None:
                out[(k, todo[k][i])] = re.sub(r"^fevent: error: \S+?:\d+:\d+: ", "",
                                              err.splitlines()[0])
            else:
                pat = re.compile(re.escape(event_base(c["func"], c["line"])) + r"(?:_\d+)?$")
                out[(k, todo[k][i])] = " / ".join(
                    " ".join(l.split()[1:]) for l in stdout.splitlines()
                    if l.split() and pat.match(l.split()[0].split("/")[-1]))
    return out


def wrong_vars(c, perf, facts, known=None):
    """The variables of case c that perf defines wrongly at some address."""
    known = known or {}
    bad = []
    p = perf[c["key"]]
    spec = f"{c['func']}:{c['line']}"
    for addr, vs, _ in p["defs"]:
        for v, (ploc, _, _) in vs.items():
            if v not in bad and (perf_is_wrong(facts.get(fact_key(c, addr, v)), ploc)
                                 or known.get((spec, v))):
                bad.append(v)
    return bad


def fact_key(c, addr, var):
    return f"{c['key']}@{hex(addr) if isinstance(addr, int) else addr}:{var}"


# ------------------------------------------------------------ DWARF oracle

class Die:
    __slots__ = ("off", "tag", "depth", "attrs", "children", "parent")

    def __init__(self, off, tag, depth):
        self.off, self.tag, self.depth = off, tag, depth
        self.attrs, self.children, self.parent = {}, [], None

    @property
    def name(self):
        a = self.attrs.get("DW_AT_name") or self.attrs.get("DW_AT_abstract_origin") or ""
        m = re.search(r'"(.*)"', a)
        return m.group(1) if m else None

    def ranges(self):
        lo, hi = self.attrs.get("DW_AT_low_pc"), self.attrs.get("DW_AT_high_pc")
        if lo and hi:
            return [(int(lo.strip("()"), 16), int(hi.strip("()"), 16))]
        r = self.attrs.get("DW_AT_ranges")
        if r:
            return [(int(a, 16), int(b, 16))
                    for a, b in re.findall(r"\[(0x[0-9a-f]+), (0x[0-9a-f]+)\)", r)]
        return []

    def haspc(self, a):
        return any(lo <= a < hi for lo, hi in self.ranges())

    def has_location(self):
        return any(k in self.attrs for k in ("DW_AT_location", "DW_AT_const_value",
                                              "DW_AT_external"))

    def expr_at(self, a):
        """The location expression (llvm-dwarfdump's text) at address a;
        None when the location list does not cover it."""
        if "DW_AT_const_value" in self.attrs:
            return "DW_AT_const_value " + self.attrs["DW_AT_const_value"].strip("()")
        loc = self.attrs.get("DW_AT_location")
        if loc is None:
            return None
        body = loc.strip()[1:-1] if loc.strip().startswith("(") else loc
        ents = re.findall(r"\[(0x[0-9a-f]+), (0x[0-9a-f]+)\): ([^\n]*)", body)
        if not ents and "[0x" not in body:
            return body.strip()
        for lo, hi, e in ents:
            if int(lo, 16) <= a < int(hi, 16):
                return e.strip().rstrip(")")
        return None


def parse_dwarfdump(text):
    """llvm-dwarfdump --show-children output -> the root Die."""
    root, stack, cur, key = None, [], None, None
    for line in text.splitlines():
        m = re.match(r"^(0x[0-9a-f]+):(\s+)(DW_TAG_\w+|NULL)", line)
        if m:
            if m.group(3) == "NULL":
                cur = key = None
                continue
            depth = len(m.group(2))
            d = Die(int(m.group(1), 16), m.group(3), depth)
            while stack and stack[-1].depth >= depth:
                stack.pop()
            if stack:
                d.parent = stack[-1]
                stack[-1].children.append(d)
            elif root is None:
                root = d
            stack.append(d)
            cur, key = d, None
            continue
        m = re.match(r"^\s+(DW_AT_\w+)\s+(.*)$", line)
        if m and cur is not None:
            key = m.group(1)
            cur.attrs[key] = m.group(2)
        elif cur is not None and key and line.strip():
            cur.attrs[key] += "\n" + line.strip()
    return root


SIMPLE_OP = re.compile(r"^(?:DW_OP_reg\d+ \w+|DW_OP_breg\d+ \w+[+-]\d+|DW_OP_fbreg -?\d+"
                       r"|DW_OP_regx \S+|DW_OP_bregx \S+ [+-]?\d+|DW_OP_addr 0x[0-9a-f]+)$")


def expr_problem(expr):
    """Why perf cannot translate this location expression, or None."""
    if expr is None:
        return None
    if expr.startswith("DW_AT_const_value"):
        return None
    if SIMPLE_OP.match(expr):
        return None
    ops = [o.strip() for o in re.split(r",\s*(?=DW_OP_)", expr)]
    first = ops[0].split()[0] if ops else expr
    if "DW_OP_entry_value" in expr or "DW_OP_GNU_entry_value" in expr:
        what = "DW_OP_entry_value (the value the caller passed)"
    elif "DW_OP_piece" in expr:
        what = "DW_OP_piece (a variable in several places)"
    elif "DW_OP_stack_value" in expr:
        what = "DW_OP_stack_value (a computed value, not a place)"
    elif "DW_OP_implicit" in expr:
        what = "an implicit value or pointer"
    else:
        what = f"{len(ops)} operations"
    if re.match(r"DW_OP_(b?reg|fbreg|addr)", first):
        return f"{what}; perf translates only the first operation, {ops[0]}"
    return what


_oracles = {}


def oracle_for(target):
    if target.path not in _oracles:
        _oracles[target.path] = Oracle(target)
    return _oracles[target.path]


class Oracle:
    """Scope and location facts from the DWARF, by llvm-dwarfdump."""

    def __init__(self, target):
        self.target = target
        self.trees = {}
        self.offsets = {}
        self.tables = {}

    def _subprogram_offset(self, addr):
        if addr not in self.offsets:
            self.offsets[addr] = self._lookup(addr)
        return self.offsets[addr]

    def _lookup(self, addr):
        r = subprocess.run(["llvm-dwarfdump", f"--lookup={hex(addr)}", "-p", self.target.path],
                           capture_output=True, text=True, timeout=300)
        m = re.search(r"^(0x[0-9a-f]+):\s+DW_TAG_subprogram", r.stdout, re.M)
        return int(m.group(1), 16) if m else None

    def tree(self, addr):
        off = self._subprogram_offset(addr)
        if off is None:
            return None
        if off not in self.trees:
            r = subprocess.run(["llvm-dwarfdump", f"--debug-info={hex(off)}", "-c",
                                self.target.path], capture_output=True, text=True, timeout=300)
            self.trees[off] = parse_dwarfdump(r.stdout)
        return self.trees[off]

    def line_rows(self, addr):
        """The line-table rows at addr: [(file name, line, is_stmt)]."""
        r = subprocess.run(["llvm-dwarfdump", f"--lookup={hex(addr)}", self.target.path],
                           capture_output=True, text=True, timeout=300)
        m = re.search(r"DW_AT_stmt_list\s+\((0x[0-9a-f]+)\)", r.stdout)
        if not m:
            return []
        off = int(m.group(1), 16)
        if off not in self.tables:
            self.tables[off] = self._line_table(off)
        return self.tables[off].get(addr, [])

    def _line_table(self, off):
        r = subprocess.run(["llvm-dwarfdump", f"--debug-line={hex(off)}", self.target.path],
                           capture_output=True, text=True, timeout=300)
        names, rows, idx = {}, {}, None
        for line in r.stdout.splitlines():
            m = re.match(r"file_names\[\s*(\d+)\]:", line)
            if m:
                idx = int(m.group(1))
                continue
            m = re.match(r'\s+name: "(.*)"', line)
            if m and idx is not None:
                names[idx] = m.group(1)
                idx = None
                continue
            m = re.match(r"(0x[0-9a-f]{16})\s+(\d+)\s+(\d+)\s+(\d+)\s+\d+\s+\d+\s*(.*)$", line)
            if m:
                rows.setdefault(int(m.group(1), 16), []).append(
                    (names.get(int(m.group(4)), "?"), int(m.group(2)),
                     "is_stmt" in m.group(5), "end_sequence" in m.group(5)))
        return rows

    def address_fact(self, func, addr, file, line):
        """Is addr code of FILE:LINE?  None when it is (the last line-table
        row at addr is that line, or addr starts an inlined callee called
        from it), a reason when it is not, '?' when the table cannot tell."""
        rows = [r for r in self.line_rows(addr) if not r[3]]
        base = os.path.basename(file or "")
        mine = [r for r in rows if r[1] == line and os.path.basename(r[0]) == base]
        if not rows:
            return "?"
        last = rows[-1]
        if last[1] == line and os.path.basename(last[0]) == base:
            return None
        root = self.tree(addr)
        chain = self._chain(root, addr) if root else []
        insts = [i for i, d in enumerate(chain)
                 if d.tag in ("DW_TAG_subprogram", "DW_TAG_inlined_subroutine") and d.name == func]
        callee = None
        if insts:
            callee = next((d for d in chain[insts[-1] + 1:]
                           if d.tag == "DW_TAG_inlined_subroutine"), None)
        if callee is not None:
            cl = re.search(r"\d+", callee.attrs.get("DW_AT_call_line", ""))
            if cl and int(cl.group()) == line:
                return None
        if not mine:
            return f"the line table has no row of {base}:{line} at {hex(addr)}"
        return (f"the rows of {base}:{line} at {hex(addr)} are empty: its instruction is "
                f"{os.path.basename(last[0])}:{last[1]} (the last row there)"
                + (f", code of the inlined {callee.name} called from line "
                   f"{callee.attrs.get('DW_AT_call_line', '?').strip('()')}" if callee else ""))

    @staticmethod
    def _chain(root, addr):
        chain = [root]
        while True:
            nxt = [c for c in chain[-1].children
                   if c.tag in ("DW_TAG_lexical_block", "DW_TAG_inlined_subroutine")
                   and c.haspc(addr)]
            if not nxt:
                return chain
            chain.append(nxt[0])

    def facts(self, func, vaddr, var):
        """{'own': desc|None, 'perf': desc|None, 'expr': text|None,
        'inlined_in': name|None, 'problem': text|None}."""
        root = self.tree(vaddr)
        if root is None:
            return None
        chain = self._chain(root, vaddr)
        # FUNC's instances around the address: perf searches from the
        # outermost (the first DIE named FUNC it meets), C's scope is the
        # innermost (GCC inlines a function into itself at times)
        insts = [d for d in chain
                 if d.tag in ("DW_TAG_subprogram", "DW_TAG_inlined_subroutine") and d.name == func]
        inner = insts[-1] if insts else root
        outer = insts[0] if insts else root
        own = None
        scopes = chain[chain.index(inner):]
        cut = next((i for i, d in enumerate(scopes) if i and d.tag == "DW_TAG_inlined_subroutine"),
                   len(scopes))
        for d in reversed(scopes[:cut]):
            for c in d.children:
                if c.tag in ("DW_TAG_formal_parameter", "DW_TAG_variable") and c.name == var:
                    own = c
                    break
            if own:
                break
        perf = self._perf_search(outer, var, vaddr)
        inlined_in = None
        if perf is not None and perf is not own:
            p = perf.parent
            while p is not None and p is not outer:
                if p.tag == "DW_TAG_inlined_subroutine":
                    inlined_in = p.name
                    break
                p = p.parent
        expr = own.expr_at(vaddr) if own else None
        return {"own": own and f"{own.tag[7:]} {var} at {hex(own.off)}"
                + (" of an inlined copy of the function" if inner is not outer else ""),
                "perf": perf and f"{perf.tag[7:]} {var} at {hex(perf.off)}",
                "same": own is perf and own is not None,
                "inlined_in": inlined_in,
                "expr": expr,
                "perf_expr": perf.expr_at(vaddr) if perf else None,
                "problem": expr_problem(expr) if own else None}

    @staticmethod
    def _perf_search(scope, var, addr):
        for c in scope.children:
            if (c.tag in ("DW_TAG_formal_parameter", "DW_TAG_variable") and c.name == var
                    and c.has_location()):
                return c
            if c.haspc(addr):
                f = Oracle._perf_search(c, var, addr)
                if f is not None:
                    return f
        return None


# ---------------------------------------------------------------- picking

SCALAR_WORDS = re.compile(r"^(?:const |volatile |unsigned |signed )*(?:char|short|int|long|"
                          r"long long|long int|short int|_Bool|bool|size_t|ssize_t|\w+_t|"
                          r"[us](?:8|16|32|64)|__[us](?:8|16|32|64)|enum \w+|Py_\w+|"
                          r"gfp_t|fmode_t|umode_t|dev_t|pid_t|uid_t|gid_t|loff_t|sector_t|"
                          r"pgoff_t|atomic_long_t)(?: int)?$")
NOT_SCALAR = re.compile(r"^(?:const )?(?:struct|union) |\[|^(?:float|double|long double)$"
                        r"|^(?:Py_buffer|Py_complex|atomic_t|spinlock_t|raw_spinlock_t|"
                        r"refcount_t|kuid_t|kgid_t|cpumask_t|nodemask_t|seqcount_t|"
                        r"local_lock_t|pte_t|pmd_t|pud_t|p4d_t|pgd_t|pgprot_t|"
                        r"swp_entry_t|ktime_t|wait_queue_head_t|Py_UCS4)$")


def scalar_ctype(ctype):
    if "*" in ctype and "(" not in ctype:
        return True
    if NOT_SCALAR.search(ctype):
        return False
    return SCALAR_WORDS.match(ctype) is not None


def _spread(lines, n):
    if len(lines) <= n:
        return list(lines)
    return sorted({lines[(2 * i + 1) * len(lines) // (2 * n)] for i in range(n)})


def _parse_where(where):
    m = re.fullmatch(r"([\w.]+)\+(\d+)", where)
    return (m.group(1), int(m.group(2))) if m else (where, 0)


def _pick_function(target, func, srcdir, oracle):
    decl = {}
    lines = perf_lines(target, func, srcdir, decl)
    if not lines:
        return []
    picked = _spread([n for n in lines if n > 0], LINES_PER_FUNC)
    specs = [f"{func}:{n}" for n in picked]
    got = perf_vars(target, specs)
    cases = []
    for n, spec in zip(picked, specs):
        blocks = got.get(spec)
        if not blocks:
            continue
        per_addr = []
        for where, vs in blocks:
            names = [v["name"] for v in vs]
            per_addr.append({v["name"]: v for v in vs
                             if v["flag"] == "VAL" and names.count(v["name"]) == 1
                             and scalar_ctype(v["ctype"])})
        common = [k for k in per_addr[0] if all(k in p for p in per_addr[1:])]
        if not common:
            continue
        # own variables first (C scope at the first address), then the
        # ones perf lists from inlined callees
        sym, off = _parse_where(blocks[0][0])
        base = target.sym_addr(sym)
        own, other = [], []
        for k in sorted(common):
            f = oracle.facts(func, base + off, k) if base is not None else None
            if f and f["own"]:
                # memory, stack and constant locations before registers
                in_reg = bool(re.match(r"DW_OP_regx? ", f["expr"] or "")) and \
                    "," not in (f["expr"] or "")
                own.append((in_reg, k))
            else:
                other.append(k)
        chosen = ([k for _, k in sorted(own)] + other)[:VARS_PER_LINE]
        cases.append({"key": spec, "func": func, "line": n, "vars": chosen,
                      "ctypes": {k: per_addr[0][k]["ctype"] for k in chosen},
                      "where": [w for w, _ in blocks],
                      "inlined_only": [k for k in chosen if k in other],
                      "file": decl.get("file"),
                      "abs_line": decl["decl_line"] + n if "decl_line" in decl else None})
    return cases


def pick(target, names, n_funcs, min_cases, jobs=JOBS):
    """Every k-th of names, in order, until n_funcs functions gave cases and
    there are min_cases cases; returns the cases."""
    srcdir = os.path.join(cache_dir(), "src-" + target.build_id())
    os.makedirs(srcdir, exist_ok=True)
    oracle = oracle_for(target)
    step = max(1, len(names) // (n_funcs * 3))
    order = names[step // 2::step]
    cases, funcs = [], 0
    with ThreadPoolExecutor(jobs) as pool:
        for i in range(0, len(order), jobs * 2):
            for got in pool.map(lambda f: _pick_function(target, f, srcdir, oracle),
                                order[i:i + jobs * 2]):
                if got:
                    cases += got
                    funcs += 1
            if funcs >= n_funcs and len(cases) >= min_cases:
                break
    return cases


# ---------------------------------------------------------------- caching

def cache_dir():
    d = os.path.join(os.environ.get("FEVENT_CACHE", "/var/cache/fevent"), "line-xcheck")
    try:
        os.makedirs(d, exist_ok=True)
        if not os.access(d, os.W_OK):
            raise OSError
    except OSError:
        d = os.path.join(tempfile.gettempdir(), "fevent-line-xcheck")
        os.makedirs(d, exist_ok=True)
    return d


def _perf_version():
    return subprocess.run(["perf", "--version"], capture_output=True, text=True).stdout.strip()


def perf_side(target, names, n_funcs, min_cases, refresh=False):
    """Cases, perf's definitions and the DWARF facts, cached by build-id."""
    with open(os.path.abspath(__file__), "rb") as f:
        me = hashlib.sha1(f.read()).hexdigest()[:12]
    key = f"{target.kind}-{target.build_id()}-{n_funcs}-{min_cases}"
    path = os.path.join(cache_dir(), f"{key}.json")
    if not refresh and os.path.exists(path):
        with open(path) as f:
            data = json.load(f)
        if data.get("stamp") == [CACHE_VERSION, _perf_version(), me]:
            return _untuple(data)
    t0 = time.monotonic()
    cases = pick(target, names, n_funcs, min_cases)
    t1 = time.monotonic()
    perf = perf_defs(target, cases)
    t2 = time.monotonic()
    oracle = oracle_for(target)
    facts = {}
    for c in cases:
        for d in perf[c["key"]]["defs"]:
            addr = d[0]
            va = target.offset_to_vaddr(addr) if target.kind == "x" else addr
            if not isinstance(va, int):
                continue
            for v in d[1]:
                facts[f"{c['key']}@{hex(addr)}:{v}"] = oracle.facts(c["func"], va, v)
        for v in perf[c["key"]]["failed"]:
            for where in c["where"]:
                sym, off = _parse_where(where)
                if target.sym_addr(sym) is None:
                    continue
                va = target.sym_addr(sym) + off
                facts[f"{c['key']}@{where}:{v}"] = oracle.facts(c["func"], va, v)
    t3 = time.monotonic()
    data = {"stamp": [CACHE_VERSION, _perf_version(), me], "cases": cases, "perf": perf,
            "facts": facts, "seconds": {"pick": t1 - t0, "perf -D": t2 - t1, "dwarf": t3 - t2}}
    tmp = path + f".{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(data, f)
    os.replace(tmp, path)
    return _untuple(data)


def _untuple(data):
    for r in data["perf"].values():
        r["defs"] = [(a, {v: (x[0], tuple(x[1]), x[2]) for v, x in vs.items()}, line)
                     for a, vs, line in r["defs"]]
    return data


# ---------------------------------------------------------------- compare

def compare(cases, perf, fevent, facts=None, known=None, extra=None, addr_facts=None):
    """Returns (mismatches, perf_wrong, agreed): mismatches are readable
    strings where fevent and perf differ on a line or on a variable perf
    gave a definition for and the DWARF does not show perf to be wrong;
    perf_wrong the ones left out, each with the DWARF's evidence and what
    fevent said instead (extra, from fevent_on_perf_errors); agreed the
    number of (address, variable) pairs that agree.  addr_facts:
    {(key, address): Oracle.address_fact} for the addresses only one side
    gives."""
    facts, known, extra, addr_facts = facts or {}, known or {}, extra or {}, addr_facts or {}
    mism, wrong, agreed = [], [], 0
    for c in cases:
        k = c["key"]
        p, f = perf[k], fevent[k]
        if p["error"] or not p["defs"]:
            continue
        spec = f"{c['func']}:{c['line']}"
        bad = wrong_vars(c, perf, facts, known)
        for addr, vs, _ in p["defs"]:
            for v in vs:
                if v in bad:
                    why = (perf_is_wrong(facts.get(fact_key(c, addr, v)), vs[v][0])
                           or known.get((spec, v)))
                    if why:
                        wrong.append(f"{spec} @{_hex(addr)} {vs[v][2]}: {why}; "
                                     f"fevent: {extra.get((k, v), '?')}")
        if f["error"]:
            err = re.sub(r"^fevent: error: \S+?:\d+:\d+: ", "", f["error"].splitlines()[0])
            mism.append(f"{spec}: perf gives {len(p['defs'])} definition(s) "
                        f"({p['defs'][0][2]}); fevent refuses: {err[:300]}")
            continue
        pa = {d[0]: d for d in p["defs"]}
        fa = {d[0]: d for d in f["defs"]}
        if set(pa) != set(fa):
            fmt = lambda s: ", ".join(_hex(a) for a in sorted(s, key=str))
            real = []
            for a in sorted(set(pa) - set(fa), key=str):
                why = addr_facts.get((k, a))
                if why and why != "?":
                    wrong.append(f"{spec} @{_hex(a)}: perf's address is not the line's: {why}")
                else:
                    real.append(f"fevent lacks {_hex(a)}")
            for a in sorted(set(fa) - set(pa), key=str):
                if (k, a) in addr_facts and addr_facts[(k, a)] is None:
                    wrong.append(f"{spec} @{_hex(a)}: perf misses this address of the line "
                                 f"(the line table's row there is the line's)")
                else:
                    real.append(f"perf lacks {_hex(a)}"
                                + (f" ({addr_facts[(k, a)]})" if addr_facts.get((k, a)) else ""))
            if real:
                mism.append(f"{spec}: addresses differ ({'; '.join(real)}): "
                            f"perf {fmt(pa)}, fevent {fmt(fa)}")
        for addr in sorted(set(pa) & set(fa), key=str):
            pv, fv = pa[addr][1], fa[addr][1]
            for v, (ploc, pcls, praw) in pv.items():
                if v in bad:
                    continue
                where = f"{spec} @{_hex(addr)} {v}"
                if v not in fv:
                    mism.append(f"{where}: perf reads {praw}, fevent has no such argument "
                                f"({fa[addr][2]})")
                    continue
                floc, fcls, fraw = fv[v]
                if (ploc, pcls) == (floc, fcls):
                    agreed += 1
                    continue
                parts = []
                if ploc != floc:
                    parts.append(f"location perf {ploc} fevent {floc}")
                if pcls != fcls:
                    parts.append(f"type perf {pcls} fevent {fcls}")
                fact = facts.get(fact_key(c, addr, v))
                mism.append(f"{where} ({c['ctypes'].get(v, '?')}): {'; '.join(parts)} "
                            f"[perf {praw}, fevent {fraw}]"
                            + (f" DWARF: {fact['expr']}" if fact and fact.get("expr") else ""))
    return mism, wrong, agreed


def _hex(a):
    return hex(a) if isinstance(a, int) else str(a)


def perf_is_wrong(fact, perf_loc=None):
    """The DWARF's reason why perf's definition of a variable is wrong, or
    None.  perf_loc: perf's canonical location, to catch a global perf
    names by a symbol the binary does not have."""
    if perf_loc and re.match(r"@[A-Za-z_]", perf_loc):
        return (f"perf reads the global by the variable's name, {perf_loc.split('+')[0]}, "
                f"a symbol the binary does not have (a static's symbol is NAME.N)"
                + (f"; DWARF says {fact['perf_expr']}" if fact and fact.get("perf_expr") else ""))
    if not fact:
        return None
    theirs = (f"perf takes the {fact['perf']}"
              + (f" of the inlined callee {fact['inlined_in']}" if fact["inlined_in"] else "")
              + f" ({fact['perf_expr']})") if fact["perf"] else \
        "perf finds no such variable in the function and falls back to a global of the unit"
    if not fact["own"]:
        return f"not a variable of the function at this address: {theirs}"
    if not fact["same"]:
        return f"{theirs}, C's scope gives the {fact['own']} ({fact['expr']})"
    if fact["expr"] is None:
        return "DWARF has no location for it at this address (optimized out)"
    if fact["problem"]:
        return f"DWARF says {fact['expr']}: {fact['problem']}"
    return None


def perf_weaknesses(cases, perf, facts):
    """perf's own failures and wrong answers among the cases, readable."""
    out = []
    for c in cases:
        p = perf[c["key"]]
        spec = f"{c['func']}:{c['line']}"
        if p["error"]:
            out.append(f"{spec}: perf fails: {p['error']}")
        for v, msg in p["failed"].items():
            ev = []
            for where in c["where"]:
                f = facts.get(f"{c['key']}@{where}:{v}")
                why = f and (perf_is_wrong(f) or f"DWARF says {f['expr']}")
                if why:
                    ev.append(f"@<{where}>: {why}")
            out.append(f"{spec} {v}: perf fails: {msg} -- " + "; ".join(ev[:4])
                       + (f"; ... ({len(ev)} addresses)" if len(ev) > 4 else ""))
        for addr, vs, _ in p["defs"]:
            for v, (ploc, _, raw) in vs.items():
                why = perf_is_wrong(facts.get(fact_key(c, addr, v)), ploc)
                if why:
                    out.append(f"{spec} @{_hex(addr)} {raw}: {why}")
    return out


# ---------------------------------------------------------------- tiers

def libpython_target():
    if not os.path.exists(LIBPYTHON):
        raise fe.Skip(f"no {LIBPYTHON}")
    return Target("x", LIBPYTHON)


def pick_libpython(n_funcs=36, min_cases=110, refresh=False):
    """The libpython tier's cases and perf's side (see perf_side)."""
    t = libpython_target()
    return t, perf_side(t, perf_functions(t, ("Py", "_Py")), n_funcs, min_cases, refresh)


def vmlinux_target():
    import test_kernel_dwarf
    return Target("k", test_kernel_dwarf.need_vmlinux())


def pick_vmlinux(n_funcs=24, min_cases=60, refresh=False):
    t = vmlinux_target()
    return t, perf_side(t, perf_functions(t), n_funcs, min_cases, refresh)


def need_tools():
    for tool in ("perf", "llvm-dwarfdump", "nm", "readelf"):
        if not shutil.which(tool):
            raise fe.Skip(f"{tool} not installed")


def run_tier(which, refresh=False, with_fevent=True, known=None):
    """Picks (or takes from the cache) the tier's cases and perf's side,
    runs fevent's side and compares; known: {("FUNC:N", var): reason} for
    wrong answers of perf that perf_is_wrong does not see."""
    need_tools()
    t, data = (pick_libpython if which == "libpython" else pick_vmlinux)(refresh=refresh)
    cases, perf, facts = data["cases"], data["perf"], data["facts"]
    res = {"target": t, "cases": cases, "perf": perf, "facts": facts,
           "seconds": data.get("seconds")}
    if with_fevent:
        read = {}
        for c in cases:
            bad = wrong_vars(c, perf, facts, known)
            read[c["key"]] = [v for v in c["vars"]
                              if v not in perf[c["key"]]["failed"] and v not in bad]
        fev = fevent_defs(t, cases, read)
        extra = fevent_on_perf_errors(t, cases, perf, facts, known)
        res["fevent"], res["fevent_on_perf_errors"] = fev, extra
        oracle = oracle_for(t)
        addr_facts = {}
        for c in cases:
            pa = {d[0] for d in perf[c["key"]]["defs"]}
            fa = {d[0] for d in fev[c["key"]]["defs"]}
            for a in pa ^ fa:
                if isinstance(a, int) and c.get("abs_line"):
                    va = t.offset_to_vaddr(a) if t.kind == "x" else a
                    addr_facts[(c["key"], a)] = oracle.address_fact(c["func"], va, c["file"],
                                                                    c["abs_line"])
        res["addr_facts"] = addr_facts
        res["mismatches"], res["perf_wrong"], res["agreed"] = compare(
            cases, perf, fev, facts, known, extra, addr_facts)
    return res


def summary(res):
    cases, perf = res["cases"], res["perf"]
    defined = [c for c in cases if not perf[c["key"]]["error"] and perf[c["key"]]["defs"]
               and perf[c["key"]]["defs"][0][1]]
    return (f"{len(cases)} cases over {len({c['func'] for c in cases})} functions, "
            f"{len(defined)} with a perf definition over "
            f"{len({c['func'] for c in defined})} functions, "
            f"{sum(len(perf[c['key']]['defs']) for c in defined)} addresses, "
            f"{sum(len(d[1]) for c in defined for d in perf[c['key']]['defs'])} variable reads")


if __name__ == "__main__":
    # python3 tests/line_xcheck.py libpython|vmlinux [--refresh] [--no-fevent]
    which = sys.argv[1] if len(sys.argv) > 1 else "libpython"
    t0 = time.monotonic()
    r = run_tier(which, "--refresh" in sys.argv, "--no-fevent" not in sys.argv)
    print(summary(r), f"({time.monotonic() - t0:.1f} s; perf side {r['seconds']})")
    for w in perf_weaknesses(r["cases"], r["perf"], r["facts"]):
        print("perf:", w)
    for w in r.get("perf_wrong", []):
        print("LEFT OUT", w)
    if "agreed" in r:
        print(f"{r['agreed']} variable reads agree, {len(r['mismatches'])} mismatches")
    for m in r.get("mismatches", []):
        print("MISMATCH", m)
