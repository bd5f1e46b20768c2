"""Issue 20 items 6-8 on the kernels they are about, one boot each.

5.10 (bullseye): a return probe gets 'rN:' return instances where the
kernel's default is too few (5.10 gives one a CPU: 'r1:' in the VM), so
calls asleep at once in several processes all come back; and a module's
missing BTF says why (the kernel makes none) and what works instead.
7.2 (sid): 'string dentry->d_iname' (gone in 7.2) suggests the member
that holds those characters now, d_shortname, not d_name.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import fe
from fe import check, expect_eq

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "vm"))
import vm  # noqa: E402

READERS = "/tests/fx_readers"
NREADERS = 8

OLD = rf"""T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
echo @@readme
grep -o 'r\[maxactive\]' $T/README
echo @@add
fevent add 'long ksys_read(int fd, x64 buf, u64 count)' > /dev/null; echo rc=$?
cat $T/kprobe_events
echo @@list
fevent list
echo @@record
{{ fevent record --json -e ksys_read -- {READERS} {NREADERS} 2>&1; echo rc=$?; }} | cat
echo @@profile
grep -w ksys_read__return $T/kprobe_profile
fevent clear > /dev/null
echo @@modbtf
depmod
modprobe binfmt_misc; echo rc=$?
ls /sys/kernel/btf
fevent proto binfmt_misc:load_misc_binary 2>&1; echo rc=$?
fevent compile 'binfmt_misc:load_misc_binary(string bprm->filename)' 2>&1 | head -1; echo rc=$?
fevent compile 'binfmt_misc:load_misc_binary(x64 bprm)' 2>&1; echo rc=$?
"""

NEW = r"""fevent compile 'dput(string dentry->d_iname)' 2>&1 | head -1
fevent compile 'dput(dentry->d_iname)' 2>&1 | head -1
fevent compile 'dput(string dentry->d_shortname.string)' 2>&1; echo rc=$?
"""


def readers():
    out = os.path.join(tempfile.gettempdir(), "fevent-fx_readers")
    src = os.path.join(HERE, "fixtures", "fx_readers.c")
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
        subprocess.run(["gcc", "-O2", "-static", "-o", out, src], check=True)
    return out


def sections(out):
    parts = {}
    for chunk in ("\n" + out).split("\n@@")[1:]:
        name, _, body = chunk.partition("\n")
        parts[name] = body
    return parts


def old_kernel():
    files = dict(vm.modules("bullseye"))
    files[READERS] = readers()
    rc, out, err = vm.run_once("issue20", [("old", OLD)], files=files, suite="bullseye")["old"]
    expect_eq(rc, 0, err)
    return sections(out), err


def new_kernel():
    rc, out, err = vm.run_once("issue20", [("new", NEW)], suite="sid")["new"]
    expect_eq(rc, 0, err)
    return out, err


def test_old_kernel_return_probe_gets_enough_instances():
    """item 6: the kernel offers r[maxactive]; fevent asks for 64 (one CPU)
    where 5.10 gives 1, and the kernel lists what was asked."""
    parts, err = old_kernel()
    expect_eq(parts["readme"], "r[maxactive]", "5.10's README offers it")
    lines = parts["add"].splitlines()
    expect_eq(lines[0], "rc=0", err)
    expect_eq(sorted(lines[1:]), [
        "p:functions/ksys_read ksys_read __caller=$stack0:symbol fd=%di:s32 buf=%si:x64 "
        "count=%dx:u64",
        "r64:functions/ksys_read__return ksys_read ret=$retval:s64",
    ])
    listed = parts["list"].splitlines()
    ret = [l for l in listed if l.startswith("functions/ksys_read__return ")]
    check(len(ret) == 1 and re.fullmatch(
        r"functions/ksys_read__return  kretprobe  ksys_read  hits \d+  misses \d+  "
        r"maxactive 64  enabled: -", ret[0]), parts["list"])
    # list names the entry whose prototype adds this return event
    expect_eq(listed[listed.index(ret[0]) + 1], "    (the return of ksys_read, which its prototype adds)")


def test_old_kernel_sleeping_calls_all_return():
    """item 6: 8 readers asleep in ksys_read at once (r1 lost 7 of them):
    every entry has its return, and the kernel missed none."""
    parts, err = old_kernel()
    rec = parts["record"]
    lines = rec.splitlines()
    expect_eq((lines[0], lines[-2:]), (f"{NREADERS} readers asleep",
                                       [lines[-2], "rc=0"]), rec)
    check(re.fullmatch(r"fevent: \d+ events; none lost", lines[-2]), rec)
    objs = [json.loads(l) for l in lines if l.startswith("{")]
    # each reader's one read of 1 byte (the parent's of /proc ask 1024),
    # back with its byte, each in its own process
    mine = [o for o in objs if o["comm"] == "fx_readers" and o["args"]["count"] == 1]
    expect_eq([o.get("ret") for o in mine], [1] * NREADERS, rec)
    expect_eq(len({o["pid"] for o in mine}), NREADERS, rec)
    f = parts["profile"].split()
    expect_eq((f[0], f[2]), ("ksys_read__return", "0"), "the kernel missed no return")


def test_old_kernel_module_without_btf_says_why():
    """item 7: 5.10 has /sys/kernel/btf/vmlinux and no module's file: the
    error says that the kernel makes no module BTF and that slots work."""
    parts, err = old_kernel()
    why = ("no BTF for module 'binfmt_misc': /sys/kernel/btf holds the kernel's BTF (vmlinux) "
           "and no module's (no /sys/kernel/btf/binfmt_misc): module BTF came with Linux 5.11, "
           "built with CONFIG_DEBUG_INFO_BTF_MODULES; without it, a module's types come from "
           "its DWARF (the -dbg package's, or debuginfod's), or read its arguments by their "
           "slots ('x64 NAME'), which need no debug info")
    # compile looks for the module's DWARF too, and says where
    # (the locator's sentence: every place tried)
    lib = "/lib/modules/5.10.0-46-cloud-amd64"
    nodwarf = ("; no DWARF for module 'binfmt_misc' (build-id "
               f"393df51a15baaf7b78de814b8965375841448977): tried {lib}/kernel/fs/binfmt_misc.ko "
               f"(no DWARF of its own); /usr/lib/debug{lib}/kernel/fs/binfmt_misc.ko (not there: "
               "the kernel's -dbg package, Debian's linux-image-5.10.0-46-cloud-amd64-dbg); "
               "debuginfod (DEBUGINFOD_URLS is not set): give --ko FILE (its .ko with DWARF), or "
               "set DEBUGINFOD_URLS to fetch it by its build-id")
    expect_eq(parts["modbtf"].splitlines(), [
        "rc=0",
        "vmlinux",
        f"fevent: error: {why}{nodwarf}",
        "rc=1",
        f"fevent: error: column 37: unknown parameter 'bprm': {why}{nodwarf}",
        "rc=0",     # head's
        f"fevent: warning: {why}{nodwarf}",     # stderr, before the buffered line
        "p:functions/load_misc_binary binfmt_misc:load_misc_binary __caller=$stack0:symbol "
        "bprm=%di:x64",
        "rc=0",
    ])


def test_new_kernel_suggests_d_shortname_for_d_iname():
    """item 8 on 7.2's BTF: a string read of the gone d_iname suggests the
    union that holds those characters; without a type, the spelling."""
    out, err = new_kernel()
    lines = out.splitlines()
    expect_eq(lines[:2], [
        "fevent: error: column 21: struct dentry has no member 'd_iname'; "
        "did you mean 'd_shortname.string'?",
        "fevent: error: column 14: struct dentry has no member 'd_iname'; "
        "did you mean 'd_name'?",
    ], out)
    # the suggestion compiles: d_shortname's characters, in place
    check(re.fullmatch(r"p:functions/dput dput __caller=\$stack0:symbol "
                       r"string=\+\d+\(%di\):string", lines[2]), out)
    expect_eq(lines[3:], ["rc=0"], out)
