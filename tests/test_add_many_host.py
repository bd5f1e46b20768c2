"""add -f of hundreds of libpython functions with uprobes on this machine
(issue 34 item 5: a list of 977 exited 2 after 42 s of CPU).  Every
prototype of the list compiles, each function's inlined copies included,
and add creates exactly the events compile prints, each with its notes in
/run/fevent (the library's identity, its values: hard links to one file a
text since add stopped creating a file a note, with the same paths and
texts as before); clear leaves none of them and none of their notes.  No timing is asserted:
bench/add_many_host.py measures it."""
import os

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


def check_notes(lib, events, names):
    """Every event's notes, as list and the view read them: EVENT holds
    'DEV INO FILE' of the library, EVENT.values what the view shows
    beyond the fetch types: the same text as an add of that prototype
    alone notes (checked for the first three that say something), else
    nothing.  Nothing else is left in the group's directory (no shared
    or temporary file)."""
    st = os.stat(lib)
    state = os.path.join("/run/fevent", GROUP)
    said = {}
    for ev in events:
        with open(os.path.join(state, ev)) as f:
            expect_eq(f.read(), f"{st.st_dev} {st.st_ino} {lib}\n", f"note of {ev}")
        with open(os.path.join(state, ev + ".values")) as f:
            said[ev] = f.read()
    alone = [ev for ev in events if said[ev] and ev in names][:3]
    check(alone, "no event of the list has values to note")
    for ev in alone:
        r = fe.run("add", "-q", "-g", GROUP + "_1", "-x", lib, ev + "(...)")
        expect_eq(r.returncode, 0, r.stderr)
        try:
            with open(os.path.join("/run/fevent", GROUP + "_1", ev + ".values")) as f:
                expect_eq(said[ev], f.read(), f"values note of {ev}")
        finally:
            r = fe.run("clear", "-g", GROUP + "_1")
        expect_eq(r.returncode, 0, r.stderr)
    for ev in events:
        if ev not in alone:
            check(said[ev] == "" or said[ev].startswith("type "),
                  f"values note of {ev}: {said[ev]!r}")
    # an inlined copy's event notes whose copy it is (list shows it):
    # one note of the add, "#places" then "EVENT INDEX COUNT FUNC" a
    # line, FUNC a function of the list, and every EVENT.place a link to
    # it (one inode, not one an event)
    places = sorted(f for f in os.listdir(state) if f.endswith(".place"))
    inodes = {os.stat(os.path.join(state, f)).st_ino for f in places}
    expect_eq(len(inodes), 1, f"the place notes of one add are one file: {len(inodes)}")
    with open(os.path.join(state, places[0])) as g:
        lines = g.read().splitlines()
    expect_eq(lines[0], "#places", "the places note's first line")
    noted = {}
    for line in lines[1:]:
        ev, index, count, func = line.split()
        noted[ev] = (index, count, func)
        check(func in names and 0 <= int(index) < int(count),
              f"place note of {ev}: {line}")
    expect_eq(sorted(ev + ".place" for ev in noted), places, "an EVENT.place a line")
    for f in places:
        check(f[:-len(".place")] in events, f"a place note of no event: {f}")
    check(any(f.startswith("PyBytes_GET_SIZE") for f in places),
          f"no place note of an inlined copy: {places[:10]}")
    want = sorted(events + [ev + ".values" for ev in events] + places)
    expect_eq(sorted(os.listdir(state)), want, "files in " + state)


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
