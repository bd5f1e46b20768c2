#!/usr/bin/env python3
"""Events lost and CPU spent recording a fast kprobe, against the peers.

In the 6.1 test VM (one CPU, TCG), a static program makes N one-byte
reads of /dev/zero (ksys_read, a kprobe event fevent adds, fd and count)
as fast as it can, under each recorder with the same per-CPU buffer
(-b 64 and 1024 KB; perf -m in pages of 4 KB):

  floor       the event enabled in the top-level buffer, nobody reading
  fevent -o   fevent record -o FILE > /dev/null (lines nobody reads are
              not made: the events are only counted)
  fevent      fevent record, its text lines read from a FIFO by a cat
              outside the measured processes (the live view, formatted)
  fevent-json the same with --json
  fevent-graph the same with --graph
  trace-cmd   trace-cmd record -F -o FILE
  perf        perf record -o FILE

For each: the events recorded (fevent's summary, trace-cmd report, perf
report --stats) against the N reads made, the traced program's wall time
over the floor's, and the recorder's own CPU per event (its process
tree's CPU, bench/fx_cpu.c, less the program's, which bench/fx_loop.c
reports).  Rounds interleaved, each round rotating the order; medians.
trace-cmd and perf are this machine's, copied into the VM with their
libraries.  No assertions: the figures go in the README's Speed section.

usage: bench/record_loss.py [-n ROUNDS] [-c CALLS] [--suite S]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "vm"))
import vm  # noqa: E402

FEVENT = os.path.join(HERE, "..", "build", "fevent")
# entry only (no return type): one event a read, as the peers record
PROBE = "ksys_read(fd, count)"
MODES = ["floor", "fevent-o", "fevent", "fevent-json", "fevent-graph", "trace-cmd", "perf"]
SIZES = [64, 1024]


def command(mode, kb, calls):
    loop = f"/fx_loop read {calls} /tmp/loop"
    cpu = "/fx_cpu /tmp/cpu"
    if mode == "floor":
        return (f"echo {kb} > $T/buffer_size_kb; echo 1 > $T/events/functions/ksys_read/enable; "
                f"{cpu} {loop}; echo 0 > $T/events/functions/ksys_read/enable; "
                f"ev=$(awk '/^(entries|overrun):/ {{ n += $2 }} END {{ print n }}' "
                f"$T/per_cpu/cpu0/stats); echo > $T/trace")
    if mode == "fevent-o":
        return (f"{cpu} fevent record -b {kb} -o /tmp/f.dat -- {loop} > /dev/null 2> /tmp/sum; "
                f"ev=$(sed -n 's/^fevent: \\([0-9]*\\) events.*/\\1/p' /tmp/sum); rm -f /tmp/f.dat")
    if mode in ("fevent", "fevent-json", "fevent-graph"):
        view = {"fevent": "", "fevent-json": " --json", "fevent-graph": " --graph"}[mode]
        return (f"cat /tmp/fifo > /dev/null & "
                f"{cpu} fevent record{view} -b {kb} -- {loop} > /tmp/fifo 2> /tmp/sum; wait; "
                f"ev=$(sed -n 's/^fevent: \\([0-9]*\\) events.*/\\1/p' /tmp/sum)")
    if mode == "trace-cmd":
        return (f"{cpu} trace-cmd record -q -b {kb} -e functions:ksys_read -F -o /tmp/t.dat "
                f"{loop} > /dev/null 2>&1; "
                f"ev=$(trace-cmd report -q -i /tmp/t.dat 2>/dev/null | grep -c 'ksys_read:'); "
                f"rm -f /tmp/t.dat*")
    if mode == "perf":
        return (f"{cpu} perf record -q -m {kb // 4} -e functions:ksys_read -o /tmp/p.data "
                f"-- {loop} > /dev/null 2>&1; "
                f"ev=$(perf report -i /tmp/p.data --stats 2>/dev/null | "
                f"sed -n 's/^ *SAMPLE events: *\\([0-9]*\\).*/\\1/p' | head -1); rm -f /tmp/p.data*")
    raise ValueError(mode)


def snippet(rounds, calls):
    lines = ["T=/sys/kernel/tracing", "mount -t tracefs nodev $T", "export HOME=/tmp",
             f"fevent add -q '{PROBE}' || exit 3",
             "for t in trace-cmd perf; do command -v $t > /dev/null || echo \"no $t\"; done",
             "mkfifo /tmp/fifo",
             f"/fx_loop read {calls} /tmp/loop"]      # warm up
    for r in range(rounds):
        for kb in SIZES:
            order = MODES[r % len(MODES):] + MODES[:r % len(MODES)]
            for mode in order:
                # and with no calls: what the recorder costs whatever it records
                for n in (calls, 0):
                    lines.append(command(mode, kb, n))
                    lines.append(f"echo \"run {r} {kb} {mode} {n} $(cat /tmp/loop) tool "
                                 f"$(cat /tmp/cpu) events ${{ev:-0}}\"; rm -f /tmp/loop /tmp/cpu")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", default="bookworm")
    ap.add_argument("-n", "--rounds", type=int, default=3)
    ap.add_argument("-c", "--calls", type=int, default=100000)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="fevent-bench-")
    try:
        bins = {}
        for name in ("fx_loop", "fx_cpu"):
            bins[name] = os.path.join(tmp, name)
            subprocess.run(["gcc", "-O2", "-static", "-o", bins[name],
                            os.path.join(HERE, name + ".c")], check=True)
        files = {"/fx_loop": bins["fx_loop"], "/fx_cpu": bins["fx_cpu"]}
        for peer in ("trace-cmd", "perf"):
            if shutil.which(peer):
                files["/usr/bin/" + peer] = shutil.which(peer)
        rc, out, err = vm.run(FEVENT, [("bench", snippet(args.rounds, args.calls))],
                              files=files, timeout=6000, suite=args.suite)["bench"]
    finally:
        shutil.rmtree(tmp)
    if rc:
        sys.exit(f"the bench failed ({rc}): {out}{err}")
    runs = {}
    for line in out.splitlines():
        f = line.split()
        if line.startswith("no "):
            print(line)
        # run R KB MODE N wall W cpu C sum S tool cpu T events E
        if len(f) >= 15 and f[0] == "run" and f[5] == "wall" and f[12] == "cpu":
            runs.setdefault((int(f[2]), f[3], int(f[4])), []).append(
                {"wall": float(f[6]), "loop": float(f[8]), "tool": float(f[13]),
                 "events": int(f[15]) if len(f) > 15 else 0})
    print(f"{args.suite} VM, one CPU (TCG): {args.calls} one-byte reads (a kprobe on "
          f"ksys_read), medians of {args.rounds} interleaved rounds\n")
    print("| buffer | recorder | events lost | program's time / floor | recorder's CPU per event (+ fixed) |")
    print("|---|---|---|---|---|")
    n = args.calls
    for kb in SIZES:
        floor = statistics.median(r["wall"] for r in runs.get((kb, "floor", n), [{"wall": 0}]))
        for mode in MODES:
            rs = runs.get((kb, mode, n))
            if not rs:
                continue
            lost = statistics.median(max(0, n - r["events"]) for r in rs)
            wall = statistics.median(r["wall"] for r in rs)
            # the recorder's CPU less the program's, less what it costs
            # recording nothing (start, formats, the file's header)
            fixed = statistics.median(r["tool"] - r["loop"]
                                      for r in runs.get((kb, mode, 0), [{"tool": 0, "loop": 0}]))
            tool = statistics.median((r["tool"] - r["loop"] - fixed) / n for r in rs)
            print(f"| {kb} KB | {mode} | {100 * lost / n:.1f}% "
                  f"| {wall / floor if floor else 0:.2f}x "
                  f"| {'-' if mode == 'floor' else f'{tool * 1e6:.1f} µs (+{fixed:.2f} s)'} |")
    print("\nruns (events, program's wall, recorder's CPU):")
    for (kb, mode, calls), rs in sorted(runs.items()):
        print(f"  {kb} KB {mode} {calls}: " + ", ".join(
            f"{r['events']} ev {r['wall']:.2f}s {r['tool'] - r['loop']:.2f}s" for r in rs))


if __name__ == "__main__":
    main()
