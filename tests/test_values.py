"""Values fevent shows must be the values (issue 9): JSON keys unique when
labels repeat, ..."""
import json

import fe
from fe import expect_eq
from test_events_host import GROUP, clean, prog
from test_record_host import added


def test_repeated_labels_have_unique_json_keys():
    # two reads labelled 'id': the kernel names them id and id__1
    added("traced(n, r->id, x64 id=r->id, string r->name, string name=s)")
    try:
        r = fe.run("record", "-g", GROUP, "--json", "--", prog(), "1")
        expect_eq(r.returncode, 0, r.stderr)
        line = [l for l in r.stdout.splitlines() if l.startswith("{")][0]
        pairs = json.loads(line, object_pairs_hook=lambda kv: kv)
        args = dict(pairs)["args"]
        expect_eq(args, [("n", 0), ("id", 7), ("id__1", 7), ("name", "hello"),
                         ("name__1", "abc")])
        t = fe.run("record", "-g", GROUP, "--", prog(), "1")
        text = [l for l in t.stdout.splitlines() if "traced(" in l][0]
        expect_eq(text.split(": ", 1)[1],
                  'traced(n=0, id=7, id=0x7, name="hello", name="abc")')
    finally:
        clean()
