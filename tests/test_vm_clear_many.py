"""clear of a group of hundreds of kprobes in the 6.1 test VM (issue 34
item 5): the whole group goes in one '-:GROUP/' write where the kernel's
README shows the event optional, which must take only fevent's events.

- 300 functions added, list shows their hits; clear removes all 300 and
  leaves another group's kprobe, made by hand, in place;
- an event of the group that fevent does not list (an eprobe, 'e:') keeps
  clear from the group-wide write: fevent's kprobes go one by one, the
  eprobe stays;
- clear EVENT removes that one alone; an enabled event is left in place
  without --force (and the rest of the group goes), with --force it goes.
"""
import os
import sys

from fe import check, expect_eq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vm"))
import vm  # noqa: E402

SNIPPET = r"""T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
fevent funcs '*' | awk 'NR % 100 == 1' | head -n 300 | sed 's/$/(...)/' > /tmp/p
echo 'p:other/keep vfs_read' >> $T/kprobe_events
fevent add -q -f /tmp/p; echo rc=$?
echo ::added; grep -c ':functions/' $T/dynamic_events
echo ::listed; fevent list | grep -c '^functions/'
echo ::clear; fevent clear; echo rc=$?
grep -c ':functions/' $T/dynamic_events; grep -c ':other/keep ' $T/dynamic_events
fevent add -q -f /tmp/p
echo ::eprobe; echo 'e:functions/foreign syscalls.sys_enter_openat' >> $T/dynamic_events; echo eprobe=$?
echo ::foreign; fevent clear; echo rc=$?
grep -c '^p:functions/' $T/dynamic_events; grep -c '^e:functions/foreign ' $T/dynamic_events
echo '-:functions/foreign' >> $T/dynamic_events
fevent add -q 'vfs_read(...)' 'vfs_write(...)' 'ksys_read(...)'
echo ::one; fevent clear vfs_write; echo rc=$?
grep -o ':functions/[a-z_]*' $T/dynamic_events | sort
echo 1 > $T/events/functions/vfs_read/enable
echo ::enabled; fevent clear 2>&1; echo rc=$?
grep -o ':functions/[a-z_]*' $T/dynamic_events | sort
echo ::force; fevent clear --force 2>&1; echo rc=$?
grep -c ':functions/' $T/dynamic_events
# the other group's probe goes too: the next tier of a shared boot
# (vm.share) starts with no probe of this one's
echo '-:other/keep' >> $T/kprobe_events
true
"""


def plan(suite="bookworm"):
    return [("clear_many", SNIPPET)], None


# this tier's boot is shared with the other tiers of its kernel (vm.share)
vm.share("clear_many", ("bookworm",), plan)


def sections():
    rc, out, err = vm.run_once("clear_many", *plan())["clear_many"]
    expect_eq(rc, 0, f"{out}\n{err}")
    return vm.split_sections(out)


def test_clear_removes_the_whole_group_and_nothing_else():
    p = sections()
    expect_eq(p["added"].split(), ["300"], p["added"])
    expect_eq(p["listed"].split(), ["300"], p["listed"])
    expect_eq(p["clear"].splitlines()[-3:], ["rc=0", "0", "1"], p["clear"])


def test_an_event_fevent_does_not_list_keeps_the_group_write_away():
    p = sections()
    expect_eq(p["eprobe"].split(), ["eprobe=0"], "the eprobe was made")
    lines = p["foreign"].splitlines()
    check(any(l == "rc=0" for l in lines), p["foreign"])
    expect_eq(lines[-2:], ["0", "1"], p["foreign"])


def test_named_and_enabled_events():
    p = sections()
    expect_eq(p["one"].splitlines()[-3:], ["rc=0", ":functions/ksys_read", ":functions/vfs_read"],
              p["one"])
    en = p["enabled"].splitlines()
    check(any("functions/vfs_read is enabled" in l and "left in place" in l for l in en),
          p["enabled"])
    expect_eq(en[-1], ":functions/vfs_read", p["enabled"])
    expect_eq(p["force"].splitlines()[-2:], ["rc=0", "0"], p["force"])
