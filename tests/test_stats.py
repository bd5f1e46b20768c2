"""fevent stats on the host (issue 12, DESIGN.md section 10), where the
kernel has no hist triggers and fevent counts the event stream: intervals
(-i) that add up to the run, the table's shape, keys, usage errors with
exit status 2, and nothing left in tracefs.  The comparison with bpftrace
is tests/test_stats_host.py; the kernel's way is tests/test_vm_stats.py."""
import json
import os
import subprocess

import fe
from fe import check, expect_eq
from test_events_host import need_uprobes

HERE = os.path.dirname(os.path.abspath(__file__))
GROUP = "fevent_test_stats" + fe.TAG
_bin = {}


def binary():
    if "b" not in _bin:
        d = fe.tmpdir("fevent-ticks-")
        os.chmod(d, 0o755)
        out = os.path.join(d, "fx_ticks")
        subprocess.run(["gcc", "-g", "-O2", "-o", out,
                        os.path.join(HERE, "fixtures", "fx_ticks.c")], check=True)
        _bin["b"] = out
    return _bin["b"]


def setup():
    need_uprobes()
    fe.run("clear", "-q", "-g", GROUP, "--force")
    r = fe.run("add", "-q", "-g", GROUP, "-x", binary(), "int tick(int n)", "tock(int len)")
    expect_eq(r.returncode, 0, r.stderr)


def clean():
    fe.run("clear", "-q", "-g", GROUP, "--force")


def leftovers():
    """fevent instances whose process is gone (others' running ones are not
    this test's)."""
    inst = "/sys/kernel/tracing/instances"
    return fe.leftover_instances([]) if os.path.isdir(inst) else []


def test_intervals_add_up_to_the_run():
    setup()
    try:
        r = fe.run("stats", "-v", "-g", GROUP, "-e", "tock", "--interval", "1", "--json", "--",
                   binary(), "25")
        expect_eq(r.returncode, 0, r.stderr)
        check("stats: from the event stream (this kernel has no hist triggers)" in r.stderr,
              r.stderr)
        objs = [json.loads(l) for l in r.stdout.splitlines()]
        intervals = sorted({o["interval"] for o in objs})
        check(len(intervals) >= 2 and intervals == list(range(1, len(intervals) + 1)),
              intervals)
        expect_eq(sum(o["count"] for o in objs), 25)
        # no interval holds every call: they are counted where they fell
        check(max(sum(o["count"] for o in objs if o["interval"] == i) for i in intervals) < 25,
              objs)
        check(all(o["event"] == f"{GROUP}/tock" for o in objs), objs)
    finally:
        clean()
    expect_eq(leftovers(), [])


def test_by_field_and_pid_text_table():
    setup()
    try:
        r = fe.run("stats", "-g", GROUP, "-e", "tock", "--by", "len", "--", binary(), "10")
        expect_eq(r.returncode, 0, r.stderr)
        # len = n % 4 for n in 0..9: 0 three times, 1 three, 2 twice, 3 twice
        expect_eq(r.stdout.splitlines(), [
            f"{GROUP}/tock: 10 hits",
            "  len  count",
            "  0        3",
            "  1        3",
            "  2        2",
            "  3        2",
            "",
        ])
        r = fe.run("stats", "-g", GROUP, "--json", "--by", "comm,pid", "--", binary(), "4")
        expect_eq(r.returncode, 0, r.stderr)
        objs = [json.loads(l) for l in r.stdout.splitlines()]
        expect_eq(sorted(o["event"] for o in objs), [f"{GROUP}/tick", f"{GROUP}/tick__return",
                                                     f"{GROUP}/tock"])
        for o in objs:
            expect_eq((o["keys"]["comm"], o["count"]), ("fx_ticks", 4))
            check(isinstance(o["keys"]["pid"], int), o)
        pids = {o["keys"]["pid"] for o in objs}
        expect_eq(len(pids), 1)
    finally:
        clean()


def test_a_key_named_count_leaves_the_tally_its_own_header():
    need_uprobes()
    clean()
    r = fe.run("add", "-q", "-g", GROUP, "-x", binary(), "tock(int count)")
    expect_eq(r.returncode, 0, r.stderr)
    try:
        r = fe.run("stats", "-g", GROUP, "--by", "count", "--", binary(), "6")
        expect_eq(r.returncode, 0, r.stderr)
        # count = n % 4 for n in 0..5: 0 and 1 twice, 2 and 3 once
        expect_eq(r.stdout.splitlines(), [
            f"{GROUP}/tock: 6 hits",
            "  count   hits",
            "  0          2",
            "  1          2",
            "  2          1",
            "  3          1",
            "",
        ])
    finally:
        clean()
    expect_eq(leftovers(), [])


def test_a_key_no_event_has_is_named():
    setup()
    try:
        r = fe.run("stats", "-g", GROUP, "--by", "caller", "--", binary(), "1")
        expect_eq((r.returncode, r.stdout), (2, ""))
        expect_eq(r.stderr, "fevent: error: --by caller: caller is the kernel function a "
                  f"kprobe's entry returns to, and no event of group '{GROUP}' has one "
                  "(uprobes and return events have none)\n")
        r = fe.run("stats", "-g", GROUP, "--by", "lenn", "--", binary(), "1")
        expect_eq((r.returncode, r.stdout), (2, ""))
        expect_eq(r.stderr, f"fevent: error: --by lenn: no event of group '{GROUP}' has a "
                  "field 'lenn'; did you mean 'len'? (keys: a field, comm, pid, cpu, caller, "
                  "stack)\n")
    finally:
        clean()
    expect_eq(leftovers(), [])


def test_hist_of_a_hex_field_and_sums_past_2_53():
    """--hist says a hex-typed field's values as record does (0x..., JSON
    strings), and JSON's integers past 2^53 are strings "0x..." (DESIGN.md
    section 5): fx_bigvals.c's big() gets 0x10, 0x20 and 2^62 twice."""
    need_uprobes()
    d = fe.tmpdir("fevent-bigvals-")
    os.chmod(d, 0o755)
    prog = os.path.join(d, "fx_bigvals")
    subprocess.run(["gcc", "-g", "-O2", "-o", prog,
                    os.path.join(HERE, "fixtures", "fx_bigvals.c")], check=True)
    clean()
    r = fe.run("add", "-q", "-g", GROUP, "-x", prog, "big(x64 v)")
    expect_eq(r.returncode, 0, r.stderr)
    r = fe.run("add", "-q", "-g", GROUP, "-n", "bigu", "-x", prog, "big(u64 v)")
    expect_eq(r.returncode, 0, r.stderr)
    try:
        r = fe.run("record", "-g", GROUP, "-e", "big", "--", prog)
        expect_eq([l.split(": ", 1)[1] for l in r.stdout.splitlines()],
                  ["big(v=0x10)", "big(v=0x20)", "big(v=0x4000000000000000)",
                   "big(v=0x4000000000000000)"])
        r = fe.run("stats", "-g", GROUP, "--hist", "v", "--", prog)
        expect_eq(r.returncode, 0, r.stderr)
        heads = [l for l in r.stdout.splitlines() if ": count " in l]
        expect_eq(heads, [
            f"{GROUP}/big v: count 4  min 0x10  avg 0x200000000000000c  p50 0x20  "
            "p90 0x4000000000000000  p99 0x4000000000000000  p99.9 0x4000000000000000  "
            "max 0x4000000000000000",
            f"{GROUP}/bigu v: count 4  min 16  avg 2305843009213693964  p50 32  "
            "p90 4611686018427387904  p99 4611686018427387904  p99.9 4611686018427387904  "
            "max 4611686018427387904"])
        # the buckets stay the same powers of two in both
        check("\n[4E, 8E)               2 |" in r.stdout, r.stdout)
        r = fe.run("stats", "-g", GROUP, "--hist", "v", "--json", "--", prog)
        expect_eq(r.returncode, 0, r.stderr)
        objs = {o["event"]: o for o in map(json.loads, r.stdout.splitlines())}
        big, bigu = objs[f"{GROUP}/big"], objs[f"{GROUP}/bigu"]
        expect_eq([big[k] for k in ("min", "avg", "p50", "max", "sum")],
                  ["0x10", "0x200000000000000c", "0x20", "0x4000000000000000",
                   "0x8000000000000030"])
        expect_eq([bigu[k] for k in ("min", "p50", "max", "sum")],
                  [16, 32, "0x4000000000000000", "0x8000000000000030"])
        for o in (big, bigu):
            expect_eq(o["buckets"], [{"lo": 16, "hi": 32, "count": 1},
                                     {"lo": 32, "hi": 64, "count": 1},
                                     {"lo": "0x4000000000000000", "hi": "0x8000000000000000",
                                      "count": 2}])
    finally:
        clean()


def test_counts_without_keys_list_every_event():
    setup()
    try:
        r = fe.run("stats", "-g", GROUP, "--", binary(), "3")
        expect_eq(r.returncode, 0, r.stderr)
        rows = [l.split() for l in r.stdout.splitlines()]
        expect_eq(rows, [["event", "count"], [f"{GROUP}/tick", "3"],
                         [f"{GROUP}/tick__return", "3"], [f"{GROUP}/tock", "3"]])
    finally:
        clean()


def test_usage_errors_exit_2_and_name_the_problem():
    setup()
    try:
        cases = [
            (("--hist", "nosuch", "-e", "tick"), "--hist nosuch: " + GROUP + "/tick has no such field"),
            (("--hist", "n", "--latency"), "--hist and --latency: one histogram at a time"),
            (("--latency", "-e", "tock"), "--latency: " + GROUP + "/tock has no return event"),
            (("--by", "n,n"), "--by: 'n' twice"),
            (("--by", "stack"), "is a uprobe; its kernel stack is the trap's"),
            (("--by", "stack", "--latency", "-e", "tick"), "--by stack: not with --latency"),
            (("-e", "nosuch"), "no event 'nosuch' in group"),
            (("--by", "caller", "-e", "tick"), "has no caller field"),
        ]
        for extra, msg in cases:
            r = fe.run("stats", "-g", GROUP, *extra, "--", binary(), "1")
            expect_eq(r.returncode, 2, (extra, r.stderr))
            check(msg in r.stderr, (extra, r.stderr))
            expect_eq(r.stdout, "", extra)
        r = fe.run("stats", "-g", GROUP, "--hist", "nosuch", "-e", "tick", "--", binary(), "1")
        check("has the fields n" in r.stderr, r.stderr)
        r = fe.run("stats", "-g", GROUP, "-i", "0", "--", binary(), "1")
        expect_eq(r.returncode, 2, r.stderr)
        r = fe.run("stats", "-g", GROUP)
        expect_eq(r.returncode, 2, r.stderr)
        check("count one of: -a (everything), -p PID, --cgroup PATH, or -- CMD ARGS..." in r.stderr, r.stderr)
    finally:
        clean()
    expect_eq(leftovers(), [])
