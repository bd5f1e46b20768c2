"""What kprobes can probe, in the 6.1 test VM (issue 9, item 8): funcs lists
only what add can probe (DESIGN.md section 12), and add says why it cannot
for a blacklisted or a notrace function, debugfs mounted or not."""
import os
import sys

import fe
from fe import check, expect_eq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vm"))
import vm  # noqa: E402

SNIPPET = """T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
echo @@kallsyms
grep -w -e build_open_how -e do_int3 -e exc_int3 /proc/kallsyms | cut -d' ' -f3 | sort
echo @@funcs
fevent funcs 'build_open_how'; fevent funcs 'do_int3'; fevent funcs 'exc_int3'
fevent funcs 'do_sys_openat2'
echo @@notrace
fevent add 'build_open_how(x64 a)'; echo rc=$?
echo @@blacklist
fevent add 'exc_int3(x64 regs)'; echo rc=$?
echo @@debugfs
grep -c debugfs /proc/mounts
echo @@midway
fevent add -g kf_mid 'do_sys_openat2(int dfd)' 'build_open_how(x64 a)' 'vfs_read(x64 a)' \
	2> /tmp/midway; echo rc=$?
cat /tmp/midway >&2
echo @@midway_left
grep -c kf_mid $T/dynamic_events; ls -A /run/fevent/kf_mid 2>/dev/null
echo @@left
cat $T/dynamic_events
"""
def plan(suite="bookworm"):
    return [("kfuncs", SNIPPET)], None


# this tier's boot is shared with the other tiers of its kernel (vm.share)
vm.share("kfuncs", ("bookworm",), plan)


def result():
    rc, out, err = vm.run_once("kfuncs", *plan())["kfuncs"]
    parts = {}
    for chunk in ("\n" + out).split("\n@@")[1:]:
        name, _, body = chunk.partition("\n")
        parts[name] = body
    return parts, err


def test_funcs_lists_only_what_add_can_probe():
    parts, err = result()
    expect_eq(parts["kallsyms"].split(), ["build_open_how", "do_int3", "exc_int3"],
              "all three are functions of the kernel")
    expect_eq(parts["funcs"].split(), ["do_sys_openat2"], err)


def test_add_says_why_and_leaves_nothing():
    parts, err = result()
    expect_eq(parts["notrace"].strip(), "rc=1")
    expect_eq(parts["blacklist"].strip(), "rc=1")
    check("fevent: error: kprobes cannot trace 'build_open_how': it is notrace or has no "
          "ftrace entry (not in available_filter_functions), and the kernel refuses kprobe "
          "events there\n" in err, err)
    check("fevent: error: kprobes cannot trace 'exc_int3': the kernel blacklists it for "
          "kprobes (/sys/kernel/debug/kprobes/blacklist)\n" in err, err)
    expect_eq(parts["debugfs"].strip(), "0", "debugfs was mounted only to read, then unmounted")
    expect_eq(parts["left"].strip(), "", "nothing added")


def test_add_refused_midway_leaves_nothing():
    """The rules are read once the kernel has refused (not before every
    add): the function before the notrace one was created, and is taken
    out again with its notes; the message is the rule's, as before."""
    parts, err = result()
    expect_eq(parts["midway"].strip(), "rc=1")
    check("fevent: error: kprobes cannot trace 'build_open_how': it is notrace or has no "
          "ftrace entry (not in available_filter_functions), and the kernel refuses kprobe "
          "events there\nfevent: nothing was added\n" in err, err)
    expect_eq(parts["midway_left"].split(), ["0"], "no kf_mid event, no note left")
