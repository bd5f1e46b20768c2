"""compile answers for the kernel whose tracefs README it reads (issue 31,
DESIGN.md section 6): `compile --tracefs DIR` with DIR holding the README
of 6.1 or 6.12, saved from the test VM (tests/fixtures/readme/), prints
what add makes on that kernel (the VM test, test_vm_kernel_caps.py,
compares them there); with no README it prints what every kernel takes.
Typed slots only: the definitions do not depend on this machine's BTF."""
import os
import shutil

import fe
from fe import check, expect_eq

HERE = os.path.dirname(os.path.abspath(__file__))
README = os.path.join(HERE, "fixtures", "readme")

OPENAT2 = "long do_sys_openat2(int dfd, string filename) if dfd == -100 && ret < 0"
ENTRY = "p:functions/do_sys_openat2 do_sys_openat2 __caller=$stack0:symbol dfd=%di:s32 " \
        "filename=+0(%si):string"


def tracefs_of(suite, tmp):
    """A directory with the README of suite's kernel."""
    d = os.path.join(tmp, suite)
    os.makedirs(d, exist_ok=True)
    shutil.copy(os.path.join(README, f"{suite}.txt"), os.path.join(d, "README"))
    return d


def compile_(*args):
    return fe.run("compile", "--kallsyms", "/dev/null", *args)


def compile_btf(*args):
    """With this machine's BTF, which names tracepoints"""
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        raise fe.Skip("no /sys/kernel/btf/vmlinux")
    return fe.run("compile", "--btf", "/sys/kernel/btf/vmlinux", *args)


def test_return_events_carry_the_arguments_where_the_kernel_says_so():
    tmp = fe.tmpdir("fevent-caps-")
    new, old = tracefs_of("trixie", tmp), tracefs_of("bookworm", tmp)
    r = compile_("--tracefs", new, OPENAT2)
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stdout.splitlines(), [
        ENTRY,
        "r:functions/do_sys_openat2__return do_sys_openat2 dfd=$arg1:s32 "
        "filename=+0($arg2):string ret=$retval:s64",
        "# filter functions/do_sys_openat2__return: dfd == -100 && ret < 0"])
    # 6.1's return probes read $retval alone: fevent filters the call
    for args in (["--tracefs", old], []):
        r = compile_(*args, OPENAT2)
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(r.stdout.splitlines(), [
            ENTRY, "r:functions/do_sys_openat2__return do_sys_openat2 ret=$retval:s64",
            "# call filter functions/do_sys_openat2: dfd == -100 && ret < 0"], args)


def test_an_entry_alone_is_an_fprobe_where_the_kernel_has_them():
    tmp = fe.tmpdir("fevent-caps-")
    r = compile_("--tracefs", tracefs_of("sid", tmp), "ksys_read(unsigned int fd, size_t count)")
    expect_eq((r.returncode, r.stdout),
              (0, "f:functions/ksys_read ksys_read __caller=$stack0:symbol fd=$arg1:u32 "
                  "count=$arg2:u64\n"), r.stderr)
    r = compile_("--tracefs", tracefs_of("bullseye", tmp),
                 "ksys_read(unsigned int fd, size_t count)")
    expect_eq((r.returncode, r.stdout),
              (0, "p:functions/ksys_read ksys_read __caller=$stack0:symbol fd=%di:u32 "
                  "count=%si:u64\n"), r.stderr)


def test_tracepoints_refused_naming_the_feature():
    tmp = fe.tmpdir("fevent-caps-")
    for suite in ("bullseye", "bookworm"):
        d = tracefs_of(suite, tmp)
        r = compile_("--tracefs", d, "tp:signal_generate(int sig)")
        expect_eq((r.returncode, r.stdout), (2, ""), r.stderr)
        expect_eq(r.stderr,
                  "fevent: error: column 4: this kernel has no tracepoint probe events (t:), "
                  f"which tp:signal_generate needs: its tracefs README ({d}/README) has no "
                  "'t[:[<group>/][<event>]] <tracepoint>' line (CONFIG_FPROBE_EVENTS is "
                  "off, or the kernel predates them)\n"
                  "    tp:signal_generate(int sig)\n"
                  "       ^\n")
    r = compile_btf("--tracefs", tracefs_of("trixie", tmp), "tp:signal_generate(int sig)")
    expect_eq((r.returncode, r.stdout),
              (0, "t:functions/signal_generate signal_generate sig=$arg1:s32\n"), r.stderr)


def test_verbose_says_which_kernel_and_an_unreadable_tracefs_is_refused():
    tmp = fe.tmpdir("fevent-caps-")
    d = tracefs_of("trixie", tmp)
    r = compile_("-v", "--tracefs", d, "ksys_read(unsigned int fd)")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stderr.splitlines()[0],
              f"fevent: definitions for the kernel of the tracefs at {d}")
    # for no kernel in particular (another kernel's debug info) it says
    # nothing of one
    r = compile_("-v", "ksys_read(unsigned int fd)")
    expect_eq(r.returncode, 0, r.stderr)
    check("definitions for" not in r.stderr, r.stderr)
    r = compile_("--tracefs", os.path.join(tmp, "none"), "ksys_read(unsigned int fd)")
    expect_eq((r.returncode, r.stdout), (2, ""), r.stderr)
    check(f"cannot read {tmp}/none/README" in r.stderr, r.stderr)
