#!/usr/bin/env python3
"""What fevent record's counting instance costs in the kernel.

For each recorded event with a string (__data_loc) field, fevent record
makes a second tracefs instance (fevent-PID-countN, a 4 KB buffer per
CPU nobody reads) with the event enabled, so that the kernel's per-CPU
stats there count what was committed: the probe's hits less that is what
the kernel dropped as larger than a page (src/kernel/record.c, "What the kernel
counts and never records").  Every hit of such an event is then written
into two ring buffers.

In the 6.1 test VM (one CPU, TCG), a static program makes N openat()
calls of a path that does not exist (bench/fx_open.c; do_sys_openat2 in
the kernel) and times itself (wall, and system CPU) with:

  off     the probe off
  floor   a kprobe event carrying the file name as a string enabled in
          one instance (bench, 1024 KB), nobody reading: fevent's own
          instance without a reader
  count   the same plus a second instance with the same event enabled
          and a 4 KB buffer, as record.c sets it: the counting instance
  int     the floor's setting for the same kprobe without the string
          (integer fields only), for scale
  int+count  the int event in both instances, for scale

Rounds interleaved, each round rotating the order; medians.  Prints each
mode's time per call, then count/floor and the extra per event as the
medians of each round's own pairs (the drift of an emulated CPU on a
loaded host between rounds cancels in a round's pair).  Then runs
fevent record -g cc once and lists the tracefs instances while it runs,
to show the counting instance it makes.  No assertions: the figures go
in docs/speed.md's "The counting instance" section.

usage: bench/count_instance_cost.py [-n ROUNDS] [-c CALLS] [--suite S]
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
OPEN = os.path.join(HERE, "fx_open.c")
# the string event (an entry and a return event: only the entry one, which
# has the string, is enabled in the modes) and an integer-only twin
STRING = "long do_sys_openat2(int dfd, string filename)"
INTEGER = "do_sys_openat2(int dfd)"
# mode: (event, instances it is enabled in)
MODES = {
    "off": (None, []),
    "floor": ("cc", ["bench"]),
    "count": ("cc", ["bench", "benchcount"]),
    "int": ("ci", ["bench"]),
    "int+count": ("ci", ["bench", "benchcount"]),
}


def snippet(rounds, calls):
    lines = ["T=/sys/kernel/tracing", "mount -t tracefs nodev $T", "export HOME=/tmp",
             f"fevent add -q -g cc '{STRING}' || exit 3",
             f"fevent add -q -g ci '{INTEGER}' || exit 3",
             "grep -e ' cc/' -e ' ci/' -e ':cc/' -e ':ci/' $T/dynamic_events",
             "mkdir $T/instances/bench $T/instances/benchcount || exit 4",
             "echo 1024 > $T/instances/bench/buffer_size_kb",
             # what record.c sets for a counting instance
             "echo 4 > $T/instances/benchcount/buffer_size_kb",
             "echo \"count buffer_size_kb $(cat $T/instances/benchcount/buffer_size_kb)\"",
             # warm up: the dentry cache, the probes' first use
             f"/fx_open {calls} > /dev/null"]
    names = list(MODES)
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            group, insts = MODES[name]
            for i in insts:
                lines.append(f"echo 1 > $T/instances/{i}/events/{group}/do_sys_openat2/enable")
            lines.append(f"echo \"{name} $(/fx_open {calls})\"")
            for i in insts:
                lines.append(f"echo 0 > $T/instances/{i}/events/{group}/do_sys_openat2/enable")
                lines.append(f"echo > $T/instances/{i}/trace")
    # the events both instances committed in the last count mode would be
    # gone by now; show instead what the counting instance counts in one run
    lines += ["echo 1 > $T/instances/bench/events/cc/do_sys_openat2/enable",
              "echo 1 > $T/instances/benchcount/events/cc/do_sys_openat2/enable",
              "/fx_open 1000 > /dev/null",
              "echo 0 > $T/instances/bench/events/cc/do_sys_openat2/enable",
              "echo 0 > $T/instances/benchcount/events/cc/do_sys_openat2/enable",
              "echo '::bench stats'; cat $T/instances/bench/per_cpu/cpu0/stats",
              "echo '::count stats'; cat $T/instances/benchcount/per_cpu/cpu0/stats",
              "rmdir $T/instances/bench $T/instances/benchcount"]
    return "\n".join(lines) + "\n"


# fevent record itself: the counting instance it makes, seen while it runs
RECORD = r"""
T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
export HOME=/tmp
fevent record -o /tmp/x.dat -g cc -- /fx_open 300000 > /dev/null 2> /tmp/sum &
# bounded wait until the counting instance has its event enabled
i=0
while [ $i -lt 400 ]; do
	e=$(cat $T/instances/fevent-*-count0/events/cc/do_sys_openat2/enable 2>/dev/null)
	[ "$e" = 1 ] && break
	i=$((i + 1)); sleep 0.05
done
echo "::instances $(ls $T/instances | tr '\n' ' ')"
for d in $T/instances/fevent-*-count*; do
	echo "::$(basename $d) buffer_size_kb=$(cat $d/buffer_size_kb)" \
	     "do_sys_openat2=$(cat $d/events/cc/do_sys_openat2/enable)" \
	     "do_sys_openat2__return=$(cat $d/events/cc/do_sys_openat2__return/enable)"
done
wait
echo "::summary"; cat /tmp/sum
echo "::after $(ls $T/instances | tr '\n' ' ')"
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", default="bookworm")
    ap.add_argument("-n", "--rounds", type=int, default=7)
    ap.add_argument("-c", "--calls", type=int, default=100000)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="fevent-bench-")
    try:
        prog = os.path.join(tmp, "fx_open")
        subprocess.run(["gcc", "-O2", "-static", "-o", prog, OPEN], check=True)
        res = vm.run(FEVENT, [("bench", snippet(args.rounds, args.calls)), ("record", RECORD)],
                     files={"/fx_open": prog}, timeout=3000, suite=args.suite)
    finally:
        shutil.rmtree(tmp)
    rc, out, err = res["bench"]
    if rc:
        sys.exit(f"the bench failed ({rc}): {out}{err}")
    rounds = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 5 and f[0] in MODES and f[1] == "wall" and f[3] == "sys":
            if not rounds or f[0] in rounds[-1]:
                rounds.append({})
            rounds[-1][f[0]] = (float(f[2]), float(f[4]))
        elif not (len(f) == 5 and f[0] in MODES):
            print(line)
    rounds = [r for r in rounds if len(r) == len(MODES)]
    n = args.calls
    print(f"{args.suite}: {n} openat() calls, {len(rounds)} interleaved rounds, medians")
    for i, what in ((0, "wall"), (1, "system CPU")):
        med = {m: statistics.median(r[m][i] for r in rounds) for m in MODES}
        print(f" {what} time")
        for m in MODES:
            print(f"  {m:10} {med[m] / n * 1e6:7.2f} us/call  {med[m] / med['off']:.2f}x of off")

        def ratio(a, b):
            return statistics.median(r[a][i] / r[b][i] for r in rounds)

        def extra(a, b):
            return statistics.median((r[a][i] - r[b][i]) / n * 1e6 for r in rounds)
        print(f"  count/floor {ratio('count', 'floor'):.2f}, extra {extra('count', 'floor'):.2f} "
              f"us/event; floor over off {extra('floor', 'off'):.2f} us/event; "
              f"int+count/int {ratio('int+count', 'int'):.2f}, extra "
              f"{extra('int+count', 'int'):.2f} us/event")
        print("  each round's extra, count over floor (us/event): " +
              " ".join(f"{(r['count'][i] - r['floor'][i]) / n * 1e6:.2f}"
                       for r in sorted(rounds, key=lambda r: r['count'][i] - r['floor'][i])))
    rc, out, err = res["record"]
    print(f"fevent record -g cc (rc {rc}):")
    print(out + err)


if __name__ == "__main__":
    main()
