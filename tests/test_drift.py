"""Typed slots checked against the debug info (issue 13, DESIGN.md section
13): a read that contradicts the parameter's declaration -- a narrow
integer on a pointer, a string or Rostedt's hop on an integer, an integer
of another size -- is a warning naming the real declaration, an error at
the type's column with --strict; spellings of the same value (x64 on a
pointer, x32 on an int, a string from a char *) are not.  On the running
kernel's BTF."""
import os

import fe
from fe import caret_column, check, expect_eq

BTF = "/sys/kernel/btf/vmlinux"


def need_btf():
    if not os.path.exists(BTF):
        raise fe.Skip("no kernel BTF here")


def warnings(proto, *extra):
    r = fe.run("compile", *extra, proto)
    expect_eq(r.returncode, 0, r.stderr)
    return [l for l in r.stderr.splitlines() if "fevent: warning:" in l]


def test_contradicting_slots_are_warnings_naming_the_declaration():
    need_btf()
    cases = [
        ("vfs_read(int file)", 10, "'int file' reads slot 1 of 'vfs_read' as 4 bytes, but "
         f"{BTF} declares it 'struct file *file': a pointer's value is 8 bytes"),
        ("vfs_read(file, buf, u32 count)", 21, "'u32 count' reads slot 3 of 'vfs_read' as 4 "
         f"bytes, but {BTF} declares it 'size_t count': part of its value is cut off"),
        ("do_sys_openat2(u64 dfd)", 16, "'u64 dfd' reads slot 1 of 'do_sys_openat2' as 8 bytes,"
         f" but {BTF} declares it 'int dfd': the bytes past it are not its value"),
        ("do_sys_openat2(string dfd)", 16, "'string dfd' reads slot 1 of 'do_sys_openat2' as 8"
         f" bytes holding an address, but {BTF} declares it 'int dfd': a string is read from "
         "an address, and it is no pointer"),
        ("do_sys_openat2(x32 dfd+8)", 16, "'x32 dfd' reads slot 1 of 'do_sys_openat2' as 4 "
         f"bytes holding an address, but {BTF} declares it 'int dfd': Rostedt's hops read "
         "from an address, and it is no pointer"),
    ]
    for proto, col, msg in cases:
        got = warnings(proto)
        expect_eq(got, [f"fevent: warning: column {col}: {msg} (--strict makes this an error)"])
        r = fe.run("compile", "--strict", proto)
        expect_eq((r.returncode, r.stdout), (2, ""), proto)
        check(f"fevent: error: column {col}: {msg}" in r.stderr, r.stderr)
        expect_eq(caret_column(r.stderr), col)


def test_a_string_from_a_pointer_to_no_characters_and_every_contradiction_said():
    need_btf()
    proto = "vfs_read(string file, int buf)"
    first = (f"'string file' reads slot 1 of 'vfs_read' as 8 bytes holding an address, but {BTF}"
             " declares it 'struct file *file': a string is read where it points, and it "
             "points to no characters")
    second = (f"'int buf' reads slot 2 of 'vfs_read' as 4 bytes, but {BTF} declares it "
              "'char *buf': a pointer's value is 8 bytes")
    expect_eq(warnings(proto), [f"fevent: warning: column 10: {first} (--strict makes this an error)",
                                f"fevent: warning: column 23: {second} (--strict makes this an error)"])
    r = fe.run("compile", "--strict", proto)
    expect_eq((r.returncode, r.stdout), (2, ""))
    check(f"fevent: error: column 10: {first}; column 23: {second}\n" in r.stderr, r.stderr)
    expect_eq(caret_column(r.stderr), 10)
    # strings from what points to characters, or to anything (void *), are no drift
    expect_eq(warnings("ksys_write(int fd, string buf)"), [])


def test_spellings_of_the_same_value_are_not_drift():
    need_btf()
    for proto in ["vfs_read(x64 file, string buf, size_t count, x64 pos)",
                  "do_sys_openat2(x32 dfd, string filename, struct open_how *how)",
                  "do_sys_openat2(s32 dfd, ustring filename)",
                  "vfs_read(u64 file, char *buf, unsigned long count)",
                  "SyS_openat(int dfd, string path, x32 flags, x16 mode)"]:
        expect_eq(warnings(proto), [], proto)
        r = fe.run("compile", "--strict", proto)
        expect_eq(r.returncode, 0, (proto, r.stderr))
