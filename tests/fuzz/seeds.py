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
    print(f"{n} seeds in {out}")


if __name__ == "__main__":
    main()
