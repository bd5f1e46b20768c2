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


def kernel_file():
    """A v7 (zstd) file of the kernel's workqueue and hrtimer events: their
    function fields are printed with %ps."""
    if "v7" in _files:
        return _files["v7"]
    if not shutil.which("trace-cmd"):
        raise fe.Skip("trace-cmd not installed")
    inst = os.path.join(TRACEFS, "instances", BUF)
    if not os.path.isdir(os.path.join(TRACEFS, "instances")):
        raise fe.Skip("no tracefs instances")
    path = os.path.join(tmpdir(), "v7.dat")
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
