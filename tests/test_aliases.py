"""Two names at one address (issue 32 item 9): libc's open64 and
__open64, here the fixture's step and step_alias (__attribute__((alias))).
The kernel keys a uprobe by its address: probed by both names, each call
gave two events and nothing said why.  A glob that names both, or two
prototypes that do, probe the address once, with a note naming the names
and the event; two prototypes that read differently stay both, and say
why a call gives both events.  The kernel's functions alike, where
kallsyms has two names at one address (compile --kallsyms FILE)."""
import os
import re
import subprocess

import fe
from fe import check, expect_eq
from test_events_host import FIXTURES, need_uprobes

GROUP = "fevent_alias" + fe.TAG
_prog = {}


def prog():
    if "path" not in _prog:
        tmp = fe.tmpdir("fevent-alias-")
        os.chmod(tmp, 0o755)
        path = os.path.join(tmp, "fx_alias")
        subprocess.run(["gcc", "-g", "-O2", os.path.join(FIXTURES, "fx_alias.c"), "-o", path],
                       check=True)
        _prog["path"] = path
    return _prog["path"]


def step_offset():
    out = subprocess.run(["nm", prog()], capture_output=True, text=True, check=True).stdout
    addrs = {f[2]: int(f[0], 16) for f in (l.split() for l in out.splitlines()) if len(f) == 3}
    expect_eq(addrs["step"], addrs["step_alias"])
    # the fixture's text is mapped at its file offset (gcc's default PIE)
    return addrs["step"]


def note():
    return (f"fevent: warning: step and step_alias are one function, at {prog()}:"
            f"0x{step_offset():x}: probed once, as event 'step'")


def test_a_glob_probes_two_names_of_one_address_once():
    r = fe.run("compile", "-x", prog(), "int step*(int n)")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq([l.split()[0] for l in r.stdout.splitlines()],
              ["p:functions/step", "r:functions/step__return"])
    expect_eq(r.stderr.splitlines(), [note()])


def test_two_prototypes_naming_one_address_probe_it_once():
    r = fe.run("compile", "-x", prog(), "int step(int n)", "int step_alias(int n)")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq([l.split()[0] for l in r.stdout.splitlines()],
              ["p:functions/step", "r:functions/step__return"])
    expect_eq(r.stderr.splitlines(), [note()])


def test_two_prototypes_that_read_otherwise_both_stay_and_say_why():
    r = fe.run("compile", "-x", prog(), "step(n)", "step_alias()")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq([l.split()[0] for l in r.stdout.splitlines()],
              ["p:functions/step", "p:functions/step_alias"])
    expect_eq(r.stderr.splitlines(), [
        f"fevent: warning: 'step_alias' is the function 'step' names too, at {prog()}:"
        f"0x{step_offset():x}, read otherwise: each call gives both events"])


CALL = re.compile(r"^ +fx_alias-\d+ \[\d{3}\] +\d+\.\d{6}: (.*) <[\d.]+ us>$")


def _one_event_a_call(protos):
    need_uprobes()
    fe.run("clear", "-g", GROUP, "--force")
    try:
        r = fe.run("add", "-g", GROUP, "-x", prog(), *protos)
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(r.stderr.splitlines()[:1], [note()])
        r = fe.run("record", "-g", GROUP, "--", prog())
        expect_eq(r.returncode, 0, r.stderr)
        got = [CALL.match(l) for l in r.stdout.splitlines()]
        check(all(got), r.stdout)
        # one call by each name: one event each
        expect_eq([m.group(1) for m in got], ["step(n=1) = 2", "step(n=2) = 3"])
    finally:
        fe.run("clear", "-g", GROUP, "--force")


def test_one_call_gives_one_event_with_a_glob():
    _one_event_a_call(["int step*(int n)"])


def test_one_call_gives_one_event_with_two_prototypes():
    _one_event_a_call(["int step(int n)", "int step_alias(int n)"])


# A kernel's: two kallsyms names at one address (6.18's __x64_sys_getpid,
# __ia32_sys_getpid and __do_sys_getpid are one function); compiled for
# the host's BTF with a kallsyms of the test's.
KALLSYMS = ("ffffffff81000000 T vfs_write\n"
            "ffffffff81000000 T vfs_read\n"
            "ffffffff81000100 T vfs_readv\n")
BTF = "/sys/kernel/btf/vmlinux"


def kallsyms():
    path = os.path.join(fe.tmpdir("fevent-alias-ks-"), "kallsyms")
    with open(path, "w") as f:
        f.write(KALLSYMS)
    return path


def _kernel(*protos):
    if not os.path.exists(BTF):
        raise fe.Skip(f"no {BTF}")
    return fe.run("compile", "--btf", BTF, "--kallsyms", kallsyms(), *protos)


KNOTE = ("fevent: warning: {} are one function, at 0xffffffff81000000: probed once, "
         "as event '{}'")


def test_a_kernel_glob_probes_two_names_of_one_address_once():
    r = _kernel("vfs_*()")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq([l.split()[0] for l in r.stdout.splitlines()],
              ["p:functions/vfs_read", "p:functions/vfs_readv"])
    expect_eq(r.stderr.splitlines(), [KNOTE.format("vfs_read and vfs_write", "vfs_read")])


def test_two_kernel_prototypes_naming_one_address_probe_it_once():
    r = _kernel("vfs_write()", "vfs_read()", "vfs_readv()")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq([l.split()[0] for l in r.stdout.splitlines()],
              ["p:functions/vfs_write", "p:functions/vfs_readv"])
    expect_eq(r.stderr.splitlines(), [KNOTE.format("vfs_write and vfs_read", "vfs_write")])


def test_a_kernel_name_at_two_addresses_is_not_merged():
    """A name kallsyms has twice (two static functions of one name) has no
    one address: its prototype is not merged with the function at either
    (ksyms.c answers each name by a hash lookup, no longer by a walk)."""
    if not os.path.exists(BTF):
        raise fe.Skip(f"no {BTF}")
    path = os.path.join(fe.tmpdir("fevent-alias-ks2-"), "kallsyms")
    with open(path, "w") as f:
        f.write(KALLSYMS + "ffffffff81000200 t vfs_read\n")
    r = fe.run("compile", "--btf", BTF, "--kallsyms", path, "vfs_write()", "vfs_read()")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq([l.split()[0] for l in r.stdout.splitlines()],
              ["p:functions/vfs_write", "p:functions/vfs_read"])
    expect_eq(r.stderr, "")
