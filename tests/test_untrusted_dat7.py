"""A trace.dat from anywhere, version 7 and instance buffers: 'fevent
report -i' on the version 7 seeds (fevent's own files rewritten as trace-cmd
3 lays them out, uncompressed, zstd and zlib; one trace-cmd extract wrote)
and on deterministic edits of them: sections, options and buffers beyond
the file or pointing back, compressed parts that do not decompress to what
they declare or declare more than the file could hold, a buffer that is no
events (a latency trace), a compression fevent does not read.  Such a file
is an error naming the part and its offset (exit status 1, nothing
printed); a damaged chunk of pages is skipped and said (exit status 0).
Never a sanitizer report, never over 30 s."""
import os
import re
import struct
import sys

from fe import check, expect_eq
from test_untrusted_dat import SEEDS, decodes_as, fails, path, put, report

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz"))
import tracedat  # noqa: E402
import tracedat7 as t7  # noqa: E402


def seed(name):
    with open(os.path.join(SEEDS, name), "rb") as f:
        b = f.read()
    return b, (t7.layout7(b) if b[10:12] == b"7\0" else None)


def chunks(b, off):
    """(offset, compressed size, size) of each chunk of the CPU data at off."""
    n, = struct.unpack_from("<I", b, off)
    out, p = [], off + 4
    for _ in range(n):
        cs, us = struct.unpack_from("<II", b, p)
        out.append((p, cs, us))
        p += 8 + cs
    return out


def fails_whole(data, message):
    """An error about the whole file: its name, then the message."""
    for opts in ((), ("--json",)):
        r = report(data, *opts)
        expect_eq((r.returncode, r.stdout, r.stderr),
                  (1, "", f"fevent: error: {path()} {message}\n"), f"report {opts}")


def test_version_7_seeds_decode_as_their_version_6_originals():
    for v7, v6 in (("v7-fork-zstd.dat", "fork.dat"), ("v7-two-cpus.dat", "two-cpus.dat"),
                   ("v7-values-zlib.dat", "values.dat"), ("v7-lost-zstd.dat", "lost.dat")):
        for opts in ((), ("--json",), ("--graph",)):
            want = report(seed(v6)[0], *opts, name="reference.dat")
            got = report(seed(v7)[0], *opts)
            expect_eq((got.returncode, got.stdout), (0, want.stdout), f"{v7} {opts}")
            expect_eq(got.stderr, want.stderr, f"{v7} {opts}")
    # the trace-cmd file: two instance buffers, each named
    r = report(seed("tc-v7-zstd.dat")[0])
    expect_eq(r.returncode, 0, r.stderr)
    names = sorted({l.split(": ")[0] for l in r.stdout.splitlines()})
    expect_eq(len(names), 2, r.stdout)
    for n in names:
        check(re.search(rf"^fevent: {n}: \d+ events; none lost in the buffers$", r.stderr, re.M),
              r.stderr)


def test_an_instance_buffer_of_version_6_is_read_and_named():
    r = report(seed("v6-instance.dat")[0])
    want = report(seed("returns.dat")[0], name="reference.dat")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stdout, "".join(f"inst: {l}\n" for l in want.stdout.splitlines()))
    expect_eq(r.stderr, "fevent: top buffer: 0 events; none lost in the buffers\n"
              "fevent: inst: 2 events; none lost in the buffers\n")
    j = report(seed("v6-instance.dat")[0], "--json")
    check(j.stdout and all('"buffer":"inst",' in l for l in j.stdout.splitlines()), j.stdout)


def test_a_damaged_format_is_an_error_before_any_buffer_is_printed():
    # the top buffer is empty, the instance buffer holds the events
    b, _ = seed("v6-instance.dat")
    o = tracedat.parse(b)
    _, at, n = o["formats"][0]
    text = b[at + 8:at + 8 + n]
    line = text[:text.index(b"field:s64 ret;")].count(b"\n") + 1
    bad = b.replace(b"field:s64 ret;", b"field:s64xret;", 1)
    fails(bad, f"event format at offset {at:#x}, line {line}: expected "
          f"\"\\tfield:TYPE NAME;\\toffset:N;\\tsize:N;\\tsigned:0 or 1;\"")


def test_records_of_events_without_a_format_are_counted_not_hidden():
    b, _ = seed("v7-two-cpus.dat")
    want = report(b, name="reference.dat")
    n = int(re.search(r"fevent: (\d+) events", want.stderr).group(1))
    d = t7.read(b)
    d.systems = [s for s in d.systems if s[0] != "fuzzseed"]
    for opts in ((), ("-q",)):
        r = report(t7.write7(d), *opts)
        expect_eq((r.returncode, r.stdout), (0, ""), f"{opts}")
        expect_eq(r.stderr, ("" if opts else "fevent: 0 events; none lost in the buffers\n") +
                  f"fevent: warning: {path()}: {n} records not decoded: events with no format "
                  f"in the file, or ftrace's own (the function tracer's)\n", f"{opts}")


def test_ftrace_formats_but_the_stacks_are_skipped_not_read_strictly():
    # funcgraph_entry as older kernels print it: "graph_ent.func" is no
    # name fevent reads, but fevent does not decode ftrace's events
    b, _ = seed("v7-two-cpus.dat")
    want = report(b, name="reference.dat")
    d = t7.read(b)
    d.ftrace.append(b"name: funcgraph_entry\nID: 11\nformat:\n\tfield:unsigned short "
                    b"common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n\tfield:unsigned long "
                    b"graph_ent.func;\toffset:8;\tsize:8;\tsigned:0;\n\nprint fmt: \"\"\n")
    for v in (t7.write7(d, "zstd"), t7.write6(d)):
        r = report(v)
        expect_eq((r.returncode, r.stdout, r.stderr), (0, want.stdout, want.stderr))


def test_words_libtraceevent_rewrites_are_refused():
    # its tokenizer makes a string of VIF_PR_FMT wherever it stands and
    # leaked the field so named (found by the fuzzer)
    b, _ = seed("fork.dat")
    o = tracedat.parse(b)
    (_, at1, _), (_, at2, n2) = o["formats"][0], [f for f in o["formats"]
                                                  if b"sched_process_fork" in b[f[1]:f[1] + 40]][0]
    text = b[at2 + 8:at2 + 8 + n2]
    line = text[:text.index(b"pid_t parent_pid;")].count(b"\n") + 1
    fails(b.replace(b"pid_t parent_pid;", b"pid_t VIF_PR_FMT;"), f"event format at offset "
          f"{at2:#x}, line {line}: expected \"\\tfield:TYPE NAME;\\toffset:N;\\tsize:N;"
          f"\\tsigned:0 or 1;\"")
    _, _, n1 = o["formats"][0]
    text1 = b[at1 + 8:at1 + 8 + n1]
    renamed = text1.replace(b"name: traced\n", b"name: STA_PR_FMT\n", 1)
    fails(tracedat.assemble(b, o, [tracedat.sized(at1, n1, renamed)]),
          f"event format at offset {at1:#x}, line 1: the event's name holds a word "
          f"libtraceevent rewrites (LOCAL_PR_FMT, STA_PR_FMT, VIF_PR_FMT)")


def test_what_fevent_does_not_read_is_an_error_not_an_empty_recording():
    b, o = seed("v7-two-cpus.dat")
    # a compression fevent has no library for, a version it does not know
    fails_whole(b[:18] + b"lz4\0" + b[22:], "is compressed with lz4; fevent reads zstd and zlib")
    fails_whole(b[:10] + b"8" + b[11:], "is trace.dat version 8; fevent reads versions 6 and 7")
    # a buffer holding a latency trace (text), in either version
    d = t7.read(b)
    d.options.append((t7.OPT_BUFFER_TEXT, struct.pack("<Q", 0) + b"lat\0local\0"))
    lat = t7.write7(d)
    at = [a for oid, a, _ in t7.layout7(lat)["options"] if oid == t7.OPT_BUFFER_TEXT][0]
    fails(lat, f"option at offset {at:#x}: a buffer holding a latency trace, not events")
    b6, _ = seed("v6-instance.dat")
    at = b6.index(b"flyrecord\0", b6.index(b"flyrecord\0") + 1)
    fails(b6[:at] + b"latency  \0" + b6[at + 10:],
          f"buffer inst at offset {at:#x} holds a latency trace, not events")
    # no buffer at all: trace-cmd convert writes it of a file whose buffers
    # were all empty, an empty trace (issue 33.8)
    d = t7.read(b)
    d.buffers = []
    for opts in ((), ("--json",)):
        r = report(t7.write7(d), *opts)
        expect_eq((r.returncode, r.stdout, r.stderr),
                  (0, "", "fevent: 0 events; none lost in the buffers\n"), f"report {opts}")


def test_sections_and_options_are_checked_against_the_file():
    b, o = seed("v7-two-cpus.dat")
    size = len(b)
    fmt_opt = [a for oid, a, _ in o["options"] if oid == t7.SEC_FORMATS][0]
    fails(put(b, fmt_opt + 6, "<Q", size + 8), f"option at offset {fmt_opt:#x}: its event "
          f"formats section at offset {size + 8:#x} is beyond the file's {size} bytes")
    at = o["sections"][t7.SEC_KALLSYMS]
    fails(put(b, at + 8, "<Q", 2**40), f"kallsyms at offset {at + 8:#x}: size 1099511627776 "
          f"is beyond the file's {size} bytes")
    fails(put(b, at, "<H", 99), f"kallsyms section at offset {at:#x}: id 99, not 19")
    # a size inside its section, past the section's end
    fails(put(b, at + 16, "<I", 0x1000), f"kallsyms at offset {at + 16:#x}: size 4096 is beyond "
          f"the end of its section at offset {at + 20:#x}")
    # the next options section must be further on: no loop
    done = [a for oid, a, _ in o["options"] if oid == t7.OPT_DONE][0]
    first = o["option_sections"][0]
    fails(put(b, done + 6, "<Q", first), f"options at offset {first:#x}: the next options at "
          f"{first:#x} are not further on")
    # a buffer's CPU entry
    entry, cpu, off, n = o["buffers"][""][1][1]
    fails(put(b, entry + 4, "<Q", size), f"cpu 1's entry at offset {entry:#x}: data at offset "
          f"{size:#x}, 4096 bytes, is beyond the file's {size} bytes")
    fails(put(b, entry, "<I", 0), f"cpu entry at offset {entry:#x}: cpu 0 again")


def test_compressed_parts_must_decompress_to_what_they_declare():
    b, o = seed("v7-fork-zstd.dat")
    at = o["sections"][t7.SEC_FORMATS]
    csize, usize = struct.unpack_from("<II", b, at + 16)
    fails(put(b, at + 20, "<I", usize + 1), f"event formats section at offset {at:#x}: its zstd "
          f"data does not decompress to the {usize + 1} bytes it says")
    # a bomb: more than 1024 times the file's size, refused before allocating
    fails(put(b, at + 20, "<I", 0xffffffff), f"event formats section at offset {at:#x}: "
          f"4294967295 bytes decompressed is more than fevent decompresses from a file this "
          f"size (1024 times it)")
    fails(put(b, at + 16, "<I", csize + 10**6), f"event formats at offset {at + 24:#x}: cut "
          f"short: its section ends at offset {at + 24 + csize:#x}")
    # a compressed CPU's size that would wrap with its chunk count added
    entry, cpu, off, _ = o["buffers"][""][1][1]
    fails(put(b, entry + 12, "<Q", 2**64 - 1), f"cpu {cpu}'s entry at offset {entry:#x}: data "
          f"at offset {off:#x}, 18446744073709551615 bytes, is beyond the file's {len(b)} bytes")
    # the strings of a decompressed section: offsets in it, and which it is
    ok = t7.read(b)
    sys_, fmts = ok.systems[0]
    ok.systems = [(sys_, [fmts[0].replace(b"field:s32 n;", b"field:s32xn;")] + fmts[1:])]
    bad = t7.write7(ok, "zstd")
    at2 = t7.layout7(bad)["sections"][t7.SEC_FORMATS]
    first = 4 + len(sys_) + 1 + 4
    fails(bad, f"event format at offset {first:#x} in the zstd section at {at2:#x}, line 10: "
          f"expected \"\\tfield:TYPE NAME;\\toffset:N;\\tsize:N;\\tsigned:0 or 1;\"")


def test_a_damaged_chunk_is_skipped_and_said():
    b, o = seed("v7-lost-zstd.dat")
    _, cpu, off, _ = o["buffers"][""][1][0]
    (c0, cs0, us0), (c1, cs1, us1) = chunks(b, off)
    # the second chunk's data broken: the first chunk's pages are decoded
    d = t7.read(b)
    name, clock, ps, cpus = d.buffers[0]
    first = t7.Dat()
    first.__dict__.update(d.__dict__)
    first.buffers = [(name, clock, ps, [(c, data[:us0] if c == cpu else data) for c, data in cpus])]
    ref = t7.write6(first)
    broken = b[:c1 + 8] + bytes(cs1) + b[c1 + 8 + cs1:]
    decodes_as(broken, ref, [f"cpu {cpu}: chunk at offset {c1:#x}: its data does not decompress "
                             f"to the size it says; skipped"])
    decodes_as(put(b, c1 + 4, "<I", 100 << 20), ref,
               [f"cpu {cpu}: chunk at offset {c1:#x}: 104857600 bytes decompressed is more than "
                f"fevent decompresses at once; skipped"])
    decodes_as(put(b, c1, "<I", 10**6), ref,
               [f"cpu {cpu}: chunk at offset {c1:#x} runs past the end of its data at offset "
                f"{c1 + 8 + cs1:#x}; the rest skipped"])


def test_buffers_may_not_share_data():
    b, o = seed("tc-v7-zstd.dat")
    (a, (ea, ca, oa, na)), (z, entries) = [(n, e[0]) for n, (_, e) in o["buffers"].items()
                                          if e and e[0][3]][:1] + \
        [(n, e) for n, (_, e) in o["buffers"].items() if e and e[0][3]][1:2]
    ez, cz, oz, nz = entries[0]
    fails(put(b, ez + 4, "<Q", oa), f"buffer {z}: cpu {cz}'s entry at offset {ez:#x}: data at "
          f"offset {oa:#x}, {nz} bytes, overlaps buffer {a}'s cpu {ca}'s")


def test_cut_short_anywhere_is_an_error_naming_where():
    head = re.compile(r"fevent: error: (.*: [\w ']+ at offset 0x[0-9a-f]+( in the \w+ section at "
                      r"0x[0-9a-f]+)?: .+|.*: [\w ]+ section at offset 0x[0-9a-f]+: .+"
                      r"|.*: option at offset 0x[0-9a-f]+: .+|.* is not a trace\.dat file)\n")
    for name in ("v7-two-cpus.dat", "v7-fork-zstd.dat"):
        b, o = seed(name)
        for cut in list(range(1, len(b), 97)):
            r = report(b[:cut])
            check(r.returncode == 1 and r.stdout == "" and head.fullmatch(r.stderr),
                  f"{name} cut at {cut}: {r.returncode} {r.stderr!r}")


def test_an_option_libtracecmd_crashes_on_is_read_by_its_size():
    # libtracecmd 3.1.6 writes buf[size - 1] of an option of size 0: a SEGV
    b, _ = seed("tc-v7-zstd.dat")
    d = t7.read(b)
    d.options.append((2, b""))
    want = report(b, name="reference.dat")
    r = report(t7.write7(d, "zstd"))
    expect_eq((r.returncode, r.stdout, r.stderr), (0, want.stdout, want.stderr))
