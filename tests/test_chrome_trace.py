"""report --chrome FILE: Chrome trace-event JSON (Perfetto, chrome://tracing)
checked against the format: valid JSON, an "X" slice per paired call whose
ts and dur are the call's (the same as report --json's ts and dur_ns, to
the nanosecond), slices nested per thread, "i" instants for events without
a pair, and "M" names for every process and thread."""
import decimal
import json
import os
import shutil
import subprocess
import tempfile

import fe
from fe import check, expect_eq
from test_events_host import need_uprobes, prog

GROUP = "fe_chrome" + fe.TAG


def recorded(tmp):
    need_uprobes()
    fe.run("clear", "-g", GROUP, "--force")
    r = fe.run("add", "-g", GROUP, "-x", prog(), "int recurse(depth)",
               "long traced(n, string s)", "main(argc)")
    expect_eq(r.returncode, 0, r.stderr)
    dat = os.path.join(tmp, "calls.dat")
    r = fe.run("record", "-g", GROUP, "-o", dat, "--", "sh", "-c",
               f"{prog()} 3 recurse && {prog()} 2 fork >/dev/null")
    expect_eq(r.returncode, 0, r.stderr)
    return dat


def us_to_ns(d):
    """A Decimal of microseconds with three decimals, as nanoseconds."""
    ns = d * 1000
    check(ns == ns.to_integral_value(), f"{d} us is not a whole number of ns")
    return int(ns)


def test_chrome_json_slices_nest_per_thread_with_fevents_durations():
    tmp = tempfile.mkdtemp()
    try:
        dat = recorded(tmp)
        out = os.path.join(tmp, "calls.json")
        r = fe.run("report", "-i", dat, "--chrome", out)
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(r.stdout, "", "the calls go to the file")
        with open(out) as f:
            doc = json.load(f, parse_float=decimal.Decimal)
        check(isinstance(doc, dict) and isinstance(doc["traceEvents"], list), doc)
        evs = doc["traceEvents"]
        for e in evs:
            check(e["ph"] in ("X", "i", "M"), e)
            check(isinstance(e["pid"], int) and isinstance(e["tid"], int), e)
            check(isinstance(e["name"], str), e)
        slices = [e for e in evs if e["ph"] == "X"]
        instants = [e for e in evs if e["ph"] == "i"]
        meta = [e for e in evs if e["ph"] == "M"]

        # the calls fevent pairs, with its timestamps and durations
        r = fe.run("report", "-i", dat, "--json")
        expect_eq(r.returncode, 0, r.stderr)
        calls = [json.loads(l, parse_float=decimal.Decimal) for l in r.stdout.splitlines()]
        paired = sorted((c["pid"], int(c["ts"] * 10**9), c["dur_ns"], c["event"])
                        for c in calls if "dur_ns" in c)
        got = sorted((s["tid"], us_to_ns(s["ts"]), us_to_ns(s["dur"]), s["name"])
                     for s in slices)
        expect_eq(got, paired, "one slice per paired call, its ts and duration fevent's")
        expect_eq(len([s for s in slices if s["name"] == "recurse"]), 4, slices)
        expect_eq(len([s for s in slices if s["name"] == "traced"]), 4, slices)

        # arguments and return values ride along
        rec = sorted((s for s in slices if s["name"] == "recurse"), key=lambda s: s["ts"])
        expect_eq([s["args"]["args"] for s in rec], [{"depth": d} for d in (3, 2, 1, 0)])
        expect_eq([s["args"]["ret"] for s in rec], [3, 2, 1, 0])
        check(all(s["cat"] == GROUP for s in slices), slices)

        # per thread, every slice lies within the one open around it
        for tid in {s["tid"] for s in slices}:
            open_ends = []
            depth_max = 0
            for s in sorted((s for s in slices if s["tid"] == tid),
                            key=lambda s: (s["ts"], -s["dur"])):
                start, end = s["ts"], s["ts"] + s["dur"]
                while open_ends and open_ends[-1] <= start:
                    open_ends.pop()
                check(not open_ends or end <= open_ends[-1],
                      f"thread {tid}: a slice crosses its parent's end: {s}")
                open_ends.append(end)
                depth_max = max(depth_max, len(open_ends))
            if any(s["name"] == "recurse" for s in slices if s["tid"] == tid):
                expect_eq(depth_max, 4, "recurse(3) holds recurse(2), ... recurse(0)")

        # main() has no return event: an instant of its thread
        expect_eq(sorted(i["name"] for i in instants), ["main", "main"], instants)
        check(all(i["s"] == "t" and "dur" not in i for i in instants), instants)
        expect_eq([i["args"]["args"] for i in instants], [{"argc": 3}, {"argc": 3}])

        # every task named, as process and as thread
        tids = {e["tid"] for e in slices + instants}
        expect_eq(len(tids), 3, "the recursing process, the forking one and its child")
        for kind in ("process_name", "thread_name"):
            named = {m["tid"]: m["args"]["name"] for m in meta if m["name"] == kind}
            expect_eq(named, {t: "fx_prog" for t in tids}, kind)
    finally:
        shutil.rmtree(tmp)
        fe.run("clear", "-g", GROUP, "--force")


def test_chrome_is_its_own_view():
    r = fe.run("report", "-i", "/nonexistent", "--chrome", "/tmp/x.json", "--json")
    expect_eq(r.returncode, 2, r.stderr)
    check("not with --json" in r.stderr, r.stderr)


def test_threads_are_under_their_process_and_slices_are_named_by_function():
    """Issue 32 item 4: the kernel's tgid (options/record-tgid, saved_tgids
    in the trace.dat) puts every thread under its process; a slice's name
    is the function, its arguments in args."""
    need_uprobes()
    tmp = tempfile.mkdtemp()
    try:
        src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures",
                           "fx_threads.c")
        binary = os.path.join(tmp, "fx_threads")
        subprocess.run(["gcc", "-g", "-O2", "-pthread", src, "-o", binary], check=True)
        os.chmod(tmp, 0o755)
        fe.run("clear", "-g", GROUP, "--force")
        r = fe.run("add", "-g", GROUP, "-x", binary, "long work(i)")
        expect_eq(r.returncode, 0, r.stderr)
        dat = os.path.join(tmp, "threads.dat")
        r = fe.run("record", "-g", GROUP, "-o", dat, "--", binary)
        expect_eq(r.returncode, 0, r.stderr)
        out = os.path.join(tmp, "threads.json")
        r = fe.run("report", "-i", dat, "--chrome", out)
        expect_eq(r.returncode, 0, r.stderr)
        with open(out) as f:
            evs = json.load(f)["traceEvents"]
        slices = [e for e in evs if e["ph"] == "X"]
        main = [s for s in slices if s["args"]["args"] == {"i": 0}]
        expect_eq(len(main), 1, slices)
        pid = main[0]["tid"]    # the main thread's tid is the process's pid
        expect_eq(sorted((s["pid"], s["name"], s["args"]["args"]["i"]) for s in slices),
                  [(pid, "work", i) for i in range(4)], slices)
        expect_eq(len({s["tid"] for s in slices}), 4, slices)
        procs = [m for m in evs if m["ph"] == "M" and m["name"] == "process_name"]
        expect_eq([(m["pid"], m["args"]["name"]) for m in procs], [(pid, "fx_threads")], procs)
        threads = sorted((m["pid"], m["tid"]) for m in evs
                         if m["ph"] == "M" and m["name"] == "thread_name")
        expect_eq(threads, sorted((pid, s["tid"]) for s in slices), threads)
    finally:
        shutil.rmtree(tmp)
        fe.run("clear", "-g", GROUP, "--force")
