"""An SDT probe of several notes (DESIGN.md sections 8, 11 and 15): one
macro expanded at several places is an event at each note, named NAME,
NAME_1, ... in note order, each at its note's address with its own
argument specs and semaphore; a glob probes each note once; funcs and
proto say how many sites; add, record -e, stats -e, list and clear take
the sites as one name.  tests/fixtures/fx_sdt_sites.c: fx:hit at two
places (an inlined function's probe, other registers at each), fx:once
at one, fx:mixed at two with one and two arguments."""
import json
import os
import re
import shutil
import subprocess

import fe
from fe import check, expect_eq

GROUP = "fevent_test_sdtsites" + fe.TAG
# %eax, %rax -> %ax; %r8d -> %r8: the kernel's fetch names
REG = re.compile(r"%(?:[re]?([abcd]x|[sd]i|[sb]p)|([abcd])l|(r\d+)[dwb]?)$")


def fixture():
    if not shutil.which("readelf"):
        raise fe.Skip("no readelf")
    try:
        return fe.fixture_binary("fx_sdt_sites.c", "-O2")
    except subprocess.CalledProcessError:
        raise fe.Skip("no <sys/sdt.h> (package systemtap-sdt-dev)")


def file_offset(binary, vaddr):
    """The file offset of a virtual address, by the LOAD segment holding it."""
    out = subprocess.run(["readelf", "-lW", binary], capture_output=True, text=True).stdout
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            off, va, size = int(f[1], 16), int(f[2], 16), int(f[5], 16)
            if va <= vaddr < va + size:
                return vaddr - va + off
    raise AssertionError(f"{vaddr:#x} is in no LOAD segment of {binary}")


def notes(binary):
    """[(provider, name, file offset, semaphore's file offset, specs)] in
    note order, from readelf -n, the address moved by .stapsdt.base."""
    sec = subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True).stdout
    base = int(re.search(r"\.stapsdt\.base\s+\S+\s+([0-9a-f]+)", sec).group(1), 16)
    out = subprocess.run(["readelf", "-n", binary], capture_output=True, text=True).stdout
    got, cur = [], {}
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("Provider: "):
            cur = {"prov": line.split(": ", 1)[1]}
        elif line.startswith("Name: "):
            cur["name"] = line.split(": ", 1)[1]
        elif line.startswith("Location: "):
            loc, nbase, sem = (int(v.split(": ")[1], 16) for v in line.split(", "))
            cur["off"] = file_offset(binary, loc + base - nbase)
            cur["sem"] = file_offset(binary, sem) if sem else 0
        elif line.startswith("Arguments:"):    # "Arguments:" alone: none
            got.append((cur["prov"], cur["name"], cur["off"], cur["sem"],
                        line.split(":", 1)[1].split()))
    return got


def fetch(spec):
    """'-8@%rax' -> '%ax:s64'"""
    size, reg = spec.split("@")
    m = REG.match(reg)
    check(m, f"spec {spec} is not a register: the fixture expects registers")
    name = m.group(1) or (m.group(2) and m.group(2) + "x") or m.group(3)
    return f"%{name}:{'s' if size.startswith('-') else 'u'}{abs(int(size)) * 8}"


def uprobe(binary, event, note, names):
    prov, name, off, sem, specs = note
    args = " ".join(f"{n}={fetch(s)}" for n, s in zip(names, specs))
    return f"p:{GROUP}/{event} {binary}:{off:#x}" + (f"({sem:#x})" if sem else "") + \
        (f" {args}" if args else "")


def sites(binary, name):
    return [n for n in notes(binary) if n[1] == name]


def test_compile_gives_a_uprobe_at_each_sdt_site():
    fx = fixture()
    hit = sites(fx, "hit")
    expect_eq(len(hit), 2, "fx:hit's notes")
    # the premise: the two places read the arguments from other registers
    check(hit[0][4] != hit[1][4], f"both sites read {hit[0][4]}")
    r = fe.run("compile", "-g", GROUP, "-x", fx, "fx:hit(a, b)")
    expect_eq((r.returncode, r.stderr), (0, ""))
    expect_eq(r.stdout.splitlines(), [uprobe(fx, "hit", hit[0], "ab"),
                                      uprobe(fx, "hit_1", hit[1], "ab")])
    # -n names the first site, the others after it
    r = fe.run("compile", "-g", GROUP, "-n", "zz", "-x", fx, "fx:hit(a, b)")
    expect_eq([l.split()[0] for l in r.stdout.splitlines()], [f"p:{GROUP}/zz", f"p:{GROUP}/zz_1"])
    # each site its own '...': one argument at the first, two at the second
    mixed = sites(fx, "mixed")
    expect_eq([len(n[4]) for n in mixed], [1, 2])
    r = fe.run("compile", "-g", GROUP, "-x", fx, "fx:mixed(...)", "fx:once(x)")
    expect_eq((r.returncode, r.stderr), (0, ""))
    expect_eq(r.stdout.splitlines(), [uprobe(fx, "mixed", mixed[0], ["arg1"]),
                                      uprobe(fx, "mixed_1", mixed[1], ["arg1", "arg2"]),
                                      uprobe(fx, "once", sites(fx, "once")[0], "x")])
    # a slot one site does not have: the error names that site
    r = fe.run("compile", "-g", GROUP, "-x", fx, "fx:mixed(a, b)")
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq(r.stderr.splitlines()[0],
              f"fevent: error: column 13: fx:mixed has 1 argument (at its site 1 of 2, "
              f"{mixed[0][2]:#x})")


def test_compile_glob_gives_each_sdt_site_once():
    fx = fixture()
    every = notes(fx)
    count = {}
    want = []
    for n in every:
        k = count.get(n[1], 0)
        count[n[1]] = k + 1
        want.append((n[1] + (f"_{k}" if k else ""), n))
    # in note order of each name's first note, its sites together
    order = list(dict.fromkeys(n[1] for n in every))
    want = [uprobe(fx, ev, n, [f"arg{i + 1}" for i in range(len(n[4]))])
            for name in order for ev, n in want if n[1] == name]
    expect_eq(len(want), 5)
    for extra in ([], ["-v"]):       # streamed, and each an item
        r = fe.run("compile", "-g", GROUP, *extra, "-x", fx, "fx:*(...)")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(r.stdout.splitlines(), want)
    # a name whole: fx:mixed(a, b) compiles at one site, not the other
    r = fe.run("compile", "-g", GROUP, "-x", fx, "fx:*(a, b)")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq([l.split()[0] for l in r.stdout.splitlines()], [f"p:{GROUP}/hit", f"p:{GROUP}/hit_1"])
    expect_eq(r.stderr, "fevent: warning: 2 of the 3 SDT probes 'fx:*' names are skipped: the "
              "prototype does not compile for them (-v says why)\n")
    # fx:hit written before the glob is one name the glob leaves to it
    r = fe.run("compile", "-g", GROUP, "-x", fx, "fx:hit(...)", "fx:*(...)")
    expect_eq((r.returncode, r.stdout.splitlines()), (0, want), r.stderr)
    expect_eq(r.stderr, "fevent: warning: 1 of the 3 SDT probes 'fx:*' names is left to the "
              "earlier prototype that names it too\n")


def test_funcs_and_proto_say_an_sdt_probes_sites():
    fx = fixture()
    hit, once = sites(fx, "hit"), sites(fx, "once")
    r = fe.run("funcs", "-x", fx, "fx:*")
    expect_eq((r.returncode, r.stderr), (0, ""))
    expect_eq(r.stdout.splitlines(), [f"fx:hit  {' '.join(hit[0][4])}  (semaphore)  (2 sites)",
                                      f"fx:once  {' '.join(once[0][4])}  (semaphore)",
                                      f"fx:mixed  {sites(fx, 'mixed')[0][4][0]}  (semaphore)  "
                                      "(2 sites)"])
    r = fe.run("proto", "-x", fx, "fx:hit", "fx:once", "fx:mixed")
    expect_eq((r.returncode, r.stderr), (0, ""))
    mixed = sites(fx, "mixed")
    expect_eq(r.stdout.splitlines(), [
        "fx:hit(s64 arg1, s32 arg2)",
        "# 2 sites, each an event at its own address, its arguments where its note says:",
        f"#   hit at {hit[0][2]:#x}: {' '.join(hit[0][4])}  (guarded by a semaphore)",
        f"#   hit_1 at {hit[1][2]:#x}: {' '.join(hit[1][4])}  (guarded by a semaphore)",
        "fx:once(s64 arg1)",
        f"#   {once[0][4][0]}  (guarded by a semaphore)",
        "fx:mixed(s64 arg1, ...)",
        "# 2 sites, each an event at its own address, its arguments where its note says:",
        f"#   mixed at {mixed[0][2]:#x}: {' '.join(mixed[0][4])}  (guarded by a semaphore)",
        f"#   mixed_1 at {mixed[1][2]:#x}: {' '.join(mixed[1][4])}  (guarded by a semaphore)"])
    # the prototype proto prints compiles at every site
    r = fe.run("compile", "-g", GROUP, "-x", fx, "fx:mixed(s64 arg1, ...)")
    expect_eq((r.returncode, len(r.stdout.splitlines())), (0, 2), r.stderr)


def test_compile_sdt_sites_are_perf_probes():
    """perf probe gives one probe per note, at the same address with the
    same arguments."""
    fx = fixture()
    if not shutil.which("perf"):
        raise fe.Skip("no perf")
    # a build of the same source elsewhere has the same build-id: its
    # entry, if any, names a file gone, and perf finds no probe there
    subprocess.run(["perf", "buildid-cache", "--remove", fx], capture_output=True)
    subprocess.run(["perf", "buildid-cache", "--add", fx], capture_output=True)
    try:
        p = subprocess.run(["perf", "probe", "-x", fx, "-D", "sdt_fx:hit"],
                           capture_output=True, text=True)
    finally:
        subprocess.run(["perf", "buildid-cache", "--remove", fx], capture_output=True)
    perf = [l.split()[1:] for l in p.stdout.splitlines() if l.startswith("p:")]
    if not perf:
        raise fe.Skip(f"perf probe gives no definition: {p.stderr.strip()}")
    r = fe.run("compile", "-g", GROUP, "-x", fx, "fx:hit(...)")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq([l.split()[1:] for l in r.stdout.splitlines()], perf)


def events(r):
    return [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]


def test_record_stats_list_clear_take_an_sdt_probes_sites_as_one():
    fx = fixture()
    from test_events_host import need_uprobes
    need_uprobes()
    fe.run("clear", "-q", "-g", GROUP, "--force")
    try:
        # all or nothing: fx:mixed(a, b) does not compile at its first site
        r = fe.run("add", "-g", GROUP, "-x", fx, "fx:hit(a, b)", "fx:mixed(a, b)")
        expect_eq((r.returncode, r.stdout), (2, ""), r.stderr)
        expect_eq(fe.run("list", "-g", GROUP, "--json").stdout, "")
        r = fe.run("add", "-g", GROUP, "-x", fx, "fx:hit(long a, int b)", "fx:once(...)")
        expect_eq(r.returncode, 0, r.stderr)
        # first(n) hits (3n, n + 1), second(n, 2n) (2n - 7, 5n): the
        # semaphore each site sets makes them fire at all
        r = fe.run("record", "-g", GROUP, "--json", "--", fx, "-3")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(sorted((e["event"], e["args"]) for e in events(r)),
                  [("hit", {"a": -9, "b": -2}), ("hit_1", {"a": -13, "b": -15}),
                   ("once", {"arg1": -3})])
        r = fe.run("record", "-g", GROUP, "--json", "-e", "hit", "--", fx, "2")
        expect_eq(sorted((e["event"], e["args"]) for e in events(r)),
                  [("hit", {"a": 6, "b": 3}), ("hit_1", {"a": -3, "b": 10})])
        r = fe.run("stats", "-g", GROUP, "--json", "-e", "hit", "--", fx, "2")
        counts = {o["event"]: o["count"] for o in events(r) if o.get("event")}
        expect_eq(counts, {f"{GROUP}/hit": 1, f"{GROUP}/hit_1": 1}, r.stdout + r.stderr)
        # list: each site's event shows the probe it is, and which site
        text = fe.run("list", "-g", GROUP).stdout.splitlines()
        for k, ev in enumerate(("hit", "hit_1")):
            i = [j for j, l in enumerate(text) if l.startswith(f"{GROUP}/{ev} ")]
            expect_eq(len(i), 1, text)
            expect_eq(text[i[0] + 1], f"    fx:hit(s64 a, s32 b)  # fx:hit, site {k + 1} of 2")
        r = fe.run("clear", "-g", GROUP, "hit")
        expect_eq(r.returncode, 0, r.stderr)
        r = fe.run("list", "-g", GROUP, "--json")
        expect_eq([json.loads(l)["event"] for l in r.stdout.splitlines()], ["once"])
        r = fe.run("clear", "-g", GROUP)
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(fe.run("list", "-g", GROUP, "--json").stdout, "")
        from test_events_host import dynamic_events
        check(GROUP not in dynamic_events(), dynamic_events())
    finally:
        fe.run("clear", "-q", "-g", GROUP, "--force")


# tests/fixtures/fx_sdt_names.c: pa:step at two places beside a probe
# pa:step_1, pb:step, a 62-character name at two places, app:tick(int),
# app:bare (two places) and app:none of no arguments
LONG = "a23456789_123456789_123456789_123456789_123456789_123456789_12"


def names_fixture():
    fixture()
    return fe.fixture_binary("fx_sdt_names.c", "-O2")


def test_an_sdt_sites_name_is_no_other_probes():
    """pa:step's second site is step_2: step_1 is the probe pa:step_1's."""
    fx = names_fixture()
    step, step_1 = sites(fx, "step")[:2], sites(fx, "step_1")
    expect_eq([n[0] for n in sites(fx, "step")], ["pa", "pa", "pb"])
    r = fe.run("compile", "-g", GROUP, "-x", fx, "pa:*(...)")
    expect_eq((r.returncode, r.stderr), (0, ""))
    expect_eq(r.stdout.splitlines(), [uprobe(fx, "step", step[0], ["arg1"]),
                                      uprobe(fx, "step_2", step[1], ["arg1"]),
                                      uprobe(fx, "step_1", step_1[0], ["arg1"])])
    r = fe.run("proto", "-x", fx, "pa:step")
    expect_eq(r.stdout.splitlines()[2:],
              [f"#   step at {step[0][2]:#x}: {step[0][4][0]}",
               f"#   step_2 at {step[1][2]:#x}: {step[1][4][0]}"])


def test_compile_refuses_an_sdt_sites_name_too_long():
    fx = names_fixture()
    second = sites(fx, LONG)[1]
    r = fe.run("compile", "-g", GROUP, "-x", fx, f"pc:{LONG}(...)")
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq(r.stderr.splitlines()[0],
              f"fevent: error: column 4: the event name '{LONG}_1' has 64 characters; the "
              f"kernel allows at most 63 (name the event with -n) (at its site 2 of 2, "
              f"{second[2]:#x})")
    r = fe.run("compile", "-g", GROUP, "-n", "zz", "-x", fx, f"pc:{LONG}(...)")
    expect_eq((r.returncode, len(r.stdout.splitlines())), (0, 2), r.stderr)


def test_a_typed_sdt_argument_the_note_says_otherwise_of():
    fx = names_fixture()
    spec = sites(fx, "tick")[0][4][0]
    expect_eq(spec.split("@")[0], "-4")
    said = (f"column 10: 'long v' reads argument 1 of app:tick as 8 bytes, but its note "
            f"declares it 's32' ({spec}): the bytes past it are not its value")
    r = fe.run("compile", "-g", GROUP, "-x", fx, "app:tick(long v)")
    expect_eq((r.returncode, r.stderr),
              (0, f"fevent: warning: {said} (--strict makes this an error)\n"))
    r = fe.run("compile", "--strict", "-g", GROUP, "-x", fx, "app:tick(long v)")
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq(r.stderr.splitlines()[0], "fevent: error: " + said)
    # its own size, of either sign, is no drift
    r = fe.run("compile", "--strict", "-g", GROUP, "-x", fx, "app:tick(unsigned int v)")
    expect_eq((r.returncode, r.stderr), (0, ""))


def test_add_refuses_two_definitions_of_one_event():
    """pa:step and pb:step are both 'step': the kernel would make them one
    event of two probes (record cannot tell them apart); add refuses
    before it, and leaves nothing behind."""
    fx = names_fixture()
    from test_events_host import need_uprobes, dynamic_events
    need_uprobes()
    fe.run("clear", "-q", "-g", GROUP, "--force")
    try:
        r = fe.run("add", "-g", GROUP, "-x", fx, "pa:step(...)", "pb:step(...)")
        expect_eq((r.returncode, r.stdout), (2, ""))
        expect_eq(r.stderr.splitlines()[:2], [
            "fevent: error: event 'step' is also defined by an earlier prototype, "
            "'pa:step(...)': name one with -n, or add them with -g in two groups",
            "    pb:step(...)"])
        check(f"{GROUP}/" not in dynamic_events(), dynamic_events())
        expect_eq(fe.run("list", "-g", GROUP, "--json").stdout, "")
        state = f"/run/fevent/{GROUP}"
        left = os.listdir(state) if os.path.isdir(state) else []
        expect_eq(left, [])
        # the glob's sites and the probe pa:step_1 are three events
        r = fe.run("add", "-g", GROUP, "-x", fx, "pa:s*(...)")
        expect_eq(r.returncode, 0, r.stderr)
        r = fe.run("list", "-g", GROUP, "--json")
        expect_eq(sorted(json.loads(l)["event"] for l in r.stdout.splitlines()),
                  ["step", "step_1", "step_2"])
        expect_eq(sorted(f for f in os.listdir(state) if f.endswith(".tmp")), [])
    finally:
        fe.run("clear", "-q", "-g", GROUP, "--force")


def test_compile_refuses_two_definitions_of_one_event_as_add_does():
    """compile answers as add does (DESIGN.md section 1): pa:step and
    pb:step, one event name, are add's error and exit status 2, and no
    definition is printed."""
    fx = names_fixture()
    r = fe.run("compile", "-g", GROUP, "-x", fx, "pa:step(...)", "pb:step(...)")
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq(r.stderr.splitlines(), [
        "fevent: error: event 'step' is also defined by an earlier prototype, "
        "'pa:step(...)': name one with -n, or add them with -g in two groups",
        "    pb:step(...)"])


def test_funcs_and_proto_of_an_sdt_probe_of_no_arguments():
    """No spec: no gap for it, and no space after the site's address."""
    fx = names_fixture()
    bare = sites(fx, "bare")
    r = fe.run("funcs", "-x", fx, "app:[bn]*")
    expect_eq((r.returncode, r.stdout), (0, "app:bare  (2 sites)\napp:none\n"), r.stderr)
    r = fe.run("proto", "-x", fx, "app:bare", "app:none")
    expect_eq((r.returncode, r.stdout.splitlines()), (0, [
        "app:bare()",
        "# 2 sites, each an event at its own address, its arguments where its note says:",
        f"#   bare at {bare[0][2]:#x}:",
        f"#   bare_1 at {bare[1][2]:#x}:",
        "app:none()"]), r.stderr)
