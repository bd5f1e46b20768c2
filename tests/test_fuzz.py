"""Short libFuzzer runs (tests/fuzz), a fixed number of executions each, under ASan and
UBSan: parse -> resolve -> emit against no debug info, the fixture's BTF
and DWARF, uprobes, and SDT probes of programs with SDT notes, seeded
from every prototype the tests use; SDT notes of a made ELF file through
the note reader, compile -x, and proto, funcs and check -x as the
commands run them, seeded from those programs' notes; and
trace.dat bytes through the reader 'fevent report' runs into the live
view's decoder, seeded from files 'fevent record -o' wrote, the same laid
out as trace-cmd 3 writes them (version 7 uncompressed, zstd and zlib;
version 6 with an instance buffer) and a file trace-cmd extract wrote.
The long runs are in docs/fuzzing.md."""
import os
import re
import shutil
import subprocess

import fe
from fe import check, expect_eq

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "build-fuzz")
_built = []


def build():
    if not shutil.which("clang"):
        raise fe.Skip("clang not installed")
    if not _built:
        b = subprocess.run([os.path.join(ROOT, "tests", "fuzz", "build"), OUT],
                           capture_output=True, text=True)
        expect_eq(b.returncode, 0, b.stderr[-3000:])
        _built.append(True)


def fixed_run(target, corpus, runs, env=None):
    """A fixed number of executions (about a minute on an idle machine):
    exit status 0, every one run, no report.  A count, not a time: on a
    loaded machine the run takes longer but proves the same; the
    subprocess bound only stops a hang."""
    r = subprocess.run([os.path.join(OUT, target), f"-runs={runs}",
                        "-print_final_stats=1", "-rss_limit_mb=2048", "-timeout=10",
                        "-artifact_prefix=" + OUT + "/",
                        os.path.join(OUT, corpus)],
                       capture_output=True, text=True, env=env, timeout=1800)
    expect_eq(r.returncode, 0, r.stderr[-4000:])
    done = int(re.search(r"stat::number_of_executed_units: (\d+)", r.stderr).group(1))
    check(done >= runs, f"only {done} of {runs} executions")
    check("ERROR: AddressSanitizer" not in r.stderr and "runtime error" not in r.stderr,
          r.stderr[-4000:])


def test_fuzz_compile_fixed_run():
    build()
    env = dict(os.environ, FEVENT_FUZZ_BTF=os.path.join(OUT, "fx.o"),
               FEVENT_FUZZ_SO=os.path.join(OUT, "libfx.so"),
               FEVENT_FUZZ_KALLSYMS=os.path.join(OUT, "kallsyms"),
               FEVENT_FUZZ_SDT=":".join(os.path.join(OUT, p) for p in
                                        ("sdt_low", "sdt_low_new", "sdt_sites", "sdt_names")))
    # the SDT mode's seeds (bit 0x40): a glob of a provider, a list
    sdt = [open(os.path.join(OUT, "corpus", f), "rb").read()
           for f in sorted(os.listdir(os.path.join(OUT, "corpus")))]
    check(b"\x40low:*(a)" in sdt and b"\x60pa:*(...)\npb:step(...)" in sdt,
          "no SDT seeds in the corpus")
    fixed_run("fuzz_compile", "corpus", 100000, env)


def test_fuzz_sdt_fixed_run():
    build()
    seeds = os.listdir(os.path.join(OUT, "corpus-sdt"))
    check(len(seeds) >= 40, "too few seeds for fuzz_sdt")
    # flags byte 0x08: proto, funcs and check of the notes
    check(sum(open(os.path.join(OUT, "corpus-sdt", f), "rb").read(1)[0] & 8 != 0
              for f in seeds) >= 8, "too few seeds that run the commands")
    # about 3,000 executions a second on an idle machine here
    fixed_run("fuzz_sdt", "corpus-sdt", 60000)


def test_fuzz_tracedat_fixed_run():
    build()
    # version 7, its compressed sections and chunks, instance buffers
    seeds = set(os.listdir(os.path.join(OUT, "corpus-tracedat")))
    for name in ("v7-two-cpus.dat", "v7-fork-zstd.dat", "v7-values-zlib.dat",
                 "v6-instance.dat", "tc-v7-zstd.dat"):
        check(f"0-{name}" in seeds and f"1-{name}" in seeds, f"{name} not in the corpus")
    # about 3,500 executions a second on an idle machine here
    fixed_run("fuzz_tracedat", "corpus-tracedat", 70000)
