"""Line probes (DESIGN.md section 8) cross-checked against perf probe -D on
the pyenv libpython (DWARF, >= 100 line probes over >= 30 functions) and on
Debian's 6.1 -dbg vmlinux (>= 50 over >= 20): the same addresses and, at
each, the same location and type class for every variable perf gives a
definition for.  The lines and variables are picked by a rule from what
perf probe -L and -V list (tests/line_xcheck.py says how, and how both
sides' definitions are parsed and normalised).

perf's own failures are left out (it gives no definition), and so are its
wrong answers, each shown by the DWARF (line_xcheck.perf_is_wrong):
  - a variable of an inlined callee that perf lists and reads as if it
    were the function's (PyList_Append:4 self, _PyList_AppendTakeRef's);
  - a name perf resolves to another DIE than C's scope gives (the first
    DIE of that name in DWARF order, a copy of the function inlined into
    itself);
  - a location expression of more than one operation, of which perf
    translates only the first (DW_OP_breg0 RAX+32, DW_OP_stack_value is
    the value rax+32, perf reads memory at +32(%ax)).
KNOWN below lists, by hand, any other case where perf is wrong and the
rules do not see it, with the reason.

perf's side (picking, perf -D, DWARF facts) is cached by build-id in
FEVENT_CACHE/line-xcheck (/var/cache/fevent) and redone when perf, the
binary or line_xcheck.py changes; a first run takes about 10 s for
libpython and 75 s for the vmlinux (perf probe -D costs 0.5 s a line
there), a cached one about 10 s for both.  The vmlinux comes the way
test_kernel_dwarf.py gets it (tests/fetch-vmlinux-dbg, FEVENT_VMLINUX,
FEVENT_NO_DBG=1 skips)."""
import line_xcheck as lx
from fe import check

# which tier -> {("FUNC:N", variable): why perf's definition is wrong, found by
# reading the DWARF by hand, for what the rules in perf_is_wrong miss.
KNOWN = {"libpython": {}, "vmlinux": {}}


def _tier(which, min_cases, min_funcs):
    res = lx.run_tier(which, known=KNOWN[which])
    cases, perf = res["cases"], res["perf"]
    defined = [c for c in cases if not perf[c["key"]]["error"] and perf[c["key"]]["defs"]
               and perf[c["key"]]["defs"][0][1]]
    print(f"     {which}: {lx.summary(res)}; {res['agreed']} variable reads agree, "
          f"{len(res['perf_wrong'])} left out where perf is wrong")
    check(len(defined) >= min_cases and len({c["func"] for c in defined}) >= min_funcs,
          f"{which}: only {lx.summary(res)}")
    mism = res["mismatches"]
    check(not mism, f"{which}: {len(mism)} disagreements with perf probe -D:\n  "
          + "\n  ".join(mism[:60]) + ("\n  ..." if len(mism) > 60 else ""))


def test_libpython_lines_agree_with_perf():
    _tier("libpython", 100, 30)


def test_vmlinux_lines_agree_with_perf():
    _tier("vmlinux", 50, 20)
