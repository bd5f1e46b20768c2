#!/usr/bin/env python3
"""Instructions the view spends on each event, counted by callgrind.

'fevent report -i FILE' decodes and formats with the same code as live
'fevent record' (fe_view_page, then fe_view_flush_until / fe_view_flush);
callgrind counts the instructions inside those calls (start-up, the
file's header and kallsyms left out) and they are divided by the events.
The count is deterministic: it moves with the code, not with the load on
the machine, so a change can be judged on the host where the timed
bench (bench/record_loss.py) needs the VM.

Without -i, a trace.dat is recorded here first: a uprobe on fx_step(i)
of bench/fx_loop.c, entry only, CALLS calls (root, uprobe_events).
A trace.dat from the VM's kprobe (ksys_read(fd, count), with __caller)
is the closer workload: record one there with 'fevent record -o' and
pass it with -i.

usage: bench/view_instructions.py [-i FILE] [-c CALLS] [--fevent BIN ...]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FEVENT = os.path.join(HERE, "..", "build", "fevent")
GROUP = "fevent_vinsn"
VIEW = ("fe_view_page", "fe_view_flush_until", "fe_view_flush")


def record(fevent, tmp, calls):
    loop = os.path.join(tmp, "fx_loop")
    subprocess.run(["gcc", "-g", "-O2", "-o", loop, os.path.join(HERE, "fx_loop.c")], check=True)
    subprocess.run([fevent, "clear", "-g", GROUP, "--force"], capture_output=True)
    subprocess.run([fevent, "add", "-q", "-g", GROUP, "-x", loop, "fx_step(i)"], check=True)
    dat = os.path.join(tmp, "t.dat")
    try:
        subprocess.run([fevent, "record", "-q", "-g", GROUP, "-b", "8192", "-o", dat, "--",
                        loop, "call", str(calls), os.devnull],
                       check=True, stdout=subprocess.DEVNULL)
    finally:
        subprocess.run([fevent, "clear", "-g", GROUP, "--force"], capture_output=True)
    return dat


def count(fevent, dat, mode, tmp):
    """(instructions in the view, events) of one report."""
    out = os.path.join(tmp, "cg.out")
    argv = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
            fevent, "report", "-i", dat] + ([f"--{mode}"] if mode != "text" else [])
    # the lines go to a file: to /dev/null they would not be made
    with open(os.path.join(tmp, "lines"), "w") as lines:
        r = subprocess.run(argv, stdout=lines, stderr=subprocess.PIPE, text=True)
    if r.returncode:
        sys.exit(f"failed: {' '.join(argv)}\n{r.stderr}")
    m = re.search(r"^fevent: (\d+) events", r.stderr, re.M)
    events = int(m.group(1)) if m else 0
    ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", out],
                         capture_output=True, text=True, check=True).stdout
    total = 0
    for line in ann.splitlines():
        # "123,456 (12.3%)  /path/src/view_decode.c:fe_view_page [/path/fevent]"
        # (live_view.c before the view's stages had files of their own)
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+\S*(?:live_view|view_\w+)\.c:(\w+) \[", line)
        if m and m.group(2) in VIEW:
            total += int(m.group(1).replace(",", ""))
    return total, events


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-i", "--input", help="a trace.dat (default: record one here)")
    ap.add_argument("-c", "--calls", type=int, default=100000)
    ap.add_argument("--fevent", action="append", help="fevent binaries to compare "
                    "(default: build/fevent)")
    ap.add_argument("--modes", default="text,json,graph")
    args = ap.parse_args()
    if not shutil.which("valgrind"):
        sys.exit("needs valgrind")
    bins = args.fevent or [FEVENT]
    tmp = tempfile.mkdtemp(prefix="fevent-vinsn-")
    try:
        dat = args.input or record(bins[0], tmp, args.calls)
        print("| fevent | output | events | instructions per event |")
        print("|---|---|---|---|")
        for b in bins:
            for mode in args.modes.split(","):
                total, events = count(b, dat, mode, tmp)
                print(f"| {b} | {mode} | {events} | "
                      f"{total / events if events else 0:.0f} |")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
