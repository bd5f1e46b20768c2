"""list shows a line or offset event's place as it was written (kept in
/run/fevent/GROUP/EVENT.notes at add): 'FILE:N(...)' or 'FUNC:N(...)'
where that compiles back to exactly the event (the place's only address),
else 'FUNC+OFF(...)', which does, and the place beside it: a comment in
text ('add -f' takes the line), "place" in JSON: 'walk:7, address 1 of 2'.
Fetches that take no slot are joined with ',', never the alternatives' '|'."""
import json
import os
import re
import tempfile

import fe
from fe import check, expect_eq
from test_events_host import need_uprobes
from test_line_places import abs_line, binary, rel_line

GROUP = "fevent_lplace" + fe.TAG
STATE = "/run/fevent"


def listed():
    r = fe.run("list", "-g", GROUP, "--json")
    expect_eq(r.returncode, 0, r.stderr)
    return {o["event"]: o for o in map(json.loads, r.stdout.splitlines())}


def compiled_args(proto, event):
    """What 'compile -f' makes of list's line, for the event's address."""
    with tempfile.NamedTemporaryFile("w", suffix=".protos") as f:
        f.write(proto + "\n")
        f.flush()
        r = fe.run("compile", "-g", GROUP, "-x", binary(), "-f", f.name)
    expect_eq(r.returncode, 0, f"{proto}: {r.stderr}")
    return [l.split(" ", 2)[1:] for l in r.stdout.splitlines() if l.startswith("p:")]


def test_list_shows_the_place_as_written():
    need_uprobes()
    fe.run("clear", "-g", GROUP, "--force")
    n, line = rel_line("walk"), abs_line("arr")
    try:
        r = fe.run("add", "-g", GROUP, "-x", binary(), f"walk:{n}(k, sum, p)",
                   f"fx_places.c:{line}(i)", "int walk(head, k)")
        expect_eq(r.returncode, 0, r.stderr)
        ev = listed()
        # a line of two addresses: each event FUNC+OFF, the line after it
        text = fe.run("list", "-g", GROUP).stdout.splitlines()
        for k, name in enumerate((f"walk_L{n}", f"walk_L{n}_1")):
            proto = ev[name]["prototype"]
            m = re.fullmatch(r"walk\+(\d+)\((.*)\)", proto)
            check(m, proto)
            check(" | " not in m.group(2), proto)
            expect_eq(ev[name]["place"], f"walk:{n}, address {k + 1} of 2")
            # the address's own offset, which compiles back to the event
            path, at = ev[name]["target"].rsplit(":", 1)
            off = int(at, 16) - int(ev["walk"]["target"].rsplit(":", 1)[1], 16)
            expect_eq(int(m.group(1)), off, proto)
            shown = text[text.index(next(l for l in text if l.startswith(f"{GROUP}/{name} "))) + 1]
            expect_eq(shown, f"    {proto}  # walk:{n}, address {k + 1} of 2")
            # as 'add -f' reads the text line, comment and all
            expect_eq(compiled_args(shown, name), [[f"{path}:{int(at, 16):#x}", ev[name]["args"]]])
        # a line of one address: the place itself, which compiles back
        (one,) = [e for e in ev.values() if e["event"].startswith("walk_L") and
                  e["event"] not in (f"walk_L{n}", f"walk_L{n}_1")]
        check(re.fullmatch(rf"fx_places\.c:{line}\([^|]*\)", one["prototype"]), one["prototype"])
        check("place" not in one, one)
        expect_eq([a[1] for a in compiled_args(one["prototype"], one["event"])], [one["args"]])
        check(os.path.exists(os.path.join(STATE, GROUP, f"walk_L{n}.notes")), "noted")
        # one note for the add, linked as each EVENT.notes; an older
        # fevent's notes still read: a places note of its add linked as
        # EVENT.place ("#places", then "EVENT INDEX COUNT PLACE" a line),
        # and before it a one-line note ("INDEX COUNT PLACE")
        notes = [os.path.join(STATE, GROUP, f"walk_L{n}{s}.notes") for s in ("", "_1")]
        expect_eq(os.stat(notes[0]).st_ino, os.stat(notes[1]).st_ino, "one note an add")
        with open(notes[0]) as f:
            expect_eq(f.read().splitlines()[0], "#notes 1", "the note's first line")
        os.unlink(notes[1])
        expect_eq(listed()[f"walk_L{n}_1"].get("place"), None, "no note, no place")
        old = os.path.join(STATE, GROUP, f"walk_L{n}_1.place")
        with open(old, "w") as f:
            f.write(f"#places\nwalk_L{n} 0 2 walk:{n}\nwalk_L{n}_1 1 2 walk:{n}\n")
        expect_eq(listed()[f"walk_L{n}_1"]["place"], f"walk:{n}, address 2 of 2",
                  "an older places note")
        with open(old, "w") as f:
            f.write(f"1 2 walk:{n}\n")
        expect_eq(listed()[f"walk_L{n}_1"]["place"], f"walk:{n}, address 2 of 2",
                  "an older one-line note")
    finally:
        fe.run("clear", "-g", GROUP, "--force")
    left = os.listdir(os.path.join(STATE, GROUP)) if os.path.isdir(os.path.join(STATE, GROUP)) else []
    expect_eq(left, [], "clear takes the notes too, an older fevent's as well")
