#!/usr/bin/env python3
"""Speed of the live view, against the peers on this machine.

1. The same 120,000 uprobe events (60,000 calls of a traced function, each
   with its return) recorded by 'fevent record -o' and by 'perf record';
   then 'fevent report' and 'trace-cmd report' read the same trace.dat and
   'perf script' reads perf.data.  Interleaved runs, medians.
2. Live: 'fevent record -a' while the fixture program makes calls as fast
   as uprobes let it, with the default buffer: events per second, events
   lost, and fevent's own CPU time as a share of the load's wall time.

Needs root, uprobe events, gcc, perf and trace-cmd.  No timed assertions:
the figures go in docs/speed.md.

usage: bench/record_speed.py [-n RUNS]
"""
import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FEVENT = os.path.join(HERE, "..", "build", "fevent")
FIXTURE = os.path.join(HERE, "..", "tests", "fixtures", "fx_prog.c")
GROUP = "fevent_bench"
PROTO = "long traced(n, string s, r->id, string r->name)"
CALLS = 60000


def run(argv, **kw):
    return subprocess.run(argv, check=True, capture_output=True, text=True, **kw)


def timed(argv):
    t = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status):
        sys.exit(f"failed: {' '.join(argv)}")
    return time.perf_counter() - t, ru.ru_maxrss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", "--runs", type=int, default=11)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="fevent-bench-")
    os.chmod(tmp, 0o755)
    prog = os.path.join(tmp, "fx_prog")
    run(["gcc", "-g", "-O2", FIXTURE, "-o", prog])
    run([FEVENT, "clear", "-g", GROUP, "--force"])
    run([FEVENT, "add", "-g", GROUP, "-x", prog, PROTO])
    try:
        dat = os.path.join(tmp, "t.dat")
        pdata = os.path.join(tmp, "perf.data")
        rec = run([FEVENT, "record", "-g", GROUP, "-o", dat, "--", prog, str(CALLS)])
        print(f"fevent record: {rec.stderr.strip()}")
        run(["perf", "record", "-q", "-e", f"{GROUP}:traced", "-e", f"{GROUP}:traced__return",
             "-o", pdata, "--", prog, str(CALLS)])
        cases = [("fevent report", [FEVENT, "report", "-i", dat]),
                 ("trace-cmd report", ["trace-cmd", "report", "-i", dat]),
                 ("perf script", ["perf", "script", "-i", pdata])]
        times = {name: [] for name, _ in cases}
        rss = {name: 0 for name, _ in cases}
        for _ in range(args.runs):
            for name, argv in cases:
                t, r = timed(argv)
                times[name].append(t)
                rss[name] = max(rss[name], r)
        mine = statistics.median(times["fevent report"])
        print(f"\n{2 * CALLS} events, medians of {args.runs} interleaved runs:\n")
        print("| reader | time | peak RSS | time / fevent report |")
        print("|---|---|---|---|")
        for name, _ in cases:
            m = statistics.median(times[name])
            print(f"| {name} | {m * 1000:.0f} ms | {rss[name] / 1024:.0f} MiB | {m / mine:.1f}x |")

        # live, with the kernel's default buffer
        calls = 500000
        fev = subprocess.Popen([FEVENT, "record", "-g", GROUP, "-a"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
        time.sleep(1)
        t = time.monotonic()
        subprocess.run([prog, str(calls)], stdout=subprocess.DEVNULL, check=True)
        load = time.monotonic() - t
        time.sleep(0.5)
        fev.send_signal(signal.SIGINT)
        _, status, ru = os.wait4(fev.pid, 0)
        summary = fev.stderr.read().strip()
        cpu = ru.ru_utime + ru.ru_stime
        print(f"\nlive: {2 * calls} events in {load:.2f} s = {2 * calls / load:,.0f} events/s "
              f"on one CPU; {summary}; fevent used {cpu:.2f} s of CPU = "
              f"{100 * cpu / load:.0f}% of a core")
    finally:
        run([FEVENT, "clear", "-g", GROUP, "--force"])
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
