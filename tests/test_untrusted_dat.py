"""A trace.dat from anywhere (issue 10 items 1 and 2): 'fevent report -i'
on files damaged on purpose, each a deterministic edit of a seed that
'fevent record -o' wrote (tests/fuzz/tracedat-seeds), one for each kind of
failure the mutation loop and the fuzzer found: sizes and counts beyond
the file, a page size of 0 (a hang), a CPU count of 2^31 (a 32 GB
calloc), a page's commit beyond the page and lengths that run past it or
step backwards (reads past the page, a hang), records shorter than their
format, a field line libtraceevent leaks on, timestamps whose seconds
overflowed an int, an element of 0 bytes (a shift by -1).

A damaged header is an error naming the part and its offset, exit status
1, nothing printed; a damaged page is decoded as far as it can be and a
warning says what was skipped, exit status 0.  Text and JSON alike, never
a sanitizer report, never over 30 s."""
import atexit
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

import fe
from fe import check, expect_eq

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "fuzz"))
import tracedat  # noqa: E402

SEEDS = os.path.join(HERE, "fuzz", "tracedat-seeds")
_tmp = {}


def path(name="t.dat"):
    if not _tmp:
        _tmp["dir"] = tempfile.mkdtemp(prefix="fevent-dat-")
        atexit.register(shutil.rmtree, _tmp["dir"], True)
    return os.path.join(_tmp["dir"], name)


def seed(name):
    with open(os.path.join(SEEDS, name), "rb") as f:
        b = f.read()
    # version 7 seeds: tracedat7.layout7 (test_untrusted_dat7.py)
    return b, tracedat.parse(b) if b[10:12] == b"6\0" else None


def report(data, *opts, name="t.dat"):
    """fevent report -i on data, with a 30 s limit and no sanitizer report."""
    p = path(name)
    with open(p, "wb") as f:
        f.write(data)
    try:
        r = subprocess.run([fe.binary(), "report", "-i", p, *opts], capture_output=True,
                           text=True, errors="replace", timeout=30, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"report {' '.join(opts)}: still running after 30 s")
    for bad in ("AddressSanitizer", "LeakSanitizer", "runtime error"):
        check(bad not in r.stderr, r.stderr[-4000:])
    return r


def put(b, at, fmt, value):
    b = bytearray(b)
    struct.pack_into(fmt, b, at, value)
    return bytes(b)


def replaced(b, old, new, start=0):
    """b with the first old after start replaced by new of the same length."""
    check(len(old) == len(new), "a same-length edit")
    at = b.index(old, start)
    return b[:at] + new + b[at + len(old):]


def fails(data, message):
    """Text and JSON: exit status 1, exactly this error, nothing printed."""
    for opts in ((), ("--json",)):
        r = report(data, *opts)
        expect_eq((r.returncode, r.stdout, r.stderr),
                  (1, "", f"fevent: error: {path()}: {message}\n"), f"report {opts}")


def decodes_as(data, reference, warnings):
    """Text and JSON: exit status 0, the events and summary the reference
    file gives, and these warnings after them."""
    for opts in ((), ("--json",)):
        want = report(reference, *opts, name="reference.dat")
        expect_eq(want.returncode, 0, want.stderr)
        r = report(data, *opts)
        expect_eq((r.returncode, r.stdout), (0, want.stdout), f"report {opts}")
        expect_eq(r.stderr, want.stderr + "".join(f"fevent: warning: {path()}: {w}\n"
                                                  for w in warnings), f"report {opts}")


def page(b, o, cpu, i=0):
    q, _, _ = tracedat.pages(b, o, cpu)[i]
    return q


def test_the_seeds_decode_cleanly():
    for name in sorted(os.listdir(SEEDS)):
        b, _ = seed(name)
        for opts in ((), ("--json",)):
            r = report(b, *opts)
            expect_eq(r.returncode, 0, f"{name}: {r.stderr}")
            # v7-no-buffer.dat: a trace of no events (issue 33.8)
            check((r.stdout or name == "v7-no-buffer.dat") and "warning" not in r.stderr,
                  f"{name}: {r.stderr}")
    r = report(seed("lost.dat")[0])
    check("[CPU 0: lost 7469 events]\n" in r.stdout, r.stdout[:500])
    expect_eq(r.stderr.splitlines()[-1], "fevent: 291 events; LOST: cpu0 7469 and an unknown "
              "number in 1 gap (a larger buffer: -b KB)")


def test_sizes_beyond_the_file_name_the_part_and_its_offset():
    b, o = seed("fork.dat")
    size = len(b)
    at, _ = o["header_page"]
    fails(put(b, at, "<Q", 0xffffffff),
          f"header_page at offset {at:#x}: size 4294967295 is beyond the file's {size} bytes")
    _, at, _ = o["formats"][1]
    fails(put(b, at, "<Q", 2**64 - 1), f"event format at offset {at:#x}: size "
          f"18446744073709551615 is beyond the file's {size} bytes")
    at, _ = o["kallsyms"]
    fails(put(b, at, "<I", 0x10000), f"kallsyms at offset {at:#x}: size 65536 is beyond the "
          f"file's {size} bytes")
    at, _ = o["cmdlines"]
    fails(put(b, at, "<Q", 2**63), f"cmdlines at offset {at:#x}: size 9223372036854775808 is "
          f"beyond the file's {size} bytes")
    _, at, _ = o["options"][0]
    fails(put(b, at + 2, "<I", 0xfffffff0), f"option 26213 at offset {at + 2:#x}: size "
          f"4294967280 is beyond the file's {size} bytes")
    entry, _, _ = o["cpus"][1]
    fails(put(b, entry + 8, "<Q", 2**64 - 4096), f"cpu 1's entry at offset {entry:#x}: data at "
          f"offset 0x1000, 18446744073709547520 bytes, is beyond the file's {size} bytes")


def test_counts_are_checked_before_anything_is_allocated():
    b, o = seed("fork.dat")
    at = o["nr_cpus_at"]
    fails(put(b, at, "<I", 0x7fffffff), f"CPU count at offset {at:#x}: count 2147483647 is "
          f"more than the rest of the file ({len(b) - at - 4} bytes) can hold")
    # room for 1025 entries: the count is possible, fevent reads 1024 CPUs
    fails(put(b, at, "<I", 1025) + bytes(1025 * 16),
          f"CPU count at offset {at:#x}: 1025 CPUs; fevent reads up to 1024")
    at = o["systems_at"]
    fails(put(b, at, "<I", 0xffffffff), f"event system count at offset {at:#x}: count "
          f"4294967295 is more than the rest of the file ({len(b) - at - 4} bytes) can hold")
    at = o["ftrace_count_at"]
    fails(put(b, at, "<I", 0x20000000), f"ftrace format count at offset {at:#x}: count "
          f"536870912 is more than the rest of the file ({len(b) - at - 4} bytes) can hold")
    at = b.index(b"fuzzseed\0") + 9
    fails(put(b, at, "<I", 0x01000000), f"event format count of system fuzzseed at offset "
          f"{at:#x}: count 16777216 is more than the rest of the file ({len(b) - at - 4} bytes) "
          f"can hold")


def test_page_size_must_be_a_power_of_two():
    b, o = seed("fork.dat")
    at = o["page_size_at"]
    for bad in (0, 8, 4097, 2**31):
        fails(put(b, at, "<I", bad), f"page size at offset {at:#x}: {bad} is not a power of "
              f"two from 4096 to 134217728")


def test_cut_short_anywhere_is_an_error_naming_where():
    b, o = seed("two-cpus.dat")
    head = re.compile(r"fevent: error: (.*: [\w ']+ at offset 0x[0-9a-f]+: .+"
                      r"|.* is not a trace\.dat file)\n")
    for cut in list(range(1, o["flyrecord_at"] + 42, 23)) + [len(b) - 4096, len(b) - 1]:
        for opts in ((), ("--json",)):
            r = report(b[:cut], *opts)
            check(r.returncode == 1 and r.stdout == "" and head.fullmatch(r.stderr),
                  f"cut at {cut} {opts}: {r.returncode} {r.stderr!r}")
    expect_eq(report(b"").stderr, f"fevent: error: cannot read {path()}: an empty file\n")
    expect_eq(report(b[:100]).stderr, f"fevent: error: {path()}: header_page at offset 0x1e: "
              f"size 205 is beyond the file's 100 bytes\n")
    expect_eq(report(b[:0x1e]).stderr, f"fevent: error: {path()}: header_page at offset 0x1e: "
              f"cut short: the file ends at 30 bytes\n")


def test_only_a_regular_file_is_opened():
    fifo = path("fifo")
    os.mkfifo(fifo)
    for p, kind in ((fifo, "a FIFO"), (os.path.dirname(fifo), "a directory"),
                    ("/dev/zero", "a character device")):
        r = fe.run("report", "-i", p)     # a blocked open would hit its 60 s limit
        expect_eq((r.returncode, r.stdout, r.stderr),
                  (1, "", f"fevent: error: cannot read {p}: not a regular file ({kind})\n"))
    os.unlink(fifo)


def test_a_damaged_header_page_or_tag():
    b, o = seed("fork.dat")
    at, _ = o["header_page"]
    fails(replaced(b, b"commit;\toffset:8;\tsize:8;", b"commit;\toffset:8;\tsize:4;"),
          f"header_page at offset {at:#x}: not the 64-bit page header fevent reads "
          f"(timestamp: 8 bytes at 0, commit: 8 bytes at 8, data at 16)")
    fails(replaced(b, b"\tfield: u64 timestamp;", b"\tfield: u64 timestamp!"),
          f"header_page at offset {at:#x}, line 1: expected \"\\tfield: TYPE NAME;\\toffset:N;"
          f"\\tsize:N;\\tsigned:0 or 1;\"")
    fails(replaced(b, b"header_event\0", b"header_evenT\0"),
          f"at offset {o['header_event'][0] - 13:#x}: expected \"header_event\"")
    fails(replaced(b, b"flyrecord\0", b"flyrecorD\0"),
          f"at offset {o['flyrecord_at']:#x}: expected \"options\" or \"flyrecord\"")


def test_formats_are_read_strictly():
    b, o = seed("fork.dat")
    _, at, _ = o["formats"][0]
    field = "expected \"\\tfield:TYPE NAME;\\toffset:N;\\tsize:N;\\tsigned:0 or 1;\""
    # one word where a type and a name go: libtraceevent 1.7.1 leaked it
    fails(replaced(b, b"field:s32 n;", b"field:s32xn;"),
          f"event format at offset {at:#x}, line 10: {field}")
    fails(replaced(b, b"field:__data_loc char[] s;", b"field:__data_locAchar[] s;"),
          f"event format at offset {at:#x}, line 11: {field}")
    fails(replaced(b, b"signed:1;\n\tfield:s32 id", b"signed:2;\n\tfield:s32 id"),
          f"event format at offset {at:#x}, line 11: {field}")
    fails(replaced(b, b"name: traced\n", b"name: tr\x1bced\n"),
          f"event format at offset {at:#x}, line 1: the event's name is not a name "
          f"(letters, digits, '_', '-', '.')")
    fails(replaced(b, b"ID: 2", b"ID: x"),
          f"event format at offset {at:#x}, line 2: expected \"ID: N\", N up to 65535")
    fails(replaced(b, b"fuzzseed\0", b"fuzz\x1bsee\0"),
          f"event format at offset {at:#x}: system \"fuzz\\x1bsee\" is not a name (letters, "
          f"digits, '_', '-', '.')")
    # a field no record can hold
    text = b[at + 8:at + 8 + o["formats"][0][2]]
    far = text.replace(b"n;\toffset:16;", b"n;\toffset:134217727;")
    fails(tracedat.assemble(b, o, [tracedat.sized(at, len(text), far)]),
          f"event format at offset {at:#x}: the format of fuzzseed/traced puts field n at "
          f"offset 134217727, size 4: beyond any record")


def test_cpu_data_overlapping_or_not_whole_pages():
    b, o = seed("two-cpus.dat")
    entry0, off0, _ = o["cpus"][0]
    entry1, _, _ = o["cpus"][1]
    fails(put(b, entry1, "<Q", off0), f"cpu 1's entry at offset {entry1:#x}: data at offset "
          f"{off0:#x}, 4096 bytes, overlaps cpu 0's")
    # cpu 1's page short of 100 bytes: skipped, cpu 0's decoded
    q1 = page(b, o, 1)
    decodes_as(put(b, entry1 + 8, "<Q", 3996),
               tracedat.assemble(b, o, cpu_pages=[[b[off0:off0 + 4096]], []]),
               [f"cpu 1: the last 3996 bytes of its data, at offset {q1:#x}, are not a whole "
                f"page; skipped"])


def damaged_page(b, o, cpu, at, word, commit=None):
    """The file with the 4-byte word at +at in cpu's first page, and its
    commit if given."""
    q = page(b, o, cpu)
    d = put(b, q + at, "<I", word)
    return d if commit is None else put(d, q + 8, "<Q", commit)


def test_a_damaged_page_is_decoded_as_far_as_it_can_be():
    b, o = seed("two-cpus.dat")
    q0, q1 = page(b, o, 0), page(b, o, 1)
    p0, p1 = b[q0:q0 + 4096], b[q1:q1 + 4096]
    only_cpu1 = tracedat.assemble(b, o, cpu_pages=[[], [p1]])
    where = f"cpu 0 page at offset {q0:#x}"
    # a commit beyond the page: kbuffer read past it
    decodes_as(damaged_page(b, o, 0, 8, 0x7ffffff), only_cpu1,
               [f"{where}: its 134217727 bytes of events are beyond the page's 4096 bytes; "
                f"skipped"])
    # a lost-events count after the events but beyond the page
    decodes_as(put(b, q0 + 8, "<Q", 0xc0000000 | 4080), only_cpu1,
               [f"{where}: the count of lost events after its 4080 bytes of events is beyond "
                f"the page's 4096 bytes; skipped"])
    # a length word of 0 (a record of -4 bytes) in the first event
    decodes_as(put(put(b, q0 + 16, "<I", 0), q0 + 20, "<I", 0), only_cpu1,
               [f"{where}: event at +0x10: length 0 is less than its own 4 bytes; the rest of "
                f"the page skipped"])
    # a padding whose length steps back to itself: kbuffer went round for ever
    decodes_as(put(put(b, q0 + 16, "<I", 29), q0 + 20, "<I", 0xfffffffc), only_cpu1,
               [f"{where}: event at +0x10: its 4294967296 bytes run past the page's 348 bytes "
                f"of events; the rest of the page skipped"])
    # the third event damaged: the two before it are decoded, as if the
    # page ended there
    cut = put(p0, 8, "<Q", 0x70 - 16)
    decodes_as(put(put(b, q0 + 0x70, "<I", 0), q0 + 0x74, "<I", 4096),
               tracedat.assemble(b, o, cpu_pages=[[cut], [p1]]),
               [f"{where}: event at +0x70: its 4100 bytes run past the page's 348 bytes of "
                f"events; the rest of the page skipped"])


def test_records_shorter_than_their_format_are_skipped():
    b, o = seed("fork.dat")
    q = page(b, o, 1)
    # the entry event's last string at offset 99: no entry record holds it
    r = report(replaced(b, b"name;\toffset:28;", b"name;\toffset:99;"))
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq([l.split(": ", 1)[1] for l in r.stdout.splitlines()],
              ["traced(?) = 111", "traced(?) = 113", "traced(?) = 111", "traced(?) = 113"])
    expect_eq(r.stderr, f"fevent: 4 events; none lost in the buffers\nfevent: warning: "
              f"{path()}: cpu 1 page at offset {q:#x}: record at +0x70: 44 bytes, shorter than "
              f"the 103 of a fuzzseed/traced; skipped; and 3 more damaged places in the page\n")
    # common_type beyond every record (exec, fork, 4 calls, 4 returns):
    # libtraceevent read it there
    _, at, n = o["formats"][0]
    text = b[at + 8:at + 8 + n].replace(b"common_type;\toffset:0;", b"common_type;\toffset:99;")
    r = report(tracedat.assemble(b, o, [tracedat.sized(at, n, text)]), "--json")
    expect_eq((r.returncode, r.stdout), (0, ""), r.stderr)
    expect_eq(r.stderr, f"fevent: 0 events; none lost in the buffers\nfevent: warning: "
              f"{path()}: cpu 1 page at offset {q:#x}: record at +0x10: 48 bytes, shorter than "
              f"its common fields (101 bytes); skipped; and 9 more damaged places in the page\n")


def test_quiet_still_says_what_was_skipped():
    b, o = seed("two-cpus.dat")
    q0 = page(b, o, 0)
    r = report(damaged_page(b, o, 0, 8, 0x7ffffff), "-q")
    expect_eq((r.returncode, r.stderr), (0, f"fevent: warning: {path()}: cpu 0 page at offset "
              f"{q0:#x}: its 134217727 bytes of events are beyond the page's 4096 bytes; "
              f"skipped\n"))


def test_damage_is_counted_after_the_first_ten_places():
    b, o = seed("fork.dat")
    q = page(b, o, 1)
    bad = put(b[q:q + 4096], 8, "<Q", 0x7ffffff)
    r = report(tracedat.assemble(b, o, cpu_pages=[[], [bad] * 12]))
    expect_eq(r.returncode, 0, r.stderr)
    lines = r.stderr.splitlines()
    expect_eq(lines[0], "fevent: 0 events; none lost in the buffers")
    expect_eq(lines[1:], [f"fevent: warning: {path()}: cpu 1 page at offset "
                          f"{0x1000 * (i + 1):#x}: its 134217727 bytes of events are beyond the "
                          f"page's 4096 bytes; skipped" for i in range(10)] +
              [f"fevent: warning: {path()}: 2 more damaged places; what could not be read is "
               f"skipped"])
    # twelve CPUs, none with a whole page
    r = report(tracedat.assemble(put(b, o["nr_cpus_at"], "<I", 12), o,
                                 cpu_pages=[[b"\xa5" * 100]] * 12))
    expect_eq(r.returncode, 0, r.stderr)
    lines = r.stderr.splitlines()
    start = 0x1000
    expect_eq(lines[1:], [f"fevent: warning: {path()}: cpu {i}: the last 100 bytes of its "
                          f"data, at offset {start + 100 * i:#x}, are not a whole page; skipped"
                          for i in range(10)] +
              [f"fevent: warning: {path()}: 2 more damaged places; what could not be read is "
               f"skipped"])


def test_values_that_overflowed_or_shifted_out_of_range():
    b, o = seed("fork.dat")
    q = page(b, o, 1)
    ts, = struct.unpack_from("<Q", b, q)
    # seconds of 11 digits: counting their width overflowed an int
    r0 = report(b)
    r = report(put(b, q, "<Q", ts + 10**19))
    expect_eq(r.returncode, 0, r.stderr)

    def later(line):
        m = re.match(r"( +\S+ \[\d+\]) +(\d+)(\.\d+: .*)", line)
        return f"{m.group(1)} {int(m.group(2)) + 10**10}{m.group(3)}"
    expect_eq(r.stdout.splitlines(), [later(l) for l in r0.stdout.splitlines()])
    js = [json.loads(l) for l in report(put(b, q, "<Q", ts + 10**19), "--json").stdout.splitlines()]
    expect_eq(len(js), 4)
    # an array of 0-byte elements: its sign bit was a shift by -1
    b, o = seed("values.dat")
    r = report(replaced(b, b"w[];\toffset:52;\tsize:6;", b"w[];\toffset:52;\tsize:0;"))
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stdout.split(": ", 1)[1], 'values(d=-3, u=13, wide=-500000, tag="twelve-chars", '
              'b="yyyyyyyy", h={0x79,0x79,0x79,0x79}, w={0,0,0})\n')


def test_names_from_the_file_cannot_control_the_terminal():
    b, o = seed("fork.dat")
    q = page(b, o, 1)
    at = b.index(b"fx_prog\0", q)     # the exec event's file name: the parent's name
    esc = b[:at] + b"\x1b" + b[at + 1:]
    r0, r = report(b), report(esc)
    parent = re.match(r" +fx_prog-(\d+) ", r0.stdout).group(1)
    # the one rule for names on a terminal (text_escape.h): ESC is \x1b,
    # three characters more, three spaces less before it
    expect_eq((r.returncode, r.stdout), (0, r0.stdout.replace(f"   fx_prog-{parent} ",
                                                              f"\\x1bx_prog-{parent} ")))
    comms = {json.loads(l)["comm"] for l in report(esc, "--json").stdout.splitlines()}
    expect_eq(comms, {"\x1bx_prog", "fx_prog"}, "JSON escapes it as \\u001b")


def test_an_empty_buffer_is_no_damage():
    """An instance buffer whose CPUs hold nothing at an offset past the
    file's end (trace-cmd's last buffer whose event never fired) reads as
    empty; a size past the end at that offset is still refused."""
    b, _ = seed("v6-empty-instance.dat")
    ref, _ = seed("fork.dat")
    r, want = report(b), report(ref)
    expect_eq((r.returncode, r.stdout), (0, want.stdout))
    check(r.stderr.endswith("fevent: inst: 0 events; none lost in the buffers\n"), r.stderr)
    at = b.rindex(b"flyrecord\0") + 10
    off, size = struct.unpack_from("<QQ", b, at)
    expect_eq((size, off > len(b)), (0, True), "the seed's shape")
    fails(put(b, at + 8, "<Q", 4096), f"buffer inst: cpu 0's entry at offset {at:#x}: data at "
          f"offset {off:#x}, 4096 bytes, is beyond the file's {len(b)} bytes")
