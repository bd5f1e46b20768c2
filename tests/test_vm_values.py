"""Values by name on the 6.1 kernel (DESIGN.md section 16), in one boot:
a kernel function's error return as its errno name, an ERR_PTR by name,
an enum parameter by its enumerator, a whole struct ('*how') grouped back
into one value, and filters that take errno and enumerator names -- live,
in --json and in a trace.dat's report.  busybox 'cat /nonexistent' opens
a missing file (do_sys_openat2 and do_filp_open fail with -ENOENT, flags
O_RDONLY|O_LARGEFILE); 'sleep' sleeps through hrtimer_nanosleep with a
relative time (HRTIMER_MODE_REL)."""
import json
import re

from fe import caret_column, check, expect_eq
import vm

OPENAT2 = "long do_sys_openat2(dfd, string filename, *how)"
FILP = "struct file *do_filp_open(dfd)"
SLEEP = "long hrtimer_nanosleep(mode)"

SNIPPET = rf"""T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
mkdir -p /run    # the VM's initramfs has none; fevent keeps state there
echo ::compile; fevent compile '{OPENAT2}' 2>&1; echo rc=$?
fevent add -q '{OPENAT2}' '{FILP}' '{SLEEP}' || exit 1
echo ::values; cat /run/fevent/functions/+*.notes; echo rc=$?
echo ::record; fevent record -e do_sys_openat2 -e do_sys_openat2__return \
	-e do_filp_open -e do_filp_open__return -- cat /nonexistent 2>/dev/null | cat; echo rc=$?
echo ::json; fevent record --json -e do_sys_openat2 -e do_sys_openat2__return \
	-e do_filp_open -e do_filp_open__return -- cat /nonexistent 2>/dev/null | cat; echo rc=$?
echo ::sleep; fevent record -e hrtimer_nanosleep -e hrtimer_nanosleep__return \
	-- sleep 0.01 | cat; echo rc=$?
# add's side files hidden: each event's values read again from BTF, all
# the events' compiles in one batch (value_derive.c)
echo ::derived; mv /run/fevent /run/fevent.kept
fevent record -e do_sys_openat2 -e do_sys_openat2__return -e do_filp_open \
	-e do_filp_open__return -e hrtimer_nanosleep -e hrtimer_nanosleep__return \
	-- sh -c 'cat /nonexistent; sleep 0.01' 2>&1 | cat; echo rc=$?
mv /run/fevent.kept /run/fevent
echo ::errors; fevent record --errors -- cat /nonexistent 2>/dev/null; echo rc=$?
echo ::report; fevent record -q -o /tmp/v.dat -- cat /nonexistent >/dev/null 2>&1
fevent report -i /tmp/v.dat 2>/dev/null | grep -e do_sys_openat2 -e do_filp_open -e hrtimer_nanosleep; echo rc=$?
fevent clear -q; echo rc=$?
echo ::filters; fevent add -q '{OPENAT2} if ret == -ENOENT' 'hrtimer_nanosleep(mode) if mode == HRTIMER_MODE_REL' || exit 1
cat $T/events/functions/do_sys_openat2__return/filter $T/events/functions/hrtimer_nanosleep/filter
echo ::listed; fevent list | grep ' if '
echo ::filtered; fevent record -- sh -c 'cat /nonexistent; cat /proc/version; sleep 0.01' 2>/dev/null | grep -e 'do_sys_openat2(' -e 'hrtimer_nanosleep('; echo rc=$?
fevent clear -q; echo rc=$?
echo ::callfilter; fevent add -q 'long do_sys_openat2(dfd, string filename) if ret == -ENOENT && filename ~ "/nonex*"' || exit 1
cat /run/fevent/functions/do_sys_openat2.filter
echo ::calllisted; fevent list | grep ' if '
echo ::callfiltered; fevent record -- sh -c 'cat /nonexistent; cat /proc/version; cat /nonexistent2' 2>/dev/null | grep 'do_sys_openat2('; echo rc=$?
fevent clear -q; echo rc=$?
echo ::bad; fevent compile '{OPENAT2} if ret == -ENOENTT' 2>&1; echo rc=$?
echo ::badenum; fevent compile 'hrtimer_nanosleep(mode) if mode == HRTIMER_MODE_RELL' 2>&1; echo rc=$?
echo ::huge; fevent compile 'wake_up_process(*p)' 2>&1; echo rc=$?
"""

HEAD = re.compile(r"^ *\S+-\d+ \[\d{3}\] +\d+\.\d{6}: (.*)$")
DUR = r" <\d+\.\d{3} us>"


def plan(suite="bookworm"):
    return [("values", SNIPPET)], None


# this tier's boot is shared with the other tiers of its kernel (vm.share)
vm.share("values", ("bookworm",), plan)


def sections():
    rc, out, err = vm.run_once("values", *plan())["values"]
    expect_eq(rc, 0, err)
    return vm.split_sections(out)


def calls(text, func):
    got = []
    for line in text.splitlines():
        m = HEAD.match(line)
        if m and f"{func}(" in m[1]:
            got.append(m[1])
    return got


def test_whole_struct_compiles_to_its_members():
    p = sections()
    expect_eq(p["compile"],
              "p:functions/do_sys_openat2 do_sys_openat2 __caller=$stack0:symbol dfd=%di:s32 "
              "filename=+0(%si):string flags=+0(%dx):x64 mode=+8(%dx):x64 "
              "resolve=+16(%dx):x64\n"
              "r:functions/do_sys_openat2__return do_sys_openat2 ret=$retval:s64\nrc=0\n")
    # how the view shows them, kept beside the events: one note of the
    # add, a line an event ("EVENT<tab>PLACE<tab>FILE<tab>VALUES",
    # newlines escaped), +TIME.PID.notes
    text, rc = p["values"].rsplit("rc=", 1)
    expect_eq(rc, "0\n")
    lines = text.split("\n")
    expect_eq(lines[0], "#notes 1")
    noted = {l.split("\t")[0]: l.split("\t")[1:] for l in lines[1:] if l}
    expect_eq(noted["do_sys_openat2"], ["", "", "flags in how flags\\nmode in how mode\\n"
                                                "resolve in how resolve\\n"])
    expect_eq(noted["do_sys_openat2__return"], ["", "", "ret errno\\n"])
    expect_eq(noted["do_filp_open__return"], ["", "", "ret err_ptr\\n"])


def test_errno_names_err_ptr_and_struct_live_json_and_report():
    p = sections()
    opens = calls(p["record"], "do_sys_openat2")
    expect_eq(len(opens), 1, p["record"])
    check(re.fullmatch(r'\S+->do_sys_openat2\(dfd=-100, filename="/nonexistent", '
                       r'how=\{flags=0x8000, mode=0x0, resolve=0x0\}\) = -2 \(ENOENT\)' + DUR,
                       opens[0]), opens[0])
    # the exec's open of cat succeeds: a pointer, in hex; the missing file's fails
    filps = calls(p["record"], "do_filp_open")
    expect_eq(len(filps), 2, p["record"])
    check(re.fullmatch(r"do_open_execat->do_filp_open\(dfd=-100\) = 0xff[0-9a-f]{14}" + DUR,
                       filps[0]), filps[0])
    check(re.fullmatch(r"do_sys_openat2->do_filp_open\(dfd=-100\) = ERR_PTR\(-2\) \(ENOENT\)"
                       + DUR, filps[1]), filps[1])
    check(p["record"].endswith("rc=0\n"), p["record"])
    objs = {o["event"]: o for o in map(json.loads, (l for l in p["json"].splitlines()
                                                    if l.startswith("{")))
            if o.get("caller") != "do_open_execat"}
    o = objs["do_sys_openat2"]
    expect_eq((o["args"], o["ret"], o["error"]),
              ({"dfd": -100, "filename": "/nonexistent",
                "how": {"flags": "0x8000", "mode": "0x0", "resolve": "0x0"}}, -2, "ENOENT"))
    o = objs["do_filp_open"]
    expect_eq((o["ret"], o["error"]), ("0xfffffffffffffffe", "ENOENT"))
    # a trace.dat carries how its fields are shown
    rep = [HEAD.match(l)[1] for l in p["report"].splitlines() if HEAD.match(l)]
    check(any(re.fullmatch(r'\S+->do_sys_openat2\(dfd=-100, filename="/nonexistent", '
                           r'how=\{flags=0x8000, mode=0x0, resolve=0x0\}\) = -2 \(ENOENT\)' + DUR,
                           c) for c in rep), p["report"])
    check(any(re.fullmatch(r"\S+->do_filp_open\(dfd=-100\) = ERR_PTR\(-2\) \(ENOENT\)" + DUR, c)
              for c in rep), p["report"])


def test_errors_mode_reads_the_named_values():
    # record --errors finds the error in the view's "ERR_PTR(-2) (ENOENT)"
    p = sections()
    text = p["errors"]
    check(re.search(r"^ +cat-\d+ \[\d{3}\] +\d+\.\d{6}: do_sys_openat2 failed: -2 \(ENOENT\)",
                    text, re.M), text)
    check(re.search(r"^        do_filp_open\(dfd=-100\) = ERR_PTR\(-2\) \(ENOENT\)" + DUR + "\n"
                    r"     <- do_sys_openat2\(dfd=-100, filename=\"/nonexistent\", how=\{.*\}\) "
                    r"= -2 \(ENOENT\)" + DUR + "$", text, re.M), text)


def test_enum_parameter_by_its_enumerator():
    p = sections()
    sleeps = calls(p["sleep"], "hrtimer_nanosleep")
    check(sleeps, p["sleep"])
    for c in sleeps:
        check(re.fullmatch(r"\S+->hrtimer_nanosleep\(mode=HRTIMER_MODE_REL\) = 0" + DUR, c), c)


def test_values_are_read_again_when_add_kept_none():
    """Without add's side files, record reads each event's values again
    from BTF (all the events' compiles at once): the enumerator and the
    errno names are the same, and nothing is said missing."""
    p = sections()
    text = p["derived"]
    check("warning" not in text, text)
    sleeps = calls(text, "hrtimer_nanosleep")
    check(sleeps, text)
    for c in sleeps:
        check(re.fullmatch(r"\S+->hrtimer_nanosleep\(mode=HRTIMER_MODE_REL\) = 0" + DUR, c), c)
    filps = calls(text, "do_filp_open")
    check(any(re.fullmatch(r"do_sys_openat2->do_filp_open\(dfd=-100\) = ERR_PTR\(-2\) "
                           r"\(ENOENT\)" + DUR, c) for c in filps), text)
    opens = calls(text, "do_sys_openat2")
    check(any(re.fullmatch(r'\S+->do_sys_openat2\(dfd=-100, filename="/nonexistent", .*\) '
                           r'= -2 \(ENOENT\)' + DUR, c) for c in opens), text)
    check(text.endswith("rc=0\n"), text)


def test_filters_take_errno_and_enumerator_names():
    p = sections()
    expect_eq(p["filters"], "ret == -2\nmode == 1\n")
    # list renders them back as the prototype wrote them, as the view
    # shows the values (the kernel holds the numbers)
    listed = p["listed"].splitlines()
    expect_eq(len(listed), 2, p["listed"])
    check(listed[0].endswith(") if ret == -ENOENT"), listed)
    check(listed[1].endswith(") if mode == HRTIMER_MODE_REL"), listed)
    got = [HEAD.match(l)[1] for l in p["filtered"].splitlines() if HEAD.match(l)]
    expect_eq(len(got), 2, p["filtered"])
    check(re.fullmatch(r'\S+->do_sys_openat2\(dfd=-100, filename="/nonexistent", how=\{.*\}\) '
                       r'= -2 \(ENOENT\)' + DUR, got[0]), got)
    check(re.fullmatch(r"\S+->hrtimer_nanosleep\(mode=HRTIMER_MODE_REL\)", got[1]), got)


def test_filters_on_whole_calls_take_errno_names():
    # arguments and ret together: 6.1's return probes read no $argN, so
    # fevent holds each entry until its return decides (call_filter.c)
    p = sections()
    expect_eq(p["callfilter"], 'ret == -2 && filename ~ "/nonex*"\n')
    listed = p["calllisted"].splitlines()
    expect_eq(len(listed), 1, p["calllisted"])
    check(listed[0].endswith(' if ret == -ENOENT && filename ~ "/nonex*"'), listed)
    got = [HEAD.match(l)[1] for l in p["callfiltered"].splitlines() if HEAD.match(l)]
    expect_eq(len(got), 2, p["callfiltered"])
    for c, name in zip(got, ("/nonexistent", "/nonexistent2")):
        check(re.fullmatch(rf'\S+->do_sys_openat2\(dfd=-100, filename="{name}"\) = -2 \(ENOENT\)'
                           + DUR, c), c)


def test_names_that_are_no_names_and_structs_past_the_limits():
    p = sections()
    bad = p["bad"].splitlines()
    expect_eq(bad[0], "fevent: error: column 60: no errno is named 'ENOENTT'")
    check(p["bad"].endswith("rc=2\n"), p["bad"])
    expect_eq(p["badenum"].splitlines()[0],
              "fevent: error: column 36: 'mode' has no enumerator 'HRTIMER_MODE_RELL'; "
              "did you mean 'HRTIMER_MODE_REL'?")
    check(p["badenum"].endswith("rc=2\n"), p["badenum"])
    huge = p["huge"]
    check(huge.startswith("fevent: error: column 17: too many arguments"), huge)
    expect_eq(caret_column(huge), 17)
    check(huge.endswith("rc=2\n"), huge)
