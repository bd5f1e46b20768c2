"""Issue 31 ("one answer to each question") items on the kernels that name
them, in the test VM: one boot per kernel, every item's snippet in it.

Item 7: 7.2 renamed do_filp_open to do_file_open.  `check` with that
kernel's BTF called the old name 'inlined' (BTF alone cannot tell inlined
from gone); `add` said 'did you mean'.  Both now say the same."""
import os
import sys

import fe
from fe import check, expect_eq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vm"))
import vm  # noqa: E402

SNIPPET = """T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
echo ::renamed
grep -c ' do_file_open$' /proc/kallsyms
fevent check --json --btf /sys/kernel/btf/vmlinux 'do_filp_open(dfd)'; echo rc=$?
fevent add 'do_filp_open(dfd)'; echo rc=$?
echo ::left
cat $T/dynamic_events
"""


def plan(suite):
    return [("issue31", SNIPPET)], None


# this tier's boots are shared with the other tiers of each kernel (vm.share)
vm.share("issue31", ("sid",), plan)


def sections(suite):
    rc, out, err = vm.run_once("issue31", *plan(suite), suite=suite)["issue31"]
    expect_eq(rc, 0, err)
    return vm.split_sections(out), err


def test_check_and_add_agree_on_a_renamed_function_on_7_2():
    import json
    parts, err = sections("sid")
    lines = parts["renamed"].splitlines()
    expect_eq(lines[0], "1", parts["renamed"])
    cell = json.loads(lines[1])["kernels"][0]
    # was 'inlined': a function BTF lacks is missing, with the new name
    expect_eq(cell["state"], "missing", lines[1])
    check("does not describe 'do_filp_open'; did you mean 'do_file_open'?" in cell["why"],
          cell["why"])
    expect_eq(lines[2:], ["rc=1", "rc=2"], parts["renamed"])
    check("did you mean 'do_file_open'?" in err, err)
    expect_eq(parts["left"], "", err)
