"""list and clear read the kernel's definitions of every kind from one
read of dynamic_events (probe_list.c): kprobes with an offset, return
probes with and without a maxactive, uprobes with an SDT semaphore, their
returns, tracepoint probes, fprobes and fexits; an eprobe or a synthetic
event of the group is none of fevent's and is not listed, and makes clear
remove the events one by one instead of the whole group with "-:GROUP/",
which would take it too.  This kernel has no kprobes, eprobes or fprobes:
the definitions are a file of them bound over dynamic_events in a mount
namespace of the test's own, and strace shows what clear writes to it."""
import json
import os
import re
import shutil
import subprocess

import fe
from fe import check, expect_eq
from test_events_host import TRACEFS, need_uprobes

GROUP = "fevent_dyn" + fe.TAG

LINES = [
    f"p:{GROUP}/kp do_sys_openat2+4 dfd=%di:s32",
    f"r10:{GROUP}/kr do_sys_openat2 ret=$retval:s64",
    f"p:{GROUP}/up /usr/bin/true:0x0000000000001234(0x28) a=%ax:u32",
    f"r:{GROUP}/ur /usr/bin/true:0x0000000000001234",
    f"t:{GROUP}/tp sched_switch prev=+0(%di):u32",
    f"f:{GROUP}/fx vfs_read%return ret=$retval",
    f"f:{GROUP}/fn vfs_read count=$arg3",
    f"p:{GROUP}x/other do_sys_openat2",
]
EPROBE = f"e:{GROUP}/ep syscalls.sys_enter_openat"
SYNTH = f"s:{GROUP}/lat u64 lat"


def in_namespace(lines, *args):
    """fevent ARGS with dynamic_events the given lines; (result, the
    commands fevent wrote to it, which strace shows: a write to a file is
    no command)."""
    tmp = fe.tmpdir("fevent-dyn-")
    path = os.path.join(tmp, "dynamic_events")
    with open(path, "w") as f:
        f.write("".join(l + "\n" for l in lines))
    trace = os.path.join(tmp, "strace")
    r = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                        f'mount --bind "$1" {TRACEFS}/dynamic_events && shift && exec "$@"',
                        "sh", path, "strace", "-f", "-y", "-qq", "-e", "trace=write",
                        "-s", "4096", "-o", trace, fe.binary(), *args],
                       capture_output=True, text=True, timeout=300,
                       # LeakSanitizer cannot run under a tracer
                       env=dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") +
                                ":detect_leaks=0"))
    with open(trace) as f:
        written = [m.group(1) for m in re.finditer(
            r'write\(\d+<[^>]*/dynamic_events>, "((?:[^"\\]|\\.)*)"', f.read())]
    return r, [w.encode().decode("unicode_escape").rstrip("\n") for w in written]


def need_namespaces():
    need_uprobes()
    r = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    if r.returncode:
        raise fe.Skip("no mount namespaces here")
    if not shutil.which("strace"):
        raise fe.Skip("no strace")


def test_list_reads_each_kind_once_and_no_other_group():
    need_namespaces()
    r, _ = in_namespace(LINES + [EPROBE, SYNTH], "list", "-g", GROUP, "--json")
    expect_eq(r.returncode, 0, r.stderr)
    got = {o["event"]: (o["kind"], o["target"], o["args"], o["definition"])
           for o in map(json.loads, r.stdout.splitlines())}
    expect_eq(got, {
        "kp": ("kprobe", "do_sys_openat2+4", "dfd=%di:s32", LINES[0]),
        "kr": ("kretprobe", "do_sys_openat2", "ret=$retval:s64", LINES[1]),
        "up": ("uprobe", "/usr/bin/true:0x0000000000001234(0x28)", "a=%ax:u32", LINES[2]),
        "ur": ("uretprobe", "/usr/bin/true:0x0000000000001234", "", LINES[3]),
        "tp": ("tprobe", "sched_switch", "prev=+0(%di):u32", LINES[4]),
        "fx": ("fexit", "vfs_read", "ret=$retval", LINES[5]),
        "fn": ("fprobe", "vfs_read", "count=$arg3", LINES[6]),
    })


def test_clear_takes_the_group_in_one_write_only_when_it_is_all_fevents():
    need_namespaces()
    readme = open(os.path.join(TRACEFS, "README")).read()
    whole = f"-:{GROUP}/"
    r, written = in_namespace(LINES, "clear", "-g", GROUP)
    expect_eq(r.returncode, 0, r.stderr)
    if "-:[<group>/][<event>]" in readme:
        expect_eq(written, [whole], "clear of a group of fevent's kinds alone")
    for extra in (EPROBE, SYNTH):
        r, written = in_namespace(LINES + [extra], "clear", "-g", GROUP)
        expect_eq(r.returncode, 0, r.stderr)
        check(whole not in written, f"{extra.split()[0]}: {written}")
        expect_eq(sorted(written), sorted(f"-:{GROUP}/{e}" for e in
                                          ("kp", "kr", "up", "ur", "tp", "fx", "fn")),
                  f"each of fevent's kinds removed beside {extra.split()[0]}")
