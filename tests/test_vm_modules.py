"""Module functions in the 6.1 test VM (issue 9, item 9), on binfmt_misc.ko
from the same Debian package as the kernel (a module there, depending on
no other; busybox's depmod and modprobe load it): funcs lists MOD:func,
proto reads /sys/kernel/btf/binfmt_misc, add and record trace it, a module
not loaded is typed from its .ko (compile, add, proto; built in or unknown
is said to be so), and list marks a probe waiting for its module: added
before the module loads (its init function recorded as insmod runs it) or
left when it was removed, which the kernel arms when the module comes."""
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
fevent compile 'binfmt_misc:load_misc_binary(string bprm->filename)'; echo rc=$?
fevent add 'binfmt_misc:load_misc_binry(x64 bprm)'; echo rc=$?
fevent proto nosuchmod:f; echo rc=$?
fevent proto binfmt_elf:load_elf_binary; echo rc=$?
fevent add 'nosuchmod:f(x64 a)'; echo rc=$?
cat $T/dynamic_events
echo @@compressed
# the module's file as distributions ship it (Debian 13: .ko.xz), for a
# moment the only one modules.dep names
M=/lib/modules/$R
mv $M/kernel/fs/binfmt_misc.ko /tmp/binfmt_misc.ko; cp $M/modules.dep /tmp/modules.dep
for z in xz gz zst; do
	cp /compressed/binfmt_misc.ko.$z $M/kernel/fs/
	echo "kernel/fs/binfmt_misc.ko.$z:" > $M/modules.dep
	fevent compile -q 'int binfmt_misc:load_misc_binary(string bprm->filename)'; echo rc=$?
	rm $M/kernel/fs/binfmt_misc.ko.$z
done
# a .ko.zst cut inside its frame
cp /compressed/cut.ko.zst $M/kernel/fs/binfmt_misc.ko.zst
echo "kernel/fs/binfmt_misc.ko.zst:" > $M/modules.dep
fevent compile -q 'int binfmt_misc:load_misc_binary(string bprm->filename)'; echo rc=$?
rm $M/kernel/fs/binfmt_misc.ko.zst
mv /tmp/binfmt_misc.ko $M/kernel/fs/; cp /tmp/modules.dep $M/modules.dep
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
echo @@waiting
rmmod binfmt_misc; echo rc=$?
fevent add 'int binfmt_misc:init_misc_binfmt()' \
	'int binfmt_misc:load_misc_binary(string bprm->filename, string bprm->interp)'; echo rc=$?
fevent list | grep -e '^functions' -e '^    !'; echo rc=$?
fevent list --json
echo @@init
printf 'hello\n' > /tmp/hello.fxt; chmod +x /tmp/hello.fxt
{ fevent record -- sh -c "insmod /lib/modules/$R/kernel/fs/binfmt_misc.ko &&
	mount -t binfmt_misc none /proc/sys/fs/binfmt_misc &&
	echo ':fxt:E::fxt::/bin/cat:' > /proc/sys/fs/binfmt_misc/register && /tmp/hello.fxt"
  echo rc=$?; } | cat
fevent list | grep -c '^    !'
fevent clear; echo rc=$?
"""
def compressed(files):
    """binfmt_misc.ko as xz, gzip and zstd compress it, and a zstd file
    cut in its middle, at /compressed/ in the VM."""
    import subprocess
    ko = [h for v, h in files.items() if v.endswith("/binfmt_misc.ko")][0]
    tmp = fe.tmpdir("fevent-ko-")
    out = {}
    for z, argv in (("xz", ["xz", "-c"]), ("gz", ["gzip", "-c"]), ("zst", ["zstd", "-q", "-c"])):
        path = os.path.join(tmp, f"binfmt_misc.ko.{z}")
        with open(path, "wb") as f:
            subprocess.run(argv + [ko], stdout=f, check=True)
        out[f"/compressed/binfmt_misc.ko.{z}"] = path
    with open(path, "rb") as f:
        whole = f.read()
    cut = os.path.join(tmp, "cut.ko.zst")
    with open(cut, "wb") as f:
        f.write(whole[:len(whole) // 2])
    out["/compressed/cut.ko.zst"] = cut
    return out


def result():
    files = vm.modules()
    files.update(compressed(files))
    rc, out, err = vm.run_once("modules", [("modules", SNIPPET)], files=files)["modules"]
    parts = {}
    for chunk in ("\n" + out).split("\n@@")[1:]:
        name, _, body = chunk.partition("\n")
        # each part's lines, each ending with its newline
        parts[name] = body.rstrip("\n") + "\n" if body.strip("\n") else ""
    return parts, err




# the 6.1 test kernel's, as Debian's archive has it now
R = vm.release("bookworm")
WAITS = ("module 'binfmt_misc' is not loaded: the probe waits for it, and the kernel arms it "
         f"when the module loads (/lib/modules/{R}/kernel/fs/binfmt_misc.ko)")


# every place a file of it was looked for (tests/test_vm_locator.py)
NO_FILE = ("module 'nosuchmod' is not loaded, and this kernel has no file of it to type it and "
           f"to wait for it: tried /proc/kallsyms (not loaded); /lib/modules/{R}/"
           f"modules.dep (names no file of it); /lib/modules/{R}/modules.builtin "
           "(not built in); --ko FILE (none names it): give --ko FILE (the module's .ko), or "
           "load it")


def test_a_module_not_loaded_is_typed_from_its_file():
    parts, err = result()
    expect_eq(parts["modules.dep"], "kernel/fs/binfmt_misc.ko:\n")
    # proto and compile read the .ko's BTF over the kernel's; a function
    # the file lacks, a module this kernel has no file of, are errors
    expect_eq(parts["unloaded"],
              "int binfmt_misc:load_misc_binary(struct linux_binprm *bprm)\n"
              "#   p:functions/load_misc_binary binfmt_misc:load_misc_binary __caller=$stack0:symbol bprm=%di:x64\n"
              "#   r:functions/load_misc_binary__return binfmt_misc:load_misc_binary ret=$retval:s32\n"
              "rc=0\n"
              "p:functions/load_misc_binary binfmt_misc:load_misc_binary __caller=$stack0:symbol "
              "filename=+0(+96(%di)):string\n"
              "rc=0\nrc=2\nrc=2\nrc=2\nrc=1\n", err)
    lib = f"/lib/modules/{R}"
    # proto, then compile: each says what its definition means
    expect_eq(err.split("fevent: error: column 41: unknown parameter 'bprm'")[0],
              f"fevent: warning: {WAITS}\n" * 2 +
              f"fevent: error: column 13: no function 'load_misc_binry' in module 'binfmt_misc' "
              f"({lib}/kernel/fs/binfmt_misc.ko); did you mean 'binfmt_misc:load_misc_binary'?\n"
              "    binfmt_misc:load_misc_binry(x64 bprm)\n"
              "                ^\n"
              f"fevent: error: {NO_FILE}\n"
              f"fevent: error: module 'binfmt_elf' is built into the kernel ({lib}/modules.builtin): "
              "its functions are the kernel's, written without 'binfmt_elf:'\n"
              f"fevent: error: column 1: {NO_FILE}\n"
              "    nosuchmod:f(x64 a)\n"
              "    ^\n")


def test_a_compressed_module_file_is_read_decompressed():
    parts, err = result()
    line = ("p:functions/load_misc_binary binfmt_misc:load_misc_binary __caller=$stack0:symbol "
            "filename=+0(+96(%di)):string\n"
            "r:functions/load_misc_binary__return binfmt_misc:load_misc_binary ret=$retval:s32\n")
    # xz, gzip, zstd; then a .ko.zst cut in its frame
    expect_eq(parts["compressed"], (line + "rc=0\n") * 3 + "rc=2\n", err)
    lib = f"/lib/modules/{R}"
    check(f"fevent: error: column 41: unknown parameter 'bprm': module 'binfmt_misc' is not "
          f"loaded, and {lib}/kernel/fs/binfmt_misc.ko.zst is cut: its zstd data ends inside a "
          "frame; or read its arguments by their slots ('x64 NAME'); no DWARF for module "
          f"'binfmt_misc': tried {lib}/kernel/fs/binfmt_misc.ko.zst (unreadable); "
          f"/usr/lib/debug{lib}/kernel/fs/binfmt_misc.ko (not there: the kernel's -dbg package, "
          f"Debian's linux-image-{R}-dbg); debuginfod (DEBUGINFOD_URLS is not "
          "set): give --ko FILE (its .ko with DWARF), or set DEBUGINFOD_URLS to fetch it by its "
          "build-id\n" in err, err)


def test_probes_added_before_the_module_loads_record_its_init():
    parts, err = result()
    text, _, js = parts["waiting"].partition("rc=0\n{")
    expect_eq(text,
              "rc=0\n"
              "p:functions/init_misc_binfmt binfmt_misc:init_misc_binfmt __caller=$stack0:symbol\n"
              "r:functions/init_misc_binfmt__return binfmt_misc:init_misc_binfmt ret=$retval:s32\n"
              "p:functions/load_misc_binary binfmt_misc:load_misc_binary __caller=$stack0:symbol "
              "filename=+0(+96(%di)):string interp=+0(+104(%di)):string\n"
              "r:functions/load_misc_binary__return binfmt_misc:load_misc_binary ret=$retval:s32\n"
              "rc=0\n" +
              "".join(f"functions/{e}  {k}  binfmt_misc:{f}  hits 0  misses 0  {m}enabled: -\n{WAITING}\n"
                      for e, k, f, m in
                      (("init_misc_binfmt", "kprobe", "init_misc_binfmt", ""),
                       ("init_misc_binfmt__return", "kretprobe", "init_misc_binfmt", "maxactive 64  "),
                       ("load_misc_binary", "kprobe", "load_misc_binary", ""),
                       ("load_misc_binary__return", "kretprobe", "load_misc_binary",
                        "maxactive 64  "))), err)
    objs = [json.loads(l) for l in ("{" + js).splitlines()]
    expect_eq([(o["event"], o["module_loaded"]) for o in objs],
              [("init_misc_binfmt", False), ("init_misc_binfmt__return", False),
               ("load_misc_binary", False), ("load_misc_binary__return", False)])
    lines = parts["init"].splitlines()
    # the file's text (through cat) and the events come by two ways
    calls = [l for l in lines if "->" in l]
    expect_eq([l for l in lines if "->" not in l], ["hello", "rc=0", "0", "rc=0"], lines)
    # the module's init, run by insmod as it loads the module: busybox's
    # sh forks the applet without an exec, and the applet names itself
    # (PR_SET_NAME), which record follows (task_rename)
    check(re.fullmatch(r" *insmod-\d+ \[000\] +[\d.]+: do_one_initcall->init_misc_binfmt\(\) = 0 "
                       r"<[\d.]+ us>", calls[0]), calls)
    # the file of the registered extension: binfmt_misc takes it (0) and
    # hands it to its interpreter, which it then declines (-ENOEXEC)
    fxt = [re.sub(r"^ *\S+ \[000\] +[\d.]+: | <[\d.]+ us>$", "", l) for l in calls[1:]
           if 'filename="/tmp/hello.fxt"' in l]
    expect_eq(fxt, ['bprm_execve->load_misc_binary(filename="/tmp/hello.fxt", '
                    'interp="/tmp/hello.fxt") = 0',
                    'bprm_execve->load_misc_binary(filename="/tmp/hello.fxt", '
                    'interp="/bin/cat") = -8 (ENOEXEC)'], calls)
    # every other exec since the load is no binfmt_misc format's (the
    # errno named from the definition, with or without add's note)
    check(all(l.endswith(" = -8 (ENOEXEC)") for l in (re.sub(r" <[\d.]+ us>$", "", l) for l in calls[1:]
                                            if "hello.fxt" not in l)), calls)


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
    # -ENOEXEC: binfmt_misc has no format registered, the ELF loader runs
    # next; it asks before exec names the task cat: fevent's child then
    check(re.fullmatch(r" *fevent-\d+ \[000\] +[\d.]+: bprm_execve->load_misc_binary"
                       r"\(filename=\"/bin/cat\"\) = -8 \(ENOEXEC\) <[\d.]+ us>", lines[1]), lines[1])


GONE = WAITING = ("    ! waiting for module binfmt_misc (not loaded): the kernel arms the probe "
                  "when the module loads")


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
              "    s32 binfmt_misc:load_misc_binary(string filename+96)\n"
              "    __caller=$stack0:symbol filename=+0(+96(%di)):string\n"
              f"{GONE}\n"
              "functions/load_misc_binary__return  kretprobe  binfmt_misc:load_misc_binary  hits 1"
              "  misses 0  maxactive 64  enabled: -\n"
              "    (the return of load_misc_binary, which its prototype adds)\n"
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
    check(re.fullmatch(r" *fevent-\d+ \[000\] +[\d.]+: bprm_execve->load_misc_binary"
                       r"\(filename=\"/bin/cat\"\) = -8 \(ENOEXEC\) <[\d.]+ us>", lines[1]), lines)
    expect_eq(lines[2:], ["rc=0", "rc=0"], "cleared, nothing left")

