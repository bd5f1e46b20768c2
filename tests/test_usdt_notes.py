"""SDT notes a compiler may write that the other fixtures' do not have
(DESIGN.md section 11), written by hand in tests/fixtures/fx_sdt_low.c:
low:idx at two sites, its first argument an indexed memory operand at
the second (three sites built with -DNEW); low:fl's 8f@ and 4f@ floats
around an int; low:sem at two sites, only the second guarded by a
semaphore."""
import json

import fe
from fe import expect_eq
from test_usdt_sites import fixture, notes

GROUP = "fevent_test_sdtnotes" + fe.TAG


def low(*flags):
    fixture()       # readelf and <sys/sdt.h>, or skip
    return fe.fixture_binary("fx_sdt_low.c", *flags)


def sites(binary, name):
    return [n for n in notes(binary) if n[0] == "low" and n[1] == name]


def test_an_error_at_several_sites_is_said_once():
    """One error at each site is one error; one at some of them names
    those; different errors are said apart, each once."""
    fx = low()
    r = fe.run("compile", "-g", GROUP, "-x", fx, "low:sem(a, b)")
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq(r.stderr.splitlines(), [
        "fevent: error: column 12: low:sem has 1 argument (at each of its 2 sites)",
        "    low:sem(a, b)",
        "               ^"])
    r = fe.run("compile", "--strict", "-g", GROUP, "-x", fx, "low:sem(long a)")
    expect_eq((r.returncode, r.stderr.splitlines()[0]), (2,
              "fevent: error: column 9: 'long a' reads argument 1 of low:sem as 8 bytes, "
              "but its note declares it 's32': the bytes past it are not its value "
              "(at each of its 2 sites)"))
    expect_eq(len(r.stderr.splitlines()), 3, r.stderr)
    # a site-free error (an unknown type) at each: as it was, once
    r = fe.run("compile", "-g", GROUP, "-x", fx, "low:sem(foo_t a)")
    expect_eq((r.returncode, len(r.stderr.splitlines())), (2, 3), r.stderr)
    first = r.stderr.splitlines()[0]
    expect_eq((first.startswith("fevent: error: column 9: unknown type 'foo_t'"),
               "site" in first), (True, False), first)
    # a filter's field one site lacks ('...' skips arg1 there): that site
    idx = sites(fx, "idx")
    r = fe.run("compile", "-g", GROUP, "-x", fx, "low:idx(...) if arg1 > 0")
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq([l for l in r.stderr.splitlines() if l.startswith("fevent:")], [
        "fevent: error: column 17: no field 'arg1' in this event; did you mean 'arg2'? "
        f"(at its site 2 of 2, {idx[1][2]:#x})"])
    new = low("-DNEW")
    idx = sites(new, "idx")
    expect_eq([n[4][0] for n in idx], ["-8@%rdi", "-8@(%rax,%rsi,8)", "-8@%rdx"])
    r = fe.run("compile", "-g", GROUP, "-x", new, "low:idx(a, b, c)")
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq([l for l in r.stderr.splitlines() if l.startswith("fevent:")], [
        f"fevent: error: column 15: low:idx has 2 arguments (at its sites 1 and 3 of 3, "
        f"{idx[0][2]:#x}, {idx[2][2]:#x})",
        "fevent: error: column 9: argument 1 of low:idx cannot be read: its spec is a memory "
        f"operand a fetch argument cannot say (at its site 2 of 3, {idx[1][2]:#x})"])


def test_proto_of_a_probe_one_site_cannot_read_compiles():
    """low:idx's first argument is an indexed operand at its second site:
    proto makes it NULL and says why, and what it prints compiles."""
    fx = low()
    idx = sites(fx, "idx")
    r = fe.run("proto", "-x", fx, "low:idx")
    expect_eq((r.returncode, r.stdout.splitlines()), (0, [
        "low:idx(NULL, u64 arg2)",
        "#   arg1 is NULL: at idx_1, its spec is a memory operand a fetch argument cannot say",
        "# 2 sites, each an event at its own address, its arguments where its note says:",
        f"#   idx at {idx[0][2]:#x}: -8@%rdi 8@%rsi",
        f"#   idx_1 at {idx[1][2]:#x}: -8@(%rax,%rsi,8) 8@%rsi"]), r.stderr)
    r = fe.run("compile", "-g", GROUP, "-x", fx, "-f", "-", stdin=r.stdout)
    expect_eq((r.returncode, r.stderr), (0, ""))
    expect_eq(r.stdout.splitlines(), [
        f"p:{GROUP}/idx {fx}:{idx[0][2]:#x} arg2=%si:u64",
        f"p:{GROUP}/idx_1 {fx}:{idx[1][2]:#x} arg2=%si:u64"])


def test_a_float_sdt_argument_is_said_and_the_others_read():
    """8f@%rax and 4f@8(%rsp) around -4@%edi: a slot naming a float says
    it cannot be fetched; '...' skips both, saying so, and reads the int;
    proto writes them NULL."""
    fx = low()
    fl = sites(fx, "fl")[0]
    expect_eq(fl[4], ["8f@%rax", "-4@%edi", "4f@8(%rsp)"])
    why = "its spec is a floating-point value, and probes fetch integers only"
    r = fe.run("compile", "-g", GROUP, "-x", fx, "low:fl(...)")
    expect_eq((r.returncode, r.stdout, r.stderr.splitlines()), (
        0, f"p:{GROUP}/fl {fx}:{fl[2]:#x} arg2=%di:s32\n",
        [f"fevent: warning: '...' skips arg1: {why}",
         f"fevent: warning: '...' skips arg3: {why}"]))
    r = fe.run("compile", "-g", GROUP, "-x", fx, "low:fl(NULL, int i, double d)")
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq(r.stderr.splitlines(), [
        f"fevent: error: column 21: argument 3 of low:fl cannot be read: {why}",
        "    low:fl(NULL, int i, double d)",
        "                        ^"])
    r = fe.run("compile", "-g", GROUP, "-x", fx, "low:fl(NULL, i)")
    expect_eq((r.returncode, r.stdout, r.stderr),
              (0, f"p:{GROUP}/fl {fx}:{fl[2]:#x} i=%di:s32\n", ""))
    r = fe.run("proto", "-x", fx, "low:fl")
    expect_eq((r.returncode, r.stdout.splitlines()), (0, [
        "low:fl(NULL, s32 arg2, NULL)",
        f"#   arg1 is NULL: {why}",
        f"#   arg3 is NULL: {why}",
        "#   8f@%rax -4@%edi 4f@8(%rsp)"]), r.stderr)


def test_a_globs_warnings_call_sdt_probes_so():
    """What a glob of SDT probes says counts probes, not functions, and a
    probe of two sites with a warning at each is one probe."""
    fx = low()
    r = fe.run("compile", "-g", GROUP, "-x", fx, "low:*(long a)")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stderr.splitlines(), [
        "fevent: warning: 2 warnings on 1 of the SDT probes 'low:*' names (-v shows them)",
        "fevent: warning: 3 of the 4 SDT probes 'low:*' names are skipped: the prototype "
        "does not compile for them (-v says why)"])
    r = fe.run("compile", "-g", GROUP, "-x", fx, "low:*(a, b)")
    expect_eq((r.returncode, r.stderr.splitlines()[0]), (2,
              "fevent: error: column 7: none of the 4 SDT probes 'low:*' names compiles; the "
              "first, low:base: low:base has 0 arguments"))
    r = fe.run("compile", "-g", GROUP, "-n", "x", "-x", fx, "low:*(a)")
    expect_eq((r.returncode, r.stderr.splitlines()[0]), (2,
              "fevent: error: column 5: -n names one event, but 'low:*' matches 4 SDT probes"))
    r = fe.run("compile", "-g", GROUP, "-x", fx, "low:sem(a)", "low:s*(a)")
    expect_eq((r.returncode, r.stderr), (0,
              "fevent: warning: every SDT probe 'low:s*' names that compiles is named by an "
              "earlier prototype: it adds none\n"))


def test_verbose_says_the_note_types_an_sdt_probe():
    """-v names what typed a probe's slots: for an SDT probe its note,
    not "no debug info"."""
    fx = low()
    sem = sites(fx, "sem")
    r = fe.run("compile", "-v", "-g", GROUP, "-x", fx, "low:sem(...)")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stderr.splitlines(), [
        f"fevent: sem: probe on {fx}:{sem[0][2]:#x}; types from its SDT note (.note.stapsdt)",
        f"fevent: sem: probe on {fx}:{sem[1][2]:#x}({sem[1][3]:#x}); types from its SDT note "
        "(.note.stapsdt)"])


def test_funcs_says_each_sites_semaphore():
    """low:sem's first note has no semaphore, its second has: funcs says
    which site has one (the first note said none for both)."""
    fx = low()
    sem = sites(fx, "sem")
    expect_eq([n[3] != 0 for n in sem], [False, True])
    r = fe.run("funcs", "-x", fx, "low:*")
    expect_eq((r.returncode, r.stdout.splitlines()), (0, [
        "low:base",
        "low:idx  -8@%rdi 8@%rsi  (2 sites)",
        "low:fl  8f@%rax -4@%edi 4f@8(%rsp)",
        "low:sem  -4@%edi  (semaphore at site 2)  (2 sites)"]), r.stderr)


def test_check_says_an_sdt_probes_sites_changed():
    """low:idx at 2 sites in one build, 3 in the other: moved, exit 0,
    with the counts under the row; a probe of the same sites is same."""
    old, new = low(), low("-DNEW")
    r = fe.run("check", "-g", GROUP, "-x", old, "-x", new, "low:idx(...)", "low:sem(...)")
    expect_eq((r.returncode, r.stdout.splitlines()), (0, [
        f"  [1] {old} (reference)",
        f"  [2] {new}",
        "low:idx(...)  [1] same     [2] moved",
        "    [2] the SDT probe is at 3 sites here, at 2 in the reference: an event each",
        "low:sem(...)  [1] same     [2] same"]), r.stderr)
    r = fe.run("check", "-g", GROUP, "-x", new, "-x", old, "--json", "low:idx(...)")
    expect_eq(r.returncode, 0, r.stderr)
    cells = json.loads(r.stdout)["kernels"]
    expect_eq([(c["state"], c.get("why")) for c in cells], [
        ("same", None),
        ("moved", "the SDT probe is at 2 sites here, at 3 in the reference: an event each")])


def test_a_warning_at_several_sites_is_said_once():
    """A typed slot the notes of two sites contradict alike warns once,
    naming the sites; at one site of two, that site."""
    fx, new = low(), low("-DNEW")
    r = fe.run("compile", "-g", GROUP, "-x", fx, "low:sem(long a)")
    expect_eq((r.returncode, len(r.stdout.splitlines())), (0, 2), r.stderr)
    expect_eq(r.stderr.splitlines(), [
        "fevent: warning: column 9: 'long a' reads argument 1 of low:sem as 8 bytes, but its "
        "note declares it 's32': the bytes past it are not its value (at each of its 2 sites) "
        "(--strict makes this an error)"])
    idx = sites(new, "idx")
    r = fe.run("compile", "-g", GROUP, "-x", new, "low:idx(...)")
    expect_eq((r.returncode, r.stderr.splitlines()), (0, [
        "fevent: warning: '...' skips arg1: its spec is a memory operand a fetch argument "
        f"cannot say (at its site 2 of 3, {idx[1][2]:#x})"]))
    r = fe.run("compile", "-g", GROUP, "-x", new, "low:idx(NULL, u32 b)")
    expect_eq((r.returncode, r.stderr.splitlines()), (0, [
        "fevent: warning: column 15: 'u32 b' reads argument 2 of low:idx as 4 bytes, but its "
        "note declares it 'u64': part of its value is cut off (at each of its 3 sites) "
        "(--strict makes this an error)"]))


def test_a_size_past_a_longs_is_no_spec():
    """A note's size that no long holds (-9223372036854775808@%rax) is
    no spec: the argument cannot be read, '...' skips it, proto makes it
    NULL; under UBSan nothing overflows (labs(LONG_MIN) did)."""
    odd = low("-DODD")
    big = sites(odd, "big")
    expect_eq([n[4] for n in big], [["-9223372036854775808@%rax", "-4@%edi"]])
    r = fe.run("compile", "-g", GROUP, "-x", odd, "low:big(a, b)")
    expect_eq((r.returncode, r.stdout, r.stderr.splitlines()), (2, "", [
        "fevent: error: column 9: argument 1 of low:big cannot be read: its spec is an "
        "argument spec that is no SDT spec",
        "    low:big(a, b)",
        "            ^"]))
    r = fe.run("compile", "-g", GROUP, "-x", odd, "low:big(...)")
    expect_eq((r.returncode, r.stdout.splitlines(), r.stderr.splitlines()), (0, [
        f"p:{GROUP}/big {odd}:{big[0][2]:#x} arg2=%di:s32"], [
        "fevent: warning: '...' skips arg1: its spec is an argument spec that is no SDT spec"]))
    r = fe.run("proto", "-x", odd, "low:big")
    expect_eq((r.returncode, r.stdout.splitlines()), (0, [
        "low:big(NULL, s32 arg2)",
        "#   arg1 is NULL: its spec is an argument spec that is no SDT spec",
        "#   -9223372036854775808@%rax -4@%edi"]), r.stderr)
