"""'PROTO if FILTER' (issue 12, DESIGN.md section 9), with uprobes on the
places fixture: the filter is checked before anything is written (caret
and did-you-mean, types), rewritten in the kernel's field names, written
to the event's filter file, applied in record's own instance, and shown
by list in a prototype that compiles back to it."""
import json
import os
import re

import fe
from fe import check, expect_eq
from test_events_host import GROUP, clean, need_uprobes
from test_line_places import binary, compile_, rel_line


def filters(out):
    """{event: filter} from compile's '# filter GROUP/EVENT: FILTER' lines."""
    return {m.group(1): m.group(2) for m in re.finditer(r"^# filter \S+/(\S+): (.*)$", out, re.M)}


def test_filter_in_the_kernels_field_names():
    n = rel_line("walk")
    r = compile_(f"walk:{n}(k, sum, p->val, p->next->val) if sum > 20 && val__1 != 30 || !(k == 2)")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(filters(r.stdout), {f"walk_L{n}": "sum > 20 && val__1 != 30 || !(k == 2)",
                                  f"walk_L{n}_1": "sum > 20 && val__1 != 30 || !(k == 2)"})
    # a return value's filter goes on the return event
    r = compile_("int walk(head, k) if ret >= 0x64")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(filters(r.stdout), {"walk__return": "ret >= 0x64"})
    # strings, globs, the kernel's own fields
    r = compile_("walk(string name=head->next, k) if name ~ \"ab*\" && comm == 'fx' && common_pid != 1 && cpu < 64")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(filters(r.stdout)["walk"],
              "name ~ \"ab*\" && comm == 'fx' && common_pid != 1 && cpu < 64")


def error(proto):
    r = compile_(proto)
    expect_eq((r.returncode, r.stdout), (2, ""), r.stderr)
    return r.stderr


def caret_at(stderr, proto, word, skip=0):
    """The caret under word, searched in the filter (after ' if ')."""
    start = proto.index(" if ")
    col = start + proto[start:].index(word) + skip
    check(f"\n    {proto}\n    " + " " * col + "^" in stderr, stderr)


def test_filter_errors_point_at_the_word():
    cases = [
        ("walk(head, k) if kk > 1", "kk", "no field 'kk' in this event; did you mean 'k'?"),
        ("walk(head, k) if zzzzz > 1", "zzzzz", "no field 'zzzzz' in this event (its fields: head, k; and comm, common_pid, cpu)"),
        ("walk(string s=head) if s < \"x\"", "< ", "'s' is a string: compare it with ==, != or ~ (a glob), not <"),
        ("walk(head, k) if k ~ \"1*\"", "~", "'~' matches strings; 'k' is a number"),
        ("walk(head, k) if k == \"1\"", "\"1\"", "'k' is a number: compare it with a number"),
        ("walk(string s=head) if s == x", "x", "'s' is a string: write the value in quotes"),
        ("walk(head, k) if head == -1", "-1", "'head' is unsigned: it is never negative"),
        ("walk(head, k) if k == 99999999999999999999", "999", "does not fit 64 bits"),
        ("walk(head, k) if (k == 1", "(", "the '(' here is never closed"),
        ("walk(head, k) if k == 1 k", ("1 k", 2), "expected '&&', '||' or the end of the filter"),
        ("walk(head, k) if k", ("k", 1), "expected a comparison after 'k'"),
        ("walk(u8[4] a=head) if a == 1", "a ==", "'a' is an array, which kernel filters cannot compare"),
    ]
    for proto, word, msg in cases:
        e = error(proto)
        check(msg in e, f"{proto}: {e}")
        caret_at(e, proto, *(word if isinstance(word, tuple) else (word,)))
    e = error("walk(head, k) if")
    check("'if' needs a filter after it" in e, e)
    big = " || ".join(f"k == {i}" for i in range(400))
    e = error(f"walk(head, k) if {big}")
    check("the kernel takes at most 4095" in e, e)


def test_record_keeps_exactly_the_matching_calls():
    need_uprobes()
    clean()
    try:
        n = rel_line("walk")
        r = fe.run("add", "-g", GROUP, "-x", binary(),
                   f"walk:{n}(k, sum, p, p->val) if sum > 20 && val != 30",
                   "int walk(head, k) if ret > 100")
        expect_eq(r.returncode, 0, r.stderr)
        r = fe.run("record", "-g", GROUP, "--json", "--", binary())
        expect_eq(r.returncode, 0, r.stderr)
        got = []
        for o in map(json.loads, [l for l in r.stdout.splitlines() if l.startswith("{")]):
            if o.get("event", "").startswith("walk"):
                got.append((o["event"], o["args"]["sum"] if "sum" in o["args"] else o.get("ret")))
        # unfiltered the loop's test sees sum 0, 21, 62, 123 with val 10,
        # 20, 30 and p NULL (val reads 0): sum > 20 and val != 30 leaves
        # 21 and 123; walk returns 132 > 100
        expect_eq(sorted(got, key=str), sorted([(f"walk_L{n}_1", 21), (f"walk_L{n}_1", 123),
                                                ("walk", 132)], key=str))
        # list shows the filter in a prototype that compiles back to it
        r = fe.run("list", "-g", GROUP, "--json")
        expect_eq(r.returncode, 0, r.stderr)
        listed = {o["event"]: o for o in map(json.loads, r.stdout.splitlines())}
        proto = listed[f"walk_L{n}_1"]["prototype"]
        check(proto.endswith(" if sum > 20 && val != 30"), proto)
        back = compile_(proto, extra=("-n", f"walk_L{n}_1"))
        expect_eq(back.returncode, 0, back.stderr)
        expect_eq(filters(back.stdout), {f"walk_L{n}_1": "sum > 20 && val != 30"})
        # the return's filter on the prototype that adds both events, the
        # entry's; no prototype adds the return alone
        expect_eq(listed["walk"]["prototype"], "s32 walk(x64 head, s32 k) if ret > 100")
        back = compile_(listed["walk"]["prototype"])
        expect_eq(back.returncode, 0, back.stderr)
        expect_eq(filters(back.stdout), {"walk__return": "ret > 100"})
        expect_eq((listed["walk__return"]["prototype"], listed["walk__return"]["return_of"]),
                  ("", "walk"))
    finally:
        clean()


def test_a_char_pointer_return_compares_as_its_string_or_its_pointer():
    """A kernel char * return is its pointer (ret) and its string (ret__c):
    compared with a string, ret means the string; with a number or an errno
    name, the pointer."""
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        raise fe.Skip("no kernel BTF here")
    for cond, want in (('ret ~ "/tmp*"', 'ret__c ~ "/tmp*"'),
                       ('ret == "/x" || ret == 0', 'ret__c == "/x" || ret == 0'),
                       ("ret == -ENOENT", "ret == 0xfffffffffffffffe"),
                       ("ret != 0", "ret != 0")):
        r = fe.run("compile", "char *d_path(path) if " + cond)
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(filters(r.stdout), {"d_path__return": want}, r.stdout)
