#!/usr/bin/env python3
"""Start-up and end of record and stats in the 6.1 test VM (TCG, one CPU):
the CPU time (user + system, fevent and its children) of

    fevent record -g G -- true     (its text to a pipe, read by cat)
    fevent stats -g G -- true      (the kernel's hist triggers)
    fevent stats --stream -g G -- true

with one kprobe `ksys_read(fd)` (and its __caller) in the group: nothing
is counted or recorded, so the figure is what the command costs before and
after its work.  Rounds interleave the commands (and a second fevent
binary's, --old BIN, for a before/after in one run); medians.

Needs root, qemu and the VM kernel (tests/vm).  No timed assertions: the
figures go in docs/speed.md.

usage: bench/startup_vm.py [-n ROUNDS] [--old BIN]
"""
import argparse
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "vm"))
FEVENT = os.path.join(HERE, "..", "build", "fevent")
WAYS = [
    ("record", "record -g su -- true | cat >/dev/null"),
    ("stats", "stats -g su -- true >/dev/null"),
    ("stats --stream", "stats --stream -g su -- true >/dev/null"),
]


def snippet(rounds, binaries):
    lines = ["mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null",
             "fevent add -g su 'ksys_read(fd)' >/dev/null"]
    for r in range(rounds):
        for name, bin_ in binaries:
            for way, args in WAYS:
                # the shell's 'times': its children's user and system time
                lines.append(f"echo '@@ {name}|{way}'; sh -c '{bin_} {args} 2>/dev/null; times'")
    return "\n".join(lines) + "\n"


def seconds(t):
    m, s = t.rstrip("s").split("m")
    return int(m) * 60 + float(s)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", "--rounds", type=int, default=5)
    ap.add_argument("--old", help="a second fevent binary, measured alike")
    args = ap.parse_args()
    import vm
    binaries = [("fevent", "fevent")]
    files = {}
    if args.old:
        binaries.append(("old", "/usr/bin/fevent-old"))
        files["/usr/bin/fevent-old"] = os.path.abspath(args.old)
    rc, out, err = vm.run(os.path.abspath(FEVENT), [("startup", snippet(args.rounds, binaries))],
                          files=files)["startup"]
    if rc:
        sys.exit(f"the VM run failed ({rc}): {err[-2000:]}")
    cpu = {}
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("@@ "):
            # 'times' prints the shell's own line, then its children's
            user, system = lines[i + 2].split()
            cpu.setdefault(line[3:], []).append(seconds(user) + seconds(system))
    base = {}
    print(f"| binary | command | CPU (median of {args.rounds}) | / record |")
    print("|---|---|---|---|")
    for name, _ in binaries:
        for way, _ in WAYS:
            med = statistics.median(cpu[f"{name}|{way}"])
            if way == "record":
                base[name] = med
            print(f"| {name} | {way} | {med:.2f} s | {med / base[name]:.2f}x |")


if __name__ == "__main__":
    main()
