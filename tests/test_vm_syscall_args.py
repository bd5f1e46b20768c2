"""Issue 20 items 4 and 5 on every kernel of the test VM (5.10, 6.1, 6.12,
7.2): system call arguments by name take their names and C types from the
system call's trace event format (7.2's extra '__data_loc char[]
__filename_val' field is no argument), live in the wrapper's pt_regs, and a
member path through a user pointer ('how->flags') finds its struct in BTF
by name.  One boot per kernel runs fevent proto, compile, and a recording
of a static program making known openat, openat2 and execve calls."""
import os
import re
import subprocess
import sys
import tempfile

import fe
from fe import check, expect_eq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vm"))
import vm  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RUN = "/tests/fx_syscall_args"
OPENAT = "SyS_openat(dfd, filename, flags, mode)"
OPENAT2 = "SyS_openat2(int dfd, string filename, how->flags)"
EXECVE = "SyS_execve(filename, argv[1])"
# a whole struct through the user pointer, typed from the format's
# 'struct open_how *' and BTF's struct (issue 31 item 6)
WHOLE = "SyS_openat2(dfd, filename, *how)"

SNIPPET = f"""T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
echo ::format
grep -c __data_loc $T/events/syscalls/sys_enter_openat/format
echo ::proto
fevent proto SyS_openat SyS_openat2 2>&1; echo rc=$?
echo ::compile
fevent compile '{OPENAT}' '{OPENAT2}' 2>&1; echo rc=$?
fevent compile 'SyS_openat2(...)' 2>&1; echo rc=$?
fevent compile '{EXECVE}' 2>&1; echo rc=$?
fevent compile '{WHOLE}' 2>&1; echo rc=$?
echo ::record
mkdir -p /run    # the VM's initramfs has none; fevent keeps state there
fevent add '{OPENAT}' '{OPENAT2}' '{EXECVE}' > /dev/null; echo rc=$?
fevent add -n all_openat2 'SyS_openat2(...)' > /dev/null; echo rc=$?
fevent add -n whole_openat2 '{WHOLE}' > /dev/null; echo rc=$?
{{ fevent record -- {RUN}; echo rc=$?; }} 2>&1 | grep -e SyS_ -e _openat2 -e rc= -e fevent:
fevent clear; echo rc=$?
echo ::left
cat $T/dynamic_events
"""


def proto(carried):
    """proto's lines: what add makes on that kernel, whose return events
    carry the entry's arguments where its README says return probes read
    $arg<N> (6.12, 7.2), read through the same pt_regs."""
    openat = ("dfd=+112(%di):s32 filename=+0(+104(%di)):ustring flags=+96(%di):s32 "
              "mode=+56(%di):u16")
    openat2 = ("dfd=+112(%di):s32 filename=+0(+104(%di)):ustring how=+96(%di):x64 "
               "usize=+56(%di):u64")

    def ret(args):
        return args.replace("%di", "$arg1") + " " if carried else ""
    return [
        "long SyS_openat(int dfd, const char * filename, int flags, umode_t mode)",
        "#   p:functions/SyS_openat __x64_sys_openat __caller=$stack0:symbol " + openat,
        "#   r:functions/SyS_openat__return __x64_sys_openat " + ret(openat) + "ret=$retval:s64",
        "long SyS_openat2(int dfd, const char * filename, struct open_how * how, size_t usize)",
        "#   p:functions/SyS_openat2 __x64_sys_openat2 __caller=$stack0:symbol " + openat2,
        "#   r:functions/SyS_openat2__return __x64_sys_openat2 " + ret(openat2) +
        "ret=$retval:s64",
        "rc=0",
    ]


COMPILE = [
    "p:functions/SyS_openat __x64_sys_openat __caller=$stack0:symbol dfd=+112(%di):s32 "
    "filename=+0(+104(%di)):ustring flags=+96(%di):s32 mode=+56(%di):u16",
    "p:functions/SyS_openat2 __x64_sys_openat2 __caller=$stack0:symbol dfd=+112(%di):s32 "
    "filename=+0(+104(%di)):ustring flags=+u0(+96(%di)):u64",
    "rc=0",
    "p:functions/SyS_openat2 __x64_sys_openat2 __caller=$stack0:symbol dfd=+112(%di):s32 "
    "filename=+0(+104(%di)):ustring how=+96(%di):x64 usize=+56(%di):u64",
    "rc=0",
    # both pointers of 'const char *const *argv' into the caller's memory
    "p:functions/SyS_execve __x64_sys_execve __caller=$stack0:symbol "
    "filename=+0(+112(%di)):ustring argv=+0(+u8(+104(%di))):ustring",
    "rc=0",
    "p:functions/SyS_openat2 __x64_sys_openat2 __caller=$stack0:symbol dfd=+112(%di):s32 "
    "filename=+0(+104(%di)):ustring flags=+u0(+96(%di)):x64 mode=+u8(+96(%di)):x64 "
    "resolve=+u16(+96(%di)):x64",
    "rc=0",
]

# the kernel's syscall dispatcher: do_syscall_64, or x64_sys_call (6.9+)
CALLER = r"(?:do_syscall_64|x64_sys_call)\+0x[0-9a-f]+/0x[0-9a-f]+|do_syscall_64|x64_sys_call"
# comm-pid is right-aligned in 20 columns: with a 4-digit pid (a shared
# boot ran other tiers' processes first) nothing is before it
HEAD = r"^ *fx_syscall_args-\d+ +\[\d{3}\] +\d+\.\d{6}: (?:" + CALLER + r")->"


def workload():
    out = os.path.join(tempfile.gettempdir(), "fevent-fx_syscall_args")
    src = os.path.join(HERE, "fixtures", "fx_syscall_args.c")
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
        subprocess.run(["gcc", "-O2", "-static", "-o", out, src], check=True)
    return out


def plan(suite):
    return [("syscall_args", SNIPPET)], {RUN: workload()}


# this tier's boots are shared with the other tiers of each kernel (vm.share)
vm.share("syscall_args", vm.SUITES, plan)


def sections(suite):
    rc, out, err = vm.run_once("syscall_args", *plan(suite), suite=suite)["syscall_args"]
    expect_eq(rc, 0, err)
    parts = vm.split_sections(out)
    return parts, err


def check_kernel(suite, data_loc, carried=False):
    parts, err = sections(suite)
    # 7.2's format has a field past the arguments; the others have none
    expect_eq(parts["format"], f"{data_loc}\n", err)
    expect_eq(parts["proto"].splitlines(), proto(carried), err)
    expect_eq(parts["compile"].splitlines(), COMPILE, err)
    rec = parts["record"]
    lines = rec.splitlines()
    expect_eq(lines[:3], ["rc=0", "rc=0", "rc=0"], rec + err)
    expect_eq(lines[-2:], ["rc=0", "rc=0"], rec + err)
    # the kernel may count execve probes it missed (in any process): the
    # summary says so; every event of the program is there
    check(re.fullmatch(r"fevent: 6 events; (none lost|LOST: \d+ SyS_execve missed \(.*\))",
                       lines[-3]), rec)
    events = lines[3:-3]
    # exactly the calls the program made, each decoded to its values:
    # its own execve by record (argv[1] is NULL: the kernel says so);
    # AT_FDCWD, the path in user memory, O_WRONLY|O_CREAT|O_TRUNC and 0640;
    # openat2's how->flags O_RDONLY|O_CLOEXEC read through the user
    # pointer; then its execve of itself with argv[1] "again"
    expect_eq(len(events), 6, rec)
    check(re.fullmatch(HEAD + r'SyS_execve\(filename="/tests/fx_syscall_args", '
                       r"argv=\(fault\)\)", events[0]), rec)
    check(re.fullmatch(HEAD + r'SyS_openat\(dfd=-100, filename="/tmp/fx-syscall-openat", '
                       r"flags=577, mode=416\)", events[1]), rec)
    both = sorted(events[2:5], key=lambda l: ("whole_openat2" in l, "all_openat2" in l))
    check(re.fullmatch(HEAD + r'SyS_openat2\(dfd=-100, filename="/tmp/fx-syscall-openat", '
                       r"flags=524288\)", both[0]), rec)
    check(re.fullmatch(HEAD + r'all_openat2\(dfd=-100, filename="/tmp/fx-syscall-openat", '
                       r"how=0x[0-9a-f]{6,}, usize=24\)", both[1]), rec)
    check(re.fullmatch(HEAD + r'whole_openat2\(dfd=-100, filename="/tmp/fx-syscall-openat", '
                       r"how=\{flags=0x80000, mode=0x0, resolve=0x4\}\)", both[2]), rec)
    check(re.fullmatch(HEAD + r'SyS_execve\(filename="/tests/fx_syscall_args", '
                       r'argv="again"\)', events[5]), rec)
    expect_eq(parts["left"], "", err)


def test_syscall_args_by_name_on_5_10():
    check_kernel("bullseye", 0)


def test_syscall_args_by_name_on_6_1():
    check_kernel("bookworm", 0)


def test_syscall_args_by_name_on_6_12():
    check_kernel("trixie", 0, carried=True)


def test_syscall_args_by_name_on_7_2():
    check_kernel("sid", 1, carried=True)
