#!/usr/bin/env python3
"""What add and clear cost against the number of kernel functions.

In the 6.1 test VM (qemu TCG, one vCPU), for N functions (every k-th name
'fevent funcs' lists, spread over the alphabet) and a glob:
  - floor add: the N definitions ('fevent compile') written into
    kprobe_events by a shell loop, one 'echo >>' a line;
  - fevent add -f of a list of N 'FUNC(...)', or of the one line
    'GLOB(...)', and its compile alone (what add adds to the floor
    that is not installing); for a list, also the first add of the
    boot, which reads /proc/kallsyms and keeps the lines a list asks in
    /run/fevent/kallsyms.shared, and the kernel's BTF and its function
    index (the VM gets a /run, as a real system has; later commands read
    those files); it runs first in each binary's turn, so that its
    compile and add find what that binary keeps;
  - floor clear: kprobe_events truncated (echo > kprobe_events), and
    per event, '-:functions/EVENT' written by a shell loop;
  - fevent clear.
Each is a whole process under busybox 'time' (wall, user and sys CPU, 10 ms
steps), interleaved round by round, each after 2 s of nothing (the kernel
optimizes new kprobes and frees removed ones in deferred work, which on
one vCPU slowed whatever step came next); the table gives medians, and the
median of each round's ratio to the floor of its own round (under TCG the
kernel's side drifts between rounds; a round's steps drift together).  --old BIN
runs a second fevent beside the first in the same boot, for a before and
after.  Wall times in the VM follow the host's load (TCG): compare the
ratios, and say the host's load average, printed at the start.

Needs root, qemu and the VM kernel (tests/vm).  No timed assertions.

usage: bench/probe_scale.py [-n ROUNDS] [--sizes 100,1000] [--glob 'tcp_*'] [--no-glob] [--old BIN] [--no-aslr]
"""
import argparse
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "vm"))
FEVENT = os.path.join(HERE, "..", "build", "fevent")


def snippet(sizes, glob, rounds, old, no_glob=False, aslr=True):
    bins = ["fevent"] + (["fevent-old"] if old else [])
    T = "/sys/kernel/tracing"
    tm = "( time sh -c \"$1\" ) 2>&1 | grep -E '^(real|user|sys)' | tr '\\n' ' '; echo"
    lines = [
        f"export T={T}",
        "mount -t tracefs nodev $T 2>/dev/null",
        # as on a real system: add keeps its notes there, and the kernel's
        # symbols a list asks (ksyms_shared.c) for the boot
        "mkdir -p /run",
    ] + ([] if aslr else [
        # every process at the same addresses: qemu TCG keeps the code it
        # translated by address, and a program whose addresses are
        # randomized (a PIE, its libraries) is translated anew at every
        # exec, which a real CPU never pays: a dynamic "hello" starts in
        # 21 ms with randomization, 6 ms without, busybox (static, not
        # PIE) in 3.5 ms either way (docs/speed.md)
        "echo 0 > /proc/sys/kernel/randomize_va_space",
    ]) + [
        # 2 s of nothing first: the kernel's deferred work of the step
        # before (the kprobe optimizer, RCU callbacks freeing probes) is
        # not charged to the step timed
        f"t() {{ sleep 2; echo \"::$2\"; {tm}; }}",
        "fevent funcs '*' > /tmp/all",
        "total=$(grep -c . /tmp/all)",
        f"echo \"::glob_count\"; fevent funcs '{glob}' | grep -c .",
        f"echo '{glob}(...)' > /tmp/protos_glob",
        "fevent compile -q -f /tmp/protos_glob > /tmp/defs_glob",
        "sed -n 's/^[pr]:functions\\/\\([^ ]*\\) .*/-:functions\\/\\1/p' /tmp/defs_glob "
        "> /tmp/undefs_glob",
    ]
    for n in sizes:
        lines += [
            f"awk -v k=$((total / {n})) 'NR % k == 1' /tmp/all | head -n {n} > /tmp/names_{n}",
            f"sed 's/$/(...)/' /tmp/names_{n} > /tmp/protos_{n}",
            f"fevent compile -q -f /tmp/protos_{n} > /tmp/defs_{n}",
            f"sed -n 's/^[pr]:functions\\/\\([^ ]*\\) .*/-:functions\\/\\1/p' /tmp/defs_{n} "
            f"> /tmp/undefs_{n}",
            f"echo ::count_{n}; grep -c . /tmp/defs_{n}",
        ]
    for _ in range(rounds):
        for n in sizes + ([] if no_glob else ["glob"]):
            lines += [
                f"t 'while read -r l; do echo \"$l\" >> $T/kprobe_events; done < /tmp/defs_{n}'"
                f" floor_add_{n}",
                f"t 'echo > $T/kprobe_events' floor_trunc_{n}",
                f"while read -r l; do echo \"$l\" >> $T/kprobe_events; done < /tmp/defs_{n}",
                f"t 'while read -r l; do echo \"$l\" >> $T/kprobe_events; done < /tmp/undefs_{n}'"
                f" floor_loop_{n}",
            ]
            for b in bins:
                add = f"{b} add -q -f /tmp/protos_{n}"
                if n != "glob":
                    # the first add of a boot: kallsyms read, BTF indexed,
                    # the files kept; first, so that the steps after it
                    # find what this binary keeps, as a later add would
                    lines += [
                        "t 'rm -f /run/fevent/kallsyms.shared /run/fevent/vmlinux.btf "
                        f"/run/fevent/vmlinux.btf.funcs; {add}' {b}_addfirst_{n}",
                        f"{b} clear -q",
                    ]
                lines += [
                    f"t '{b} compile -q -f /tmp/protos_{n} > /dev/null' {b}_compile_{n}",
                    f"t '{add}' {b}_add_{n}",
                    f"echo ::{b}_made_{n}; grep -c . $T/kprobe_events",
                    f"t '{b} clear -q' {b}_clear_{n}",
                    f"echo ::{b}_left_{n}; grep -c . $T/kprobe_events",
                ]
    return "\n".join(lines) + "\ntrue\n"


def parse(out):
    parts, name = {}, None
    for line in out.splitlines():
        if line.startswith("::"):
            name = line[2:]
            parts.setdefault(name, [])
        elif name:
            parts[name].append(line)
    return parts


def times(lines):
    """[(wall, cpu)] of busybox time lines 'real 0m 1.23s user ... sys ...'."""
    got = []
    for line in lines:
        f = dict((k, int(m or 0) * 60 + float(s)) for k, m, s in
                 re.findall(r"(real|user|sys)\s+(?:(\d+)m\s*)?([\d.]+)s", line))
        if "real" in f:
            got.append((f["real"], f.get("user", 0) + f.get("sys", 0)))
    return got


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", "--rounds", type=int, default=3)
    ap.add_argument("--sizes", default="100,1000")
    ap.add_argument("--glob", default="tcp_*")
    ap.add_argument("--no-glob", action="store_true", help="the sizes only")
    ap.add_argument("--old", help="a second fevent binary, run beside the first")
    ap.add_argument("--timeout", type=int, default=3600)
    ap.add_argument("--no-aslr", action="store_true",
                    help="turn the VM's address randomization off (TCG's cost of it)")
    a = ap.parse_args()
    import vm
    sizes = [int(s) for s in a.sizes.split(",")]
    print(f"host load average at start: {os.getloadavg()[0]:.1f} "
          f"({os.cpu_count()} CPUs); VM: 6.1, TCG, 1 vCPU; {a.rounds} rounds; "
          f"address randomization {'off' if a.no_aslr else 'on'}")
    files = {"/usr/bin/fevent-old": a.old} if a.old else None
    res = vm.run(FEVENT, [("bench", snippet(sizes, a.glob, a.rounds, a.old, a.no_glob,
                                                     not a.no_aslr))],
                 files=files, timeout=a.timeout)
    rc, out, err = res["bench"]
    p = parse(out)
    if rc:
        raise SystemExit(f"the VM part failed ({rc}):\n{out[-3000:]}\n{err[-3000:]}")
    bins = ["fevent"] + (["fevent-old"] if a.old else [])
    print("| N | what | wall (median) | CPU (median) | wall / floor | each round's / its floor (median) |")
    print("|---|---|---|---|---|---|")
    for n in sizes + ([] if a.no_glob else ["glob"]):
        floors = [w for w, _ in times(p[f"floor_add_{n}"])]
        floor = statistics.median(floors)
        if n == "glob":
            print(f"<!-- glob: {p['glob_count'][0]} functions -->")
        cfloors = [w for w, _ in times(p[f"floor_trunc_{n}"])]
        cfloor = statistics.median(cfloors)
        for what, key, base, bases in [("floor add (echo loop)", f"floor_add_{n}", floor, floors)] + \
                [(f"{b} add", f"{b}_add_{n}", floor, floors) for b in bins] + \
                [(f"{b} add, the first of the boot", f"{b}_addfirst_{n}", floor, floors)
                 for b in bins if n != "glob"] + \
                [(f"({b} compile alone)", f"{b}_compile_{n}", floor, floors) for b in bins] + \
                [("floor clear (truncate)", f"floor_trunc_{n}", cfloor, cfloors),
                 ("floor clear ('-:' loop)", f"floor_loop_{n}", cfloor, cfloors)] + \
                [(f"{b} clear", f"{b}_clear_{n}", cfloor, cfloors) for b in bins]:
            t = times(p[key])
            w = statistics.median(x for x, _ in t)
            c = statistics.median(x for _, x in t)
            paired = statistics.median(x / f for (x, _), f in zip(t, bases) if f)
            print(f"| {n} | {what} | {w:.2f} s | {c:.2f} s | {w / base:.2f}x | {paired:.2f}x |"
                  if base else f"| {n} | {what} | {w:.2f} s | {c:.2f} s | | |")
        for b in bins:
            made = set(p.get(f"{b}_made_{n}", []))
            left = set(p.get(f"{b}_left_{n}", []))
            print(f"<!-- {b} {n}: events made {sorted(made)}, left {sorted(left)} -->")


if __name__ == "__main__":
    main()
