#!/usr/bin/env python3
"""CPU and peak RSS of 'fevent report --chrome' against the text report
of the same trace.dat.

The trace.dat is made, not recorded (tests/fuzz/calls_dat.py: the
recurse.dat seed's four nested calls repeated, EVENTS events in one
CPU's pages).  Each round runs the text report (to a file, so it formats
every line) and --chrome, interleaved; CPU is user + system time and RSS
the peak, both from /usr/bin/time, medians over the rounds.  Both map the
file, so both RSS figures include its size.  The CPU ratio moves with
the machine's load (the output is about twice the text's bytes, written
through the page cache): run it on a quiet host.

usage: bench/chrome_speed.py [-e EVENTS] [-r ROUNDS] [--fevent BIN]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "fuzz"))
import calls_dat  # noqa: E402


def measure(cmd, stdout):
    r = subprocess.run(["/usr/bin/time", "-f", "%U %S %M"] + cmd, stdout=stdout,
                       stderr=subprocess.PIPE, text=True, check=True)
    user, sys_, rss = r.stderr.strip().splitlines()[-1].split()
    return float(user) + float(sys_), int(rss) / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-e", "--events", type=int, default=3_000_000)
    ap.add_argument("-r", "--rounds", type=int, default=5)
    ap.add_argument("--fevent", default=os.path.join(HERE, "..", "build", "fevent"))
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="fevent-chrome-bench-")
    try:
        dat = os.path.join(tmp, "calls.dat")
        n = calls_dat.write(dat, a.events)
        res = {"text": [], "chrome": []}
        for _ in range(a.rounds):
            with open(os.path.join(tmp, "calls.txt"), "w") as f:
                res["text"].append(measure([a.fevent, "report", "-q", "-i", dat], f))
            res["chrome"].append(measure([a.fevent, "report", "-q", "-i", dat, "--chrome",
                                          os.path.join(tmp, "calls.json")],
                                         subprocess.DEVNULL))
        print(f"{n} events ({os.path.getsize(dat) >> 20} MB trace.dat), "
              f"medians of {a.rounds} interleaved rounds")
        med = {}
        for k, v in res.items():
            med[k] = (statistics.median(c for c, _ in v), statistics.median(m for _, m in v))
            print(f"  {k:7s} CPU {med[k][0]:.2f} s  peak RSS {med[k][1]:.0f} MB")
        print(f"  --chrome / text: CPU {med['chrome'][0] / med['text'][0]:.2f}x, "
              f"RSS {med['chrome'][1] / med['text'][1]:.2f}x")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
