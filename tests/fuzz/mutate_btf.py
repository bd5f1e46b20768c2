#!/usr/bin/env python3
"""Mutated BTF through the commands that read it, on the sanitized build.

The fixture's raw .BTF (build-fuzz/fx.o, tests/fuzz/build) with 1 to 32
bytes set to 0, 0xff, 0x7f, 0x80, 1, a random byte or a bit flipped, a
tenth of the files cut short, each given as --btf to compile (entry and
return), proto and funcs.  Each must exit 0, 1 or 2 with no sanitizer
report.  libbpf parses a kept copy of the kernel's BTF as it parses these
(docs/decisions.md), so this is its reader's test too.

usage: tests/fuzz/mutate_btf.py SECONDS [SEED]   (from the top of the tree,
after tests/fuzz/build and scripts/build --sanitized)
"""
import os
import random
import subprocess
import sys
import tempfile
import time

TMP = tempfile.mkdtemp(prefix="fevent-btf-")
BTF = os.path.join(TMP, "fx.btf")
subprocess.run(["objcopy", "--dump-section", f".BTF={BTF}", "build-fuzz/fx.o",
                os.path.join(TMP, "fx.o")], check=True)
src = open(BTF, "rb").read()
funcs = subprocess.run(["build/fevent", "funcs", "--btf", BTF, "fx_*"],
                       capture_output=True, text=True).stdout.split()
B = "build-asan/fevent"
env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0")
end = time.time() + float(sys.argv[1])
runs = bad = 0
rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
while time.time() < end:
    d = bytearray(src)
    for _ in range(rng.choice([1, 1, 2, 4, 8, 32])):
        i = rng.randrange(len(d))
        d[i] = rng.choice([0, 0xff, 0x7f, 0x80, 1, rng.randrange(256), d[i] ^ (1 << rng.randrange(8))])
    if rng.random() < 0.1:
        d = d[:rng.randrange(len(d))]
    p = os.path.join(TMP, "m.btf")
    open(p, "wb").write(d)
    f = rng.choice(funcs)
    for args in (["compile", "--btf", p, f + "(...)"], ["proto", "--btf", p, f],
                 ["funcs", "--btf", p, "fx_*"], ["compile", "--btf", p, f"long {f}(...)"]):
        r = subprocess.run([B] + args, capture_output=True, text=True, errors="replace",
                           timeout=30, env=env)
        runs += 1
        if r.returncode not in (0, 1, 2) or "Sanitizer" in r.stderr or "runtime error" in r.stderr:
            bad += 1
            keep = os.path.join(TMP, f"bad{bad}.btf")
            open(keep, "wb").write(d)
            print("BAD", args, r.returncode, r.stderr[-1500:], keep, flush=True)
print(f"{runs} runs, {bad} bad")
