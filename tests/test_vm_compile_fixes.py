"""Issue 9 items 10 and 11 on a real kernel: Debian's 6.1 cloud kernel in
the test VM (tests/vm/vm.py), its own BTF and kallsyms.  -r on a system
call is typed from the wrapper's BTF and records the return value; a
function the compiler cloned is named by its clone, and the suggestion,
followed, is a probe the kernel takes."""
import os
import re
import sys

import fe
from fe import check, expect_eq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vm"))
import vm  # noqa: E402

SNIPPET = """T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
echo @@kill
fevent add -r 'SyS_kill(int pid, int sig)' > /dev/null; echo rc=$?
fevent record -- kill -0 1; echo rc=$?
fevent clear
echo @@clone
awk '$3 == "do_execveat_common.isra.0" { print $3 }' /proc/kallsyms
fevent add 'do_execveat_common(fd)'; echo rc=$?
echo @@follow
fevent add 'do_execveat_common.isra.0(x64 fd)'; echo rc=$?
fevent record -- true; echo rc=$?
fevent clear
echo @@left
cat $T/dynamic_events
"""
def plan(suite="bookworm"):
    return [("compile_fixes", SNIPPET)], None


# this tier's boot is shared with the other tiers of its kernel (vm.share)
vm.share("compile_fixes", ("bookworm",), plan)


def result():
    rc, out, err = vm.run_once("compile_fixes", *plan())["compile_fixes"]
    parts = {}
    for chunk in ("\n" + out).split("\n@@")[1:]:
        name, _, body = chunk.partition("\n")
        parts[name] = body
    return parts, err


def test_return_of_a_system_call_recorded():
    # was "a return type from debug info needs BTF or DWARF for 'SyS_kill'"
    parts, err = result()
    out = parts["kill"]
    check(out.startswith("rc=0\n"), err)
    check(re.search(r"^ +kill-\d+ \[\d{3}\] +\d+\.\d{6}: do_syscall_64->SyS_kill\(pid=1, "
                    r"sig=0\) = 0 <\d+\.\d{3} us>$", out, re.M), out + err)
    check(out.endswith("\nrc=0"), out)


def test_a_kernel_clone_is_named_and_the_suggestion_is_taken():
    parts, err = result()
    expect_eq(parts["clone"].splitlines(), ["do_execveat_common.isra.0", "rc=2"])
    check("fevent: error: column 20: unknown parameter 'fd': /sys/kernel/btf/vmlinux describes "
          "neither 'do_execveat_common' nor its clone 'do_execveat_common.isra.0', which has the "
          "code (its parameters perhaps moved by the compiler): probe the clone with typed slots, "
          "e.g. 'do_execveat_common.isra.0(x64 fd)', or give --vmlinux FILE for its DWARF\n"
          in err, err)
    follow = parts["follow"]
    check(follow.startswith("p:functions/do_execveat_common_isra_0 do_execveat_common.isra.0 "
                            "__caller=$stack0:symbol fd=%di:x64\nrc=0\n"), follow + err)
    # execve of true: AT_FDCWD (-100) in the low 32 bits of %di; the
    # task is fevent's child, not yet named true (exec names it later)
    check(re.search(r"^ +fevent-\d+ \[\d{3}\] +\d+\.\d{6}: "
                    r"__x64_sys_execve->do_execveat_common_isra_0\(fd=0xffffff9c\)$", follow,
                    re.M), follow)
    expect_eq(parts["left"], "", follow)
