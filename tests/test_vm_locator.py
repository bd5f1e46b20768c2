"""One debug-info locator (issue 31, item 3) in the 6.1 test VM: a module
that is not loaded and whose file is not under /lib/modules (binfmt_misc.ko
copied to /data, taken out of /lib/modules, depmod run).  Without --ko,
add and lines name every place they looked for a file of it; with
`--ko /data/binfmt_misc.ko` proto and the probes are typed from that file
(its BTF over the kernel's) and wait for the module (DESIGN.md section 15, "Modules
before they load"): list shows them waiting, and insmod fires the init
function's probe."""
import os
import re
import sys

import fe
from fe import check, expect_eq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vm"))
import vm  # noqa: E402

SNIPPET = r"""T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
R=$(uname -r)
depmod
echo @@noko
fevent add 'int binfmt_misc:init_misc_binfmt()'; echo rc=$?
fevent lines binfmt_misc:load_misc_binary; echo rc=$?
cat $T/dynamic_events
echo @@proto
fevent proto --ko /data/binfmt_misc.ko binfmt_misc:load_misc_binary; echo rc=$?
echo @@ko
fevent add --ko /data/binfmt_misc.ko 'int binfmt_misc:init_misc_binfmt()' \
	'int binfmt_misc:load_misc_binary(string bprm->filename)'; echo rc=$?
fevent list | grep -e '^functions' -e '^    !'; echo rc=$?
echo @@load
{ fevent record -- insmod /data/binfmt_misc.ko; echo rc=$?; } | cat
fevent list | grep -c '^    !'
fevent clear; echo rc=$?
cat $T/dynamic_events
"""
LIB = f"/lib/modules/{vm.release('bookworm')}"	# the 6.1 test kernel's
_parts = {}


def parts():
    if _parts:
        return _parts["p"], _parts["err"]
    files = {}
    for path, host in vm.modules().items():
        if path.endswith("/binfmt_misc.ko"):
            files["/data/binfmt_misc.ko"] = host	# not under /lib/modules
        else:
            files[path] = host
    check("/data/binfmt_misc.ko" in files, files)
    rc, out, err = vm.run_once("locator", [("locator", SNIPPET)], files=files)["locator"]
    expect_eq(rc, 0, err + out)
    p = {}
    for chunk in ("\n" + out).split("\n@@")[1:]:
        name, _, body = chunk.partition("\n")
        p[name] = body.rstrip("\n") + "\n" if body.strip("\n") else ""
    _parts.update(p=p, err=err)
    return p, err


def test_a_module_with_no_file_names_every_place_tried():
    p, err = parts()
    # nothing added, nothing left in tracefs
    expect_eq(p["noko"], "rc=1\nrc=2\n", err)
    expect_eq(err.splitlines()[:4], [
        "fevent: error: column 5: module 'binfmt_misc' is not loaded, and this kernel has no "
        "file of it to type it and to wait for it: tried /proc/kallsyms (not loaded); "
        f"{LIB}/modules.dep (names no file of it); {LIB}/modules.builtin (not built in); "
        "--ko FILE (none names it): give --ko FILE (the module's .ko), or load it",
        "    int binfmt_misc:init_misc_binfmt()",
        "        ^",
        "fevent: error: no DWARF for module 'binfmt_misc': tried "
        f"{LIB}/modules.dep (names no file of it); debuginfod (DEBUGINFOD_URLS is not set): "
        "give --ko FILE (its .ko with DWARF), or set DEBUGINFOD_URLS to fetch it by its "
        "build-id"], err)


WAITING = ("    ! waiting for module binfmt_misc (not loaded): the kernel arms the probe "
           "when the module loads")


def test_ko_types_the_probe_and_it_waits_for_the_module():
    p, err = parts()
    expect_eq(p["ko"],
              "p:functions/init_misc_binfmt binfmt_misc:init_misc_binfmt __caller=$stack0:symbol\n"
              "r:functions/init_misc_binfmt__return binfmt_misc:init_misc_binfmt ret=$retval:s32\n"
              "p:functions/load_misc_binary binfmt_misc:load_misc_binary __caller=$stack0:symbol "
              "filename=+0(+96(%di)):string\n"
              "r:functions/load_misc_binary__return binfmt_misc:load_misc_binary ret=$retval:s32\n"
              "rc=0\n" +
              "".join(f"functions/{e}  {k}  binfmt_misc:{f}  hits 0  misses 0  {m}enabled: -\n"
                      f"{WAITING}\n"
                      for e, k, f, m in
                      (("init_misc_binfmt", "kprobe", "init_misc_binfmt", ""),
                       ("init_misc_binfmt__return", "kretprobe", "init_misc_binfmt",
                        "maxactive 64  "),
                       ("load_misc_binary", "kprobe", "load_misc_binary", ""),
                       ("load_misc_binary__return", "kretprobe", "load_misc_binary",
                        "maxactive 64  "))) + "rc=0\n", err)
    check("module 'binfmt_misc' is not loaded: the probe waits for it, and the kernel arms "
          "it when the module loads (/data/binfmt_misc.ko)" in err, err)


def test_proto_reads_the_types_of_the_ko_file():
    p, err = parts()
    expect_eq(p["proto"],
              "int binfmt_misc:load_misc_binary(struct linux_binprm *bprm)\n"
              "#   p:functions/load_misc_binary binfmt_misc:load_misc_binary "
              "__caller=$stack0:symbol bprm=%di:x64\n"
              "#   r:functions/load_misc_binary__return binfmt_misc:load_misc_binary "
              "ret=$retval:s32\nrc=0\n", err)


def test_the_waiting_probe_fires_when_the_module_loads():
    p, err = parts()
    lines = p["load"].splitlines()
    calls = [l for l in lines if "->" in l]
    check(len(calls) == 1 and re.fullmatch(
        r" *insmod-\d+ \[000\] +[\d.]+: do_one_initcall->init_misc_binfmt\(\) = 0 <[\d.]+ us>",
        calls[0]), p["load"])
    # loaded: no probe waits; cleared: nothing left
    expect_eq([l for l in lines if "->" not in l], ["rc=0", "0", "rc=0"], p["load"])
