"""add, list and clear with uprobes on this machine's kernel (root and
tracefs needed; this kernel has uprobe events but no kprobe events)."""
import json
import os
import subprocess

import fe
from fe import check, expect_eq

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
TRACEFS = "/sys/kernel/tracing"
GROUP = "fevent_test" + fe.TAG     # the tests' own group: never the user's 'functions'
_prog = {}


def prog():
    if "path" not in _prog:
        tmp = fe.tmpdir("fevent-prog-")
        os.chmod(tmp, 0o755)
        path = os.path.join(tmp, "fx_prog")
        subprocess.run(["gcc", "-g", "-O2", os.path.join(FIXTURES, "fx_prog.c"), "-o", path],
                       check=True)
        _prog["path"] = path
    return _prog["path"]


def need_uprobes():
    if os.geteuid() != 0:
        raise fe.Skip("needs root")
    if not os.path.isdir(os.path.join(TRACEFS, "events")):
        raise fe.Skip(f"no tracefs at {TRACEFS}")
    if not os.path.exists(os.path.join(TRACEFS, "uprobe_events")):
        raise fe.Skip("no uprobe_events")
    # with tracefs there, a list that fails is fevent's failure (a
    # sanitizer's report, say), never a reason to skip
    r = fe.run("list", "-g", GROUP)
    expect_eq((r.returncode, r.stderr), (0, ""), "list of an empty group")


def dynamic_events():
    # any byte: another tool's event may name a file that is not UTF-8
    with open(os.path.join(TRACEFS, "dynamic_events"), errors="replace") as f:
        return f.read()


def our_events():
    """This test's group's lines: other fevents may add theirs meanwhile."""
    return [l for l in dynamic_events().splitlines()
            if l.split()[0].split(":", 1)[-1].startswith(GROUP + "/")]


def write(path, text):
    # no Python file object: its append mode seeks, which tracefs refuses
    fd = os.open(os.path.join(TRACEFS, path), os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, (text + "\n").encode())
    finally:
        os.close(fd)


def clean():
    fe.run("clear", "-g", GROUP, "--force")
    check(f":{GROUP}/" not in dynamic_events(), "clean start")


def listed():
    r = fe.run("list", "-g", GROUP, "--json")
    expect_eq(r.returncode, 0, r.stderr)
    return [json.loads(l) for l in r.stdout.splitlines()]


def test_add_list_clear_round_trip_with_hits():
    need_uprobes()
    clean()
    try:
        r = fe.run("add", "-g", GROUP, "-x", prog(), "long traced(n, string s, r->id, string r->name)")
        expect_eq(r.returncode, 0, r.stderr)
        created = r.stdout.splitlines()
        expect_eq(len(created), 2)
        # what compile prints is what the kernel has, modulo its 0x padding
        events = listed()
        expect_eq([(e["event"], e["kind"]) for e in events],
                  [("traced", "uprobe"), ("traced__return", "uretprobe")])
        expect_eq(events[0]["args"], created[0].split(" ", 2)[2])
        # the entry's prototype adds both events; the return names it
        expect_eq(events[0]["prototype"], "s64 traced(s32 n, string s, s32 id+0 | string name+8)")
        expect_eq((events[1]["prototype"], events[1]["return_of"]), ("", "traced"))
        expect_eq([e["hits"] for e in events], [0, 0])
        write(f"events/{GROUP}/enable", "1")
        subprocess.run([prog(), "4"], check=True, capture_output=True)
        write(f"events/{GROUP}/enable", "0")
        events = listed()
        expect_eq([e["hits"] for e in events], [4, 4])
        with open(os.path.join(TRACEFS, "trace")) as f:
            trace = f.read()
        check('n=3 s="abc" id=7 name="hello"' in trace, trace[-600:])
        r = fe.run("clear", "-g", GROUP)
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(listed(), [])
        check(f":{GROUP}/" not in dynamic_events(), dynamic_events())
    finally:
        write("trace", "")
        clean()


def test_list_text_form():
    need_uprobes()
    clean()
    try:
        fe.run("add", "-g", GROUP, "-x", prog(), "traced(n)")
        r = fe.run("list", "-g", GROUP)
        expect_eq(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        check(lines[0].startswith(f"{GROUP}/traced  uprobe  {prog()}:0x"), lines[0])
        check(lines[0].endswith("hits 0  enabled: -"), lines[0])
        expect_eq(lines[1:], ["    traced(s32 n)", "    n=%di:s32"])
    finally:
        clean()


def test_existing_event_needs_force_and_nothing_is_half_added():
    need_uprobes()
    clean()
    try:
        expect_eq(fe.run("add", "-g", GROUP, "-x", prog(), "traced(n)").returncode, 0)
        before = our_events()
        # main is new, traced exists: nothing of this call may stay
        r = fe.run("add", "-g", GROUP, "-x", prog(), "main(argc)", "traced(x64 n)")
        expect_eq(r.returncode, 1, r.stderr)
        check("exists already; --force replaces it" in r.stderr, r.stderr)
        check("nothing was added" in r.stderr, r.stderr)
        expect_eq(our_events(), before)
        r = fe.run("add", "--force", "-g", GROUP, "-x", prog(), "traced(x64 n)")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq([e["args"] for e in listed()], ["n=%di:x64"])
    finally:
        clean()


def test_force_replaces_the_return_event_of_the_earlier_prototype_too():
    need_uprobes()
    clean()
    try:
        r = fe.run("add", "-g", GROUP, "-x", prog(), "long traced(int n)")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(sorted(e["event"] for e in listed()), ["traced", "traced__return"])
        r = fe.run("add", "--force", "-g", GROUP, "-x", prog(), "traced(int n)")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq([e["event"] for e in listed()], ["traced"])
    finally:
        clean()


def test_clear_never_touches_another_group():
    need_uprobes()
    clean()
    off = fe.run("compile", "-x", prog(), "traced(n)").stdout.split()[1].split(":")[1]
    try:
        write("uprobe_events", f"p:fevent_other/keepme {prog()}:{off} a=%di:s32")
        fe.run("add", "-g", GROUP, "-x", prog(), "traced(n)")
        r = fe.run("clear", "-g", GROUP)
        expect_eq(r.returncode, 0, r.stderr)
        events = dynamic_events()
        check("fevent_other/keepme" in events, events)
        check(f":{GROUP}/" not in events, events)
    finally:
        if "fevent_other/keepme" in dynamic_events():
            write("uprobe_events", "-:fevent_other/keepme")
        clean()


def test_clear_named_event_takes_its_return_event():
    need_uprobes()
    clean()
    try:
        fe.run("add", "-g", GROUP, "-x", prog(), "long traced(n)", "main(argc)")
        r = fe.run("clear", "-g", GROUP, "traced", "nosuch")
        expect_eq(r.returncode, 1, "a name that removed nothing is a failure")
        expect_eq(r.stderr, f"fevent: error: no event 'nosuch' in group '{GROUP}'\n")
        expect_eq([e["event"] for e in listed()], ["main"])
    finally:
        clean()


def test_enabled_event_stays_unless_forced():
    need_uprobes()
    clean()
    inst = os.path.join(TRACEFS, "instances", f"{GROUP}_other")
    try:
        fe.run("add", "-g", GROUP, "-x", prog(), "traced(n)")
        os.mkdir(inst)
        write(f"instances/{GROUP}_other/events/{GROUP}/traced/enable", "1")
        expect_eq(listed()[0]["enabled"], [f"{GROUP}_other"])
        r = fe.run("clear", "-g", GROUP)
        expect_eq(r.returncode, 1, "an event left in place is a failure")
        check(f"fevent: error: {GROUP}/traced is enabled in instance {GROUP}_other; "
              "left in place" in r.stderr, r.stderr)
        expect_eq([e["event"] for e in listed()], ["traced"])
        r = fe.run("clear", "-g", GROUP, "--force")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(listed(), [])
    finally:
        if os.path.isdir(inst):
            os.rmdir(inst)
        clean()


def test_stale_instance_of_a_dead_record_is_removed():
    need_uprobes()
    # a pid that is not running: a record killed with SIGKILL leaves this
    p = subprocess.Popen(["true"])
    p.wait()
    inst = os.path.join(TRACEFS, "instances", f"fevent-{p.pid}")
    os.mkdir(inst)
    try:
        r = fe.run("clear", "-g", GROUP)
        expect_eq(r.returncode, 0, r.stderr)
        check(not os.path.exists(inst), "stale instance removed")
        check("removed 1 stale fevent-* instance" in r.stderr, r.stderr)
    finally:
        if os.path.isdir(inst):
            os.rmdir(inst)


def test_kernel_probes_on_a_kernel_without_them():
    need_uprobes()
    if os.path.exists(os.path.join(TRACEFS, "kprobe_events")):
        raise fe.Skip("this kernel has kprobe events")
    r = fe.run("add", "-g", GROUP, "SyS_openat(int dfd, string path, x32 flags, x16 mode)")
    expect_eq(r.returncode, 1)
    expect_eq(r.stdout, "")
    check("this kernel has no kprobe events" in r.stderr and "-x BIN" in r.stderr, r.stderr)
    expect_eq(our_events(), [])


def test_not_root():
    for cmd in (["add", "-x", prog(), "traced(n)"], ["list"], ["clear"]):
        r = fe.run_as_nobody(*cmd)
        expect_eq(r.returncode, 1, f"{cmd}: {r.stderr}")
        check("needs root" in r.stderr, r.stderr)
        expect_eq(r.stdout, "")
