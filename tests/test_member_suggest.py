"""'Did you mean' for a member a kernel renamed (issue 20 item 8): 7.2's
struct dentry lost d_iname; d_name is one letter away but a struct qstr,
the characters are in union d_shortname.  Suggestions rank by the type the
prototype reads there, then by spelling; the same through BTF and DWARF.
The real 7.2 kernel is in test_vm_issue20.py."""
import atexit
import os
import shutil
import subprocess
import tempfile

import fe
from fe import expect_eq

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "fx_dentry.c")
_built = {}


def built():
    """fx_dentry.c as a -g binary (DWARF) and a copy with BTF (pahole -J)."""
    if not _built:
        tmp = tempfile.mkdtemp(prefix="fevent-dentry-")
        atexit.register(shutil.rmtree, tmp, True)
        exe = os.path.join(tmp, "fx_dentry")
        subprocess.run(["gcc", "-g", "-O2", "-o", exe, FIXTURE], check=True)
        btf = exe + ".btf"
        shutil.copy(exe, btf)
        subprocess.run(["pahole", "-J", btf], check=True, capture_output=True)
        _built.update(exe=exe, btf=btf)
    return _built


def first_line(proto):
    """The error's first line, through BTF and through DWARF: the same."""
    lines = []
    for how in (("--btf", built()["btf"]), ("-x", built()["exe"])):
        r = fe.run("compile", *how, proto)
        expect_eq((r.returncode, r.stdout), (2, ""), f"{how[0]} {proto}\n{r.stderr}")
        lines.append(r.stderr.splitlines()[0])
    expect_eq(lines[0], lines[1], "BTF and DWARF suggest alike")
    return lines[0]


def test_a_string_of_d_iname_suggests_d_shortname_string():
    # string wants a char array or pointer: d_shortname holds one at its
    # start (a union), d_name (a struct qstr) does not
    expect_eq(first_line("fx_dput(string dentry->d_iname)"),
              "fevent: error: column 24: struct dentry has no member 'd_iname'; "
              "did you mean 'd_shortname.string'?")
    expect_eq(first_line("fx_dput(const char *dentry->d_iname)"),
              "fevent: error: column 29: struct dentry has no member 'd_iname'; "
              "did you mean 'd_shortname.string'?")


def test_an_array_of_bytes_suggests_what_a_string_does():
    # issue 32 item 10b: the characters are where they are however they
    # are read; 'x8[4]' and 'u8[32]' suggested d_name, one letter away
    for t, col in (("x8[4]", 23), ("u8[32]", 24), ("s8[2]", 23), ("char[32]", 26)):
        expect_eq(first_line(f"fx_dput({t} dentry->d_iname)"),
                  f"fevent: error: column {col}: struct dentry has no member 'd_iname'; "
                  "did you mean 'd_shortname.string'?")


def test_the_suggestion_compiles():
    r = fe.run("compile", "--btf", built()["btf"], "fx_dput(string dentry->d_shortname.string)")
    expect_eq((r.returncode, r.stderr), (0, ""))
    expect_eq(r.stdout, "p:functions/fx_dput fx_dput __caller=$stack0:symbol "
              "string=+40(%di):string\n")


def test_without_a_type_spelling_decides():
    # no TYPE says what is read: the closest spelling, as before
    expect_eq(first_line("fx_dput(dentry->d_iname)"),
              "fevent: error: column 17: struct dentry has no member 'd_iname'; "
              "did you mean 'd_name'?")
    # a typo of a member that does not fit the type is still that member
    expect_eq(first_line("fx_dput(string dentry->d_nmae)"),
              "fevent: error: column 24: struct dentry has no member 'd_nmae'; "
              "did you mean 'd_name'?")


def test_a_scalar_type_ranks_members_of_its_size_first():
    # u64: d_time (8 bytes) fits, d_seq (4 bytes, also near by spelling)
    # does not
    expect_eq(first_line("fx_dput(u64 dentry->d_tim)"),
              "fevent: error: column 21: struct dentry has no member 'd_tim'; "
              "did you mean 'd_time'?")
