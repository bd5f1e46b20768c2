"""Variables DWARF gives as constants (issue 32 item 8): perf probe reads
DW_AT_const_value as an immediate; fevent reads it and
DW_OP_implicit_value, DW_OP_constu + DW_OP_stack_value the same way
(\\VALUE in the kernel's fetch arguments, 4.20 and later).  Where the
target kernel's tracefs README lists no '\\imm-value', compile refuses,
naming the feature (exit 2, nothing printed).  tests/fixtures/fx_consts.c
says which variable is which form."""
import os
import re
import subprocess

import fe
from fe import check, expect_eq
from test_events_host import FIXTURES

_prog = {}
README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "readme",
                      "bookworm.txt")


def prog():
    if "path" not in _prog:
        tmp = fe.tmpdir("fevent-consts-")
        path = os.path.join(tmp, "fx_consts")
        subprocess.run(["gcc", "-g", "-O2", os.path.join(FIXTURES, "fx_consts.c"), "-o", path],
                       check=True)
        _prog["path"] = path
    return _prog["path"]


def tracefs(with_immediates):
    """A tracefs of one README: 6.1's, or 6.1's without '\\imm-value'."""
    d = fe.tmpdir("fevent-consts-tracefs-")
    with open(README) as f:
        text = f.read()
    if not with_immediates:
        text = "".join(l for l in text.splitlines(True) if "imm-value" not in l)
    with open(os.path.join(d, "README"), "w") as f:
        f.write(text)
    return d


def args(out):
    return out.split()[2:]


def second_insn(func):
    """FUNC+OFF of the function's second instruction: blend's d and wide
    are constants from its first to its first call."""
    out = subprocess.run(["objdump", "-d", prog(), f"--disassemble={func}"],
                         capture_output=True, text=True, check=True).stdout
    addrs = [int(m.group(1), 16) for m in re.finditer(r"^ +([0-9a-f]+):\t[0-9a-f]{2} ", out, re.M)]
    return f"{func}+{addrs[1] - addrs[0]}"


HALF = 0x3fe0000000000000   # 0.5's bits
BIG = 0x123456789abc


def test_const_value_numbers_and_bytes_are_immediates():
    r = fe.run("compile", "--tracefs", tracefs(True), "-x", prog(),
               "scale:6(big, x64 h=half, k)")
    expect_eq((r.returncode, r.stderr), (0, ""))
    expect_eq(args(r.stdout), [f"big=\\{BIG}:s64", f"h=\\{HALF}:x64", "k=\\5:s64"])


def test_implicit_value_and_a_literal_are_immediates():
    r = fe.run("compile", "--tracefs", tracefs(True), "-x", prog(),
               f"{second_insn('blend')}(x64 h=d, wide)")
    expect_eq((r.returncode, r.stderr), (0, ""))
    expect_eq(args(r.stdout), [f"h=\\{HALF}:x64", f"wide=\\{BIG}:s64"])


def test_a_kernel_without_immediates_refuses_naming_the_feature():
    d = tracefs(False)
    r = fe.run("compile", "--tracefs", d, "-x", prog(), "scale:6(k)")
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq(r.stderr.splitlines()[0],
              "fevent: error: column 9: this kernel has no immediate fetch arguments "
              "(\\imm-value), which 'k' (the constant 5 here, by the debug info) needs: its "
              f"tracefs README ({d}/README) has no '\\imm-value' line (CONFIG_PROBE_EVENTS is "
              "off, or the kernel predates them)")
