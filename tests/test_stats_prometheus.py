"""stats --prometheus FILE (issue 35 item 7): the counts of a workload with
known counts (tests/fixtures/fx_counts.c), read back with a real parser of
the text exposition format (Debian's python3-prometheus-client, run by the
system's python3): a counter per event and key, and histograms whose
cumulative buckets, sum and count are the workload's.  With -i the file is
rewritten whole at each interval and holds the whole run's counts."""
import json
import os
import subprocess

import fe
from fe import check, expect_eq
from test_stats_bpftrace import add_probes, binary

GROUP = "fevent_test_prom" + fe.TAG
LENS = [x for x in (0, 1, 3, 5, 100, 1000, -7) for _ in range(10)] + list(range(10))

PARSE = r"""
import json, sys
from prometheus_client.parser import text_string_to_metric_families
out = []
for fam in text_string_to_metric_families(open(sys.argv[1]).read()):
    for s in fam.samples:
        out.append([fam.name, fam.type, s.name, s.labels, s.value])
print(json.dumps(out))
"""


def parse(path):
    """[(family, type, sample, labels, value)] as prometheus_client reads them."""
    r = subprocess.run(["/usr/bin/python3", "-c", PARSE, path], capture_output=True, text=True)
    if "No module named 'prometheus_client'" in r.stderr:
        raise fe.Skip("no prometheus_client (Debian's python3-prometheus-client)")
    expect_eq(r.returncode, 0, r.stderr[-2000:])
    return json.loads(r.stdout)


def setup():
    add_probes(GROUP)


def stats(d, name, *args):
    path = os.path.join(d, name)
    r = fe.run("stats", "-g", GROUP, "--prometheus", path, *args)
    expect_eq(r.returncode, 0, r.stderr)
    # written whole under a temporary name, renamed: none is left
    expect_eq([n for n in os.listdir(d) if n.startswith(".")], [])
    return parse(path)


def test_counts_and_histograms_read_back_by_prometheus_client():
    setup()
    try:
        d = fe.tmpdir("fevent-prom-")
        got = stats(d, "count.prom", "--by", "comm", "--", binary())
        expect_eq({(s[3]["event"], s[3]["comm"]): s[4] for s in got if s[2] == "fevent_hits_total"},
                  {(f"{GROUP}/fx_work", "fx_counts"): 70, (f"{GROUP}/fx_work", "fx_child"): 10,
                   (f"{GROUP}/fx_work__return", "fx_counts"): 70,
                   (f"{GROUP}/fx_work__return", "fx_child"): 10,
                   (f"{GROUP}/fx_nap", "fx_counts"): 5, (f"{GROUP}/fx_nap__return", "fx_counts"): 5})
        check(all(s[1] == "counter" for s in got), got)

        got = stats(d, "hist.prom", "--hist", "len", "-e", "fx_work", "--", binary())
        check(all(s[1] == "histogram" and s[0] == "fevent_value" for s in got), got)
        buckets = {s[3]["le"]: s[4] for s in got if s[2] == "fevent_value_bucket"}
        for le, n in buckets.items():
            want = len(LENS) if le == "+Inf" else sum(1 for x in LENS if x <= float(le))
            expect_eq(n, want, f"le={le}")
        expect_eq(set(buckets), {"-1", "0", "1", "3", "7", "15", "31", "63", "127", "255", "511",
                                 "1023", "+Inf"})
        expect_eq([s[4] for s in got if s[2] == "fevent_value_sum"], [sum(LENS)])
        expect_eq([s[4] for s in got if s[2] == "fevent_value_count"], [len(LENS)])
        expect_eq({s[3]["field"] for s in got}, {"len"})

        got = stats(d, "lat.prom", "--latency", "-e", "fx_nap", "--", binary())
        check(all(s[0] == "fevent_call_duration_seconds" for s in got), got)
        expect_eq([s[4] for s in got if s[2].endswith("_count")], [5])
        (total,) = [s[4] for s in got if s[2].endswith("_sum")]
        check(5 * 0.003 <= total < 60, total)       # five sleeps of 3 ms
        inf = [s[4] for s in got if s[2].endswith("_bucket") and s[3]["le"] == "+Inf"]
        expect_eq(inf, [5])
        # every sleep is 3 ms or more: no bucket below it holds one
        check(all(s[4] == 0 or float(s[3]["le"]) >= 0.003 for s in got
                  if s[2].endswith("_bucket") and s[3]["le"] != "+Inf"), got)
    finally:
        fe.run("clear", "-q", "-g", GROUP, "--force")


def test_intervals_rewrite_the_whole_runs_counts():
    setup()
    try:
        d = fe.tmpdir("fevent-prom-i-")
        path = os.path.join(d, "i.prom")
        script = f"{binary()}; sleep 0.6; {binary()}"
        r = fe.run("stats", "-g", GROUP, "-e", "fx_work", "-i", "0.2", "--json",
                   "--prometheus", path, "--", "sh", "-c", script)
        expect_eq(r.returncode, 0, r.stderr)
        # the intervals' JSON count each interval; the file the whole run
        per = sum(json.loads(l)["count"] for l in r.stdout.splitlines()
                  if json.loads(l).get("event") == f"{GROUP}/fx_work")
        expect_eq(per, 160)
        got = parse(path)
        expect_eq({s[3]["event"]: s[4] for s in got if s[2] == "fevent_hits_total"},
                  {f"{GROUP}/fx_work": 160, f"{GROUP}/fx_work__return": 160})
        expect_eq([n for n in os.listdir(d) if n != "i.prom"], [])
    finally:
        fe.run("clear", "-q", "-g", GROUP, "--force")


def test_a_path_that_cannot_be_written_is_refused_before_counting():
    setup()
    try:
        d = fe.tmpdir("fevent-prom-bad-")
        r = fe.run("stats", "-g", GROUP, "--prometheus", d, "-d", "0.1", "-a")
        expect_eq(r.returncode, 2, r.stderr)
        expect_eq(r.stderr, f"fevent: error: cannot write {d}: it is a directory\n")
        expect_eq(os.listdir(d), [])
    finally:
        fe.run("clear", "-q", "-g", GROUP, "--force")
