#!/usr/bin/env python3
"""Compile cost against the number of kernel functions: 1k, 10k, 50k.

'fevent compile -q -f FILE' of N prototypes 'FUNC(...)' (the first N of
'fevent funcs' over the debug info, spread over the alphabet: every k-th
name), with the running kernel's BTF, and with --btf FILE (another
kernel's BTF: no kallsyms is read, and every name is asked of the
symbol table anyway); then, with the running kernel's BTF, globs of
about as many functions ('[hu]*(...)': first letters whose functions
make about N, greedily) and the glob of every function, 'compile -q
--max 100000 "*(...)"': compile streams a glob's functions and a
list's lines (each rendered as it is made).  Each run is a whole
process under /usr/bin/time (compile_bench.measure): its CPU (user +
system) and peak RSS (%M) are its own, and hold on a busy host better
than wall time does; wall is printed too.  Medians of R runs, the sizes
interleaved.  Linear cost shows as a flat CPU per function down the
table; flat memory as an RSS per 1k over the first size near 0 (over
the first list for lists, the first glob for globs).

usage: bench/compile_scale.py [-n RUNS] [--btf FILE] [--sizes 1000,10000,50000] [--fevent BIN]
"""
import argparse
import os
import statistics
import subprocess
import tempfile

import compile_bench

FEVENT = compile_bench.FEVENT


def names(extra):
    out = subprocess.run([FEVENT, "funcs"] + extra + ["*"], capture_output=True, text=True)
    # a function named as a type of the language ('string' in
    # lib/vsprintf.c) cannot start a prototype
    types = {"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "x8", "x16", "x32", "x64",
             "char", "short", "int", "long", "size_t", "symbol", "string", "ustring"}
    # and 'sys_X' names system call X, which another kernel's BTF may
    # describe only as its wrapper
    return [n for n in out.stdout.split()
            if ":" not in n and n not in types and not n.startswith("sys_")]


def letters_glob(all_names, n):
    """'[abc]*(...)': first letters whose functions make about n (at most
    a tenth over), greedily, the most numerous first."""
    count = {}
    for x in all_names:
        if x[0].isalpha():
            count[x[0]] = count.get(x[0], 0) + 1
    pick, total = [], 0
    for c in sorted(count, key=lambda c: -count[c]):
        if total + count[c] <= n * 1.1:
            pick.append(c)
            total += count[c]
    return f"[{''.join(sorted(pick))}]*(...)"


def defs_of(argv):
    out = subprocess.run(argv, capture_output=True, text=True).stdout
    return sum(line[:2] in ("p:", "f:") for line in out.splitlines())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", "--runs", type=int, default=3)
    ap.add_argument("--btf", help="another kernel's BTF (raw, or an ELF with .BTF)")
    ap.add_argument("--sizes", default="1000,10000,50000")
    ap.add_argument("--fevent", help="the fevent to measure (default: build/fevent)")
    a = ap.parse_args()
    global FEVENT
    FEVENT = compile_bench.fevent(a.fevent)
    sizes = [int(s) for s in a.sizes.split(",")]
    cases = [("running kernel's BTF", [])] + ([(f"--btf {a.btf}", ["--btf", a.btf])]
                                              if a.btf else [])
    print(f"host load average at start: {os.getloadavg()[0]:.1f} ({os.cpu_count()} CPUs); "
          f"medians of {a.runs} runs")
    print("| debug info, prototypes | functions | wall | CPU | CPU per 1k | peak RSS "
          "| RSS per 1k over the first |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as d:
        for label, extra in cases:
            all_names = names(extra)
            rows = []
            for n in sizes:
                if n > len(all_names):
                    continue
                k = max(1, len(all_names) // n)
                pick = all_names[::k][:n]
                path = os.path.join(d, f"p{n}")
                with open(path, "w") as f:
                    f.writelines(f"{x}(...)\n" for x in pick)
                rows.append((f"{label}, -f list", n, [FEVENT, "compile", "-q", "--max",
                                                      "1000000"] + extra + ["-f", path]))
            if not extra:
                # globs of as many functions, and the whole kernel, one
                # glob: the case of issue 34
                for glob in [letters_glob(all_names, n) for n in sizes] + ["*(...)"]:
                    argv = [FEVENT, "compile", "-q", "--max", "1000000", glob]
                    rows.append((f"{label}, '{glob}'", defs_of(argv), argv))
            got = [[] for _ in rows]
            for _ in range(a.runs):
                for i, row in enumerate(rows):
                    got[i].append(compile_bench.measure(row[2]))
            base = {}
            for i, (what, n, argv) in enumerate(rows):
                w = statistics.median(x[0] for x in got[i])
                c = statistics.median(x[1] for x in got[i])
                r = statistics.median(x[2] for x in got[i])
                kind = "-f" in argv
                per = "" if kind not in base else \
                    f"{(r - base[kind][1]) / ((n - base[kind][0]) / 1000):.2f} MB"
                base.setdefault(kind, (n, r))
                print(f"| {what} | {n} | {w:.2f} s | {c:.2f} s | {c / n * 1000 * 1000:.1f} ms "
                      f"| {r:.0f} MB | {per} |")


if __name__ == "__main__":
    main()
