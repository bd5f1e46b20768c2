"""report -i of trace.dat files trace-cmd wrote, for what fevent must read
from the file itself (issue 32, items 2 and 3): fields the print format
shows as symbols (%ps, %pS) named from the file's kallsyms, as trace-cmd
names them; the options that move time (OFFSET, DATE, TSC2NSEC,
TIME_SHIFT) applied as trace-cmd applies them, every timestamp equal to
trace-cmd report's; and the identity trace-cmd writes (UNAME, VERSION,
TRACECLOCK, CPUCOUNT, TRACEID) in fevent's own file.

The host's events with symbol fields are the kernel's own (workqueue and
hrtimer functions), enabled by the test in an instance buffer and taken
by trace-cmd extract; files with time options are copies of a trace-cmd
file with an option added (tests/fuzz/tracedat7.py writes them back)."""
import atexit
import decimal
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

import fe
from fe import check, expect_eq
from test_events_host import TRACEFS

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz"))
import tracedat7  # noqa: E402

BUF = f"tcsym{fe.TAG}"
EVENTS = ("workqueue/workqueue_execute_start", "timer/hrtimer_start")
_files = {}


def tc(*args):
    r = subprocess.run(["trace-cmd", *args], capture_output=True, text=True, timeout=300)
    expect_eq(r.returncode, 0, f"trace-cmd {' '.join(args)}: {r.stderr[-2000:]}")
    return r


def tmpdir():
    if "tmp" not in _files:
        _files["tmp"] = tempfile.mkdtemp(prefix="fevent-tcsym-")
        atexit.register(shutil.rmtree, _files["tmp"], True)
    return _files["tmp"]


def extract(path):
    inst = os.path.join(TRACEFS, "instances", BUF)
    os.mkdir(inst)
    try:
        for e in EVENTS:
            with open(os.path.join(inst, "events", e, "enable"), "w") as f:
                f.write("1")
        # timers and work items: a sleep, a sync
        for _ in range(5):
            subprocess.run(["sync"], check=True)
            time.sleep(0.02)
        with open(os.path.join(inst, "events", "enable"), "w") as f:
            f.write("0")
        tc("extract", "-k", "-B", BUF, "-o", path)
    finally:
        os.rmdir(inst)


def kernel_file():
    """A v7 (zstd) file of the kernel's workqueue and hrtimer events: their
    function fields are printed with %ps."""
    if "v7" in _files:
        return _files["v7"]
    if not shutil.which("trace-cmd"):
        raise fe.Skip("trace-cmd not installed")
    if not os.path.isdir(os.path.join(TRACEFS, "instances")):
        raise fe.Skip("no tracefs instances")
    path = os.path.join(tmpdir(), "v7.dat")
    # trace-cmd extract reads every event format while other tests add and
    # remove probes: now and then the file it writes is one trace-cmd
    # report itself reads no event from; such a file is made again
    for _ in range(3):
        extract(path)
        if trace_cmd_times(path):
            break
    _files["v7"] = path
    return path


TC_FUNC = re.compile(r"^\S+: +.*-(\d+) +\[(\d+)\] +(\d+)\.(\d{9}): (workqueue_execute_start|"
                     r"hrtimer_start): .*function[= ](\S+)")


def trace_cmd_functions(path):
    """(ns, cpu, pid, event, function) as trace-cmd report -t names them."""
    out = []
    for line in tc("report", "-t", "-i", path).stdout.splitlines():
        m = TC_FUNC.match(line)
        if m:
            pid, cpu, s, ns, event, fn = m.groups()
            # the hrtimer plugin prints "NAME/0x0"
            out.append((int(s) * 10**9 + int(ns), int(cpu), int(pid), event, fn.split("/")[0]))
    return sorted(out)


def fevent_functions(path, *opts):
    r = fe.run("report", "--json", *opts, "-i", path)
    expect_eq(r.returncode, 0, r.stderr)
    out = []
    for line in r.stdout.splitlines():
        o = json.loads(line, parse_float=decimal.Decimal)
        if o.get("event") in ("workqueue_execute_start", "hrtimer_start"):
            out.append((int(o["ts"] * 10**9), o["cpu"], o["pid"], o["event"],
                        o["args"]["function"]))
    return sorted(out), r


def test_symbol_fields_are_named_as_trace_cmd_names_them():
    path = kernel_file()
    want = trace_cmd_functions(path)
    check(len(want) >= 5, f"trace-cmd's events: {want}")
    d = tracedat7.read(open(path, "rb").read())
    v6 = os.path.join(tmpdir(), "sym-v6.dat")
    with open(v6, "wb") as f:
        f.write(tracedat7.write6(d))
    for p in (path, v6):
        got, r = fevent_functions(p)
        expect_eq(got, want, p)
        # and the text view: a name, not a 20-digit number
        t = fe.run("report", "-i", p)
        expect_eq(t.returncode, 0, t.stderr)
        check(re.search(r"function=[A-Za-z_]", t.stdout), t.stdout[:500])
        check(not re.search(r"function=\d", t.stdout), t.stdout[:500])


TC_TIME = re.compile(r"^(?:\S+: +)?\s*\S.*-(\d+) +\[(\d+)\] +(\d+)\.(\d+): (\w+):")


def trace_cmd_times(path):
    """(cpu, pid, event) -> the ns timestamps trace-cmd report -t prints."""
    out = []
    for line in tc("report", "-t", "-i", path).stdout.splitlines():
        m = TC_TIME.match(line)
        if m:
            pid, cpu, s, frac, event = m.groups()
            out.append((int(s) * 10**9 + int(frac.ljust(9, "0")), int(cpu), int(pid), event))
    return sorted(out)


def fevent_times(path):
    r = fe.run("report", "--json", "-i", path)
    expect_eq(r.returncode, 0, r.stderr)
    out = []
    for line in r.stdout.splitlines():
        o = json.loads(line, parse_float=decimal.Decimal)
        out.append((int(o["ts"] * 10**9), o["cpu"], o["pid"], o["event"]))
    return sorted(out), r


def with_options(name, options, version=7, top=False):
    """A copy of the kernel's file with options (id, bytes) added; top:
    its instance buffer made the top buffer (trace-cmd applies TIME_SHIFT
    to the top buffer only)."""
    d = tracedat7.read(open(kernel_file(), "rb").read())
    d.options = list(d.options) + list(options)
    if top:
        d.buffers = [("",) + tuple(b[1:]) for b in d.buffers if b[0]]
    path = os.path.join(tmpdir(), f"{name}-v{version}{'-top' if top else ''}.dat")
    with open(path, "wb") as f:
        f.write(tracedat7.write7(d) if version == 7 else tracedat7.write6(d))
    return path


def time_shift(cpus, samples, interpolate=True, fractions=None):
    """TIME_SHIFT's bytes: samples is [(time, offset, scaling)] for each CPU."""
    b = struct.pack("<QII", 0x1234, 1 if interpolate else 0, cpus)
    for cpu in range(cpus):
        s = samples
        b += struct.pack("<I", len(s))
        b += b"".join(struct.pack("<q", t) for t, _, _ in s)
        b += b"".join(struct.pack("<q", o) for _, o, _ in s)
        b += b"".join(struct.pack("<q", k) for _, _, k in s)
    if fractions is not None:
        for cpu in range(cpus):
            b += b"".join(struct.pack("<q", fractions) for _ in samples)
    return b


def first_ts():
    return min(t for t, *_ in trace_cmd_times(kernel_file()))


# OFFSET 7, DATE 1, TIME_SHIFT 12, TSC2NSEC 14
def time_cases():
    t0 = first_ts()
    return {
        "offset-1s": [(7, b"1000000000\0")],
        "offset-negative-hex": [(7, b"-0x3e8\0")],
        "date": [(1, b"0x10\0")],
        "offset-and-date": [(7, b"5\0"), (1, b"3\0")],
        "tsc2nsec": [(14, struct.pack("<IIQ", 3, 1, 77))],
        "time-shift": [(12, time_shift(2, [(t0, 1000, 1), (t0 + 200000000, 5000, 1)]))],
        "time-shift-scaled": [(12, time_shift(2, [(t0 - 10, -7, 3), (t0 + 10**8, 900, 3),
                                                  (t0 + 3 * 10**8, 90000, 3)],
                                              fractions=1))],
        "time-shift-one": [(12, time_shift(2, [(t0, -123456, 1)], interpolate=False))],
        "all": [(7, b"1000000000\0"), (14, struct.pack("<IIQ", 5, 2, 0)),
                (12, time_shift(2, [(t0, 1000, 1), (t0 + 10**8, 3000, 1)]))],
    }


def test_time_options_move_every_timestamp_as_trace_cmd_moves_them():
    plain = trace_cmd_times(kernel_file())
    for name, options in time_cases().items():
        for version, top in ((7, True), (6, True), (7, False), (6, False)):
            path = with_options(name, options, version, top)
            want = trace_cmd_times(path)
            got, _ = fevent_times(path)
            what = f"{name} v{version}{' top' if top else ''}"
            expect_eq(len(want), len(plain), f"{what}: trace-cmd's events")
            # an instance buffer's times are not shifted
            check((want != plain) == (top or "time-shift" not in name),
                  f"{what}: trace-cmd moved {'no' if want == plain else 'the'} time")
            expect_eq(got, want, what)


def test_a_damaged_time_option_is_an_error():
    t0 = first_ts()
    cases = {
        "offset-no-nul": ([(7, b"12")], r"OFFSET option at offset 0x[0-9a-f]+: its 2 bytes hold no NUL"),
        "offset-text": ([(7, b"soon\0")], r'OFFSET option at offset 0x[0-9a-f]+: "soon" is not a number of nanoseconds'),
        "date-overflow": ([(1, b"0x7fffffffffffffff\0")], r"DATE option .*beyond 64 bits"),
        "tsc-short": ([(14, b"\3\0\0\0\1\0\0\0")], r"TSC2NSEC option at offset 0x[0-9a-f]+: 8 bytes, not 16"),
        "tsc-shift": ([(14, struct.pack("<IIQ", 3, 40, 0))], r"TSC2NSEC option .*a shift of 40 bits; at most 32"),
        "shift-short": ([(12, b"\0" * 12)], r"TIME_SHIFT option .*12 bytes, less than its 16-byte head"),
        "shift-cpus": ([(12, struct.pack("<QII", 1, 1, 1000))], r"TIME_SHIFT option .*1000 CPUs in its 16 bytes"),
        "shift-cut": ([(12, time_shift(1, [(t0, 1, 1), (t0 + 1, 2, 1)])[:-8])],
                      r"TIME_SHIFT option .*cpu 0: 2 samples in what is left of its bytes"),
        "shift-none": ([(12, time_shift(1, []))], r"TIME_SHIFT option .*cpu 0: 0 samples \(none\)"),
        "shift-fraction": ([(12, time_shift(1, [(t0, 1, 1)], fractions=64))],
                           r"TIME_SHIFT option .*cpu 0: a shift of 64 bits"),
    }
    for name, (options, msg) in cases.items():
        for version in (7, 6):
            path = with_options("bad-" + name, options, version)
            r = fe.run("report", "-i", path)
            expect_eq(r.returncode, 1, f"{name} v{version}: {r.stderr}")
            expect_eq(r.stdout, "", name)
            check(re.search(msg, r.stderr), f"{name} v{version}: {r.stderr}")


def recorded(path):
    from test_events_host import GROUP, clean, need_uprobes, prog
    need_uprobes()
    clean()
    try:
        r = fe.run("add", "-g", GROUP, "-x", prog(), "long traced(n)")
        expect_eq(r.returncode, 0, r.stderr)
        r = fe.run("record", "-g", GROUP, "-o", path, "--", prog(), "1")
        expect_eq(r.returncode, 0, r.stderr)
    finally:
        clean()


def dump_options(path):
    """trace-cmd dump --options: {name: the text after its header line}."""
    out, name = {}, None
    for line in tc("dump", "--options", "-i", path).stdout.splitlines():
        m = re.match(r"\s+\[Option (\w+), \d+ bytes\]$", line)
        if m:
            name = m.group(1)
            out[name] = ""
        elif re.match(r"\s+\[(\d+ options|Section )", line) or "[Unknown option" in line:
            # an option trace-cmd does not know (fevent's own, 0x6665...)
            # is " ID SIZE\t[Unknown option, size - skipping]"
            name = None
        elif name and line.strip():
            out[name] += line + "\n"
    return out


def test_fevents_file_says_who_recorded_as_trace_cmd_record_does():
    if not shutil.which("trace-cmd"):
        raise fe.Skip("trace-cmd not installed")
    paths = [os.path.join(tmpdir(), f"id{i}.dat") for i in (1, 2)]
    for p in paths:
        recorded(p)
    opts = [dump_options(p) for p in paths]
    u = os.uname()
    version = fe.run("--version").stdout.split()[1]
    for o in opts:
        expect_eq(o.get("UNAME"), f"{u.sysname} {u.nodename} {u.release} {u.machine}\n", o)
        expect_eq(o.get("VERSION"), f"fevent {version}\n", o)
        # record's instance runs on mono, which a wall clock maps, where
        # the kernel lists it (this one does)
        check(re.match(r"^local global .*\[mono\]", o.get("TRACECLOCK", "")), o)
        cpus = re.search(r"^cpus=(\d+)$", tc("report", "-i", paths[0]).stdout, re.M).group(1)
        expect_eq(o.get("CPUCOUNT"), f"{cpus}\n", o)
        check(re.fullmatch(r"0x[0-9A-F]{1,16}\n", o.get("TRACEID", "")), o)
    # a recording of its own: two ids differ
    check(opts[0]["TRACEID"] != opts[1]["TRACEID"], opts)
    # trace-cmd report says them too
    check(f"{u.sysname} {u.nodename} {u.release} {u.machine}" in
          tc("report", "--uname", "-i", paths[0]).stdout.splitlines(), "report --uname")
    expect_eq(tc("report", "--version", "-i", paths[0]).stdout.splitlines()[-1],
              f"fevent {version}")
    # and fevent reads its file as before
    r = fe.run("report", "-i", paths[0])
    expect_eq(r.returncode, 0, r.stderr)
    check(re.search(r"traced\(n=0\) = 111 ", r.stdout), r.stdout)
