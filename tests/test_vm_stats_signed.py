"""stats of a signed bitfield in the 6.1 test VM, both ways: the kernel
reads a bitfield as unsigned (b5@3/32), so its hist trigger keys -7 as 25;
fevent sign-extends the key and the --hist value from the field's width,
as record and the event stream do (tests/fixtures/fx_sbits.c, static:
take() sees bf2 = -7 twice and 3 once).  The kernel's stats said 25."""
import json
import os
import sys

from fe import check, expect_eq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vm"))
import vm  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RUN = "/tests/fx_sbits"

SNIPPET = rf"""T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
fevent add -q -g sbits -x {RUN} 'take(p->bf2, p->bf1, p->sc)' || exit 1
for way in kernel stream; do
  opt=; [ $way = stream ] && opt=--stream
  echo ::$way-by; fevent stats -v -g sbits $opt --json --by bf2,sc -- {RUN}; echo rc=$?
  echo ::$way-hist; fevent stats -v -g sbits $opt --json --hist bf2 -- {RUN}; echo rc=$?
done
echo ::left; fevent clear -q -g sbits; echo rc=$?; ls $T/instances
"""


def workload():
    return vm.static_binary(os.path.join(HERE, "fixtures", "fx_sbits.c"), "fevent-fx_sbits-static",
                            ("-g", "-O2"))


def plan(suite="bookworm"):
    return [("sbits", SNIPPET)], {RUN: workload()}


# this tier's boot is shared with the other tiers of its kernel (vm.share)
vm.share("stats-signed", ("bookworm",), plan)


def sections():
    rc, out, err = vm.run_once("stats-signed", *plan())["sbits"]
    expect_eq(rc, 0, err)
    return vm.split_sections(out), err


def objects(text):
    return [json.loads(l) for l in text.splitlines() if l.startswith("{")]


def test_a_signed_bitfield_key_is_its_value_both_ways():
    parts, err = sections()
    check("stats: in the kernel (hist triggers)" in err, err)
    for way in ("kernel", "stream"):
        expect_eq(parts[f"{way}-by"].splitlines()[-1], "rc=0", way)
        expect_eq(sorted((o["keys"]["bf2"], o["keys"]["sc"], o["count"])
                         for o in objects(parts[f"{way}-by"])),
                  [(-7, -100, 2), (3, -100, 1)], way)


def test_a_signed_bitfield_histogram_is_of_its_values_both_ways():
    parts, _ = sections()
    for way in ("kernel", "stream"):
        expect_eq(parts[f"{way}-hist"].splitlines()[-1], "rc=0", way)
        expect_eq([(o["count"], o["min"], o["p50"], o["max"], o["sum"])
                   for o in objects(parts[f"{way}-hist"])], [(3, -7, -7, 3, -11)], way)


def test_nothing_left():
    parts, _ = sections()
    expect_eq(parts["left"], "rc=0\n")
