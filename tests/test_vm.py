"""Kernel probes end to end in a real kernel: Debian's 6.1 cloud kernel
booted under qemu (tests/vm/vm.py).  Every snippet runs in one boot; each
test asserts on its snippet's output.  FEVENT_NO_VM=1 skips this tier."""
import os
import re
import sys

import fe
from fe import check, expect_eq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vm"))
import vm  # noqa: E402

SEED = "SyS_openat(int dfd, string path, x32 flags, x16 mode)"
OPENAT2 = "long do_sys_openat2(int dfd, string filename, how->flags)"
VFS_READ = "vfs_read(string name=file->f_path.dentry->d_name.name, count)"
T = "/sys/kernel/tracing"

# Shell run inside the VM; trace_on/trace_off bracket what is traced and
# print the trace.
PRELUDE = f"""T={T}
mount -t tracefs nodev $T 2>/dev/null
trace_on() {{ echo > $T/trace; echo 1 > $T/events/functions/enable; }}
trace_off() {{ echo 0 > $T/events/functions/enable; grep -v '^#' $T/trace; }}
"""

SNIPPETS = [
    ("seed", f"""
fevent add '{SEED}' > /dev/null || exit 1
trace_on; cat /etc/hostname; trace_off
fevent clear
"""),
    ("return_and_members", f"""
fevent add '{OPENAT2}' '{VFS_READ}' > /dev/null || exit 1
trace_on; cat /etc/hostname; cat /nonexistent; wc -c /etc/hostname; trace_off
fevent clear
"""),
    ("round_trip", f"""
fevent add '{OPENAT2}' > /dev/null || exit 1
echo 1 > $T/events/functions/enable
grep -w do_sys_openat2 $T/kprobe_profile
cat /etc/hostname; cat /etc/hostname; cat /etc/hostname
grep -w do_sys_openat2 $T/kprobe_profile
echo 0 > $T/events/functions/enable
echo @@list
fevent list --json
fevent clear || exit 1
echo @@after
fevent list
grep functions/ $T/dynamic_events
true
"""),
    ("rollback", """
nulls=$(i=0; while [ $i -lt 2100 ]; do printf 'NULL, '; i=$((i+1)); done)
fevent add --kallsyms /dev/null 'do_sys_openat2(int dfd)' "vfs_read(${nulls}x64 a)"
echo "rc=$?"
echo @@after
cat $T/dynamic_events
"""),
    ("blacklist_precheck", """
mount -t debugfs nodev /sys/kernel/debug
fevent add 'exc_int3(x64 regs)'
echo "rc=$?"
umount /sys/kernel/debug
"""),
    ("other_group_survives", """
echo 'p:othergrp/keep vfs_read' >> $T/kprobe_events || exit 1
fevent add 'vfs_read(count)' > /dev/null || exit 1
fevent clear || exit 1
cat $T/dynamic_events
echo '-:othergrp/keep' >> $T/kprobe_events
"""),
    ("kernel_refusal_caret", """
nulls=$(i=0; while [ $i -lt 2100 ]; do printf 'NULL, '; i=$((i+1)); done)
fevent add --kallsyms /dev/null "vfs_read(${nulls}x64 a)"
echo "rc=$?"
cat $T/dynamic_events
"""),
    ("compile_equals_kernel", f"""
fevent compile '{SEED}' '{OPENAT2}' '{VFS_READ}' 'ip_rcv(x64 skb, x8[6] perm_addr+558)' > /tmp/compiled || exit 1
fevent add '{SEED}' '{OPENAT2}' '{VFS_READ}' 'ip_rcv(x64 skb, x8[6] perm_addr+558)' > /dev/null || exit 1
cat /tmp/compiled
echo @@kernel
cat $T/dynamic_events
fevent clear
"""),
    ("exists_needs_force", """
fevent add 'do_sys_openat2(dfd)' > /dev/null || exit 1
fevent add 'do_sys_openat2(x64 dfd)'; echo "rc=$?"
fevent add --force 'do_sys_openat2(x64 dfd)' > /dev/null; echo "rc=$?"
cat $T/dynamic_events
fevent clear
"""),
    ("record", f"""
fevent add 'long {SEED}' > /dev/null || exit 1
{{ fevent record -- cat /etc/hostname; echo "rc=$?"; }} | cat
{{ fevent record --json -- cat /nonexistent; echo "rc=$?"; }} | cat
ls $T/instances
fevent clear
"""),
    ("list_compiles_back", f"""
fevent add '{SEED}' '{OPENAT2}' '{VFS_READ}' 'ip_rcv(skb->pkt_type, dev)' \
    'vfs_write(count, file)' 'ksys_write(s64 j=@jiffies, count)' > /dev/null || exit 1
fevent list --json
echo @@compiled
# each listed prototype (the line after an event's header) compiled again
# (a return event's line names its entry, whose prototype adds both)
fevent list | awk '/^[^ ]/ {{ n = 0; next }} {{ if (++n == 1) print substr($0, 5) }}' |
while read -r p; do
  case "$p" in "(the return of "*) echo "$p";; *) fevent compile "$p" || exit 1;; esac; echo @@
done
fevent clear
"""),
    ("module_not_loaded", """
fevent add 'ext4:ext4_sync_file(x64 file)'; echo "rc=$?"
cat $T/dynamic_events
"""),
]

# runs first, before anything mounted tracefs
FIRST = [("mounts_tracefs", """
grep -c ' tracefs ' /proc/mounts
fevent list; echo "rc=$?"
grep ' tracefs ' /proc/mounts | cut -d' ' -f2
""")]

def result(name):
    return vm.run_once("main", FIRST + [(n, PRELUDE + s) for n, s in SNIPPETS])[name]


def test_seed_shows_the_path_and_the_caller():
    rc, out, err = result("seed")
    expect_eq(rc, 0, err)
    line = [l for l in out.splitlines() if "SyS_openat:" in l and "hostname" in l]
    check(line and " cat-" in line[0], out)
    check(re.search(r"SyS_openat: \(__x64_sys_openat\+0x0/0x[0-9a-f]+\) "
                    r"__caller=do_syscall_64\+0x[0-9a-f]+/0x[0-9a-f]+ dfd=-100 "
                    r'path="/etc/hostname" flags=0x0 mode=0x0', line[0]), line[0])


def test_return_value_member_paths_and_caller():
    rc, out, err = result("return_and_members")
    expect_eq(rc, 0, err)
    # the open of a missing file returns -ENOENT
    check(re.search(r'do_sys_openat2: \(do_sys_openat2\+0x0/0x[0-9a-f]+\) '
                    r'__caller=__x64_sys_openat\+0x[0-9a-f]+/0x[0-9a-f]+ dfd=-100 '
                    r'filename="/nonexistent" flags=32768', out), out)
    check(re.search(r"do_sys_openat2__return: \(__x64_sys_openat\+0x[0-9a-f]+/0x[0-9a-f]+ "
                    r"<- do_sys_openat2\) ret=-2\n", out), out)
    # the one that exists gets a descriptor
    check(re.search(r' cat-[0-9]+ .* filename="/etc/hostname" flags=32768\n'
                    r'.* cat-[0-9]+ .* do_sys_openat2__return: .* ret=[0-9]+\n', out), out)
    # file->f_path.dentry->d_name.name through BTF: the file's own name
    # (busybox cat uses sendfile; wc reads)
    check(re.search(r' wc-[0-9]+ .* vfs_read: .* name="hostname" count=[0-9]+', out), out)


def test_add_list_clear_round_trip_with_hits():
    rc, out, err = result("round_trip")
    expect_eq(rc, 0, err)
    before, after = [int(l.split()[1]) for l in out.split("@@list")[0].splitlines()
                     if l.split()[:1] == ["do_sys_openat2"]]
    # a kprobe counts while enabled: one open per cat, and one by the grep
    # that read the profile again
    expect_eq(after - before, 4, out)
    listing = out.split("@@list\n")[1].split("@@after\n")[0]
    import json
    events = [json.loads(l) for l in listing.splitlines()]
    expect_eq([(e["event"], e["kind"], e["target"]) for e in events],
              [("do_sys_openat2", "kprobe", "do_sys_openat2"),
               ("do_sys_openat2__return", "kretprobe", "do_sys_openat2")])
    check(events[0]["hits"] >= after, events[0])
    # the entry's prototype adds both events; the return names its entry
    expect_eq(events[0]["prototype"], "s64 do_sys_openat2(s32 dfd, string filename, u64 flags+0)")
    expect_eq((events[1]["prototype"], events[1]["return_of"]), ("", "do_sys_openat2"))
    expect_eq(out.split("@@after\n")[1], "", "nothing of fevent's left")


def test_rollback_when_the_kernel_refuses_the_second():
    rc, out, err = result("rollback")
    check("rc=1" in out, out)
    # the second is refused by the kernel itself (no precheck catches it)
    check("the kernel refused functions/vfs_read" in err, err)
    check("Invalid stack number" in err, err)
    check("nothing was added" in err, err)
    expect_eq(out.split("@@after\n")[1], "", "do_sys_openat2 was taken back out")


def test_blacklisted_function_is_named():
    rc, out, err = result("blacklist_precheck")
    check("rc=1" in out, out)
    check("kprobes cannot trace 'exc_int3': the kernel blacklists it" in err, err)


def test_clear_leaves_another_groups_kprobe():
    rc, out, err = result("other_group_survives")
    expect_eq(rc, 0, err)
    expect_eq(out.strip(), "p:othergrp/keep vfs_read")


def test_kernel_refusal_is_shown_with_its_caret_and_argument():
    rc, out, err = result("kernel_refusal_caret")
    check("rc=1" in out, out)
    lines = err.splitlines()
    check(any("trace_kprobe: error:" in l for l in lines), err)
    cmd = [l for l in lines if "Command: " in l][0]
    caret = lines[lines.index(cmd) + 1]
    expect_eq(cmd[caret.index("^")], "$", f"{cmd}\n{caret}")   # under a=$stack...
    check("the caret is on field 'a', which comes from here" in err, err)
    # our own caret points at the prototype's 'x64 a'
    proto_caret = lines[-2]
    expect_eq(proto_caret.strip(), "^")
    proto = lines[-3][4:]
    expect_eq(proto[len(proto_caret) - 5:], "x64 a)")
    expect_eq(out.split("rc=1\n")[1], "", "nothing added")


def _normal(line):
    # the kernel lists a kretprobe's maxactive ("r10:") and pads uprobe offsets
    return re.sub(r"^r\d*:", "r:", line)


def test_compile_equals_the_kernels_definition():
    rc, out, err = result("compile_equals_kernel")
    expect_eq(rc, 0, err)
    compiled, kernel = out.split("@@kernel\n")
    expect_eq(sorted(_normal(l) for l in kernel.splitlines()),
              sorted(_normal(l) for l in compiled.splitlines()))


def test_list_shows_prototypes_that_compile_back_to_the_kernels_events():
    """issue 9 item 6 on the kernel: a system call wrapper, a return, a
    path, a bitfield, an argument before an earlier slot's, an address."""
    import json
    rc, out, err = result("list_compiles_back")
    expect_eq(rc, 0, err)
    listing, compiled = out.split("@@compiled\n")
    events = [json.loads(l) for l in listing.splitlines()]
    blocks = compiled.split("@@\n")[:-1]
    expect_eq(len(blocks), len(events), out)
    by_name = {e["event"]: (e, b) for e, b in zip(events, blocks)}
    for ev, block in zip(events, blocks):
        want = "r:" if ev["kind"] == "kretprobe" else "p:"
        if "return_of" in ev:
            # no prototype adds a return alone: its entry's adds both
            expect_eq((ev["prototype"], block),
                      ("", f"(the return of {ev['return_of']}, which its prototype adds)\n"))
            block = by_name[ev["return_of"]][1]
        line = [l for l in block.splitlines() if l.startswith(want)][0]
        expect_eq(line.split(" ", 2)[2], ev["args"], f"{ev['event']}: {ev['prototype']}")
    protos = {e["event"]: e["prototype"] for e in events}
    expect_eq(protos["do_sys_openat2__return"], "")
    expect_eq(protos["SyS_openat"], "SyS_openat(s32 dfd, ustring path, x32 flags, x16 mode)")
    expect_eq(protos["vfs_write"], "vfs_write(u64 count=%dx, x64 file)")
    check(re.fullmatch(r"ip_rcv\(b3@\d+/8 pkt_type\+\d+, x64 dev\)", protos["ip_rcv"]),
          protos["ip_rcv"])


def test_existing_event_and_force():
    rc, out, err = result("exists_needs_force")
    expect_eq(rc, 0, err)
    check(out.startswith("rc=1\nrc=0\n"), out)
    check("exists already; --force replaces it" in err, err)
    check("dfd=%di:x64" in out, out)


def test_module_not_loaded():
    rc, out, err = result("module_not_loaded")
    check("rc=1" in out, out)
    check("module 'ext4' is not loaded" in err, err)
    expect_eq(out.split("rc=1\n")[1], "", "nothing added")


def test_tracefs_is_mounted_when_it_is_not():
    rc, out, err = result("mounts_tracefs")
    expect_eq(out, "0\nrc=0\n/sys/kernel/tracing\n", err)


def test_record_shows_path_caller_and_return_value():
    rc, out, err = result("record")
    expect_eq(rc, 0, err)
    check(re.search(r'^ +cat-\d+ \[\d{3}\] +\d+\.\d{6}: do_syscall_64->SyS_openat\(dfd=-100, '
                    r'path="/etc/hostname", flags=0x0, mode=0x0\) = \d+ <\d+\.\d{3} us>$', out, re.M),
          out)
    check("fevent-vm\n" in out and "\nrc=0\n" in out, "cat's output and exit status")
    import json
    objs = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
    expect_eq([(o["comm"], o["caller"], o["args"]["path"], o["ret"]) for o in objs],
              [("cat", "do_syscall_64", "/nonexistent", -2)])
    check("rc=1\n" in out, "cat's failure passed on")
    check(not re.search(r"fevent-\d+", out), "no instance left")
