"""The running kernel's symbols that are not alone, kept for the boot, in
the 6.1 test VM (issue 34 item 5; src/debuginfo/ksyms_shared.c; the host
half is test_ksyms_shared.py):

- compile keeps nothing; add writes /run/fevent/kallsyms.shared with
  this boot's id and creates exactly the events compile printed;
- a later compile, and add, believe a valid file of this boot: one that
  says vfs_read and vfs_write are at one address merges them, which
  kallsyms never would (the proof that the file, not kallsyms, answered);
- the same file stamped with another boot's id is not used;
- add of a glob keeps the functions it may name (/run/fevent/kprobe.functions,
  stamped with the modules loaded and the kprobe rules read), funcs keeps
  nothing and answers alike from it; a valid file is believed, one of
  other modules is not;
- add keeps the kernel's raw BTF (/run/fevent/vmlinux.btf: a head page,
  then the bytes of /sys/kernel/btf/vmlinux), compile does not; a copy in
  which one function is renamed is what compile believes (the proof that
  it answered); another boot's, one of another size, one others may
  write, one whose first or last 4 KB differ from sysfs's in a byte libbpf
  would take, and one libbpf refuses are not used
  (compile answers from sysfs) and add writes them again;
- add of a list keeps the BTF function index beside it
  (/run/fevent/vmlinux.btf.funcs), compile does not, and compile answers
  alike with it (test_btf_index_kept.py checks its bytes and checks).
"""
import os
import sys

from fe import check, expect_eq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vm"))
import vm  # noqa: E402

SNIPPET = r"""T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
mkdir -p /run    # the VM's initramfs has none; fevent keeps state there
K=/run/fevent/kallsyms.shared
id=$(cat /proc/sys/kernel/random/boot_id)
rm -f $K
fevent funcs 'vfs_*' | head -n 30 | sed 's/$/(...)/' > /tmp/kp
echo ::first; fevent compile -q -f /tmp/kp > /tmp/kdefs; echo rc=$?
test -e $K && echo kept-by-compile
echo ::add; fevent add -q -f /tmp/kp; echo rc=$?
head -n 1 $K | cut -d' ' -f1-5 | sed "s/$id/BOOT/"
grep -c . /tmp/kdefs
sed -n 's/^[pr]:functions\/\([^ ]*\) .*/\1/p' /tmp/kdefs | sort > /tmp/kwant
sed -n 's/^[pr]:functions\/\([^ ]*\) .*/\1/p' $T/dynamic_events | sort > /tmp/kgot
cmp /tmp/kwant /tmp/kgot && echo same-events
fevent clear -q
printf 'vfs_read(...)\nvfs_write(...)\n' > /tmp/k2
printf 'fevent kallsyms.shared 1 %s - 2\nffffffff81000000 vfs_read\nffffffff81000000 vfs_write\n' \
  $id > $K
chmod 600 $K
echo ::believed; fevent compile -f /tmp/k2 2>&1; echo rc=$?
echo ::believed_add; fevent add -f /tmp/k2 2>&1; echo rc=$?
grep -o ':functions/[a-z_]*' $T/dynamic_events
fevent clear -q
printf 'fevent kallsyms.shared 1 %s - 2\nffffffff81000000 vfs_read\nffffffff81000000 vfs_write\n' \
  00000000-0000-0000-0000-000000000000 > $K
chmod 600 $K
echo ::other_boot; fevent compile -f /tmp/k2 2>&1; echo rc=$?
fevent add -q -f /tmp/k2; fevent clear -q
head -n 1 $K | cut -d' ' -f4 | sed "s/$id/BOOT/"
F=/run/fevent/kprobe.functions
rm -f $F
fevent funcs 'vfs_*' > /tmp/kf1
echo ::funcs_first; test -e $F && echo kept-by-funcs
fevent add -q 'vfs_*(...)'; echo rc=$?; fevent clear -q
head -n 1 $F | cut -d' ' -f1-4 | sed "s/$id/BOOT/"
head -n 1 $F | cut -d' ' -f5 | grep -cE '^[0-9a-f]{16}\.r3$'
grep -c . /tmp/kf1; fevent funcs 'vfs_*' | cmp - /tmp/kf1 && echo same-funcs
stamp=$(head -n 1 $F | cut -d' ' -f5)
printf 'fevent kprobe.functions 1 %s %s 2\nvfs_read\nvfs_write\n' $id $stamp > $F
chmod 600 $F
echo ::funcs_believed; fevent funcs 'vfs_*'; fevent compile -q 'vfs_*(...)' | cut -d' ' -f1
printf 'fevent kprobe.functions 1 %s %s 2\nvfs_read\nvfs_write\n' $id 0000000000000000.r3 > $F
echo ::funcs_other_modules; fevent funcs 'vfs_*' | cmp - /tmp/kf1 && echo same-funcs
X=/run/fevent/vmlinux.btf.funcs
rm -f $X
fevent funcs 'vfs_*' | sed 's/$/(...)/' > /tmp/ix_protos
echo ::btf_index; fevent compile -q -f /tmp/ix_protos > /tmp/ix1; echo rc=$?
test -e $X && echo kept-by-compile
fevent add -q -f /tmp/ix_protos; echo rc=$?; fevent clear -q
head -n 1 $X | cut -d' ' -f1-4 | sed "s/$id/BOOT/"; stat -c %a $X
grep -c . /tmp/ix1; fevent compile -q -f /tmp/ix_protos | cmp - /tmp/ix1 && echo same-defs
B=/run/fevent/vmlinux.btf
# the index of the real BTF would not find the function renamed below
rm -f $B $X
# a copy renamed below must not outlive this snippet: the boot is shared
trap 'rm -f $B $X' EXIT
echo ::btf_first; fevent compile -q 'ksys_read(...)' > /tmp/b1; echo rc=$?
test -e $B && echo kept-by-compile
fevent add -q 'ksys_read(...)'; echo rc=$?; fevent clear -q
head -n 1 $B | sed "s/$id/BOOT/"
echo $(( $(wc -c < $B) - 4096 )) $(wc -c < /sys/kernel/btf/vmlinux) $(stat -c %a $B)
fevent compile -q 'ksys_read(...)' | cmp - /tmp/b1 && echo same-defs
cp $B /tmp/kept.btf
# one function renamed in the copy, in the middle of its strings (and
# every name it begins: busybox's sed matches no NUL)
sed 's/ksys_read/ksys_reaX/g' /tmp/kept.btf > /tmp/renamed.btf
echo $(wc -c < /tmp/renamed.btf) $(cmp -l /tmp/kept.btf /tmp/renamed.btf | wc -l)
cat /tmp/renamed.btf > $B
echo ::btf_believed; fevent compile 'ksys_reaX(...)' > /tmp/bo 2>&1; echo rc=$?
cut -d' ' -f1-2 /tmp/bo
try() { test -n "$1" && echo ::btf_$1
  fevent compile -q 'ksys_reaX(...)' 2>&1 | grep -o "does not describe 'ksys_reaX'"
  fevent compile -q 'ksys_read(...)' | cmp - /tmp/b1 && echo same-defs; }
n=$(wc -c < /tmp/renamed.btf)
sed "1s/$id/00000000-0000-0000-0000-000000000000/" /tmp/renamed.btf > $B
try other_boot
fevent add -q 'ksys_read(...)'; fevent clear -q; cmp $B /tmp/kept.btf && echo written-again
cat /tmp/renamed.btf > $B; chmod 620 $B; try group_writable; chmod 600 $B
head -c $((n - 1)) /tmp/renamed.btf > $B; try shorter
# one byte flipped where libbpf takes any: a letter of the last string,
# a byte of the first type's name offset
flip() { v=$(od -An -tu1 -j $2 -N1 /tmp/renamed.btf); v=$(( v ^ 1 ))
  ( head -c $2 /tmp/renamed.btf; printf "\\$(printf %o $v)"; tail -c +$(( $2 + 2 )) /tmp/renamed.btf ) > $B
  echo ::btf_$1; echo $(( $(wc -c < $B) - n )) $(cmp -l $B /tmp/renamed.btf | wc -l); try; }
flip last_page $((n - 2))
flip first_page $((4096 + 24))
# 4,000 bytes of types zeroed 1 MB in, the ends kept: libbpf refuses it
( head -c $((4096 + 1048576)) /tmp/renamed.btf; head -c 4000 /dev/zero
  tail -c +$((4096 + 1048576 + 4000 + 1)) /tmp/renamed.btf ) > $B
echo ::btf_refused; echo $(( $(wc -c < $B) - n ))
try
fevent add -q 'ksys_read(...)'; fevent clear -q; cmp $B /tmp/kept.btf && echo written-again
rm -f $B
true
"""


def plan(suite="bookworm"):
    return [("ksyms_shared", SNIPPET)], None


# this tier's boot is shared with the other tiers of its kernel (vm.share)
vm.share("ksyms_shared", ("bookworm",), plan)


def sections():
    rc, out, err = vm.run_once("ksyms_shared", *plan())["ksyms_shared"]
    expect_eq(rc, 0, f"{out}\n{err}")
    return vm.split_sections(out)


def test_compile_keeps_nothing_add_keeps_them_and_makes_what_compile_printed():
    p = sections()
    expect_eq(p["first"].splitlines(), ["rc=0"], "compile keeps nothing: " + p["first"])
    lines = p["add"].splitlines()
    expect_eq(lines[:2], ["rc=0", "fevent kallsyms.shared 1 BOOT -"], p["add"])
    check(int(lines[2]) >= 30, p["add"])
    expect_eq(lines[3:], ["same-events"], p["add"])


def test_a_valid_file_of_this_boot_is_what_compile_believes():
    p = sections()
    lines = p["believed"].splitlines()
    expect_eq(lines[0], "fevent: warning: /tmp/k2:1: vfs_read and vfs_write are one function, "
              "at 0xffffffff81000000: probed once, as event 'vfs_read'", p["believed"])
    expect_eq([l.split()[0] for l in lines[1:]], ["p:functions/vfs_read", "rc=0"],
              p["believed"])


def test_add_believes_it_as_compile_does():
    p = sections()
    lines = p["believed_add"].splitlines()
    expect_eq(lines, p["believed"].splitlines()[:2] + ["rc=0", ":functions/vfs_read"],
              p["believed_add"])


def test_a_glob_keeps_the_functions_it_may_name_and_believes_them():
    p = sections()
    lines = p["funcs_first"].splitlines()
    # funcs keeps nothing; add does, stamped with the modules and both
    # rules' lists read (r3)
    expect_eq(lines[:3], ["rc=0", "fevent kprobe.functions 1 BOOT", "1"], p["funcs_first"])
    check(int(lines[3]) > 10, p["funcs_first"])
    expect_eq(lines[4:], ["same-funcs"], p["funcs_first"])
    expect_eq(p["funcs_believed"].splitlines(),
              ["vfs_read", "vfs_write", "p:functions/vfs_read", "p:functions/vfs_write"],
              p["funcs_believed"])
    expect_eq(p["funcs_other_modules"].splitlines(), ["same-funcs"], p["funcs_other_modules"])


def test_another_boots_file_is_not_used_and_is_written_again():
    p = sections()
    lines = p["other_boot"].splitlines()
    expect_eq([l.split()[0] for l in lines],
              ["p:functions/vfs_read", "p:functions/vfs_write", "rc=0", "BOOT"],
              p["other_boot"])


def test_add_keeps_the_kernels_btf_and_compile_reads_the_copy():
    p = sections()
    lines = p["btf_first"].splitlines()
    size, sysfs, mode = lines[3].split()
    expect_eq(lines[:3], ["rc=0", "rc=0", "fevent vmlinux.btf 1 BOOT - " + sysfs], p["btf_first"])
    expect_eq((size, mode), (sysfs, "600"), p["btf_first"])
    expect_eq(lines[4], "same-defs", p["btf_first"])
    renamed_size, changed = lines[5].split()
    expect_eq(renamed_size, str(int(sysfs) + 4096), p["btf_first"])
    check(1 <= int(changed) <= 5, p["btf_first"])
    # the renamed function answers: only the copy knows that name
    lines = p["btf_believed"].splitlines()
    expect_eq(lines[0], "rc=0", p["btf_believed"])
    expect_eq(lines[-1], "p:functions/ksys_reaX ksys_reaX", p["btf_believed"])


def test_add_keeps_the_btf_function_index_and_compile_answers_alike():
    """A list of vfs_* keeps the index (test_btf_index_kept.py checks its
    bytes on the host); compile answers alike with it."""
    text = sections()["btf_index"]
    lines = text.splitlines()
    expect_eq(lines[:4], ["rc=0", "rc=0", "fevent vmlinux.btf.funcs 1 BOOT", "600"], text)
    check(int(lines[4]) > 10, "vfs_* made definitions: " + text)
    expect_eq(lines[5:], ["same-defs"], text)


def test_a_kept_btf_that_fails_a_check_is_not_used_and_add_writes_it_again():
    p = sections()
    for case in ("other_boot", "group_writable", "shorter", "last_page", "first_page",
                 "refused"):
        lines = p["btf_" + case].splitlines()
        if case == "refused":
            expect_eq(lines[0], "0", "the same size: " + p["btf_refused"])
            lines = lines[1:]
        if case.endswith("_page"):
            expect_eq(lines[0], "0 1", "one byte flipped, the same size: " + p["btf_" + case])
            lines = lines[1:]
        # sysfs answered: no ksys_reaX, and ksys_read as before
        expect_eq(lines[:2], ["does not describe 'ksys_reaX'", "same-defs"],
                  case + ": " + p["btf_" + case])
        if case in ("other_boot", "refused"):
            expect_eq(lines[2:], ["written-again"], case + ": " + p["btf_" + case])
