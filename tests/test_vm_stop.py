"""Ending fevent stats in the kernel at any moment, in the 6.1 test VM
(issue 33, item 5): stats --latency -a -d 20 given SIGTERM (also SIGINT
and SIGHUP) at several moments from the one its handlers are in place
(/proc/PID/status's SigCgt: before that no program can do anything),
through its set-up (instance, synthetic event, triggers) to the count,
ends with exit status 0, as record does, and leaves no instance, no
synthetic event and no trigger.  After SIGKILL, the next fevent command
that makes things in tracefs (clear without --force, stats, record, add)
removes what the dead one left, in one line on stderr; the names of a
live fevent are never taken, those of a pid reused by another program
are."""
import os
import re
import sys

from fe import check, expect_eq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vm"))
import vm  # noqa: E402

PROBE = "ssize_t ksys_read(unsigned int fd, char *buf, size_t count)"
# microseconds after the handlers are in place
TERM_DELAYS = [0, 20000, 50000, 100000, 200000, 400000, 700000, 1000000, 1500000, 2500000]
KILL_DELAYS = [0, 100000, 300000, 700000]

SNIPPET = rf"""T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
fevent add -q '{PROBE}' || exit 1
# until fevent PID catches SIGTERM (bit 14 of SigCgt), 20 s at most
caught() {{
  n=0
  while [ $n -lt 2000 ]; do
    c=$(awk '/^SigCgt/ {{print $2}}' /proc/$1/status 2>/dev/null)
    if [ "$(cat /proc/$1/comm 2>/dev/null)" = fevent ] && [ -n "$c" ] && \
       [ $(( 0x$c & 0x4000 )) -ne 0 ]; then return 0; fi
    usleep 10000; n=$((n+1))
  done
}}
armed() {{
  n=0
  while ! grep -q '^hist:' $T/instances/fevent-$1/events/functions/ksys_read/trigger 2>/dev/null \
      && [ $n -lt 2000 ]; do usleep 10000; n=$((n+1)); done
}}
# what the moment of the signal found: nothing yet, the instance, or the counters on
stage() {{
  if grep -q '^hist:' $T/instances/fevent-$1/events/functions/ksys_read/trigger 2>/dev/null; then
    echo armed
  elif [ -d $T/instances/fevent-$1 ]; then echo instance; else echo none; fi
}}
# every fevent thing left in tracefs, on one line
left() {{
  i=$(ls $T/instances | tr '\n' ' ')
  s=$(awk '{{print $1}}' $T/synthetic_events | tr '\n' ' ')
  t=$(cat $T/events/functions/ksys_read/trigger $T/events/functions/ksys_read__return/trigger \
      | grep -v '^#' | tr '\n' ' ')
  echo "instances=[$i] synthetic=[$s] triggers=[$t]"
}}
for d in {' '.join(map(str, TERM_DELAYS))}; do
  fevent stats --latency -a -d 20 > /tmp/st.out 2> /tmp/st.err & p=$!
  caught $p; usleep $d; at=$(stage $p); kill -TERM $p; wait $p; rc=$?
  echo "TERM $d at=$at rc=$rc $(left) table=$(grep -q '^functions/ksys_read' /tmp/st.out && echo yes)"
  sed 's/^/  err: /' /tmp/st.err
done
# the moment its instance, then its synthetic event, appears (a busy wait
# in the shell: no fork between the look and the signal)
for what in instance instance instance synthetic synthetic synthetic; do
  fevent stats --latency -a -d 20 > /tmp/st.out 2> /tmp/st.err & p=$!
  n=0
  if [ $what = instance ]; then
    while [ ! -d $T/instances/fevent-$p ] && [ $n -lt 200000 ]; do n=$((n+1)); done
  else
    while ! grep -q "^fevent_${{p}}_" $T/synthetic_events && [ $n -lt 20000 ]; do n=$((n+1)); done
  fi
  kill -TERM $p; wait $p; rc=$?
  echo "AT $what rc=$rc $(left)"
  sed 's/^/  err: /' /tmp/st.err
done
for sig in INT HUP; do
  fevent stats --latency -a -d 20 > /tmp/st.out 2> /tmp/st.err & p=$!
  caught $p; usleep 300000; at=$(stage $p); kill -$sig $p; wait $p; rc=$?
  echo "$sig at=$at rc=$rc $(left)"
  sed 's/^/  err: /' /tmp/st.err
done
# SIGKILL: the next command removes what it left
for d in {' '.join(map(str, KILL_DELAYS))}; do
  fevent stats --latency -a -d 20 > /dev/null 2>&1 & p=$!
  caught $p; usleep $d; at=$(stage $p); kill -KILL $p; wait $p
  echo "KILL $d at=$at before: $(left)"
  fevent clear -g nosuch 2> /tmp/st.err; rc=$?
  echo "KILL $d cleared rc=$rc $(left)"
  sed 's/^/  err: /' /tmp/st.err
done
for next in clear stats record add; do
  fevent stats --latency -a -d 20 > /dev/null 2>&1 & p=$!
  armed $p; kill -KILL $p; wait $p
  echo "NEXT $next before: $(left)"
  case $next in
  clear) fevent clear 2> /tmp/st.err; rc=$?; fevent add -q '{PROBE}' ;;
  stats) fevent stats -e ksys_read -a -d 1 > /dev/null 2> /tmp/st.err; rc=$? ;;
  record) fevent record -e ksys_read -a -d 1 > /dev/null 2> /tmp/st.err; rc=$? ;;
  add) fevent add -g other 'vfs_read(x64 file)' 2> /tmp/st.err; rc=$?; fevent clear -q -g other ;;
  esac
  echo "NEXT $next rc=$rc $(left)"
  sed 's/^/  err: /' /tmp/st.err
done
# a live fevent's names stay; a pid that another program reused is gone
fevent stats --latency -a -d 60 > /tmp/st.out 2> /tmp/st.err & p=$!
armed $p
sleep 100 & s=$!
mkdir $T/instances/fevent-$s
echo "fevent_${{s}}_0 u64 lat" >> $T/synthetic_events
names() {{ sed "s/fevent-$p /LIVE /; s/fevent_${{p}}_0 /LIVE_0 /; s/fevent-$s /REUSED /; s/fevent_${{s}}_0 /REUSED_0 /"; }}
echo "LIVE before: $(left)" | names
fevent add -g other 'vfs_read(x64 file)' 2> /tmp/st.err2; rc=$?
echo "LIVE add rc=$rc: $(left)" | names
sed 's/^/  err: /' /tmp/st.err2
fevent clear -q -g other
kill -INT $p; wait $p; rc=$?
kill $s
echo "LIVE end rc=$rc $(left)"
"""


def plan(suite="bookworm"):
    return [("stop", SNIPPET)], None


# this tier's boot is shared with the other tiers of its kernel (vm.share)
vm.share("stop", ("bookworm",), plan)


def results():
    rc, out, err = vm.run_once("stop", *plan())["stop"]
    expect_eq(rc, 0, err + out)
    return out


CLEAN = "instances=[] synthetic=[] triggers=[]"


def test_sigterm_at_any_moment_ends_stats_cleanly():
    out = results()
    lines = [l for l in out.splitlines() if l.startswith("TERM ")]
    expect_eq(len(lines), len(TERM_DELAYS), out)
    for l in lines:
        m = re.fullmatch(r"TERM (\d+) at=(\w+) rc=(\d+) (.*) table=(\w*)", l)
        check(m, l)
        expect_eq(m.group(3), "0", l)
        expect_eq(m.group(4), CLEAN, l)
        # the count's table ("no hits" or not), as at the end of -d
        expect_eq(m.group(5), "yes", out)
    # the signals came during the set-up and during the count
    stages = {re.search(r"at=(\w+)", l).group(1) for l in lines}
    check("armed" in stages and stages - {"armed"}, (stages, out))


def test_sigterm_as_the_instance_or_synthetic_event_appears():
    out = results()
    lines = [l for l in out.splitlines() if l.startswith("AT ")]
    expect_eq(len(lines), 6, out)
    for l in lines:
        check(re.fullmatch(r"AT (instance|synthetic) rc=0 " + re.escape(CLEAN), l), out)


def test_sigint_and_sighup_too():
    out = results()
    for sig in ("INT", "HUP"):
        (l,) = [l for l in out.splitlines() if l.startswith(sig + " ")]
        check(re.fullmatch(rf"{sig} at=\w+ rc=0 " + re.escape(CLEAN), l), out)


def test_after_sigkill_clear_without_force_removes_it_all():
    out = results()
    for d in KILL_DELAYS:
        (l,) = [l for l in out.splitlines() if l.startswith(f"KILL {d} cleared")]
        expect_eq(l, f"KILL {d} cleared rc=0 {CLEAN}", out)
    # killed once armed: its instance and synthetic event were there
    (l,) = [l for l in out.splitlines() if l.startswith("NEXT clear before")]
    check(re.search(r"instances=\[fevent-\d+ \] synthetic=\[fevent_\d+_0 \]", l), out)
    (l,) = [l for l in out.splitlines() if l.startswith("NEXT clear rc")]
    expect_eq(l, f"NEXT clear rc=0 {CLEAN}", out)
    check("fevent: warning: removed 1 stale fevent-* instance and 1 synthetic event of "
          "records that are gone" in out, out)


def test_after_sigkill_the_next_stats_record_or_add_removes_it():
    out = results()
    for cmd in ("stats", "record", "add"):
        text = out.split(f"NEXT {cmd} before")[1]
        head, rest = text.split(f"NEXT {cmd} rc=", 1)
        check(re.search(r"instances=\[fevent-\d+ \] synthetic=\[fevent_\d+_0 \]", head), out)
        expect_eq(rest.splitlines()[0], f"0 {CLEAN}", out)
        expect_eq(rest.splitlines()[1], "  err: fevent: warning: removed 1 stale fevent-* "
                  "instance and 1 synthetic event of records that are gone", out)


def test_a_live_fevents_names_stay_a_reused_pids_go():
    out = results()
    (before,) = [l for l in out.splitlines() if l.startswith("LIVE before")]
    m = re.search(r"instances=\[(.*)\] synthetic=\[(.*)\] triggers", before)
    check(m, out)
    expect_eq(sorted(m.group(1).split()), ["LIVE", "REUSED"], out)
    expect_eq(sorted(m.group(2).split()), ["LIVE_0", "REUSED_0"], out)
    (after,) = [l for l in out.splitlines() if l.startswith("LIVE add")]
    check(re.search(r"rc=0: instances=\[LIVE \] synthetic=\[LIVE_0 \]", after), out)
    check("  err: fevent: warning: removed 1 stale fevent-* instance and 1 synthetic event of "
          "records that are gone" in out.split("LIVE add")[1], out)
    (end,) = [l for l in out.splitlines() if l.startswith("LIVE end")]
    expect_eq(end, f"LIVE end rc=0 {CLEAN}", out)
