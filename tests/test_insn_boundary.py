"""FUNC+OFF must start an instruction (DESIGN.md section 8): fevent decodes
the function with capstone and refuses a split instruction naming the
nearest boundaries.  Checked against objdump's instruction addresses on
the places fixture (every offset of walk), libpython (a sample of offsets
of four functions) and the 6.1 -dbg vmlinux; and a damaged ELF never
crashes the check."""
import os
import random
import re
import shutil
import subprocess
import tempfile

import fe
from fe import check, expect_eq
from test_kernel_dwarf import need_vmlinux
from test_line_places import binary, insn_starts

LIB = "/root/.pyenv/versions/3.11.7/lib/libpython3.11.so.1.0"
SPLIT = re.compile(r"offset (\d+) splits the instruction at (\S+)\+(\d+) \((\d+) bytes\): "
                   r"the nearest instruction boundaries are \S+\+(\d+) and \S+\+(\d+)")


def func_size(path, func):
    out = subprocess.run(["nm", "-S", path], capture_output=True, text=True, check=True).stdout
    return next(int(l.split()[1], 16) for l in out.splitlines()
                if len(l.split()) == 4 and l.split()[3] == func)


def agree(target_args, path, func, offsets):
    starts = insn_starts(func, path)
    size = func_size(path, func)
    for off in offsets:
        r = fe.run("compile", *target_args, f"{func}+{off}()")
        if off in starts:
            expect_eq(r.returncode, 0, f"{func}+{off}: {r.stderr}")
        else:
            expect_eq(r.returncode, 2, f"{func}+{off} is inside an instruction")
            m = SPLIT.search(r.stderr)
            check(m, r.stderr)
            before = max(s for s in starts if s < off)
            after = min([s for s in starts if s > off] + [size])
            expect_eq((int(m.group(5)), int(m.group(6))), (before, after), f"{func}+{off}")
            check(f"\n    {func}+{off}()\n" + " " * (4 + len(func) + 1) + "^" in r.stderr,
                  r.stderr)
    r = fe.run("compile", *target_args, f"{func}+{size}()")
    expect_eq(r.returncode, 2)
    check(f"offset {size} is past the end of '{func}' ({size} bytes)" in r.stderr, r.stderr)


def test_every_offset_of_the_fixture():
    b = binary()
    agree(["-x", b], b, "walk", range(func_size(b, "walk")))


def test_libpython_sample_against_objdump():
    if not os.path.exists(LIB):
        raise fe.Skip(f"no {LIB}")
    for func in ("PyList_Append", "PyObject_GetAttr", "PyLong_FromLong", "PyDict_SetItem"):
        agree(["-x", LIB], LIB, func, range(0, func_size(LIB, func), 7))


def test_kernel_function_against_objdump():
    v = need_vmlinux()
    agree(["--vmlinux", v], v, "do_sys_openat2", range(150, 200))


def test_damaged_elf_never_crashes_the_check():
    b = binary()
    data = open(b, "rb").read()
    tmp = tempfile.mkdtemp(prefix="fevent-insn-")
    try:
        rnd = random.Random(11)
        path = os.path.join(tmp, "bad")
        for i in range(200):
            d = bytearray(data)
            if i % 4 == 0:
                d = d[:rnd.randrange(len(d))]
            else:
                for _ in range(1 + i % 16):
                    d[rnd.randrange(len(d))] = rnd.randrange(256)
            open(path, "wb").write(bytes(d))
            r = fe.run("compile", "-x", path, f"walk+{insn_starts('walk')[1]}()")
            check(r.returncode in (0, 1, 2), f"variant {i}: exit {r.returncode}\n{r.stderr}")
    finally:
        shutil.rmtree(tmp)
