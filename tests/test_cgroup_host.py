"""record --cgroup PATH and stats --cgroup PATH (issue 35 item 5), on the
host with a cgroup v2 directory the test makes under the cgroup2 mount:
a process in it from the start and one moved into it after the
recording began are traced, with their children; a process outside it
running the same program is not.  Each workload waits on its standard
input until fevent has it in its instance's set_event_pid, so what is
traced does not depend on timing."""
import json
import os
import signal
import subprocess
import time

import fe
from fe import check, expect_eq
from test_stats_bpftrace import add_probes, binary

GROUP = "fevent_test_cg" + fe.TAG


def cgroup2_mount():
    with open("/proc/self/mounts") as f:
        for line in f:
            dev, path, kind = line.split()[:3]
            if kind == "cgroup2":
                return path
    raise fe.Skip("no cgroup v2 hierarchy mounted")


def make_cgroup():
    root = cgroup2_mount()
    path = os.path.join(root, "fevent-test" + fe.TAG)
    try:
        os.mkdir(path)
    except FileExistsError:
        pass
    except OSError as e:
        raise fe.Skip(f"cannot make a cgroup under {root}: {e}")
    return root, path


def remove_cgroup(path):
    for _ in range(100):
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.05)       # its last task is still exiting
    raise AssertionError(f"cannot remove {path}")


def waiting_workload(cgroup=None):
    """fx_counts run once its standard input gives a line; in cgroup if
    given (it moves itself there first, then says so)."""
    move = f'echo $$ > {cgroup}/cgroup.procs; echo in; ' if cgroup else "echo in; "
    p = subprocess.Popen(["sh", "-c", move + f"read go; exec {binary()}"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    expect_eq(p.stdout.readline(), "in\n")
    return p


def wait_followed(fevent, pid, timeout=60):
    """Until fevent's instance follows pid (a wait, bounded)."""
    path = os.path.join(fe.TRACEFS, "instances", f"fevent-{fevent.pid}", "set_event_pid")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        check(fevent.poll() is None, "fevent exited")
        try:
            with open(path) as f:
                if str(pid) in f.read().split():
                    return
        except OSError:
            pass
        time.sleep(0.02)
    raise AssertionError(f"fevent never followed {pid}")


def go(p):
    p.stdin.write("go\n")
    p.stdin.flush()
    p.stdin.close()
    expect_eq(p.wait(timeout=60), 0)


def setup():
    add_probes(GROUP)


def run_with_joiners(args):
    """fevent ARGS --cgroup C with three workloads: one in C from the start,
    one moved into C after fevent armed, one outside; their pids and
    fevent's output."""
    root, cg = make_cgroup()
    before = os.listdir(os.path.join(fe.TRACEFS, "instances"))
    first = waiting_workload(cg)
    fevent = subprocess.Popen([fe.binary(), *args, "-g", GROUP, "--cgroup",
                               os.path.relpath(cg, root)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        fe.wait_armed(fevent, GROUP)
        wait_followed(fevent, first.pid)
        joiner = waiting_workload()
        outside = waiting_workload()
        with open(os.path.join(cg, "cgroup.procs"), "w") as f:
            f.write(str(joiner.pid))
        wait_followed(fevent, joiner.pid)
        for p in (first, joiner, outside):
            go(p)
        fevent.send_signal(signal.SIGINT)
        out, err = fevent.communicate(timeout=60)
        expect_eq(fevent.returncode, 0, err)
        expect_eq(fe.leftover_instances(before), [])
        return first.pid, joiner.pid, outside.pid, out, err
    finally:
        if fevent.poll() is None:
            fevent.kill()
            fevent.wait()
        remove_cgroup(cg)


def test_record_follows_the_cgroup_and_who_joins_it():
    setup()
    try:
        first, joiner, outside, out, err = run_with_joiners(["record", "--json"])
        calls = [json.loads(l) for l in out.splitlines()]
        naps = sorted(o["pid"] for o in calls if o["event"] == "fx_nap")
        expect_eq(naps, sorted([first] * 5 + [joiner] * 5))
        # each one's child (fx_child: 10 fx_work) comes along; not the outsider's
        works = [o for o in calls if o["event"] == "fx_work"]
        expect_eq(len(works), 2 * 80, len(works))
        check(all(o["pid"] != outside for o in calls), calls)
        # the two workloads and a child of each
        pids = {o["pid"] for o in works}
        expect_eq(len(pids), 4, pids)
        check({first, joiner} <= pids, pids)
    finally:
        fe.run("clear", "-q", "-g", GROUP, "--force")


def test_stats_counts_the_cgroup_and_who_joins_it():
    setup()
    try:
        first, joiner, outside, out, err = run_with_joiners(["stats", "--by", "pid", "--json",
                                                             "-e", "fx_nap", "-v"])
        got = {o["keys"]["pid"]: o["count"] for o in map(json.loads, out.splitlines())
               if o.get("event") == f"{GROUP}/fx_nap"}
        expect_eq(got, {first: 5, joiner: 5})
        check("stats: from the event stream (--cgroup: tasks join the cgroup while counting)"
              in err, err)
    finally:
        fe.run("clear", "-q", "-g", GROUP, "--force")


def test_a_path_that_is_no_cgroup_is_refused():
    setup()
    try:
        d = fe.tmpdir("fevent-cg-")
        r = fe.run("record", "-g", GROUP, "--cgroup", d)
        expect_eq((r.returncode, r.stderr),
                  (2, f"fevent: error: --cgroup {d}: {d} is not in a cgroup v2 hierarchy "
                      "(cgroup v1 is not followed)\n"))
        r = fe.run("stats", "-g", GROUP, "--cgroup", "no/such/cgroup")
        root = cgroup2_mount()
        expect_eq((r.returncode, r.stderr),
                  (2, f"fevent: error: --cgroup no/such/cgroup: {root}/no/such/cgroup is not "
                      "a directory\n"))
        r = fe.run("record", "-g", GROUP, "--cgroup", d, "-a")
        expect_eq((r.returncode, r.stderr),
                  (2, "fevent: error: record one of: -a (everything), -p PID, --cgroup PATH, "
                      "or -- CMD ARGS...\n"))
    finally:
        fe.run("clear", "-q", "-g", GROUP, "--force")
