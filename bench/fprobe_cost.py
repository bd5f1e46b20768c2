#!/usr/bin/env python3
"""What an fprobe (f:) event costs the traced program against a kprobe
(p:) on the same function at the same rate, and their return twins
(f:...%return against r:).

In the test VM (a kernel whose tracefs README lists the fprobe line:
trixie's 6.12, sid's 7.2), a static program makes N one-byte reads of
/dev/zero (ksys_read in the kernel, bench/fx_loop.c) and times itself
with the probe off, a kprobe on, an fprobe on, a kretprobe on and an
fprobe return event on, rounds interleaved, each event reading the same
two arguments (fd, count) and writing to the top-level ring buffer.
Prints each mode's median wall and CPU time per call and its ratio to
the probe off, then fprobe/kprobe and fexit/kretprobe as the medians of
each round's own ratios (whole and of the cost over the probe off): the
drift of an emulated CPU on a loaded host between rounds cancels in a
round's pair.  No assertions: the figures go in docs/speed.md's "fprobe"
section.

usage: bench/fprobe_cost.py [--suite trixie|sid] [-n ROUNDS] [-c CALLS]
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
LOOP = os.path.join(HERE, "fx_loop.c")

# the same two arguments read each way: registers for kprobes, $argN for
# fprobes (which refuse registers)
MODES = [
    ("off", None),
    ("kprobe", "p:bench/k ksys_read fd=%di:s32 count=%dx:u64"),
    ("fprobe", "f:bench/k ksys_read fd=$arg1:s32 count=$arg3:u64"),
    ("kretprobe", "r:bench/k ksys_read ret=$retval:s64"),
    ("fexit", "f:bench/k ksys_read%return ret=$retval:s64"),
]


def snippet(rounds, calls):
    lines = ["mount -t tracefs nodev /sys/kernel/tracing", "cd /sys/kernel/tracing",
             "grep -q '^[[:space:]]*f\\[:' README || { echo 'no fprobe events in README'; exit 3; }",
             "echo 4096 > buffer_size_kb",
             # warm up: page cache, the ftrace trampolines' first use
             f"/fx_loop read {calls} > /dev/null"]
    for r in range(rounds):
        # rotate the order each round so no mode always runs first
        order = MODES[r % len(MODES):] + MODES[:r % len(MODES)]
        for name, line in order:
            if line:
                lines.append(f"echo '{line}' >> dynamic_events || exit 4")
                lines.append("echo 1 > events/bench/k/enable")
            lines.append(f"echo \"{name} $(/fx_loop read {calls})\"")
            if line:
                lines.append("echo 0 > events/bench/k/enable")
                lines.append("echo '-:bench/k' >> dynamic_events")
                lines.append("echo > trace")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", default="trixie")
    ap.add_argument("-n", "--rounds", type=int, default=7)
    ap.add_argument("-c", "--calls", type=int, default=100000)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="fevent-bench-")
    try:
        loop = os.path.join(tmp, "fx_loop")
        subprocess.run(["gcc", "-O2", "-static", "-o", loop, LOOP], check=True)
        rc, out, err = vm.run(FEVENT, [("bench", snippet(args.rounds, args.calls))],
                              files={"/fx_loop": loop}, timeout=3000, suite=args.suite)["bench"]
    finally:
        shutil.rmtree(tmp)
    if rc:
        sys.exit(f"the bench failed ({rc}): {out}{err}")
    # per round, in run order: each mode's wall and CPU time
    rounds = []
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 5 and f[0] in dict(MODES) and f[1] == "wall" and f[3] == "cpu":
            if not rounds or f[0] in rounds[-1]:
                rounds.append({})
            rounds[-1][f[0]] = (float(f[2]), float(f[4]))
    rounds = [r for r in rounds if len(r) == len(MODES)]
    print(f"{args.suite}: {args.calls} one-byte reads, {len(rounds)} interleaved rounds, "
          f"medians")
    for i, what in ((0, "wall"), (1, "cpu")):
        med = {name: statistics.median(r[name][i] for r in rounds) for name, _ in MODES}
        print(f" {what} time")
        for name, _ in MODES:
            print(f"  {name:10} {med[name] / args.calls * 1e9:8.0f} ns/call  "
                  f"{med[name] / med['off']:.2f}x of off")

        def ratio(a, b):
            # of each round's own pair: drift between rounds cancels
            return statistics.median(r[a][i] / r[b][i] for r in rounds)

        def extra(a, b):
            return statistics.median((r[a][i] - r["off"][i]) / (r[b][i] - r["off"][i])
                                     for r in rounds)
        print(f"  fprobe/kprobe {ratio('fprobe', 'kprobe'):.2f} (cost over off "
              f"{extra('fprobe', 'kprobe'):.2f}), fexit/kretprobe "
              f"{ratio('fexit', 'kretprobe'):.2f} (cost over off "
              f"{extra('fexit', 'kretprobe'):.2f})")

if __name__ == "__main__":
    main()
