"""list shows a line or offset event's place as it was written (kept in
/run/fevent/GROUP/+TIME.PID.notes at add): 'FILE:N(...)' or 'FUNC:N(...)'
where that compiles back to exactly the event (the place's only address),
else 'FUNC+OFF(...)', which does, and the place beside it: a comment in
text ('add -f' takes the line), "place" in JSON: 'walk:7, address 1 of 2'.
Fetches that take no slot are joined with ',', never the alternatives' '|'."""
import json
import os
import re
import subprocess
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
        # one notes file for the add, a line an event, no file an event
        (notes,) = os.listdir(os.path.join(STATE, GROUP))
        check(re.fullmatch(r"\+[0-9a-f]{16}\.\d+\.notes", notes), notes)
        notes = os.path.join(STATE, GROUP, notes)
        with open(notes) as f:
            lines = f.read().splitlines()
        expect_eq(lines[0], "#notes 1", "the notes' first line")
        expect_eq(sorted(l.split("\t")[0] for l in lines[1:]), sorted(ev))
        # the fevent before this one's notes: the same file linked as
        # each EVENT.notes, read before the group's files
        linked = os.path.join(STATE, GROUP, f"walk_L{n}_1.notes")
        with open(linked, "w") as f:
            f.write("#notes 1\n" + "".join(l.replace(f"\t0 2 walk:{n}\t", f"\t0 5 walk:{n}\t")
                                             .replace(f"\t1 2 walk:{n}\t", f"\t1 5 walk:{n}\t")
                                             + "\n" for l in lines[1:]))
        expect_eq(listed()[f"walk_L{n}_1"]["place"], f"walk:{n}, address 2 of 5",
                  "the previous fevent's link")
        os.unlink(linked)
        with open(notes, "w") as f:
            f.write("".join(l + "\n" for l in lines if not l.startswith(f"walk_L{n}_1\t")))
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


def uprobe_events():
    with open("/sys/kernel/tracing/uprobe_events") as f:
        return [l for l in f.read().splitlines() if f":{GROUP}/" in l]


def test_the_latest_add_notes_an_event_and_clear_takes_its_lines():
    """Each add notes its events in one file of the group; where two did
    (--force), the later one's line is the event's.  clear of some events
    takes their lines out of every file, so that an event of the name
    another tool makes shows no notes of fevent's; the group's last event
    takes the directory."""
    need_uprobes()
    fe.run("clear", "-g", GROUP, "--force")
    n, line = rel_line("walk"), abs_line("walk")
    state = os.path.join(STATE, GROUP)
    try:
        r = fe.run("add", "-g", GROUP, "-x", binary(), f"walk:{n}(k)", "int walk(head, k)")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(listed()[f"walk_L{n}_1"]["place"], f"walk:{n}, address 2 of 2")
        r = fe.run("add", "--force", "-g", GROUP, "-n", f"walk_L{n}", "-x", binary(),
                   f"fx_places.c:{line}(k)")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(len(os.listdir(state)), 2, os.listdir(state))
        ev = listed()
        expect_eq([ev[f"walk_L{n}{s}"]["place"] for s in ("", "_1")],
                  [f"fx_places.c:{line}, address {k} of 2" for k in (1, 2)], "the later add's")
        defined = next(l for l in uprobe_events() if f"/walk_L{n}_1 " in l)
        r = fe.run("clear", "-g", GROUP, f"walk_L{n}_1")
        expect_eq(r.returncode, 0, r.stderr)
        ev = listed()
        expect_eq(sorted(ev), sorted(["walk", "walk__return", f"walk_L{n}"]))
        expect_eq(ev[f"walk_L{n}"]["place"], f"fx_places.c:{line}, address 1 of 2")
        for f in os.listdir(state):
            with open(os.path.join(state, f)) as fd:
                check(f"walk_L{n}_1\t" not in fd.read(), f"{f} keeps the line of the cleared event")
        # the same event made again by hand: nothing of fevent's is its
        fd = os.open("/sys/kernel/tracing/uprobe_events", os.O_WRONLY | os.O_APPEND)
        try:
            os.write(fd, (defined + "\n").encode())
        finally:
            os.close(fd)
        expect_eq(listed()[f"walk_L{n}_1"].get("place"), None, "a note of the cleared event")
    finally:
        r = fe.run("clear", "-g", GROUP, "--force")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(uprobe_events(), [])
    check(not os.path.exists(state), os.listdir(state) if os.path.isdir(state) else state)


def test_a_later_add_wins_over_notes_whose_clock_is_ahead():
    """The notes files' names order the adds even where the boot clock
    does not: a file whose time is ahead (a /run kept over a reboot, an
    add in a time namespace with its boot clock ahead) is not newer than
    the add after it."""
    need_uprobes()
    fe.run("clear", "-g", GROUP, "--force")
    n, line = rel_line("walk"), abs_line("walk")
    if subprocess.run(["unshare", "--time", "--boottime", "864000", "true"]).returncode:
        raise fe.Skip("no time namespaces here")
    try:
        r = subprocess.run(["unshare", "--time", "--boottime", "864000", fe.binary(), "add",
                            "-g", GROUP, "-n", "myev", "-x", binary(), f"walk:{n}(k)"],
                           capture_output=True, text=True)
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(listed()["myev"]["place"], f"walk:{n}, address 1 of 2")
        # the kernel's events gone (a reboot), the notes left
        fd = os.open("/sys/kernel/tracing/dynamic_events", os.O_WRONLY | os.O_APPEND)
        try:
            os.write(fd, f"-:{GROUP}/\n".encode())
        finally:
            os.close(fd)
        r = fe.run("add", "-g", GROUP, "-n", "myev", "-x", binary(), f"fx_places.c:{line}(k)")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(listed()["myev"]["place"], f"fx_places.c:{line}, address 1 of 2",
                  "the later add's notes")
    finally:
        r = fe.run("clear", "-g", GROUP, "--force")
    expect_eq(r.returncode, 0, r.stderr)
    check(not os.path.exists(os.path.join(STATE, GROUP)), "notes left")
