#!/usr/bin/env python3
"""fevent's test runner.

Runs the C unit tests (TAP) built under BUILD/tests/unit and every test_*
function of tests/test_*.py, prints one line per test and ends with the
line "N passed, N failed, N skipped".  Exit status 1 if anything failed.

usage: tests/run.py [-b BUILD] [-k SUBSTRING]
"""
import argparse
import glob
import importlib.util
import os
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import fe  # noqa: E402  (shared helpers; reads FEVENT_BUILD)


class Tally:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0
        self.failures = []
        self.prefix = ""

    def record(self, status, name, detail=""):
        name = self.prefix + name
        if status == "ok":
            self.passed += 1
            print(f"PASS {name}")
        elif status == "skip":
            self.skipped += 1
            print(f"SKIP {name}: {detail}")
        else:
            self.failed += 1
            self.failures.append(name)
            print(f"FAIL {name}")
            for line in detail.rstrip().splitlines():
                print(f"     {line}")
        sys.stdout.flush()


def run_tap(tally, path, pattern):
    name = os.path.basename(path)
    proc = subprocess.run([path], capture_output=True, text=True, timeout=300)
    comments = []
    seen = 0
    for line in proc.stdout.splitlines():
        if line.startswith("#"):
            comments.append(line)
            continue
        ok = line.startswith("ok ")
        if not ok and not line.startswith("not ok "):
            continue
        seen += 1
        desc = line.split(" - ", 1)[1] if " - " in line else line
        full = f"{name}: {desc}"
        if pattern and pattern not in full:
            continue
        if ok:
            tally.record("ok", full)
        else:
            tally.record("fail", full, "\n".join(comments[-4:]))
        comments = []
    if proc.returncode not in (0, 1) or seen == 0:
        tally.record("fail", f"{name}: runs to completion",
                     f"exit {proc.returncode}\n{proc.stderr[-2000:]}")


def run_module(tally, path, pattern):
    modname = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(modname, path)
    mod = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(mod)
    except Exception:
        tally.record("fail", f"{modname}: import", traceback.format_exc())
        return
    tests = [(n, f) for n, f in vars(mod).items()
             if n.startswith("test_") and callable(f)]
    for name, fn in tests:
        full = f"{modname}: {name}"
        if pattern and pattern not in full:
            continue
        try:
            fn()
        except fe.Skip as e:
            tally.record("skip", full, str(e))
        except Exception:
            tally.record("fail", full, traceback.format_exc(limit=3))
        else:
            tally.record("ok", full)


# Tiers the sanitized pass leaves out: they test the kernel or peers, not
# fevent's memory, and take minutes (the VM runs its own binary).
# The VM tiers that boot kernels other than 6.1, or many, run once: the
# sanitized pass keeps 6.1's stats and globs tiers, which exercise fevent's
# memory on the kernel paths (hist triggers, hundreds of events).
NOT_SANITIZED = ("test_vm.py", "test_vm_matrix.py", "test_vm_lines.py", "test_vm_kfuncs.py", "test_vm_modules.py", "test_vm_lost.py", "test_vm_compile_fixes.py", "test_demo.py", "test_kernel_dwarf.py", "test_libpython.py", "test_line_xcheck.py", "test_inline_xcheck.py", "test_vm_inline.py",
                 "test_vm_call_filters.py", "test_vm_fprobes.py", "test_vm_issue20.py",
                 "test_vm_rettype.py", "test_vm_stats_kernels.py", "test_vm_syscall_args.py",
                 "test_vm_tracepoints.py",
                 "test_fuzz.py",
                 "test_valgrind.py")


def run_pass(tally, build, pattern, prefix="", skip=()):
    os.environ["FEVENT_BUILD"] = os.path.abspath(build)
    fe.BUILD = os.environ["FEVENT_BUILD"]
    tally.prefix = prefix
    for path in sorted(glob.glob(os.path.join(fe.BUILD, "tests", "unit", "test_*"))):
        if os.access(path, os.X_OK) and not path.endswith((".p", ".o")) and os.path.isfile(path):
            run_tap(tally, path, pattern)
    for path in sorted(glob.glob(os.path.join(HERE, "test_*.py"))):
        if os.path.basename(path) not in skip:
            run_module(tally, path, pattern)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-b", "--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("-s", "--sanitized", default=None,
                    help="also run the unit and host tests on this ASan+UBSan build")
    ap.add_argument("-k", "--match", default="")
    args = ap.parse_args()

    tally = Tally()
    start = time.monotonic()
    run_pass(tally, args.build, args.match)
    if args.sanitized:
        os.environ["FEVENT_SANITIZED"] = "1"
        # leaks are errors; UBSan aborts (built with -fno-sanitize-recover)
        os.environ["ASAN_OPTIONS"] = "detect_leaks=1:abort_on_error=0:exitcode=86"
        os.environ["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
        run_pass(tally, args.sanitized, args.match, "[asan+ubsan] ", NOT_SANITIZED)
        del os.environ["FEVENT_SANITIZED"]
    took = time.monotonic() - start
    if tally.failures:
        print("\nFailed:")
        for name in tally.failures:
            print(f"  {name}")
    print(f"\n(took {took:.1f} s)")
    print(f"{tally.passed} passed, {tally.failed} failed, {tally.skipped} skipped")
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())
