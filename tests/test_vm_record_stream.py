"""record's loop in the 6.1 test VM (one CPU): a burst of known reads
(a kprobe on ksys_read, bench/fx_loop.c built static) recorded at a 1 MB
buffer loses nothing, to a file or live, the count exact, where trace-cmd
record (this machine's, copied in) on the same workload and buffer loses
nothing either; a recorder that
cannot read (stopped, every thread of it, before the burst) while the
buffer overflows says how many events the kernel overwrote and the -b
that would have held them."""
import os
import re
import shutil
import sys

from fe import check, expect_eq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vm"))
import vm  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
LOOP = "/tests/fx_loop"
CALLS = 20000

SNIPPET = rf"""T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
# until fevent PID records (its event enabled in its instance, and the
# instance tracing: fevent enables with tracing off, then turns it on),
# 120 s at most (a VM sharing a loaded host); said if it never did
armed() {{
  n=0
  while {{ [ "$(cat $T/instances/fevent-$1/events/functions/ksys_read/enable 2>/dev/null)" != 1 ] \
      || [ "$(cat $T/instances/fevent-$1/tracing_on 2>/dev/null)" != 1 ]; }} \
      && [ $n -lt 12000 ]; do usleep 10000; n=$((n+1)); done
  [ $n -lt 12000 ] || echo "fevent $1 never armed"
}}
# entry only: one event a read
fevent add -q 'ksys_read(fd, count)' || exit 1
echo ::file
fevent record -b 1024 -o /tmp/f.dat -- {LOOP} read {CALLS} /tmp/loop > /tmp/lines 2> /tmp/sum
echo rc=$?; cat /tmp/sum; grep -c 'ksys_read(fd=' /tmp/lines
echo ::report
fevent report -i /tmp/f.dat > /tmp/lines 2> /tmp/sum; echo rc=$?; cat /tmp/sum
grep -c 'ksys_read(fd=' /tmp/lines
echo ::trace-cmd
export HOME=/tmp
trace-cmd record -q -b 1024 -e functions:ksys_read -F -o /tmp/t.dat {LOOP} read {CALLS} /tmp/loop > /dev/null 2>&1
echo rc=$?; trace-cmd report -q -i /tmp/t.dat 2>/dev/null | grep -c 'ksys_read:'; rm -f /tmp/t.dat*
echo ::live
fevent record -b 1024 -- {LOOP} read {CALLS} /tmp/loop 2> /tmp/sum | grep -c 'ksys_read(fd='
cat /tmp/sum
# until every thread of PID (the readers too) has stopped, 20 s at most
stopped() {{
  n=0
  while grep -h '^State:' /proc/$1/task/*/status | grep -qv 'T (stopped)' \
      && [ $n -lt 2000 ]; do usleep 10000; n=$((n+1)); done
}}
echo ::overrun
fevent record -b 8 -o /tmp/g.dat -a > /dev/null 2> /tmp/sum & p=$!; armed $p
# nothing of fevent reads while the loop runs, however fast its readers
kill -STOP $p; stopped $p
grep -h '^State:' /proc/$p/task/*/status | sort | uniq -c | sed 's/^ *//'
{LOOP} read {CALLS} /tmp/loop; kill -CONT $p; kill -INT $p; wait $p; echo rc=$?
cat /tmp/sum
echo ::left
ls $T/instances; ls -a /tmp | grep '^\.' | grep -v '^\.\.\?$'
fevent clear -q; echo rc=$?
"""


def workload():
    return vm.static_binary(os.path.join(HERE, "..", "bench", "fx_loop.c"), "fevent-fx_loop")


def plan(suite="bookworm"):
    files = {LOOP: workload()}
    if shutil.which("trace-cmd"):
        files["/usr/bin/trace-cmd"] = shutil.which("trace-cmd")
    return [("record_stream", SNIPPET)], files


# this tier's boot is shared with the other tiers of its kernel (vm.share)
vm.share("record_stream", ("bookworm",), plan)


def sections():
    rc, out, err = vm.run_once("record_stream", *plan())["record_stream"]
    expect_eq(rc, 0, err)
    return vm.split_sections(out)


def test_a_burst_recorded_to_a_file_loses_nothing():
    s = sections()
    # the peer at the same rate and buffer: trace-cmd keeps every event
    # of the burst too (ksys_read once per read; the loop's own reads only,
    # trace-cmd -F following the command)
    expect_eq(s["trace-cmd"], f"rc=0\n{CALLS}\n", "trace-cmd record of the same burst")
    expect_eq(s["file"], f"rc=0\nfevent: {CALLS} events; none lost\n{CALLS}\n")
    expect_eq(s["report"], f"rc=0\nfevent: {CALLS} events; none lost in the buffers\n{CALLS}\n")


def test_a_burst_recorded_live_loses_nothing():
    expect_eq(sections()["live"], f"{CALLS}\nfevent: {CALLS} events; none lost\n")


def test_an_overrun_names_the_buffer_that_would_have_held_it():
    text = sections()["overrun"]
    lines = text.splitlines()
    # the burst came while every thread of fevent was stopped (its main
    # thread and its reader): none read, however fast it would have
    check(re.fullmatch(r"\d+ State:\tT \(stopped\)", lines[0]), text)
    expect_eq(lines[1], "rc=0", text)
    m = re.fullmatch(r"fevent: warning: the kernel overwrote (\d+) events before fevent read "
                     r"them \(the buffer is 8 KB a CPU\); -b (\d+) would have held them", lines[2])
    check(m, text)
    lost, need = int(m.group(1)), int(m.group(2))
    # all of the burst but what the buffer holds: 8 KB is three pages and
    # the reader's, at most some 130 of these 32-byte events a page
    check(CALLS - 1000 < lost, text)
    # a power of two past what was lost, at some tens of bytes an event
    check(need & (need - 1) == 0 and need * 1024 >= lost * 16, text)
    check(re.fullmatch(rf"fevent: \d+ events; LOST: cpu0 .*\(a larger buffer: -b {need} would "
                       r"have held them\)", lines[3]), text)


def test_nothing_is_left():
    expect_eq(sections()["left"], "rc=0\n")
