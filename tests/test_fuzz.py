"""A short libFuzzer run over parse -> resolve -> emit (tests/fuzz): 60
seconds against no debug info, the fixture's BTF and DWARF, and uprobes,
under ASan and UBSan, seeded from every prototype the tests use.  The
long run is in the README."""
import os
import re
import shutil
import subprocess

import fe
from fe import check, expect_eq

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def test_fuzz_sixty_seconds():
    if not shutil.which("clang"):
        raise fe.Skip("clang not installed")
    out = os.path.join(ROOT, "build-fuzz")
    b = subprocess.run([os.path.join(ROOT, "tests", "fuzz", "build"), out], capture_output=True,
                       text=True)
    expect_eq(b.returncode, 0, b.stderr[-3000:])
    env = dict(os.environ, FEVENT_FUZZ_BTF=os.path.join(out, "fx.o"),
               FEVENT_FUZZ_SO=os.path.join(out, "libfx.so"),
               FEVENT_FUZZ_KALLSYMS=os.path.join(out, "kallsyms"))
    r = subprocess.run([os.path.join(out, "fuzz_compile"), "-max_total_time=60",
                        "-print_final_stats=1", "-rss_limit_mb=2048", "-timeout=10",
                        os.path.join(out, "corpus")],
                       capture_output=True, text=True, env=env, timeout=600)
    expect_eq(r.returncode, 0, r.stderr[-4000:])
    runs = int(re.search(r"stat::number_of_executed_units: (\d+)", r.stderr).group(1))
    check(runs > 100000, f"only {runs} executions")
    check("ERROR: AddressSanitizer" not in r.stderr and "runtime error" not in r.stderr,
          r.stderr[-4000:])
