#!/usr/bin/env python3
"""fevent's test runner.

Runs the C unit tests (TAP) built under BUILD/tests/unit and every test_*
function of tests/test_*.py, prints one line per test and ends with the
line "N passed, N failed, N skipped".  Exit status 1 if anything failed.

The VM tiers (test_vm_*.py and test_demo.py: qemu, one vCPU each but
test_vm_multicpu.py's) run in a second process beside the host tests, so
the two halves of the suite overlap on a two-core machine; its lines are
printed after the host tests'.  Once its own tiers are done, the host
process runs VM tiers too, from the end of the child's order: each goes to
whichever process comes to it first (both halves' times are printed).
FEVENT_SERIAL=1 runs everything in one process, in order.

usage: tests/run.py [-b BUILD] [-s ASAN_BUILD] [-k SUBSTRING]
"""
import argparse
import atexit
import glob
import importlib.util
import os
import signal
import subprocess
import sys
import tempfile
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
        self.took = []
        self.vm_half = 0.0

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


def load_module(tally, path, pattern):
    """The module of a tier with a test that matches, or None.  A VM tier
    may join a shared boot (tests/vm/vm.py share()) as it is imported; one
    with no matching test is left out of it."""
    modname = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(modname, path)
    mod = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(mod)
    except Exception:
        tally.record("fail", f"{modname}: import", traceback.format_exc())
        return None
    if any(n.startswith("test_") and callable(f) and (not pattern or pattern in f"{modname}: {n}")
           for n, f in vars(mod).items()):
        return mod
    if "vm" in sys.modules and hasattr(sys.modules["vm"], "forget"):
        sys.modules["vm"].forget(modname)
    return None


def run_module(tally, mod, pattern):
    modname = mod.__name__
    tests = [(n, f) for n, f in vars(mod).items()
             if n.startswith("test_") and callable(f)]
    start = time.monotonic()
    ran = 0
    for name, fn in tests:
        full = f"{modname}: {name}"
        if pattern and pattern not in full:
            continue
        ran += 1
        try:
            fn()
        except fe.Skip as e:
            tally.record("skip", full, str(e))
        except Exception:
            tally.record("fail", full, traceback.format_exc(limit=3))
        else:
            tally.record("ok", full)
    if ran:
        tally.took.append((time.monotonic() - start, tally.prefix + modname))


def is_vm_tier(path):
    name = os.path.basename(path)
    return name.startswith("test_vm") or name == "test_demo.py"


# Tiers the sanitized pass leaves out: they test the kernel or peers, not
# fevent's memory, and take minutes (the VM runs its own binary).  Every VM
# tier runs once, but for 6.1's stats and globs tiers, which exercise
# fevent's memory on the kernel paths (hist triggers, hundreds of events).
NOT_SANITIZED_HOST = ("test_kernel_dwarf.py", "test_libpython.py", "test_line_xcheck.py",
                      "test_inline_xcheck.py", "test_fuzz.py", "test_valgrind.py")
SANITIZED_VM = ("test_vm_stats.py", "test_vm_globs.py")


# Either process may run a VM tier: the VM child runs them in vm_order(),
# the host process, once its two passes are done, from the end of that
# order (the sanitized pass's first), and whichever comes to one first
# takes it (vm.claim(), which a shared boot asks too for each member): the
# side with slack does them, two lanes once the host half has ended.
# These keep both cores busy (test_vm_matrix.py boots two kernels at a
# time, test_vm_multicpu.py 2 and 4 vCPUs): the child's last of the tiers
# that share boots, before those that boot alone.
HOST_SIDE_VM = ("test_vm_matrix.py", "test_vm_multicpu.py")


def claim(mod):
    """Whether this process runs mod: always a host tier; a VM tier when
    no other process of this run (FEVENT_CLAIMS) took it first."""
    if not is_vm_tier(mod.__file__):
        return True
    return sys.modules["vm"].claim(mod.__name__) if "vm" in sys.modules else True


def vm_order(mods):
    """The VM child's order: the tiers of the shared boots first (their
    kernels boot early, with every member), then HOST_SIDE_VM's, then the
    tiers that boot alone (what the host process takes, from the end)."""
    shared = sys.modules["vm"].shared_modules() if "vm" in sys.modules else set()

    def key(mod):
        if mod.__name__ in shared:
            return 0
        return 1 if mod.__name__ + ".py" in HOST_SIDE_VM else 2
    return sorted(mods, key=key)


def not_sanitized(path):
    name = os.path.basename(path)
    if is_vm_tier(path):
        return name not in SANITIZED_VM
    return name in NOT_SANITIZED_HOST


def run_pass(tally, build, pattern, prefix="", skip=None, part="all", reverse=False):
    """part: "all", "host" (unit tests and host tiers) or "vm" (VM tiers);
    reverse: the VM tiers from the end of vm_order()."""
    os.environ["FEVENT_BUILD"] = os.path.abspath(build)
    fe.BUILD = os.environ["FEVENT_BUILD"]
    tally.prefix = prefix
    if part != "vm":
        for path in sorted(glob.glob(os.path.join(fe.BUILD, "tests", "unit", "test_*"))):
            if os.access(path, os.X_OK) and not path.endswith((".p", ".o")) and os.path.isfile(path):
                run_tap(tally, path, pattern)
    # every tier is imported before any runs, so that the VM tiers that
    # share a kernel's boot have all joined it when the first one boots
    mods = []
    for path in sorted(glob.glob(os.path.join(HERE, "test_*.py"))):
        if skip and skip(path):
            continue
        if part == "all" or (part == "vm") == is_vm_tier(path):
            mods.append(load_module(tally, path, pattern))
    mods = [m for m in mods if m and not is_vm_tier(m.__file__)] + \
        vm_order([m for m in mods if m and is_vm_tier(m.__file__)])
    if reverse:
        mods.reverse()
    for i, mod in enumerate(mods):
        if claim(mod):
            run_module(tally, mod, pattern)
        mods[i] = None      # a tier's data goes when it is done, as before


def sanitized(on):
    """The environment of a pass on the ASan+UBSan build, or none of it."""
    env = {"FEVENT_SANITIZED": "1",
           # leaks are errors; UBSan aborts (built with -fno-sanitize-recover)
           "ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0:exitcode=86",
           "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1"}
    for k, v in env.items():
        if on:
            os.environ[k] = v
        else:
            os.environ.pop(k, None)


def start_vm_half(args):
    """The VM tiers in a child run.py whose output goes to a file."""
    out = tempfile.TemporaryFile(mode="w+")
    cmd = [sys.executable, os.path.abspath(__file__), "-b", args.build,
           "-k", args.match, "--part", "vm"]
    if args.sanitized:
        cmd += ["-s", args.sanitized]
    child = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
    return child, out


def merge_vm_half(tally, child, out):
    """Print the child's lines and add its counts and timings."""
    child.wait()
    out.seek(0)
    counted = False
    for line in out:
        line = line.rstrip("\n")
        if line.startswith(("PASS ", "FAIL ", "SKIP ", "     ")):
            print(line)
            if line.startswith("PASS "):
                tally.passed += 1
            elif line.startswith("SKIP "):
                tally.skipped += 1
            elif line.startswith("FAIL "):
                tally.failed += 1
                tally.failures.append(line[5:])
        elif line.startswith("TOOK "):
            took, name = line[5:].split(" ", 1)
            tally.took.append((float(took), name))
        elif line.startswith("HALF "):
            tally.vm_half = float(line[5:])
        elif line.startswith(("Traceback", "  File")) or "Error" in line:
            print(line)
        if line.endswith(" skipped") and " passed, " in line:
            counted = True
    if not counted:
        tally.record("fail", "VM tiers: run to completion",
                     f"the child run.py exited {child.returncode} without its summary")
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-b", "--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("-s", "--sanitized", default=None,
                    help="also run the unit and host tests on this ASan+UBSan build")
    ap.add_argument("-k", "--match", default="")
    ap.add_argument("--part", choices=("all", "host", "vm"), default=None,
                    help=argparse.SUPPRESS)
    args = ap.parse_args()
    # SIGTERM (a CI job's time limit) ends the run as an exception does:
    # atexit then removes the fe.tmpdir() directories, a VM child's too
    signal.signal(signal.SIGTERM, lambda sig, frame: sys.exit(128 + sig))

    tally = Tally()
    start = time.monotonic()
    part = args.part
    child = None
    if part is None:
        part = "all"
        if (os.environ.get("FEVENT_SERIAL") != "1"
                and os.environ.get("FEVENT_NO_VM") != "1"):
            os.environ["FEVENT_CLAIMS"] = fe.tmpdir("fevent-claims-")
            child, out = start_vm_half(args)
            # interrupted before the child ended: it stops too (its qemu
            # killed, its directories removed, by its SIGTERM handler)
            atexit.register(lambda: child.poll() is None and (child.terminate(), child.wait()))
            part = "host"
    run_pass(tally, args.build, args.match, part=part)
    if args.sanitized:
        sanitized(True)
        run_pass(tally, args.sanitized, args.match, "[asan+ubsan] ", not_sanitized,
                 part=part)
        sanitized(False)
    if child:
        # the VM tiers the child has not come to yet, from the end of its
        # order: the child's last pass first
        if args.sanitized:
            sanitized(True)
            run_pass(tally, args.sanitized, args.match, "[asan+ubsan] ", not_sanitized,
                     part="vm", reverse=True)
            sanitized(False)
        run_pass(tally, args.build, args.match, part="vm", reverse=True)
    host_took = time.monotonic() - start
    if child:
        merge_vm_half(tally, child, out)
    took = time.monotonic() - start
    if args.part == "vm":
        for secs, name in tally.took:
            print(f"TOOK {secs:.1f} {name}")
        print(f"HALF {took:.1f}")
    else:
        # which half is the critical path of the run (docs/testing.md)
        if child:
            print(f"\nHost half {host_took:.1f} s (with the VM tiers it took), "
                  f"VM half {tally.vm_half:.1f} s")
        print("\nSlowest tiers:")
        for secs, name in sorted(tally.took, reverse=True)[:40]:
            print(f"  {secs:7.1f} s  {name}")
    if tally.failures:
        print("\nFailed:")
        for name in tally.failures:
            print(f"  {name}")
    print(f"\n(took {took:.1f} s)")
    print(f"{tally.passed} passed, {tally.failed} failed, {tally.skipped} skipped")
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())
