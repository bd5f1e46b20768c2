"""What the kernel can do, asked in one place (issue 31, DESIGN.md sections 6
and 14), on the four kernels of the matrix, one boot each.

- compile answers as add does: on the running kernel (root, tracefs
  mounted) `compile` prints exactly what `add` prints and the kernel lists
  afterwards (dynamic_events, each event's filter file): return events
  that carry the entry's arguments and a kernel filter on the return where
  the README offers $arg<N> in return probes (6.12, 7.2), fprobes where it
  offers f: events, separate events and a call filter elsewhere.  The
  kernel's rN: (the return instances add sizes) is its own and is read as
  r:.
- tp: on a kernel whose README has no tracepoint probe events (5.10, 6.1)
  is refused by compile and add naming the feature, exit 2, nothing left;
  proto prints the tracepoint's signature and says it cannot be created;
  compile for another kernel (--btf) still prints the t: line.
- each kernel's README is kept (tests/fixtures/readme/) for the unit test
  of the parser (tests/unit/test_kernel_caps.c); FEVENT_SAVE_README=1
  writes them again.
"""
import os
import re
import sys

from fe import check, expect_eq

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "vm"))
import vm  # noqa: E402

FIXTURES = os.path.join(HERE, "fixtures", "readme")

# (what compile and add are given), each added alone and cleared
PROTOS = [
    # the issue's: a return event with the entry's arguments and a filter
    # over both
    "-r 'do_sys_openat2(dfd, filename) if dfd == -100 && ret < 0'",
    # an entry alone: an fprobe where the kernel has them
    "'ksys_read(unsigned int fd, count)'",
    # an entry and its return
    "'long vfs_write(file, count) if count == 1'",
    # a string: stays a kprobe everywhere
    "'SyS_openat(int dfd, string path)'",
]

TP = "tp:signal_generate(int sig)"

HEAD = r"""T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
mkdir -p /run
echo ::readme; cat $T/README
echo ::files; ls $T
# what add left: its definitions as the kernel lists them, and the filter
# of each event that has one
readback() {
	grep ':functions/' $T/dynamic_events
	for f in $T/events/functions/*/filter; do
		[ -e "$f" ] || continue
		x=$(cat $f); e=${f%/filter}; e=${e##*/}
		[ "$x" = none ] || echo "# filter functions/$e: $x"
	done
}
left() { echo "events: $(grep -c ':functions/' $T/dynamic_events) group: $(ls $T/events | grep -c '^functions$')"; }
"""


def snippet(protos):
    text = HEAD
    for i, p in enumerate(protos):
        text += f"""echo ::compile-{i}; fevent compile {p} 2>&1; echo rc=$?
echo ::add-{i}; fevent add {p} 2>&1; echo rc=$?
echo ::kernel-{i}; readback
fevent clear -q
"""
    text += f"""echo ::tp-compile; fevent compile '{TP}' 2>&1; echo rc=$?
echo ::tp-add; fevent add '{TP}' 2>&1; echo rc=$?
echo ::tp-kernel; readback
fevent clear -q
echo ::tp-byname; fevent compile 'tp:sched_process_exec(p->pid)' 2>&1; echo rc=$?
echo ::tp-other; fevent compile --btf /sys/kernel/btf/vmlinux '{TP}' 2>&1; echo rc=$?
echo ::tp-proto; fevent proto tp:signal_generate 2>&1; echo rc=$?
echo ::left; left
"""
    return text


def plan(suite):
    return [("caps", snippet(PROTOS))], None


# this tier's boots are shared with the other tiers of each kernel (vm.share)
vm.share("kernel_caps", vm.SUITES, plan)


def sections(suite):
    rc, out, err = vm.run_once("kernel_caps", *plan(suite), suite=suite)["caps"]
    expect_eq(rc, 0, err)
    parts = vm.split_sections(out)
    if os.environ.get("FEVENT_SAVE_README") == "1":
        os.makedirs(FIXTURES, exist_ok=True)
        with open(os.path.join(FIXTURES, f"{suite}.txt"), "w") as f:
            f.write(parts["readme"])
        with open(os.path.join(FIXTURES, f"{suite}.files"), "w") as f:
            f.write(parts["files"])
        with open(f"/tmp/fevent-caps-{suite}.out", "w") as f:
            f.write(out + "@@@ERR\n" + err)
    return parts, err


def definitions(text):
    """compile's or add's stdout less the rc line: the lines the kernel
    takes, and filters (not a call filter: no kernel file has it)."""
    return [l for l in text.splitlines() if not l.startswith(("rc=", "# call filter"))]


def readback(text):
    """The kernel's listing, its rN: (return instances) read as r:."""
    return sorted(re.sub(r"^r\d+:", "r:", l) for l in text.splitlines())


def compile_is_add(parts, carried, fprobes):
    for i, p in enumerate(PROTOS):
        comp, add = parts[f"compile-{i}"], parts[f"add-{i}"]
        expect_eq(comp.splitlines()[-1], "rc=0", f"{p}: {comp}")
        expect_eq(comp, add, f"{p}: compile prints what add prints")
        expect_eq(sorted(definitions(comp)), readback(parts[f"kernel-{i}"]),
                  f"{p}: compile prints what the kernel lists after add")
    # the example, as the kernel has it
    comp = parts["compile-0"].splitlines()
    # (do_sys_openat2 returns long before 7.x, int since)
    expect_eq(comp[0], "p:functions/do_sys_openat2 do_sys_openat2 __caller=$stack0:symbol "
                       "dfd=%di:s32 filename=+0(%si):string", comp)
    if carried:
        check(re.fullmatch(r"r:functions/do_sys_openat2__return do_sys_openat2 dfd=\$arg1:s32 "
                           r"filename=\+0\(\$arg2\):string ret=\$retval:s(32|64)", comp[1]), comp)
        expect_eq(comp[2:], ["# filter functions/do_sys_openat2__return: dfd == -100 && ret < 0",
                             "rc=0"])
    else:
        check(re.fullmatch(r"r:functions/do_sys_openat2__return do_sys_openat2 "
                           r"ret=\$retval:s(32|64)", comp[1]), comp)
        expect_eq(comp[2:], ["# call filter functions/do_sys_openat2: dfd == -100 && ret < 0",
                             "rc=0"])
    entry = parts["compile-1"].splitlines()[0]
    check(entry.startswith("f:" if fprobes else "p:"), entry)
    check(parts["compile-3"].startswith("p:functions/SyS_openat "), parts["compile-3"])


def _new_kernel(suite):
    def test_compile_prints_what_add_creates():
        parts, err = sections(suite)
        compile_is_add(parts, carried=True, fprobes=True)
        # tracepoint probes: compile's line is add's and the kernel's
        tp = parts["tp-compile"]
        check(tp.startswith("t:functions/signal_generate signal_generate sig=$arg1:s32\n"), tp)
        expect_eq(tp, parts["tp-add"], suite)
        expect_eq(definitions(tp), readback(parts["tp-kernel"]), suite)
        expect_eq(parts["left"].strip(), "events: 0 group: 0", suite)
    return test_compile_prints_what_add_creates


MISSING = ("this kernel has no tracepoint probe events (t:), which tp:{name} needs: its tracefs "
           "README (/sys/kernel/tracing/README) has no 't[:[<group>/][<event>]] <tracepoint>' "
           "line (CONFIG_FPROBE_EVENTS is off, or the kernel predates them)")


def _old_kernel(suite):
    def test_compile_prints_what_add_creates_and_tp_is_refused_naming_the_feature():
        parts, err = sections(suite)
        compile_is_add(parts, carried=False, fprobes=False)
        for part, name in (("tp-compile", "signal_generate"), ("tp-add", "signal_generate"),
                           ("tp-byname", "sched_process_exec")):
            text = parts[part]
            expect_eq(text.splitlines()[-1], "rc=2", f"{suite} {part}: {text}")
            check(MISSING.format(name=name) in text, f"{suite} {part}: {text}")
        expect_eq(parts["tp-kernel"], "", f"{suite}: nothing left by add")
        # for another kernel, compile prints the line that kernel may take
        expect_eq(parts["tp-other"].splitlines(),
                  ["t:functions/signal_generate signal_generate sig=$arg1:s32", "rc=0"], suite)
        proto = parts["tp-proto"].splitlines()
        check(proto[0].startswith("tp:signal_generate("), proto)
        check(not any(l.startswith("#   t:") for l in proto), proto)
        check(any(l.startswith("#   (does not compile: this kernel has no tracepoint probe events")
                  for l in proto), proto)
        expect_eq(parts["left"].strip(), "events: 0 group: 0", suite)
    return test_compile_prints_what_add_creates_and_tp_is_refused_naming_the_feature


test_bullseye = _old_kernel("bullseye")
test_bookworm = _old_kernel("bookworm")
test_trixie = _new_kernel("trixie")
test_sid = _new_kernel("sid")
