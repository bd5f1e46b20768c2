"""Where parameters are at a function's entry (issue 9, item 3): DWARF's
locations win only where they hold at the entry.  -O0 code (gcc and clang)
describes parameters in its own frame, which the entry has not built yet;
there the SysV rules decide, as they do with BTF.  A struct returned in
memory takes %rdi for its address.  Checked on the compiled lines and live,
on uprobes, with the values a program passed."""
import atexit
import os
import shutil
import subprocess
import tempfile

import fe
from fe import expect_eq
from test_debuginfo import FIXTURES, fixture
from test_events_host import need_uprobes
from test_sse import args, sse_fixture

GROUP = "fevent_abi" + fe.TAG	# this module's own group
PROTOS = ["abi_vec(k)", "abi_many(a1, a7, a8)", "abi_ret_big(k, p.a, p.b)"]
_built = {}


def abi_program(cc, opt):
    """tests/fixtures/fx_abi.c built by cc at -Oopt, once each."""
    key = (cc, opt)
    if key not in _built:
        if not shutil.which(cc):
            raise fe.Skip(f"{cc} not installed")
        tmp = tempfile.mkdtemp(prefix="fevent-abi-")
        atexit.register(shutil.rmtree, tmp, True)
        os.chmod(tmp, 0o755)
        path = os.path.join(tmp, f"fx_abi_{cc}_O{opt}")
        subprocess.run([cc, "-g", f"-O{opt}", os.path.join(FIXTURES, "fx_abi.c"), "-o", path],
                       check=True)
        _built[key] = path
    return _built[key]


def compiled(binary):
    r = fe.run("compile", "-x", binary, *PROTOS)
    expect_eq((r.returncode, r.stderr), (0, ""), binary)
    return [l.split(" ", 2)[2] for l in r.stdout.splitlines()]


WANT = ["k=%di:s64",
        "a1=%di:s32 a7=$stack1:s32 a8=$stack2:s64",
        "k=%si:s64 a=%dx:s64 b=%cx:s64"]


def test_O0_parameters_are_where_the_abi_puts_them_at_the_entry():
    # gcc -O0 says DW_OP_fbreg(-N): memory below the return address that
    # the prologue fills later (was k=-32($stack)); clang -O0's frame base
    # is %rbp, still the caller's at the entry
    for cc in ("gcc", "clang"):
        for opt in (0, 2):
            try:
                expect_eq(compiled(abi_program(cc, opt)), WANT, f"{cc} -O{opt}")
            except fe.Skip:
                if cc == "gcc":
                    raise


def test_O0_struct_of_doubles_is_refused_and_k_keeps_di():
    tmp = tempfile.mkdtemp(prefix="fevent-fx0-")
    atexit.register(shutil.rmtree, tmp, True)
    so = os.path.join(tmp, "libfx0.so")
    subprocess.run(["gcc", "-g", "-O0", "-shared", "-fPIC", os.path.join(FIXTURES, "fx.c"),
                    "-o", so], check=True)
    r = fe.run("compile", "-x", so, "fx_takes_vec(x64 v, k)")
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq(r.stderr.splitlines()[0], "fevent: error: column 14: 'v' cannot be read: it is "
                                        "passed in SSE (xmm) registers, which probes cannot read")
    expect_eq(fe.caret_column(r.stderr), 14)
    for proto, want in [("fx_takes_vec(k)", "k=%di:s64"),
                        ("fx_takes_mixed(m.l, n.l, k)", "l=%di:s64 l__1=%si:s64 k=%dx:s64"),
                        ("fx_big(big.c, after)", "c=+24($stack):s64 after=%di:s32"),
                        ("fx_pair(before, p.b, after)", "before=%di:s32 b=%dx:s64 after=%cx:s32")]:
        expect_eq(args(fe.run("compile", "-x", so, proto)), want, proto)
        expect_eq(args(fe.run("compile", "-x", fixture()["so"], proto)), want, proto + " -O2")


def test_a_struct_returned_in_memory_moves_the_parameters_by_one():
    # BTF (the ABI rules), DWARF -O2 (the compiler) and -O0 (the ABI again)
    for how in (["--btf", sse_fixture()["obj"]], ["-x", sse_fixture()["so"]]):
        expect_eq(args(fe.run("compile", *how, "fxs_ret_big(k, p.a, p.b)")),
                  "k=%si:s64 a=%dx:s64 b=%cx:s64", how[0])
        # 16 bytes come back in %rax:%rdx: no hidden pointer
        expect_eq(args(fe.run("compile", *how, "fxs_ret_pair(k, j)")),
                  "k=%di:s64 j=%si:s64", how[0])
    if shutil.which("perf"):
        r = subprocess.run(["perf", "probe", "-x", sse_fixture()["so"], "-D", "fxs_ret_big k"],
                           capture_output=True, text=True)
        if r.returncode == 0:
            expect_eq(r.stdout.strip().split()[-1], "k=%si:s64", "perf probe")


def test_live_values_agree_at_O0_and_O2():
    need_uprobes()
    builds = [("gcc", 0), ("gcc", 2)]
    if shutil.which("clang"):
        builds.append(("clang", 0))
    for cc, opt in builds:
        prog = abi_program(cc, opt)
        fe.run("clear", "-g", GROUP, "--force")
        try:
            r = fe.run("add", "-g", GROUP, "-x", prog, *PROTOS)
            expect_eq(r.returncode, 0, r.stderr)
            r = fe.run("record", "-g", GROUP, "--", prog)
            expect_eq(r.returncode, 0, r.stderr)
            got = [l.split(": ", 1)[1] for l in r.stdout.splitlines() if ": abi_" in l]
            expect_eq(got, ["abi_vec(k=42)", "abi_many(a1=1, a7=7, a8=8)",
                            "abi_ret_big(k=5, a=6, b=7)"], f"{cc} -O{opt}")
        finally:
            fe.run("clear", "-g", GROUP, "--force")


_sse0 = {}


def sse_O0():
    """fx_sse.c at -O0: DWARF whose frame is built after the entry."""
    if not _sse0:
        tmp = tempfile.mkdtemp(prefix="fevent-fxs0-")
        atexit.register(shutil.rmtree, tmp, True)
        _sse0["so"] = os.path.join(tmp, "libfx_sse0.so")
        subprocess.run(["gcc", "-g", "-O0", "-shared", "-fPIC",
                        os.path.join(FIXTURES, "fx_sse.c"), "-o", _sse0["so"]], check=True)
    return _sse0["so"]


# fx_sse.c: what each struct shape took shows in the register of the long
# after it
SHAPES = [("fxs_ff", "%di"), ("fxs_fi", "%si"), ("fxs_ud", "%si"), ("fxs_nest", "%si"),
          ("fxs_fa4", "%di"), ("fxs_ffl", "%si"), ("fxs_c12f", "%dx"), ("fxs_big5", "%di"),
          ("fxs_empty", "%di"), ("fxs_mix_late", "$stack1")]


def test_struct_shapes_with_btf_dwarf_O0_and_perf():
    for fn, reg in SHAPES:
        for how in (["--btf", sse_fixture()["obj"]], ["-x", sse_fixture()["so"]],
                    ["-x", sse_O0()]):
            expect_eq(args(fe.run("compile", *how, f"{fn}(k)")), f"k={reg}:s64",
                      f"{fn} {how[1]}")
        if shutil.which("perf"):
            r = subprocess.run(["perf", "probe", "-x", sse_fixture()["so"], "-D", f"{fn} k"],
                               capture_output=True, text=True)
            if r.returncode == 0:
                want = "+8(%sp)" if reg == "$stack1" else reg
                expect_eq(r.stdout.strip().split()[-1], f"k={want}:s64", f"perf {fn}")
    # the one general register left takes the {long; double}'s long
    expect_eq(args(fe.run("compile", "--btf", sse_fixture()["obj"], "fxs_mix_late(v.a)")),
              "a=%r9:s64")


def test_an_empty_struct_is_passed_nowhere():
    # gcc's DWARF puts it at fbreg 0, a slot that is not its own
    for how in (["--btf", sse_fixture()["obj"]], ["-x", sse_fixture()["so"]], ["-x", sse_O0()]):
        r = fe.run("compile", *how, "fxs_empty(x64 e)")
        expect_eq((r.returncode, r.stdout), (2, ""), how[1])
        expect_eq(r.stderr.splitlines()[0], "fevent: error: column 11: 'e' cannot be read: it "
                                            "is an empty struct, passed nowhere", how[1])
        r = fe.run("compile", *how, "fxs_empty(e)")
        expect_eq(r.stderr.splitlines()[0], "fevent: error: column 11: 'struct fxs_empty' is an "
                                            "empty struct: there is nothing in it to read", how[1])
