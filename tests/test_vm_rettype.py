"""A void kernel function's return event in the 6.1 test VM (issue 21 item
10): 'void fd_install(unsigned int fd)' adds a kretprobe with no fetch
arguments, which the kernel takes; record pairs each call with its return
(no '= value'), and stats --latency times the calls the kernel's way (hist
triggers and a synthetic event) and from the event stream alike.  The
workload, tests/fixtures/fx_reads.c built static, installs an fd (open)
and the pipe's two ends once each."""
import json
import re

from fe import check, expect_eq
from test_vm_stats import RUN, workload
import vm

PROBE = "void fd_install(unsigned int fd)"

SNIPPET = rf"""T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
echo ::compile; fevent compile '{PROBE}'; echo rc=$?
fevent add -q '{PROBE}' || exit 1
echo ::kprobe_events; grep fd_install $T/kprobe_events
echo ::list; fevent list --json; echo rc=$?
echo ::record; fevent record -- {RUN} | cat; echo rc=$?
echo ::kernel; fevent stats -v --json --latency --by fd -- {RUN}; echo rc=$?
echo ::stream; fevent stats -v --stream --json --latency --by fd -- {RUN}; echo rc=$?
fevent clear -q; echo rc=$?
"""


def plan(suite="bookworm"):
    return [("rettype", SNIPPET)], {RUN: workload()}


# this tier's boot is shared with the other tiers of its kernel (vm.share)
vm.share("rettype", ("bookworm",), plan)


def plan_sid(suite="sid"):
    return [("sid", SID)], None


vm.share("rettype-sid", ("sid",), plan_sid)


def sections():
    rc, out, err = vm.run_once("rettype", *plan())["rettype"]
    expect_eq(rc, 0, err)
    parts = vm.split_sections(out)
    return parts, err


def test_void_kernel_function_returns_are_timed():
    parts, err = sections()
    expect_eq(parts["compile"], "p:functions/fd_install fd_install __caller=$stack0:symbol "
                                "fd=%di:u32\nr:functions/fd_install__return fd_install\nrc=0\n")
    # the kernel's own maxactive (rN) before the name, no fetch arguments
    expect_eq(sorted(re.sub(r"^r\d+:", "r:", l) for l in parts["kprobe_events"].splitlines()),
              ["p:functions/fd_install fd_install __caller=$stack0:symbol fd=%di:u32",
               "r:functions/fd_install__return fd_install"])
    events = [json.loads(l) for l in parts["list"].splitlines() if l.startswith("{")]
    expect_eq([(e["event"], e["prototype"]) for e in events],
              [("fd_install", "void fd_install(u32 fd)"), ("fd_install__return", "")])
    expect_eq(events[1]["return_of"], "fd_install")
    # the open, then the pipe's two ends: the lowest free fds, in order
    calls = [l.split(": ", 1)[1] for l in parts["record"].splitlines() if "fd_install(" in l]
    expect_eq(len(calls), 3, parts["record"])
    first = int(re.search(r"fd=(\d+)", calls[0])[1])
    fds = (first, first + 1, first + 2)
    for fd, caller, call in zip(fds, ("do_sys_openat2", "do_pipe2", "do_pipe2"), calls):
        check(re.fullmatch(rf"{caller}->fd_install\(fd={fd}\) <\d+\.\d{{3}} us>", call), call)
    for way in ("kernel", "stream"):
        objs = [json.loads(l) for l in parts[way].splitlines() if l.startswith("{")]
        expect_eq(sorted((o["event"], o["field"], o["keys"]["fd"], o["count"]) for o in objs),
                  [("functions/fd_install", "latency_us", fd, 1) for fd in fds],
                  parts[way])
        check(parts[way].endswith("rc=0\n"), parts[way])


OPENAT2 = "long do_sys_openat2(int dfd, string filename)"
SID = rf"""T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
mkdir -p /run    # the VM's initramfs has none; fevent keeps state there
echo ::proto; fevent proto do_sys_openat2 | head -1
echo ::compile; fevent compile '{OPENAT2}' 2>&1; echo rc=$?
echo ::strict; fevent compile --strict '{OPENAT2}' 2>&1; echo rc=$?
echo ::glob; fevent compile 'ssize_t vfs_r*(...)' 2>&1 | grep -e '^r:' -e warning; echo rc=$?
fevent add -q '{OPENAT2} if ret < 0' 2>/dev/null || exit 1
echo ::record; fevent record -- cat /nonexistent 2>/dev/null | cat; echo rc=$?
fevent clear -q; echo rc=$?
"""


def test_long_on_an_int_function_of_7_2_reads_its_int():
    # 7.2's do_sys_openat2 returns int: 'long' read %rax whole, a failed
    # open showed 4294967294, and 'if ret < 0' dropped every one
    rc, out, err = vm.run_once("rettype-sid", *plan_sid("sid"), suite="sid")["sid"]
    expect_eq(rc, 0, err)
    parts = vm.split_sections(out)
    decl = parts["proto"].strip()
    expect_eq(decl, "int do_sys_openat2(int dfd, const char *filename, struct open_how *how)")
    btf = "/sys/kernel/btf/vmlinux"
    # (stderr's warning and stdout's lines share the pipe in either order)
    # (7.2's return probes carry the entry's arguments: compile prints
    # what add makes there)
    expect_eq(sorted(parts["compile"].splitlines()), sorted([
        "p:functions/do_sys_openat2 do_sys_openat2 __caller=$stack0:symbol dfd=%di:s32 "
        "filename=+0(%si):string",
        "r:functions/do_sys_openat2__return do_sys_openat2 dfd=$arg1:s32 "
        "filename=+0($arg2):string ret=$retval:s32",
        "fevent: warning: column 1: 'long' reads the return value of 'do_sys_openat2' as 8 "
        f"bytes, but {btf} declares it '{decl}': the bytes past it are not its value; it is "
        "read as s32 (--strict makes this an error)", "rc=0"]))
    expect_eq(parts["strict"].splitlines()[0],
              "fevent: error: column 1: 'long' reads the return value of 'do_sys_openat2' as 8 "
              f"bytes, but {btf} declares it '{decl}': the bytes past it are not its value")
    check(parts["strict"].endswith("rc=2\n"), parts["strict"])
    rets = {l.split()[1]: l.split()[-1] for l in parts["glob"].splitlines() if l.startswith("r:")}
    expect_eq((rets["vfs_rmdir"], rets["vfs_read"]), ("ret=$retval:s32", "ret=$retval:s64"))
    check("warning" not in parts["glob"], parts["glob"])
    # the failed open, kept by 'ret < 0', reads -ENOENT, by name
    calls = [l.split(": ", 1)[1] for l in parts["record"].splitlines() if "do_sys_openat2(" in l]
    check(any(re.fullmatch(r'\S+->do_sys_openat2\(dfd=-100, filename="/nonexistent"\) = -2 \(ENOENT\) '
                           r'<\d+\.\d{3} us>', c) for c in calls), parts["record"])
