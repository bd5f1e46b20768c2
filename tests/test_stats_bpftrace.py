"""fevent stats against bpftrace on the host (issue 12): the same uprobes
on the same program (tests/fixtures/fx_counts.c, known counts), counted by
fevent (the stream way: this kernel has no hist triggers) and by
bpftrace's count() and hist(); the counts, the buckets and their bars are
the same, and both equal the workload's known counts."""
import json
import os
import re
import shutil
import subprocess

import fe
from fe import check, expect_eq
from test_events_host import need_uprobes

HERE = os.path.dirname(os.path.abspath(__file__))
GROUP = "fevent_test_bpft" + fe.TAG
_bin = {}


def binary():
    if "b" not in _bin:
        d = fe.tmpdir("fevent-counts-")
        os.chmod(d, 0o755)
        out = os.path.join(d, "fx_counts")
        subprocess.run(["gcc", "-g", "-O2", "-o", out,
                        os.path.join(HERE, "fixtures", "fx_counts.c")], check=True)
        _bin["b"] = out
    return _bin["b"]


def bpftrace(program):
    if not shutil.which("bpftrace"):
        raise fe.Skip("bpftrace not installed")
    r = subprocess.run(["bpftrace", "-e", program, "-c", binary()], capture_output=True,
                       text=True, timeout=120)
    if r.returncode or "Attaching" not in r.stdout:
        raise fe.Skip(f"bpftrace cannot run here: {r.stderr.strip()[:200]}")
    return r.stdout


def bpftrace_maps(out):
    """{map: {key: count}} for count() maps, {map: [bucket lines]} for hist()."""
    maps, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^(@\w*)\[(.*)\]: (\d+)$", line)
        if m:
            maps.setdefault(m[1], {})[m[2]] = int(m[3])
            continue
        m = re.match(r"^(@\w*):\s*$", line)
        if m:
            cur = maps.setdefault(m[1], [])
            continue
        if cur is not None and re.match(r"^[\[(]", line):
            cur.append(line.rstrip())
        elif not line.strip():
            cur = None
    return maps


COUNTS_PROTOS = ("long fx_nap(int us)", "int fx_work(int len, string name)")


def add_probes(group, *protos):
    """fx_counts's functions (protos, or fx_nap and fx_work) as group's
    uprobes, the group cleared first."""
    need_uprobes()
    fe.run("clear", "-q", "-g", group, "--force")
    r = fe.run("add", "-q", "-g", group, "-x", binary(), *(protos or COUNTS_PROTOS))
    expect_eq(r.returncode, 0, r.stderr)


def setup(*protos):
    add_probes(GROUP, *protos)


def clean():
    fe.run("clear", "-q", "-g", GROUP, "--force")


def test_by_comm_equals_bpftrace_count():
    out = bpftrace(f"uprobe:{binary()}:fx_work {{ @[comm] = count(); }}")
    setup("fx_work(int len, string name)")
    try:
        r = fe.run("stats", "-g", GROUP, "--by", "comm", "--json", "--", binary())
        expect_eq(r.returncode, 0, r.stderr)
        got = {o["keys"]["comm"]: o["count"] for o in map(json.loads, r.stdout.splitlines())}
        expect_eq(got, {"fx_counts": 70, "fx_child": 10})
        expect_eq(got, bpftrace_maps(out)["@"])
    finally:
        clean()


def test_hist_equals_bpftrace_hist_line_for_line():
    out = bpftrace(f"uprobe:{binary()}:fx_work {{ @ = hist((int32)arg0); }}")
    setup("fx_work(int len, string name)")
    try:
        r = fe.run("stats", "-g", GROUP, "--hist", "len", "--", binary())
        expect_eq(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        # 70 of the parent (min -7, max 1000) and 0..9 of the child
        expect_eq(lines[0], f"{GROUP}/fx_work len: count 80  min -7  avg 138  "
                 f"p50 3  p90 1000  p99 1000  p99.9 1000  max 1000")
        expect_eq([l for l in lines[1:] if l], bpftrace_maps(out)["@"])
        r = fe.run("stats", "-g", GROUP, "--hist", "len", "--json", "--", binary())
        (o,) = map(json.loads, r.stdout.splitlines())
        expect_eq((o["count"], o["min"], o["max"], o["sum"]),
                  (80, -7, 1000, 10 * (0 + 1 + 3 + 5 + 100 + 1000 - 7) + 45))
        expect_eq(o["buckets"][0], {"lo": None, "hi": 0, "count": 10})
        # exact, by nearest rank over the 80 known values
        expect_eq((o["p50"], o["p90"], o["p99"], o["p99_9"]), (3, 1000, 1000, 1000))
    finally:
        clean()


def test_latency_counts_and_buckets_agree_with_bpftrace():
    out = bpftrace(f"uprobe:{binary()}:fx_nap {{ @s[tid] = nsecs; }} "
                   f"uretprobe:{binary()}:fx_nap /@s[tid]/ "
                   f"{{ @ = hist((nsecs - @s[tid]) / 1000); delete(@s[tid]); }}")
    setup("long fx_nap(int us)")
    try:
        r = fe.run("stats", "-g", GROUP, "--latency", "--json", "--", binary())
        expect_eq(r.returncode, 0, r.stderr)
        (o,) = map(json.loads, r.stdout.splitlines())
        expect_eq((o["event"], o["field"], o["count"]), (f"{GROUP}/fx_nap", "latency_us", 5))
        check(o["min"] >= 3000, o)      # each call sleeps 3 ms
        check(all(b["lo"] >= 2048 for b in o["buckets"]), o)
        bt = sum(int(l.split("|")[0].split()[-1]) for l in bpftrace_maps(out)["@"])
        expect_eq(bt, 5)
        # the sleeps are far from a power of two: both put them in [2K, 4K)
        # unless the machine stalled; each one's samples are >= 3 ms
        for l in bpftrace_maps(out)["@"]:
            if int(l.split("|")[0].split()[-1]):
                check(not l.startswith(("[0]", "[1]", "[2,", "[4,", "[1K")), l)
    finally:
        clean()


def test_a_filter_counts_only_the_matching_calls():
    setup("fx_work(int len, string name) if len > 4")
    try:
        r = fe.run("stats", "-g", GROUP, "--by", "comm", "--json", "--", binary())
        expect_eq(r.returncode, 0, r.stderr)
        got = {o["keys"]["comm"]: o["count"] for o in map(json.loads, r.stdout.splitlines())}
        # parent: 5, 100, 1000 (30 calls); child: 5..9 (5 calls)
        expect_eq(got, {"fx_counts": 30, "fx_child": 5})
    finally:
        clean()
