"""`fevent list` renders each definition back as a prototype; compiling
that prototype must give the definition back, argument for argument and
in order (issue 9, item 6).  Checked over every prototype the tests use
(tests/fuzz/seeds.py collects them), against no debug info, the fixture's
BTF and DWARF, the fixture library as uprobes and this kernel's BTF; and
end to end: add, list, compile what list shows, with uprobes."""
import json
import os
import subprocess
import sys

import fe
from fe import check, expect_eq
from test_events_host import FIXTURES, GROUP, clean, need_uprobes

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "fuzz"))
import seeds  # noqa: E402

_fx = {}


def fixtures():
    """fx.o with BTF and DWARF, libfx.so with DWARF, and the corpus list."""
    if not _fx:
        tmp = fe.tmpdir("fevent-rt-")
        os.chmod(tmp, 0o755)
        src = os.path.join(FIXTURES, "fx.c")
        obj, so = os.path.join(tmp, "fx.o"), os.path.join(tmp, "libfx.so")
        subprocess.run(["gcc", "-g", "-O2", "-c", src, "-o", obj], check=True)
        subprocess.run(["pahole", "-J", "--btf_gen_floats", obj], check=True,
                       capture_output=True)
        subprocess.run(["gcc", "-g", "-O2", "-shared", "-fPIC", src, "-o", so], check=True)
        corpus = os.path.join(tmp, "corpus.txt")
        with open(corpus, "w") as f:
            f.write("\n".join(seeds.prototypes()) + "\n")
        _fx.update(obj=obj, so=so, corpus=corpus)
    return _fx


def round_trip(*mode):
    r = subprocess.run([os.path.join(fe.BUILD, "tests", "unit", "round_trip"), *mode,
                        fixtures()["corpus"]], capture_output=True, text=True, timeout=600)
    last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
    bad = [l for l in r.stdout.splitlines() if l.startswith(("MISMATCH", "REFUSED", "TREE"))]
    expect_eq((r.returncode, bad), (0, []), r.stdout[-3000:] + r.stderr[-2000:])
    nums = [int(w) for w in last.replace(",", "").split() if w.isdigit()]
    return dict(zip(["compiled", "checked", "bad", "fetches", "bare_fetches"], nums)), r.stdout


def test_corpus_without_debug_info_keeps_rostedts_slots():
    got, _ = round_trip("none")
    # every prototype that compiles without debug info renders in
    # Rostedt's slots and hops: the kernel's spelling is never needed
    check(got["compiled"] >= 60, f"only {got['compiled']} prototypes compiled")
    expect_eq((got["bad"], got["fetches"], got["bare_fetches"]), (0, 0, 0), got)


def test_corpus_with_btf_dwarf_and_uprobes():
    fx = fixtures()
    for mode in (("btf", fx["obj"]), ("dwarf", fx["obj"]), ("uprobe", fx["so"])):
        got, out = round_trip(*mode)
        check(got["compiled"] >= 30, f"{mode}: only {got['compiled']} prototypes compiled")
        expect_eq((got["bad"], got["bare_fetches"]), (0, 0), f"{mode}: {got}")
        # the kernel's spelling only where debug info moves the slots: a
        # struct passed by value or a double among the parameters; and a
        # system call's pointer followed twice (user memory: '+u', which
        # Rostedt's hops cannot say)
        fell_back = {l.split(": ", 1)[1].split("(")[0] for l in out.splitlines()
                     if "with-debug-info (kernel spelling)" in l}
        check(fell_back <= {"fx_big", "fx_float", "fx_pair", "fx_takes_mixed",
                            "fx_takes_vec", "SyS_execve"}, f"{mode}: {fell_back}")
        check(fell_back, f"{mode}: the fallback was exercised")
    if os.path.exists("/sys/kernel/btf/vmlinux"):
        got, _ = round_trip("btf", "/sys/kernel/btf/vmlinux")
        expect_eq(got["bad"], 0, got)


def test_renderings_of_what_slots_cannot_say():
    """The cases the issue names, rendered as `list` renders them."""
    fx = fixtures()
    _, out = round_trip("uprobe", fx["so"])
    lines = out.splitlines()

    def rendered(proto):
        i = lines.index("# " + proto)
        return lines[i + 1].split(": ", 1)[1]

    # bitfields keep their kernel type; a signed one its __s name
    expect_eq(rendered("fx_walk(o->lo, o->mid, o->hi, o->wide)"),
              "fx_walk(b3@0/32 lo+56 | b9@3/32 mid+56 | b20@12/32 hi+56 | b40@0/64 wide+64)")
    expect_eq(rendered("fx_small(s.x, s.y, s.z, o->id)"),
              "fx_small(s32 x | b16@32/64 y__s | b8@48/64 z, s32 id+0)")
    # members of a struct passed by value on the stack; fetches that take
    # no slot are ARGs of their own, joined with ',' ('|' would read as
    # another alternative of a slot)
    expect_eq(rendered("fx_big(after, big.c, big.a)"),
              "fx_big(s32 after=%di, s64 c=+24($stack), s64 a=+8($stack))")
    # a uprobe's read of a global by file offset
    check(rendered("fx_walk(long sink=@fx_sink)").startswith("fx_walk(s64 sink=@+0x"),
          rendered("fx_walk(long sink=@fx_sink)"))
    # order kept: an argument before an earlier slot's is spelled out
    expect_eq(rendered("fx_many(a8, ...)"),
              "fx_many(s64 a8=$stack2, s32 a1, s32 a2, s32 a3, s32 a4, s32 a5, s32 a6, s32 a7)")


def test_what_list_shows_compiles_back_to_the_events():
    """End to end with the kernel's own listing: every corpus prototype that
    compiles as a uprobe on the fixture library is added (each under its
    own name), listed, and the listed prototype compiled again."""
    need_uprobes()
    fx = fixtures()
    protos = []
    for p in seeds.prototypes():
        r = fe.run("compile", "-x", fx["so"], p)
        if r.returncode == 0:
            protos.append(p)
    check(len(protos) >= 30, f"only {len(protos)} prototypes compile as uprobes")
    clean()
    try:
        for i, p in enumerate(protos):
            r = fe.run("add", "-g", GROUP, "-n", f"rt{i}", "-x", fx["so"], p)
            expect_eq(r.returncode, 0, f"{p}: {r.stderr}")
        r = fe.run("list", "-g", GROUP, "--json")
        expect_eq(r.returncode, 0, r.stderr)
        events = [json.loads(l) for l in r.stdout.splitlines()]
        check(len(events) >= len(protos), f"{len(events)} events listed")
        by_name = {e["event"]: e for e in events}
        for ev in events:
            ret = ev["kind"] == "uretprobe"
            proto = ev["prototype"]
            if ret and "return_of" in ev:
                # no prototype adds a return event alone: its entry's adds
                # both, and its r: line is this event
                expect_eq(proto, "", ev["event"])
                proto = by_name[ev["return_of"]]["prototype"]
            c = fe.run("compile", "-x", fx["so"], "-g", GROUP, proto)
            expect_eq(c.returncode, 0, f"{ev['event']}: {proto}: {c.stderr}")
            lines = c.stdout.splitlines()
            line = [l for l in lines if l.startswith("r:" if ret else "p:")][0]
            expect_eq((line.split(" ", 2) + [""])[2], ev["args"],
                      f"{ev['event']}: list shows {proto}")
    finally:
        clean()
