"""An SDT probe named NAME__return (libjvm's hotspot_jni has dozens) is a
plain uprobe at its note: an entry with its arguments, not the return of
NAME.  record told returns by the name alone and printed such an event as
`work(?)`, its argument gone (or, labelled ret, as a return value at one
site and an argument at the other).  A return event is one whose format
records the return address (__probe_ret_ip: r:, %return, fexit).
tests/fixtures/fx_sdt_return.c: fx:work__return at two sites, fx:work at
the entry."""
import json
import shutil
import subprocess

import fe
from fe import check, expect_eq

GROUP = "fevent_test_sdtret" + fe.TAG


def fixture():
    if not shutil.which("readelf"):
        raise fe.Skip("no readelf")
    try:
        return fe.fixture_binary("fx_sdt_return.c", "-O2")
    except subprocess.CalledProcessError:
        raise fe.Skip("no <sys/sdt.h> (package systemtap-sdt-dev)")


def added():
    """The fixture, with fx:work(x) and fx:work__return(long r) added in
    GROUP (nothing else in it)."""
    fx = fixture()
    from test_events_host import need_uprobes
    need_uprobes()
    fe.run("clear", "-q", "-g", GROUP, "--force")
    r = fe.run("add", "-q", "-g", GROUP, "-x", fx, "fx:work(x)", "fx:work__return(long r)")
    if r.returncode:
        fe.run("clear", "-q", "-g", GROUP, "--force")
    expect_eq(r.returncode, 0, r.stderr)
    return fx


def events(r):
    return [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]


def test_list_renders_sdt_probes_without_a_semaphore_and_says_the_site():
    """list shows an SDT probe without a semaphore as PROVIDER:NAME (it
    showed the function and offset: 'work+12(...)'), and which site of
    the probe each event is, as it says a line's address."""
    fx = added()
    try:
        r = fe.run("list", "-g", GROUP, "--json")
        got = [json.loads(l) for l in r.stdout.splitlines()]
        expect_eq([(o["event"], o["prototype"], o.get("place")) for o in got],
                  [("work", "fx:work(s64 x)", None),
                   ("work__return", "fx:work__return(s64 r)", "fx:work__return, site 1 of 2"),
                   ("work__return_1", "fx:work__return(s64 r)",
                    "fx:work__return, site 2 of 2")])
        text = fe.run("list", "-g", GROUP).stdout.splitlines()
        expect_eq(text[text.index(next(l for l in text if l.startswith(f"{GROUP}/work__return_1 "))) + 1],
                  "    fx:work__return(s64 r)  # fx:work__return, site 2 of 2")
    finally:
        fe.run("clear", "-q", "-g", GROUP, "--force")


def test_an_sdt_probe_named_return_shows_its_arguments():
    fx = added()
    try:
        # work(3) returns 21 at the first site, odd(3) 22 at the second
        r = fe.run("record", "-g", GROUP, "--json", "--", fx, "3")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(sorted((e["event"], e["args"], "ret" in e) for e in events(r)),
                  [("work", {"x": 3}, False), ("work__return", {"r": 21}, False),
                   ("work__return_1", {"r": 22}, False)])
        r = fe.run("record", "-g", GROUP, "--", fx, "3")
        expect_eq(r.returncode, 0, r.stderr)
        lines = sorted(l.split(": ", 1)[1] for l in r.stdout.splitlines() if ": " in l)
        expect_eq(lines, ["work(x=3)", "work__return(r=21)", "work__return_1(r=22)"])
        # labelled ret: still an argument at each site
        fe.run("clear", "-q", "-g", GROUP)
        r = fe.run("add", "-q", "-g", GROUP, "-x", fx, "fx:work__return(long ret)")
        expect_eq(r.returncode, 0, r.stderr)
        r = fe.run("record", "-g", GROUP, "--json", "--", fx, "4")
        expect_eq(sorted((e["event"], e["args"], "ret" in e) for e in events(r)),
                  [("work__return", {"ret": 28}, False),
                   ("work__return_1", {"ret": 29}, False)])
    finally:
        fe.run("clear", "-q", "-g", GROUP, "--force")
    from test_events_host import dynamic_events
    check(GROUP not in dynamic_events(), dynamic_events())
