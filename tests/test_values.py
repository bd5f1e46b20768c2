"""Values fevent shows must be the values (issue 9): JSON keys unique when
labels repeat, ..."""
import json

import fe
from fe import expect_eq
from test_events_host import GROUP, clean, prog
from test_record_host import added


def test_repeated_labels_have_unique_json_keys():
    # two reads labelled 'id': the kernel names them id and id__1
    added("traced(n, r->id, x64 id=r->id, string r->name, string name=s)")
    try:
        r = fe.run("record", "-g", GROUP, "--json", "--", prog(), "1")
        expect_eq(r.returncode, 0, r.stderr)
        line = [l for l in r.stdout.splitlines() if l.startswith("{")][0]
        pairs = json.loads(line, object_pairs_hook=lambda kv: kv)
        args = dict(pairs)["args"]
        expect_eq(args, [("n", 0), ("id", 7), ("id__1", "0x7"), ("name", "hello"),
                         ("name__1", "abc")])
        t = fe.run("record", "-g", GROUP, "--", prog(), "1")
        text = [l for l in t.stdout.splitlines() if "traced(" in l][0]
        expect_eq(text.split(": ", 1)[1],
                  'traced(n=0, id=7, id__1=0x7, name="hello", name__1="abc")')
    finally:
        clean()


def test_json_keeps_64_bit_values_exact():
    # jq and JavaScript read JSON numbers as doubles: past 2^53 two different
    # pointers compare equal, so such values, and every hex-typed one, are
    # strings; 2^53 itself is still exact as a number
    added("wide(a, b, x64 c, d)")
    try:
        r = fe.run("record", "-g", GROUP, "--json", "--", prog(), "wide")
        expect_eq(r.returncode, 0, r.stderr)
        line = [l for l in r.stdout.splitlines() if l.startswith("{")][0]
        expect_eq(json.loads(line)["args"], {"a": "0xff33d29170ff6a00", "b": "-0x20000000000001",
                                             "c": "0x20000000000000", "d": 9007199254740992})
        t = fe.run("record", "-g", GROUP, "--", prog(), "wide")
        text = [l for l in t.stdout.splitlines() if "wide(" in l][0]
        expect_eq(text.split(": ", 1)[1], "wide(a=18389273225591745024, b=-9007199254740993, "
                  "c=0x20000000000000, d=9007199254740992)")
    finally:
        clean()


VALUES = "values(bf->d, bf->u, bf->wide, nm->tag, char[8] b=buf)"


def test_signed_bitfields_and_char_arrays_live_and_in_json():
    # d:4 = -3 and wide:20 = -500000 are signed; u:4 = 13 is not; tag is a
    # char[12] holding "twelve-chars" with no NUL, buf 64 'y's: each read
    # stops at its N
    added(VALUES)
    try:
        r = fe.run("record", "-g", GROUP, "--", prog(), "values")
        expect_eq(r.returncode, 0, r.stderr)
        line = [l for l in r.stdout.splitlines() if "values(" in l][0]
        expect_eq(line.split(": ", 1)[1],
                  'values(d=-3, u=13, wide=-500000, tag="twelve-chars", b="yyyyyyyy")')
        j = fe.run("record", "-g", GROUP, "--json", "--", prog(), "values")
        obj = json.loads([l for l in j.stdout.splitlines() if l.startswith("{")][0])
        expect_eq(obj["args"], {"d": -3, "u": 13, "wide": -500000, "tag": "twelve-chars",
                                "b": "yyyyyyyy"})
        # a trace.dat keeps the formats, so report decodes the same
        import os
        dat = os.path.join(fe.tmpdir("fevent-values-"), "t.dat")
        r = fe.run("record", "-g", GROUP, "-o", dat, "--", prog(), "values")
        rep = fe.run("report", "-i", dat)
        expect_eq(rep.stdout.split(": ", 1)[1],
                  'values(d=-3, u=13, wide=-500000, tag="twelve-chars", b="yyyyyyyy")\n')
        os.unlink(dat)
    finally:
        clean()


def test_definition_carries_the_flags():
    r = fe.run("compile", "-x", prog(), VALUES, "values(nm->big)")
    expect_eq(r.returncode, 0, r.stderr)
    args = [l.split(" ", 2)[2] for l in r.stdout.splitlines()]
    expect_eq(args[0], "d__s=+0(%di):b4@0/32 u=+0(%di):b4@4/32 wide__s=+0(%di):b20@8/32 "
                       "tag__t=+0(%si):u8[12] b__t=+0(%dx):u8[8]")
    expect_eq(args[1], "big=+12(%si):string")
    expect_eq(sorted(r.stderr.splitlines()), [
        "fevent: warning: 'big' is a char[100]; the kernel reads at most 64 array elements, "
        "so it is read as a string, up to its NUL",
        "fevent: warning: event 'values' is also defined by an earlier prototype; only one "
        "can be added"])
