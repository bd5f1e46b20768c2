"""Module functions in the 6.1 test VM (issue 9, item 9), on binfmt_misc.ko
from the same Debian package as the kernel (a module there, depending on
no other; busybox's depmod and modprobe load it): funcs lists MOD:func,
proto reads /sys/kernel/btf/binfmt_misc, add and record trace it, a module
not loaded is said to be so (compile, add, proto; built in or unknown
too), and list marks a probe whose module was removed, which the kernel
keeps and arms again when the module comes back."""
import json
import os
import re
import sys

import fe
from fe import check, expect_eq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vm"))
import vm  # noqa: E402

# hits() reads the entry event's hits with shell builtins only: every exec
# (and only an exec) goes through load_misc_binary, which returns -ENOEXEC
# when no binfmt_misc format is registered.  `fevent --version` is the one
# exec counted.
SNIPPET = r"""T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
R=$(uname -r)
hits() { while read e h m; do [ "$e" = load_misc_binary ] && echo $h; done < $T/kprobe_profile; }
depmod
echo @@modules.dep
cat /lib/modules/$R/modules.dep
echo @@unloaded
fevent proto binfmt_misc:load_misc_binary; echo rc=$?
fevent compile 'binfmt_misc:load_misc_binary(x64 bprm)'; echo rc=$?
fevent add 'binfmt_misc:load_misc_binary(x64 bprm)'; echo rc=$?
fevent add 'binfmt_misc:load_misc_binary(string bprm->filename)'; echo rc=$?
fevent proto nosuchmod:f; echo rc=$?
fevent proto binfmt_elf:load_elf_binary; echo rc=$?
cat $T/dynamic_events
echo @@load
modprobe binfmt_misc; echo rc=$?
cut -d' ' -f1 /proc/modules
ls /sys/kernel/btf
echo @@oracle
grep '\[binfmt_misc\]$' $T/available_filter_functions | cut -d' ' -f1 | sort
echo @@kallsyms
grep -e ' t exit_misc_binfmt' -e ' t load_misc_binary' /proc/kallsyms | cut -d' ' -f3-
echo @@funcs
fevent funcs 'binfmt_misc:*'; echo rc=$?
fevent funcs '*misc_bin*'; echo rc=$?
echo @@proto
fevent proto binfmt_misc:load_misc_binary; echo rc=$?
fevent proto binfmt_misc:load_misc_binry; echo rc=$?
echo @@notrace
fevent add 'binfmt_misc:exit_misc_binfmt()'; echo rc=$?
echo @@add
fevent add 'int binfmt_misc:load_misc_binary(string bprm->filename)'; echo rc=$?
echo @@record
{ fevent record -- cat /etc/hostname; echo rc=$?; } | cat
echo @@rmmod
rmmod binfmt_misc; echo rc=$?
ls /sys/kernel/btf
cat $T/dynamic_events
fevent list; echo rc=$?
fevent list --json
echo @@disarmed
echo 1 > $T/events/functions/load_misc_binary/enable
a=$(hits); fevent --version > /dev/null; b=$(hits); echo $((b - a))
echo @@reloaded
modprobe binfmt_misc; echo rc=$?
a=$(hits); fevent --version > /dev/null; b=$(hits); echo $((b - a))
echo 0 > $T/events/functions/load_misc_binary/enable
fevent list | grep -c '^    !'
echo @@record_again
{ fevent record -- cat /etc/hostname; echo rc=$?; } | cat
fevent clear; echo rc=$?
cat $T/dynamic_events
"""
def result():
    rc, out, err = vm.run_once("modules", [("modules", SNIPPET)], files=vm.modules())["modules"]
    parts = {}
    for chunk in ("\n" + out).split("\n@@")[1:]:
        name, _, body = chunk.partition("\n")
        # each part's lines, each ending with its newline
        parts[name] = body.rstrip("\n") + "\n" if body.strip("\n") else ""
    return parts, err


NOT_LOADED = ("module 'binfmt_misc' is not loaded (not in /proc/kallsyms): "
              "'modprobe binfmt_misc' loads it")


def test_a_module_not_loaded_is_said_to_be_so():
    parts, err = result()
    expect_eq(parts["modules.dep"], "kernel/fs/binfmt_misc.ko:\n")
    # proto 2 (an unknown function), compile 0 (a warning), add 1 with a
    # typed slot, 2 for a name that needs the module's BTF; nothing added
    expect_eq(parts["unloaded"],
              "rc=2\n"
              "p:functions/load_misc_binary binfmt_misc:load_misc_binary __caller=$stack0:symbol bprm=%di:x64\n"
              "rc=0\nrc=1\nrc=2\nrc=2\nrc=2\n")
    lib = "/lib/modules/6.1.0-56-cloud-amd64"
    expect_eq(err.split("fevent: error: no function 'load_misc_binry'")[0],
              f"fevent: error: {NOT_LOADED}\n"
              f"fevent: warning: {NOT_LOADED}\n"
              f"fevent: error: column 1: {NOT_LOADED}\n"
              "    binfmt_misc:load_misc_binary(x64 bprm)\n"
              "    ^\n"
              f"fevent: error: column 37: unknown parameter 'bprm': {NOT_LOADED}\n"
              "    binfmt_misc:load_misc_binary(string bprm->filename)\n"
              "                                        ^\n"
              "fevent: error: module 'nosuchmod' is not loaded (not in /proc/kallsyms), and this "
              f"kernel has no module of that name ({lib}/modules.dep)\n"
              f"fevent: error: module 'binfmt_elf' is built into the kernel ({lib}/modules.builtin): "
              "its functions are the kernel's, written without 'binfmt_elf:'\n")


def test_funcs_lists_the_modules_functions():
    parts, err = result()
    expect_eq(parts["load"], "rc=0\nbinfmt_misc\nbinfmt_misc\nvmlinux\n", err)
    oracle = parts["oracle"].split()
    check("load_misc_binary" in oracle, oracle)
    # exactly what available_filter_functions lists for the module, as
    # MOD:func; a text symbol it does not list (exit_misc_binfmt, __exit)
    # cannot be probed
    expect_eq(parts["kallsyms"], "exit_misc_binfmt\t[binfmt_misc]\nload_misc_binary\t[binfmt_misc]\n")
    check("exit_misc_binfmt" not in oracle, oracle)
    expect_eq(parts["funcs"], "".join(f"binfmt_misc:{f}\n" for f in oracle) + "rc=0\n"
              "binfmt_misc:load_misc_binary\nrc=0\n", err)


def test_proto_reads_the_modules_btf():
    parts, err = result()
    expect_eq(parts["proto"],
              "int binfmt_misc:load_misc_binary(struct linux_binprm *bprm)\n"
              "#   p:functions/load_misc_binary binfmt_misc:load_misc_binary __caller=$stack0:symbol bprm=%di:x64\n"
              "#   r:functions/load_misc_binary__return binfmt_misc:load_misc_binary ret=$retval:s32\n"
              "rc=0\nrc=2\n", err)
    check("\nfevent: error: no function 'load_misc_binry' in module 'binfmt_misc' "
          "(/sys/kernel/btf/binfmt_misc); did you mean 'binfmt_misc:load_misc_binary'?\n" in err, err)


def test_add_applies_the_kprobe_rules_to_module_functions():
    parts, err = result()
    expect_eq(parts["notrace"], "rc=1\n")
    check("fevent: error: kprobes cannot trace 'binfmt_misc:exit_misc_binfmt': it is notrace or "
          "has no ftrace entry (not in available_filter_functions), and the kernel refuses kprobe "
          "events there\nfevent: nothing was added\n" in err, err)


def test_add_and_record_a_module_function():
    parts, err = result()
    expect_eq(parts["add"],
              "p:functions/load_misc_binary binfmt_misc:load_misc_binary __caller=$stack0:symbol "
              "filename=+0(+96(%di)):string\n"
              "r:functions/load_misc_binary__return binfmt_misc:load_misc_binary ret=$retval:s32\n"
              "rc=0\n", err)
    lines = parts["record"].splitlines()
    expect_eq((len(lines), lines[0], lines[2]), (3, "fevent-vm", "rc=0"), parts["record"])
    # -ENOEXEC: binfmt_misc has no format registered, the ELF loader runs next
    check(re.fullmatch(r" *cat-\d+ \[000\] +[\d.]+: bprm_execve->load_misc_binary"
                       r"\(filename=\"/bin/cat\"\) = -8 <[\d.]+ us>", lines[1]), lines[1])


GONE = ("    ! module binfmt_misc is not loaded: the probe is gone and fires again once the "
        "module is loaded, when the kernel registers it anew")


def test_list_marks_a_probe_whose_module_is_gone():
    parts, err = result()
    text, _, js = parts["rmmod"].partition("rc=0\n{")
    # rmmod takes the module and its BTF; the kernel keeps the definitions
    expect_eq(text,
              "rc=0\nvmlinux\n"
              "r64:functions/load_misc_binary__return binfmt_misc:load_misc_binary ret=$retval:s32\n"
              "p:functions/load_misc_binary binfmt_misc:load_misc_binary __caller=$stack0:symbol "
              "filename=+0(+96(%di)):string\n"
              "functions/load_misc_binary  kprobe  binfmt_misc:load_misc_binary  hits 1  misses 0"
              "  enabled: -\n"
              "    binfmt_misc:load_misc_binary(string filename+96)\n"
              "    __caller=$stack0:symbol filename=+0(+96(%di)):string\n"
              f"{GONE}\n"
              "functions/load_misc_binary__return  kretprobe  binfmt_misc:load_misc_binary  hits 1"
              "  misses 0  maxactive 64  enabled: -\n"
              "    s32 binfmt_misc:load_misc_binary()\n"
              "    ret=$retval:s32\n"
              f"{GONE}\n", err)
    objs = [json.loads(l) for l in ("{" + js).splitlines()]
    expect_eq([(o["event"], o["hits"], o["module_loaded"]) for o in objs],
              [("load_misc_binary", 1, False), ("load_misc_binary__return", 1, False)])


def test_the_kernel_rearms_the_probe_when_the_module_loads_again():
    parts, err = result()
    # enabled while the module is gone: no hit; loaded again: it fires
    expect_eq(parts["disarmed"], "0\n")
    expect_eq(parts["reloaded"], "rc=0\n1\n0\n", "the mark is gone with the module back")
    lines = parts["record_again"].splitlines()
    expect_eq((len(lines), lines[0]), (4, "fevent-vm"), lines)
    check(re.fullmatch(r" *cat-\d+ \[000\] +[\d.]+: bprm_execve->load_misc_binary"
                       r"\(filename=\"/bin/cat\"\) = -8 <[\d.]+ us>", lines[1]), lines)
    expect_eq(lines[2:], ["rc=0", "rc=0"], "cleared, nothing left")
