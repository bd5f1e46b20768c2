"""Inlined functions (DESIGN.md section 15) cross-checked against perf probe
-D on the pyenv libpython and Debian's 6.1 -dbg vmlinux: functions picked
by a rule (tests/inline_xcheck.py says which: one copy, several, dozens),
the same addresses for FUNC (every inlined copy, and the out-of-line one)
and FUNC:N (a line in the copies), and at each copy the same location and
type class for every parameter perf gives a definition for.

Left out, with the DWARF's evidence (llvm-dwarfdump): a copy perf does not
probe though DWARF has a DW_TAG_inlined_subroutine of the function with
its entry there, and a parameter perf reads from the first operation of a
longer expression (DW_OP_breg15 R15+224, DW_OP_stack_value is the value
r15+224, not memory there).  perf's refusals (a constant, an optimized-out
value at one copy refuse the whole probe) are counted, not compared;
where perf marks a copy's parameter as having no value (its \\deade12d),
fevent must leave it out of that copy's event too.  perf's side is cached
(FEVENT_CACHE/inline-xcheck); the vmlinux as test_kernel_dwarf.py gets it
(FEVENT_NO_DBG=1 skips)."""
import inline_xcheck as ix
from fe import check


def _tier(which, min_funcs, min_copies):
    res = ix.run_tier(which)
    st = res["stats"]
    print(f"     {which}: {ix.summary(res)}")
    buckets = {c["bucket"] for c in res["data"]["cases"]}
    check(len(buckets) == 3, f"{which}: buckets {buckets}")
    check(st["funcs"] >= min_funcs and st["copies"] >= min_copies,
          f"{which}: only {ix.summary(res)}")
    mism = res["mismatches"]
    check(not mism, f"{which}: {len(mism)} disagreements with perf probe -D:\n  "
          + "\n  ".join(mism[:60]))


def test_libpython_inlined_copies_agree_with_perf():
    _tier("libpython", 6, 40)


def test_vmlinux_inlined_copies_agree_with_perf():
    _tier("vmlinux", 5, 20)
