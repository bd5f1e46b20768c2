"""--json is UTF-8 whatever the traced process holds: a process named with
bytes that are no UTF-8 ("\\xc1\\xbb", PR_SET_NAME) and a string argument
of invalid sequences, in record, report and stats.  A byte that is not
part of well-formed UTF-8 is written U+FFFD, and the member "KEY@hex"
beside the string holds its exact bytes (docs/decisions.md, "One escaping
rule"); a valid sequence (e acute) is kept as it is."""
import json
import os
import subprocess
import tempfile

import fe
from fe import check, expect_eq
from test_events_host import FIXTURES, need_uprobes

GROUP = "fevent_utf8" + fe.TAG
PROTO = "int say(string s, int n)"
# fx_utf8.c's string: "a", overlong c1 bb, a lone continuation, a surrogate
# (ed a0 80), past U+10FFFF (f4 90 80 80), overlong e0 80 af, e acute, a
# cut e2 82
S = b"a\xc1\xbb\x80\xed\xa0\x80\xf4\x90\x80\x80\xe0\x80\xaf\xc3\xa9\xe2\x82"
WANT_S = '"a' + "\\ufffd" * 13 + '\u00e9' + "\\ufffd" * 2 + f'","s@hex":"{S.hex()}"'
WANT_COMM = '"\\ufffd\\ufffd","comm@hex":"c1bb"'
_prog = {}


def prog():
    if "path" not in _prog:
        tmp = fe.tmpdir("fevent-utf8-")
        os.chmod(tmp, 0o755)
        path = os.path.join(tmp, "fx_utf8")
        subprocess.run(["gcc", "-g", "-O2", os.path.join(FIXTURES, "fx_utf8.c"), "-o", path],
                       check=True)
        _prog["path"] = path
    return _prog["path"]


def run_bytes(*args):
    r = subprocess.run([fe.binary(), *args], capture_output=True, timeout=300)
    expect_eq(r.returncode, 0, r.stderr.decode(errors="replace"))
    return r.stdout


def lines_of(out):
    """Every line is UTF-8 (strict) and JSON."""
    text = out.decode("utf-8")     # raises on any byte that is no UTF-8
    objs = [json.loads(l) for l in text.splitlines()]
    return text, objs


def with_probes(fn):
    need_uprobes()
    fe.run("clear", "-g", GROUP, "--force")
    r = fe.run("add", "-g", GROUP, "-x", prog(), PROTO)
    expect_eq(r.returncode, 0, r.stderr)
    try:
        fn()
    finally:
        fe.run("clear", "-g", GROUP, "--force")


def check_calls(text, objs):
    # the parent (named by its exec) and the child (named by its fork,
    # after the parent's PR_SET_NAME)
    expect_eq(len(objs), 2, text)
    child = [o for o in objs if o["args"]["n"] == 1]
    expect_eq(len(child), 1, text)
    expect_eq(child[0]["comm"], "\ufffd\ufffd")
    expect_eq(bytes.fromhex(child[0]["comm@hex"]), b"\xc1\xbb")
    expect_eq(bytes.fromhex(child[0]["args"]["s@hex"]), S)
    for line in text.splitlines():
        check(f'"args":{{"s":{WANT_S},' in line, line)
    check(f'"comm":{WANT_COMM},' in [l for l in text.splitlines() if '"n":1}' in l][0], text)


def test_record_and_report_json_are_utf8():
    def go():
        with tempfile.TemporaryDirectory() as d:
            dat = os.path.join(d, "u.dat")
            check_calls(*lines_of(run_bytes("record", "-g", GROUP, "--json", "--", prog())))
            run_bytes("record", "-g", GROUP, "-q", "-o", dat, "--", prog())
            check_calls(*lines_of(run_bytes("report", "-i", dat, "--json")))
    with_probes(go)


def test_stats_json_keys_are_utf8():
    def go():
        text, objs = lines_of(run_bytes("stats", "-g", GROUP, "-e", "say", "--by", "comm,s",
                                        "--json", "--", prog()))
        # both tasks are named "\xc1\xbb" when they call say(): the
        # parent renamed itself before the fork
        expect_eq(text.splitlines(), [f'{{"event":"{GROUP}/say","keys":{{"comm":{WANT_COMM},'
                                      f'"s":{WANT_S}}},"count":2}}'])
    with_probes(go)
