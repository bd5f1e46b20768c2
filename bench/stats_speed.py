#!/usr/bin/env python3
"""What counting costs: fevent stats against streaming every event, and
against bpftrace.

1. In the 6.1 test VM (TCG, one CPU): a kprobe and its kretprobe on
   ksys_read at the highest rate one task can make them (bench/fx_loop.c
   reading one byte of /dev/zero N times, built static).  The workload
   alone, then under 'fevent record -- ...' (every event streamed and
   printed to /dev/null), 'fevent stats -- ...' (the kernel's hist
   triggers), 'fevent stats --stream' and 'fevent stats --latency':
   fevent's own CPU time (its and its children's, less the workload's
   own), events lost, and the workload's own wall time.
2. On this host (uprobes, no hist triggers): 'fevent stats --by comm'
   against bpftrace's '@[comm] = count()' on the same N calls of a
   function: wall time of the whole run and CPU time, both including
   start-up (bpftrace compiles its program with LLVM).

Needs root, qemu and the VM kernel (tests/vm), gcc, bpftrace.  No timed
assertions: the figures go in docs/speed.md.

usage: bench/stats_speed.py [-n CALLS] [--host-calls N] [--runs R]
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "vm"))
FEVENT = os.path.join(HERE, "..", "build", "fevent")
LOOP = os.path.join(HERE, "fx_loop.c")
PROBE = "ssize_t ksys_read(unsigned int fd, char *buf, size_t count)"
WAYS = [
    ("alone", ""),
    ("record", "fevent record -e ksys_read --"),
    ("stats (kernel)", "fevent stats -e ksys_read --"),
    ("stats --stream", "fevent stats --stream -e ksys_read --"),
    ("stats --latency (kernel)", "fevent stats --latency -e ksys_read --"),
]


def vm_part(calls, runs):
    import vm
    tmp = tempfile.mkdtemp(prefix="fevent-bench-")
    loop = os.path.join(tmp, "fx_loop")
    lines = ["T=/sys/kernel/tracing", "mount -t tracefs nodev $T 2>/dev/null",
             f"fevent add -q '{PROBE}' || exit 1"]
    for r in range(runs):
        for i, (name, cmd) in enumerate(WAYS):
            lines.append(f"echo ::{i}")
            lines.append(f"( time {cmd} /fx_loop read {calls} > /tmp/bench.out ) 2> /tmp/bench.err; "
                         "grep -h '^wall' /tmp/bench.out /tmp/bench.err; cat /tmp/bench.err")
    snippet = "\n".join(lines) + "\nfevent clear -q\n"
    try:
        subprocess.run(["gcc", "-O2", "-static", "-o", loop, LOOP], check=True)
        rc, out, err = vm.run(FEVENT, [("bench", snippet)], files={"/fx_loop": loop},
                              timeout=3000)["bench"]
    finally:
        shutil.rmtree(tmp)
    if rc:
        sys.exit(f"the VM part failed: {err}")
    results = {i: [] for i in range(len(WAYS))}
    for block in out.split("::")[1:]:
        head, _, body = block.partition("\n")
        m = re.search(r"wall ([\d.]+) cpu ([\d.]+)", body)
        user = re.search(r"user\s+(\d+)m\s*([\d.]+)s", body)
        sys_ = re.search(r"sys\s+(\d+)m\s*([\d.]+)s", body)
        lost = re.search(r"LOST: (\d+)|lost: (\d+)|(\d+) events? lost", body)
        total = (int(user[1]) * 60 + float(user[2]) + int(sys_[1]) * 60 + float(sys_[2])) \
            if user and sys_ else 0.0
        results[int(head)].append({
            "wall": float(m[1]), "cpu": float(m[2]),
            "fevent_cpu": max(total - float(m[2]), 0.0) if int(head) else 0.0,
            "lost": "none lost" not in body and int(head) in (1, 3),
            "text": body,
        })
    base = statistics.median(r["wall"] for r in results[0])
    print(f"VM: {calls} reads of one byte (a kprobe and a kretprobe each), "
          f"median of {runs}")
    print(f"  {'way':26} {'workload wall':>14} {'x alone':>8} {'fevent CPU':>11}  lost")
    for i, (name, _) in enumerate(WAYS):
        wall = statistics.median(r["wall"] for r in results[i])
        cpu = statistics.median(r["fevent_cpu"] for r in results[i])
        lost = any(r["lost"] for r in results[i])
        print(f"  {name:26} {wall:13.3f}s {wall / base:7.2f}x {cpu:10.3f}s  "
              f"{'yes' if lost else 'no' if i else '-'}")
    for i in (1, 3):
        for r in results[i]:
            for line in r["text"].splitlines():
                if line.startswith("fevent:"):
                    print(f"    {WAYS[i][0]}: {line}")
                    break
            break


def timed(argv, env=None):
    t = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status):
        sys.exit(f"failed: {' '.join(argv)}")
    return time.perf_counter() - t, ru.ru_utime + ru.ru_stime


def host_part(calls, runs):
    tmp = tempfile.mkdtemp(prefix="fevent-bench-")
    os.chmod(tmp, 0o755)
    loop = os.path.join(tmp, "fx_loop")
    group = "fevent_bench_stats"
    try:
        subprocess.run(["gcc", "-O2", "-o", loop, LOOP], check=True)
        subprocess.run([FEVENT, "clear", "-q", "-g", group, "--force"])
        subprocess.run([FEVENT, "add", "-q", "-g", group, "-x", loop, "int fx_step(int i)"],
                       check=True)
        fe = [FEVENT, "stats", "-g", group, "-e", "fx_step", "--by", "comm", "--",
              loop, "call", str(calls)]
        bt = ["bpftrace", "-e", f"uprobe:{loop}:fx_step {{ @[comm] = count(); }}",
              "-c", f"{loop} call {calls}"]
        alone = [loop, "call", str(calls)]
        got = {"alone": [], "fevent": [], "bpftrace": []}
        for _ in range(runs):
            got["alone"].append(timed(alone))
            got["fevent"].append(timed(fe))
            got["bpftrace"].append(timed(bt))
    finally:
        subprocess.run([FEVENT, "clear", "-q", "-g", group, "--force"])
        shutil.rmtree(tmp)
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
           for k, v in got.items()}
    print(f"host: {calls} calls of a uprobed function, whole runs, median of {runs}")
    for k in ("alone", "fevent", "bpftrace"):
        print(f"  {k:9} wall {med[k][0]:7.3f}s  cpu {med[k][1]:7.3f}s")
    print(f"  bpftrace / fevent stats: wall {med['bpftrace'][0] / med['fevent'][0]:.2f}x, "
          f"cpu {med['bpftrace'][1] / med['fevent'][1]:.2f}x")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", "--calls", type=int, default=20000)
    ap.add_argument("--host-calls", type=int, default=200000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-vm", action="store_true")
    args = ap.parse_args()
    if not args.no_vm:
        vm_part(args.calls, args.runs)
    host_part(args.host_calls, args.runs)


if __name__ == "__main__":
    main()
