"""add -f of hundreds of libpython functions with uprobes on this machine
(issue 34 item 5: a list of 977 exited 2 after 42 s of CPU).  Every
prototype of the list compiles, each function's inlined copies included,
and add creates exactly the events compile prints, each with its notes in
/run/fevent (its place, the library's identity, its values: one file a
group and add, +TIME.PID.notes, "#notes 1" then a line an event); clear
leaves none of them and none of their notes.  No
timing is asserted: bench/add_many_host.py measures it."""
import json
import os
import re

import fe
from fe import check, expect_eq
from test_events_host import need_uprobes
from test_libpython import libpython

GROUP = "fevent_many" + fe.TAG
TRACEFS = "/sys/kernel/tracing"

# Inlined functions whose copies failed the whole list before: one copy of
# set_contains_entry keeps 'hash' in an xmm register, and copies of
# PyBytes_GET_SIZE sit in static functions that share their name
# (stringlib_center of bytes and of bytearray).
INLINED = ["set_contains_entry", "PyBytes_GET_SIZE"]


def names(lib, want=300):
    """want functions spread over funcs' list, each with code of its own
    (no mark, or "also inlined"), then the INLINED ones."""
    r = fe.run("funcs", "-x", lib, "*")
    expect_eq(r.returncode, 0, r.stderr)
    own = [l.split()[0] for l in r.stdout.splitlines()
           if l.strip() and ("(" not in l or "(also inlined)" in l or "(and " in l)]
    check(len(own) > want, f"funcs lists {len(own)} functions with code")
    step = len(own) // want
    picked = [n for n in own[::step] if n not in INLINED][:want]
    return picked + INLINED


def group_lines():
    with open(os.path.join(TRACEFS, "uprobe_events")) as f:
        return [l for l in f if l.split()[0].split(":", 1)[1].startswith(GROUP + "/")]


def unescape(field):
    out, i = [], 0
    while i < len(field):
        if field[i] == "\\" and i + 1 < len(field):
            out.append({"t": "\t", "n": "\n"}.get(field[i + 1], field[i + 1]))
            i += 2
        else:
            out.append(field[i])
            i += 1
    return "".join(out)


def read_notes(path):
    """A notes file: {EVENT: (place, file, values)}, each unescaped."""
    with open(path) as f:
        lines = f.read().split("\n")
    expect_eq(lines[0], "#notes 1", f"{path}'s first line")
    expect_eq(lines[-1], "", f"{path} ends with a newline")
    out = {}
    for line in lines[1:-1]:
        ev, place, file, values = line.split("\t")
        out[ev] = (unescape(place), unescape(file), unescape(values))
    return out


def check_notes(lib, events, names):
    """Every event's notes, as list and the view read them, are one file
    of the add, +TIME.PID.notes, a line an event, and nothing an event:
    its line has the library's identity ('DEV INO FILE'), what the view
    shows beyond the fetch types (the same text as an add of that
    prototype alone notes, checked for the first three that say
    something, else nothing), and for an inlined copy which of the
    function's copies it is ('INDEX COUNT FUNC', FUNC a function of the
    list: list shows it).  Nothing else is left in the group's directory
    (no temporary file)."""
    st = os.stat(lib)
    state = os.path.join("/run/fevent", GROUP)
    files = os.listdir(state)
    expect_eq(len(files), 1, f"files in {state}: {files[:5]}")
    check(re.fullmatch(r"\+[0-9a-f]{16}\.\d+\.notes", files[0]), files[0])
    notes = read_notes(os.path.join(state, files[0]))
    expect_eq(sorted(notes), sorted(events), "a line an event")
    said = {ev: notes[ev][2] for ev in events}
    for ev in events:
        expect_eq(notes[ev][1], f"{st.st_dev} {st.st_ino} {lib}", f"file noted of {ev}")
    alone = [ev for ev in events if said[ev] and ev in names][:3]
    check(alone, "no event of the list has values to note")
    for ev in alone:
        r = fe.run("add", "-q", "-g", GROUP + "_1", "-x", lib, ev + "(...)")
        expect_eq(r.returncode, 0, r.stderr)
        try:
            (alone_file,) = os.listdir(os.path.join("/run/fevent", GROUP + "_1"))
            one = read_notes(os.path.join("/run/fevent", GROUP + "_1", alone_file))
            expect_eq(said[ev], one[ev][2], f"values noted of {ev}")
        finally:
            r = fe.run("clear", "-g", GROUP + "_1")
        expect_eq(r.returncode, 0, r.stderr)
    for ev in events:
        if ev not in alone:
            check(said[ev] == "" or said[ev].startswith("type "),
                  f"values noted of {ev}: {said[ev]!r}")
    placed = {ev: p for ev, (p, _, _) in notes.items() if p}
    for ev, p in placed.items():
        index, count, func = p.split()
        check(func in names and 0 <= int(index) < int(count), f"place noted of {ev}: {p}")
    check(any(ev.startswith("PyBytes_GET_SIZE") for ev in placed),
          f"no place noted of an inlined copy: {sorted(placed)[:10]}")
    # list reads them so: every event with a prototype, and each copy of
    # an inlined function with the place its notes say, the copy as
    # FUNC+OFF of the function that holds it
    r = fe.run("list", "-g", GROUP, "--json", timeout=900)
    expect_eq(r.returncode, 0, r.stderr[-2000:])
    listed = {o["event"]: o for o in map(json.loads, r.stdout.splitlines())}
    expect_eq(sorted(listed), sorted(events), "events listed")
    check(all(o["prototype"] for o in listed.values()),
          [ev for ev, o in listed.items() if not o["prototype"]][:10])
    for ev, p in placed.items():
        index, count, func = p.split()
        if int(count) > 1:
            expect_eq(listed[ev].get("place"), f"{func}, address {int(index) + 1} of {count}",
                      f"place listed of {ev}")
            check(re.fullmatch(r"[A-Za-z_][\w.]*(\+\d+)?\(.*\)", listed[ev]["prototype"]),
                  listed[ev]["prototype"])


def test_add_and_clear_of_many_libpython_functions():
    need_uprobes()
    lib = libpython()
    protos = os.path.join(fe.tmpdir("fevent-many-"), "protos")
    with open(protos, "w") as f:
        listed = names(lib)
        f.write("".join(n + "(...)\n" for n in listed))
    r = fe.run("compile", "-q", "-g", GROUP, "-x", lib, "-f", protos)
    expect_eq(r.returncode, 0, r.stderr[-2000:])
    defs = [l for l in r.stdout.splitlines() if l.startswith("p:")]
    check(len(defs) > 302, f"compile printed {len(defs)} definitions for 302 prototypes")
    try:
        r = fe.run("add", "-q", "-g", GROUP, "-x", lib, "-f", protos, timeout=900)
        expect_eq(r.returncode, 0, r.stderr[-2000:])
        made = group_lines()
        expect_eq(len(made), len(defs), "events created against definitions compiled")
        expect_eq(sorted(l.split()[0] for l in made), sorted(d.split()[0] for d in defs))
        check_notes(lib, [d.split()[0].split("/", 1)[1] for d in defs], listed)
    finally:
        r = fe.run("clear", "-g", GROUP, timeout=900)
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(group_lines(), [], "events left after clear")
    state = os.path.join("/run/fevent", GROUP)
    # the group's directory goes with its last event
    check(not os.path.exists(state), f"{state} left after clear: "
          f"{os.listdir(state) if os.path.isdir(state) else 'not a directory'}")
