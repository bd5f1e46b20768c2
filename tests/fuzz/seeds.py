#!/usr/bin/env python3
"""Seed corpus for the fuzzer: every prototype the tests use, once per
debug-info mode (the first byte of a seed picks the mode)."""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)


def prototypes():
    found = set()
    with open(os.path.join(TESTS, "golden", "design_table.txt")) as f:
        found |= {l[2:].strip() for l in f if l.startswith("> ")}
    for name in os.listdir(TESTS):
        if name.endswith(".py") or name.endswith(".c"):
            text = open(os.path.join(TESTS, name), errors="replace").read()
            found |= set(re.findall(r'"([A-Za-z_./][\w.:+/-]*\([^"\n]{0,300}\)(?: if [^"\n]{1,200})?)"', text))
    for name in os.listdir(os.path.join(TESTS, "unit")):
        text = open(os.path.join(TESTS, "unit", name), errors="replace").read()
        found |= set(re.findall(r'"([A-Za-z_./][\w.:+/-]*\([^"\n]{0,300}\)(?: if [^"\n]{1,200})?)"', text))
    # places inside the fuzzed fixture's functions (tests/fixtures/fx.c),
    # so the line, scope and location code is reached from the start
    found |= {"fx_walk:3(o, title, mode)", "fx_walk:0(o->next->s, string title)",
              "fx_walk:3(x64 o+8, u32 mode)", "fx_walk+4(o)", "fx_walk+1()",
              "fx.c:15(o->arr[1], ...)", "fixtures/fx.c:14(title)", "fx_walk:3(nope)",
              "int fx_walk:3(o)", "fx_walk:99(o)",
              'fx_walk(o, string title, mode) if title ~ "a*" && mode != 0 || !(o > 4)',
              "int fx_walk(o) if ret >= 0x10", "fx_walk(o->id) if (id == 1"}
    return sorted(found)


def sdt_prototypes():
    """The prototypes the tests compile with -x: SDT probes
    (PROVIDER:NAME, globs of them) and lines of a program's functions."""
    found = set()
    for name in os.listdir(TESTS):
        if not name.endswith(".py"):
            continue
        text = open(os.path.join(TESTS, name), errors="replace").read()
        if '"-x"' not in text and "usdt" not in name:
            continue
        found |= set(re.findall(r'"([\w*?\[\]-]+:[\w*?\[\]-]+(?::\d+)?\([^"\n]{0,300}\)'
                                r'(?: if [^"\n]{1,200})?)"', text))
    # the fixtures' own probes and functions (tests/fixtures/fx_sdt_*.c)
    found |= {"fx:hit(long a, char *b)", "fx:hit(string a)", "fx:hit(a) if a == 3",
              "pc:LONG_NAME(...)", "pa:step_1(x)", "low:base()", "low:idx:1(a)",
              "low:sem+4(a)", "int low:sem(a)", "main(argc)", "main:3(argc)", "hit(a, b)",
              "low:fl(double d)", "low:fl(char *s)", "low:fl(x64 a=%ax)"}
    return sorted(p.replace("{cond}", "arg1 > 2") for p in found)


# lists of SDT probes (bit 0x20): globs that overlap, a probe named twice,
# names that meet across providers, proto's output (its comments) again
SDT_SETS = ["low:*(...)\nlow:idx(a)", "low:idx(...)\nlow:idx(...)", "pa:*(...)\npb:step(...)",
            "*:step(...)\npa:step_1(...)", "fx:hit(...)\nfx:hit(a)\nfx:*(...)",
            "*:*(...)\nmain(argc)", "low:s*(a)\nlow:sem(long a)\nlow:fl(NULL, i)",
            "pc:*(...)\napp:bare()\napp:*(...)",
            "low:idx(NULL, u64 arg2)\n#   arg1 is NULL: at idx_1\n# 2 sites, each an event\n"
            "#   idx at 0x1139: -8@%rdi 8@%rsi"]


def sdt_seeds(out, n):
    """SDT mode (bit 0x40) seeds: each prototype against each program,
    then compile's way (0x08), --strict (0x04) and -n (0x80) at one"""
    for p in sdt_prototypes():
        for mode in (0x40, 0x41, 0x42, 0x43, 0x48, 0x4c | (n & 3), 0xc0 | (n & 3)):
            with open(os.path.join(out, f"seed-{n:05d}"), "wb") as f:
                f.write(bytes([mode]) + p.encode())
            n += 1
    for p in SDT_SETS:
        for mode in range(0x60, 0x64):
            for extra in (0, 0x08):
                with open(os.path.join(out, f"seed-{n:05d}"), "wb") as f:
                    f.write(bytes([mode | extra]) + p.encode())
                n += 1
    return n


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    n = 0
    for p in prototypes():
        for mode in range(4):
            with open(os.path.join(out, f"seed-{n:05d}"), "wb") as f:
                f.write(bytes([mode]) + p.encode())
            n += 1
    # sets of prototypes (bit 0x20): globs that overlap, cover each
    # other, and name what a prototype names too
    sets = ["fx_*(...)\nfx_w*(...)", "fx_walk(o)\nfx_w?lk(...)\nfx_*(o)",
            "fx_[a-m]*(...)\nfx_*(mode)\nfx_walk(int mode)", "fx_walk(o)\nfx_walk(mode)"]
    for p in sets:
        for mode in (1, 2, 3):
            with open(os.path.join(out, f"seed-{n:05d}"), "wb") as f:
                f.write(bytes([0x20 | mode]) + p.encode())
            n += 1
    n = sdt_seeds(out, n)
    print(f"{n} seeds in {out}")


if __name__ == "__main__":
    main()
