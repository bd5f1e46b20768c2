"""Structs passed by value are classified as the SysV x86-64 ABI does
(issue 9, item 3): an eightbyte of only floating point goes in an xmm
register, which probes cannot read, and takes no general register; the
integer parameters after it keep their right registers.  Checked against
the fixture's BTF (the ABI rules) and its DWARF (the compiler's word), with
perf probe as the peer where it is installed."""
import os
import shutil
import subprocess

import fe
from fe import check, expect_eq
from test_debuginfo import compile_btf, fixture


def args(r):
    expect_eq(r.returncode, 0, r.stderr)
    return r.stdout.splitlines()[0].split(" ", 2)[2].replace("__caller=$stack0:symbol ", "")


def both(proto):
    """The fetch arguments with BTF (the ABI) and with DWARF (uprobes on
    the fixture library): the same registers."""
    btf = args(compile_btf(proto))
    dwarf = args(fe.run("compile", "-x", fixture()["so"], proto))
    expect_eq(dwarf, btf, f"{proto}: DWARF and the ABI agree")
    return btf


def test_struct_of_doubles_takes_no_general_register():
    expect_eq(both("fx_takes_vec(k)"), "k=%di:s64")


def test_mixed_structs_take_one_general_register_each():
    # m = {double d; long l}: d in xmm0, l in %di; n = {long l; double d}:
    # l in %si, d in xmm1; k in %dx
    expect_eq(both("fx_takes_mixed(m.l, n.l, k)"), "l=%di:s64 l__1=%si:s64 k=%dx:s64")


def test_reading_an_sse_part_is_refused_with_the_reason():
    fp = "'double' is floating point, passed in an SSE (xmm) register, which probes cannot read"
    for proto, col, why in [
            ("fx_takes_vec(v.x, k)", 15, fp),
            ("fx_takes_mixed(m.d, k)", 17, fp),
            ("fx_float(d)", 10, fp),      # no 'x64 d' suggestion: that would not compile
            ("fx_takes_vec(x64 v, k)", 14,
             "'v' cannot be read: it is passed in SSE (xmm) registers, which probes cannot read"),
            ("fx_takes_mixed(x64 bits=m.d)", 16,
             "bytes 0..7 of the struct are passed in an SSE (xmm) register, which probes "
             "cannot read"),
            ("fx_takes_mixed(NULL, x64 bits=n.d)", 22,
             "bytes 8..15 of the struct are passed in an SSE (xmm) register, which probes "
             "cannot read")]:
        r = compile_btf(proto)
        expect_eq((r.returncode, r.stdout), (2, ""), proto)
        expect_eq(r.stderr.splitlines()[0], f"fevent: error: column {col}: {why}", proto)


def test_perf_probe_agrees():
    if not shutil.which("perf"):
        raise fe.Skip("perf not installed")
    so = fixture()["so"]
    r = subprocess.run(["perf", "probe", "-x", so, "-D", "fx_takes_vec k"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise fe.Skip(f"perf probe: {r.stderr.strip()[-200:]}")
    expect_eq(r.stdout.strip().split()[-1], "k=%di:s64")
    r = subprocess.run(["perf", "probe", "-x", so, "-D", "fx_takes_mixed k"],
                       capture_output=True, text=True)
    expect_eq(r.stdout.strip().split()[-1], "k=%dx:s64")
