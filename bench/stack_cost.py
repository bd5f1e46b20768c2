#!/usr/bin/env python3
"""What recording user stacks costs the traced program, on this machine's
uprobes, against trace-cmd and the kernel alone.

bench/fx_loop.c makes CALLS calls of fx_step(i), a uprobe (entry only,
'fevent add ... fx_step(i)'), and prints its own wall time: the program's
time, not the tool's.  Cases, interleaved, ROUNDS rounds, medians:

  untraced        the probe not enabled
  probe alone     the event on in an instance nobody reads: the floor
  kernel alone    the event and options/userstacktrace on in an
                  instance nobody reads (the buffer overwrites)
  trace-cmd -O    trace-cmd record -e GROUP -O userstacktrace -o FILE
  fevent -o       fevent record -o FILE (no stacks)
  fevent --stack -o  fevent record --stack -o FILE
  fevent --stack  fevent record --stack, the live text view into a file

Needs root, uprobes and gcc; trace-cmd where it can record here.  The ratios move with the host's
load (each round's cases run back to back, so drift between rounds
largely cancels in the medians of each round's ratio to the floor).

usage: bench/stack_cost.py [-c CALLS] [-r ROUNDS] [--fevent BIN]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GROUP = "fevent_stkcost"
TRACEFS = "/sys/kernel/tracing"


def run(argv, **kw):
    return subprocess.run(argv, check=True, capture_output=True, text=True, **kw)


def loop_time(argv, out):
    """Run argv (which runs fx_loop, writing its times to out): its wall."""
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out) as f:
        return float(f.read().split()[1])


def kernel_alone(loop, calls, out, stacks=True):
    inst = os.path.join(TRACEFS, "instances", GROUP)
    os.mkdir(inst)
    try:
        with open(os.path.join(inst, "options", "userstacktrace"), "w") as f:
            f.write("1" if stacks else "0")
        with open(os.path.join(inst, "events", GROUP, "enable"), "w") as f:
            f.write("1")
        t = loop_time([loop, "call", str(calls), out], out)
        with open(os.path.join(inst, "events", GROUP, "enable"), "w") as f:
            f.write("0")
        return t
    finally:
        os.rmdir(inst)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--calls", type=int, default=50000)
    ap.add_argument("-r", "--rounds", type=int, default=5)
    ap.add_argument("--fevent", default=os.path.join(HERE, "..", "build", "fevent"))
    a = ap.parse_args()
    fev = a.fevent
    tmp = tempfile.mkdtemp(prefix="fevent-stkcost-")
    os.chmod(tmp, 0o755)
    loop = os.path.join(tmp, "fx_loop")
    run(["gcc", "-g", "-O2", "-fno-omit-frame-pointer", "-o", loop,
         os.path.join(HERE, "fx_loop.c")])
    run([fev, "clear", "-g", GROUP, "--force"])
    run([fev, "add", "-q", "-g", GROUP, "-x", loop, "fx_step(i)"])
    out = os.path.join(tmp, "times")
    dat = os.path.join(tmp, "t.dat")
    cmd = [loop, "call", str(a.calls), out]
    cases = {
        "untraced": lambda: loop_time(cmd, out),
        "probe alone (floor)": lambda: kernel_alone(loop, a.calls, out, False),
        "kernel alone": lambda: kernel_alone(loop, a.calls, out),
        "trace-cmd -O userstacktrace": lambda: loop_time(
            ["trace-cmd", "record", "-q", "-e", GROUP, "-O", "userstacktrace", "-o", dat] + cmd,
            out),
        "fevent -o": lambda: loop_time([fev, "record", "-q", "-g", GROUP, "-o", dat, "--"] + cmd,
                                       out),
        "fevent --stack -o": lambda: loop_time(
            [fev, "record", "-q", "-g", GROUP, "--stack", "-o", dat, "--"] + cmd, out),
        "fevent --stack (text)": lambda: loop_time(
            ["sh", "-c", f'exec "$0" "$@" > {tmp}/text', fev, "record", "-q", "-g", GROUP,
             "--stack", "--"] + cmd, out),
    }
    try:
        cases["trace-cmd -O userstacktrace"]()
    except subprocess.CalledProcessError:
        # in a container whose /proc/sys/kernel/ftrace_enabled cannot be
        # written trace-cmd stops at once ("Can't enable ftrace")
        print("trace-cmd record cannot run here: left out")
        del cases["trace-cmd -O userstacktrace"]
    times = {k: [] for k in cases}
    try:
        for _ in range(a.rounds):
            for k, f in cases.items():
                times[k].append(f())
        base = times["probe alone (floor)"]
        print(f"{a.calls} calls of a uprobe'd function, the program's own wall time, "
              f"medians of {a.rounds} interleaved rounds")
        for k, v in times.items():
            ratio = statistics.median(x / b for x, b in zip(v, base))
            print(f"  {k:30s} {statistics.median(v) * 1000:8.1f} ms  {ratio:5.2f}x the floor")
    finally:
        run([fev, "clear", "-g", GROUP, "--force"])
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
