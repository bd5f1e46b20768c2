"""Resolution against BTF: a fixture compiled with gcc -g -O2, BTF added by
pahole -J; every expected offset comes from offsetof() on the same header."""
import atexit
import os
import re
import shutil
import subprocess
import tempfile

import fe
from fe import check, expect_eq

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
_built = {}


def fixture():
    """Build fx.o with BTF and read the compiler's offsets, once."""
    if _built:
        return _built
    tmp = tempfile.mkdtemp(prefix="fevent-fx-")
    atexit.register(shutil.rmtree, tmp, True)
    obj = os.path.join(tmp, "fx.o")
    subprocess.run(["gcc", "-g", "-O2", "-c", os.path.join(FIXTURES, "fx.c"), "-o", obj],
                   check=True)
    subprocess.run(["pahole", "-J", "--btf_gen_floats", obj], check=True,
                   capture_output=True)
    offsets = os.path.join(tmp, "fx_offsets")
    subprocess.run(["gcc", "-I", FIXTURES, os.path.join(FIXTURES, "fx_offsets.c"), "-o",
                    offsets], check=True)
    out = subprocess.run([offsets], check=True, capture_output=True, text=True).stdout
    so = os.path.join(tmp, "libfx.so")
    subprocess.run(["gcc", "-g", "-O2", "-shared", "-fPIC", os.path.join(FIXTURES, "fx.c"),
                    "-o", so], check=True)
    _built["obj"] = obj
    _built["so"] = so
    _built["off"] = {k: int(v) for k, v in (l.split("=") for l in out.split())}
    return _built


def off(name):
    return fixture()["off"][name]


def compile_btf(*protos):
    return fe.run("compile", "--btf", fixture()["obj"], *protos)


def fields(proto, *extra):
    r = compile_btf(*extra, proto)
    expect_eq(r.returncode, 0, f"{proto}\n{r.stderr}")
    line = r.stdout.splitlines()[0]
    return line.split(" __caller=$stack0:symbol")[1].split()


def test_member_offsets_and_types():
    got = fields("fx_walk(o->id, o->in.flags, o->in.s, o->pos, o->parent, o->ul)")
    expect_eq(got, [
        f"id=+{off('fx_obj.id')}(%di):s32",
        f"flags=+{off('fx_obj.in') + off('fx_inner.flags')}(%di):u32",
        f"s=+{off('fx_obj.in') + off('fx_inner.s')}(%di):s16",
        f"pos=+{off('fx_obj.pos')}(%di):s64",
        f"parent=+{off('fx_obj.parent')}(%di):x64",
        f"ul=+{off('fx_obj.ul')}(%di):s64",     # inside an anonymous union
    ])


def test_pointer_chains_and_strings():
    got = fields("fx_walk(o->next->s, o->next->name, o->parent->in.label, title)")
    expect_eq(got, [
        f"s=+{off('fx_inner.s')}(+{off('fx_obj.next')}(%di)):s16",
        # char[16]: 16 bytes read, shown as text (the __t flag)
        f"name__t=+{off('fx_inner.name')}(+{off('fx_obj.next')}(%di)):u8[16]",
        f"label=+0(+{off('fx_obj.in') + off('fx_inner.label')}(+{off('fx_obj.parent')}(%di))):string",
        "title=+0(%si):string",
    ])


def test_arrays_and_indexing():
    got = fields("fx_walk(o->arr, o->arr[3], o->mac, o->bytes[2], o->in.name)")
    expect_eq(got, [
        f"arr=+{off('fx_obj.arr')}(%di):s32[4]",
        f"arr__1=+{off('fx_obj.arr') + 3 * 4}(%di):s32",
        f"mac=+{off('fx_obj.mac')}(%di):u8[6]",
        f"bytes=+{off('fx_obj.bytes') + 2}(%di):u8",
        f"name__t=+{off('fx_obj.in') + off('fx_inner.name')}(%di):u8[16]",   # char[16]
    ])


def _bitfield(name, width, container):
    bit = off(f"fx_obj.{name}.bit")
    start = bit - bit % container
    return f"{name}=+{start // 8}(%di):b{width}@{bit - start}/{container}"


def test_bitfields():
    got = fields("fx_walk(o->lo, o->mid, o->hi, o->wide)")
    expect_eq(got, [_bitfield("lo", 3, 32), _bitfield("mid", 9, 32), _bitfield("hi", 20, 32),
                    _bitfield("wide", 40, 64)])


def test_enums_and_typedef_chains():
    got = fields("fx_walk(o->color, o->sign, mode)")
    expect_eq(got, [f"color=+{off('fx_obj.color')}(%di):u32",
                    f"sign=+{off('fx_obj.sign')}(%di):s32",
                    "mode=%dx:u32"])                    # fx_flags_t -> fx_u32 -> unsigned int


def test_explicit_types_on_paths():
    got = fields("fx_walk(u16 o->in.flags, x8[4] o->next, x8[4] o->in.name, "
                 "char[8] o->in.label, n=o->in.name)")
    base = off("fx_obj.in")
    expect_eq(got, [
        f"flags=+{base + off('fx_inner.flags')}(%di):u16",
        f"next=+0(+{off('fx_obj.next')}(%di)):x8[4]",       # a pointer: the bytes it points to
        f"name=+{base + off('fx_inner.name')}(%di):x8[4]",  # an array: in place
        f"label__t=+0(+{base + off('fx_inner.label')}(%di)):u8[8]",  # char[8] at a char *
        f"n__t=+{base + off('fx_inner.name')}(%di):u8[16]",
    ])


def test_more_than_six_arguments_and_ellipsis():
    got = fields("fx_many(...)")
    expect_eq(got, ["a1=%di:s32", "a2=%si:s32", "a3=%dx:s32", "a4=%cx:s32", "a5=%r8:s32",
                    "a6=%r9:s32", "a7=$stack1:s32", "a8=$stack2:s64"])
    got = fields("fx_many(a8, ...)")
    expect_eq(got[0], "a8=$stack2:s64")
    expect_eq(len(got), 8)


def test_struct_by_value_on_the_stack():
    # a 24-byte struct goes to memory: it starts at $stack+8
    got = fields("fx_big(after, big.c, big.a)")
    expect_eq(got, ["after=%di:s32", "c=+24($stack):s64", "a=+8($stack):s64"])


def test_float_parameters():
    r = compile_btf("fx_float(i, l)")
    expect_eq(r.returncode, 0, r.stderr)
    # the doubles take no general register: i and l are the first two
    check(" i=%di:s32 l=%si:s64" in r.stdout, r.stdout)
    r = compile_btf("fx_float(d)")
    expect_eq(r.returncode, 2)
    check("floating point" in r.stderr, r.stderr)
    r = compile_btf("fx_float(...)")
    expect_eq(r.returncode, 0, r.stderr)
    check(r.stdout.split("symbol ")[1].split() == ["i=%di:s32", "l=%si:s64"], r.stdout)
    check("skips 'double d'" in r.stderr and "skips 'float f'" in r.stderr, r.stderr)


def test_return_type_from_debug_info():
    r = compile_btf("-r", "fx_name(o)")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stdout.splitlines()[1], "r:functions/fx_name__return fx_name ret=$retval:x64 ret__c=+0($retval):string")


def test_slot_label_naming_another_parameter_warns():
    r = compile_btf("fx_walk(x64 o, x64 mode)")
    expect_eq(r.returncode, 0, r.stderr)
    check("slot 2 of 'fx_walk' is 'title', but 'mode' labels it" in r.stderr, r.stderr)


ERRORS = [
    ("fx_walk(o.id)", 10, "which is a pointer; use '->'"),
    ("fx_walk(o->in->s)", 14, "which is not a pointer; use '.'"),
    ("fx_walk(o->inn)", 12, "has no member 'inn'; did you mean 'in'?"),
    ("fx_walk(o->in.flagz)", 15, "has no member 'flagz'; did you mean 'flags'?"),
    ("fx_walk(oo)", 9, "has no parameter 'oo'; did you mean 'o'?"),
    ("fx_walk(zzzzzz)", 9, "(it has: o, title, mode)"),
    ("fx_walk(o->in)", 10, "is a struct"),
    ("fx_walk(o->arr[4])", 15, "past the end"),
    ("fx_walk(mode->x)", 13, "not a pointer"),
    ("fx_walk(x64 a, x64 b, x64 c, x64 d)", 30, "has 3 parameters"),
]


def _error_test(proto, col, words):
    def test():
        r = compile_btf(proto)
        expect_eq(r.returncode, 2, r.stderr)
        expect_eq(r.stdout, "")
        check(words in r.stderr, f"{words!r} not in {r.stderr!r}")
        expect_eq(fe.caret_column(r.stderr), col, r.stderr)
    return test


for _i, (_p, _c, _w) in enumerate(ERRORS):
    globals()[f"test_error_{_i:02d}"] = _error_test(_p, _c, _w)


def test_running_kernel_btf_design_row():
    """DESIGN.md's last table row, on this machine's own BTF."""
    if not os.access("/sys/kernel/btf/vmlinux", os.R_OK):
        raise fe.Skip("no /sys/kernel/btf/vmlinux")
    r = fe.run("compile", "long do_sys_openat2(int dfd, string filename, how->flags)")
    expect_eq(r.returncode, 0, r.stderr)
    # the row is 6.1's, whose do_sys_openat2 returns long; where it returns
    # int (6.18, 7.2) the written 'long' reads its 4 bytes (issue 21)
    declared = fe.run("proto", "do_sys_openat2").stdout.split()[0]
    expect_eq(r.stdout.splitlines(), [
        "p:functions/do_sys_openat2 do_sys_openat2 __caller=$stack0:symbol "
        "dfd=%di:s32 filename=+0(%si):string flags=+0(%dx):u64",
        "r:functions/do_sys_openat2__return do_sys_openat2 ret=$retval:"
        + {"long": "s64", "int": "s32"}[declared]])


def test_function_missing_from_btf_warns():
    r = compile_btf("fx_nosuch(x64 a)")
    expect_eq(r.returncode, 0, r.stderr)
    check(f"'fx_nosuch' is not a function in {fixture()['obj']}" in r.stderr, r.stderr)


def test_proto_prints_a_prototype_that_compiles():
    r = fe.run("proto", "--btf", fixture()["obj"], "fx_walk", "fx_float")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stdout.splitlines(), [
        "int fx_walk(struct fx_obj *o, const char *title, fx_flags_t mode)",
        "#   p:functions/fx_walk fx_walk __caller=$stack0:symbol o=%di:x64 title=+0(%si):string mode=%dx:u32",
        "#   r:functions/fx_walk__return fx_walk ret=$retval:s32",
        "double fx_float(double d, int i, float f, long int l)",
        "#   (no return event: the return value of 'fx_float' cannot be fetched)",
        "#   p:functions/fx_float fx_float __caller=$stack0:symbol i=%di:s32 l=%si:s64",
    ])
    # the printed prototype compiles back to the same event
    r2 = compile_btf(r.stdout.splitlines()[0])
    expect_eq(r2.returncode, 0, r2.stderr)
    expect_eq("#   " + r2.stdout.splitlines()[0], r.stdout.splitlines()[1])


def test_proto_unknown_function():
    r = fe.run("proto", "--btf", fixture()["obj"], "fx_nosuch")
    expect_eq(r.returncode, 2)
    check("no function 'fx_nosuch'" in r.stderr, r.stderr)


def test_funcs_glob_in_btf():
    r = fe.run("funcs", "--btf", fixture()["obj"], "fx_*a*")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stdout.split(), ["fx_float", "fx_many", "fx_name", "fx_pair", "fx_small",
                                     "fx_takes_mixed", "fx_takes_vec", "fx_walk"])


def test_funcs_running_kernel_is_kallsyms_and_btf():
    if not os.access("/sys/kernel/btf/vmlinux", os.R_OK):
        raise fe.Skip("no /sys/kernel/btf/vmlinux")
    r = fe.run("funcs", "do_sys_open*")
    expect_eq(r.returncode, 0, r.stderr)
    names = r.stdout.split()
    check("do_sys_openat2" in names, names)
    with open("/proc/kallsyms") as f:
        syms = {l.split()[2] for l in f if l.split()[1] in "tTwW"}
    check(all(n in syms for n in names), "every name is a kernel text symbol")


def _elf(path):
    """Symbols and PT_LOAD segments, read with readelf (not fevent's code)."""
    syms = {}
    for line in subprocess.run(["readelf", "-sW", path], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        f = line.split()
        if len(f) >= 8 and f[0][:-1].isdigit() and f[6] != "UND":
            syms.setdefault(f[7], int(f[1], 16))
    loads = []
    for line in subprocess.run(["readelf", "-lW", path], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            loads.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))  # off, vaddr, filesz
    return syms, loads


def _file_offset(path, func):
    syms, loads = _elf(path)
    addr = syms[func]
    for off, vaddr, size in loads:
        if vaddr <= addr < vaddr + size:
            return addr - vaddr + off, addr - (addr - vaddr + off)
    raise AssertionError(f"{func} in no segment")


SAME_PROTOS = [
    "fx_walk(o->id, o->in.flags, o->next->name, o->ul, o->bytes[2], o->lo, o->mid, "
    "o->hi, o->wide)",
    "fx_walk(o->arr, o->mac, o->color, o->sign, o->pos, o->parent->in.label, title, mode)",
    "fx_walk(u16 o->in.flags, x8[4] o->next, char[8] o->in.label, n=o->in.name)",
    "fx_many(...)",
    "fx_float(...)",
    "fx_big(after, big.c, big.a)",
    "fx_name(o->in.label, o->in.name[3])",
    "fx_pair(before, p.a, p.b, after)",
    "fx_small(s.x, s.y, s.z, o->id)",
]


def _args(line):
    """The fetch arguments of a definition line, without target and caller."""
    return [a for a in line.split()[2:] if not a.startswith("__caller=")]


def test_btf_and_dwarf_give_identical_lines():
    fx = fixture()
    for proto in SAME_PROTOS:
        # -r too, where the return value can be fetched
        ret = () if proto.startswith("fx_float") else ("-r",)
        btf = fe.run("compile", "--btf", fx["obj"], *ret, proto)
        dwarf = fe.run("compile", "--vmlinux", fx["obj"], *ret, proto)
        expect_eq(btf.returncode, 0, btf.stderr)
        expect_eq(dwarf.returncode, 0, dwarf.stderr)
        expect_eq(dwarf.stdout, btf.stdout, proto)


def test_user_binary_uprobes_match_btf():
    fx = fixture()
    for proto in SAME_PROTOS:
        btf = fe.run("compile", "--btf", fx["obj"], proto)
        up = fe.run("compile", "-x", fx["so"], proto)
        expect_eq(up.returncode, 0, up.stderr)
        expect_eq(_args(up.stdout.splitlines()[0]), _args(btf.stdout.splitlines()[0]), proto)


def test_user_binary_target_is_the_file_offset():
    fx = fixture()
    off, _ = _file_offset(fx["so"], "fx_walk")
    r = fe.run("compile", "-x", fx["so"], "fx_walk(mode)")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stdout, f"p:functions/fx_walk {fx['so']}:0x{off:x} mode=%dx:u32\n")
    # a relative path becomes the absolute one uprobe_events needs
    r = fe.run("compile", "-x", os.path.basename(fx["so"]), "fx_walk(mode)",
               cwd=os.path.dirname(fx["so"]))
    check(f" {fx['so']}:0x{off:x} " in r.stdout, r.stdout)


def test_user_binary_data_symbol_offset():
    fx = fixture()
    syms, _ = _elf(fx["so"])
    _, delta = _file_offset(fx["so"], "fx_walk")
    r = fe.run("compile", "-x", fx["so"], "fx_walk(long sink=@fx_sink)")
    expect_eq(r.returncode, 0, r.stderr)
    check(r.stdout.endswith(f" sink=@+0x{syms['fx_sink'] - delta:x}:s64\n"), r.stdout)


def test_user_binary_unknown_function():
    r = fe.run("compile", "-x", fixture()["so"], "fx_nosuch(x64 a)")
    expect_eq(r.returncode, 2)
    check("no function 'fx_nosuch'" in r.stderr, r.stderr)
    expect_eq(fe.caret_column(r.stderr), 1)


def test_user_binary_proto_and_funcs():
    fx = fixture()
    r = fe.run("funcs", "-x", fx["so"], "fx_*")
    # an inlined function is listed with how many copies (DESIGN.md section 15)
    expect_eq(r.stdout.splitlines(), ["fx_big", "fx_float", "fx_helper  (inlined: 1 copy)",
                                      "fx_many", "fx_name", "fx_pair", "fx_small",
                                      "fx_takes_mixed", "fx_takes_vec", "fx_walk"])
    r = fe.run("proto", "-x", fx["so"], "fx_walk")
    expect_eq(r.stdout.splitlines()[0],
              "int fx_walk(struct fx_obj *o, const char *title, fx_flags_t mode)")


def test_perf_probe_agrees_on_user_binary():
    """perf probe -x -D is the peer: same target and fetch arguments
    (perf spells the stack $stack as %sp, and cannot do bitfields here)."""
    if not shutil.which("perf"):
        raise fe.Skip("perf not installed")
    fx = fixture()
    cases = [("fx_walk o->in.flags title:string mode", "fx_walk(o->in.flags, title, mode)"),
             ("fx_many a1 a7 a8", "fx_many(a1, a7, a8)"),
             ("fx_big after big.c", "fx_big(after, big.c)"),
             ("fx_walk o->next->s o->parent->in.label:string", "fx_walk(o->next->s, o->parent->in.label)")]
    for perf_spec, proto in cases:
        p = subprocess.run(["perf", "probe", "-x", fx["so"], "-D", perf_spec],
                           capture_output=True, text=True)
        lines = [l for l in p.stdout.splitlines() if l.startswith("p:")]
        if p.returncode != 0 or not lines:
            raise fe.Skip(f"perf probe -D failed: {p.stderr.strip()[-200:]}")
        want = [a.replace("(%sp)", "($stack)") for a in lines[0].split()[1:]]
        r = fe.run("compile", "-x", fx["so"], proto)
        expect_eq(r.returncode, 0, r.stderr)
        got = r.stdout.splitlines()[0].split()[1:]
        expect_eq(got[0], want[0], "target")
        # perf prints unsigned values in hex (x32) where fevent says u32,
        # and reads stack slot k as +8k(%sp) where fevent says $stackk:
        # the same bytes, other spellings
        def same(args):
            out = []
            for a in args:
                a = re.sub(r":x(8|16|32|64)$", r":u\1", a.split("=", 1)[1])
                a = re.sub(r"^\+(\d+)\(\$stack\):",
                           lambda m: f"$stack{int(m.group(1)) // 8}:"
                           if int(m.group(1)) % 8 == 0 else m.group(0), a)
                out.append(a)
            return out
        expect_eq(same(got[1:]), same(want[1:]), proto)


def test_struct_by_value_in_registers():
    # 16 bytes: two registers (before is %di, so p takes %si and %dx);
    # 8 bytes: one register, members cut out as bitfields of it
    got = fields("fx_pair(before, p.a, p.b, after)")
    expect_eq(off("fx_pair.b"), 8)
    expect_eq(got, ["before=%di:s32", "a=%si:s64", "b=%dx:s64", "after=%cx:s32"])
    got = fields("fx_small(s.x, s.y, s.z, o->id)")
    expect_eq(got, ["x=%di:s32",
                    f"y__s=%di:b16@{off('fx_small.y') * 8}/64",     # short: signed
                    f"z=%di:b8@{off('fx_small.z') * 8}/64",
                    f"id=+{off('fx_obj.id')}(%si):s32"])
    # '...' reads a one-register struct whole, skips a two-register one
    r = compile_btf("fx_small(...)", "fx_pair(...)")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq([_args(l) for l in r.stdout.splitlines()],
              [["s=%di:x64", "o=%si:x64"], ["before=%di:s32", "after=%cx:s32"]])
    check("skips 'struct fx_pair p'" in r.stderr, r.stderr)


def test_dwarf_location_of_a_cloned_function():
    """GCC's fx_clone_impl.constprop.0 keeps only 'a', in %di; SysV on the
    original (unused, a, b) would say %si.  DWARF at the entry decides, and
    propagated constants become immediates."""
    tmp = tempfile.mkdtemp(prefix="fevent-clone-")
    try:
        so = os.path.join(tmp, "libclone.so")
        subprocess.run(["gcc", "-g", "-O2", "-shared", "-fPIC",
                        os.path.join(FIXTURES, "fx_clone.c"), "-o", so], check=True)
        syms, _ = _elf(so)
        clones = [n for n in syms if n.startswith("fx_clone_impl.")]
        if not clones:
            raise fe.Skip("this compiler did not clone fx_clone_impl")
        r = fe.run("compile", "-x", so, f"{clones[0]}(a, b, unused)")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(_args(r.stdout.splitlines()[0]), ["a=%di:s64", "b=\\7:s64", "unused=\\0:x64"])
    finally:
        shutil.rmtree(tmp)


def test_module_split_btf():
    """MODULE:func reads the module's split BTF beside the base BTF, the
    way /sys/kernel/btf/MODULE sits beside /sys/kernel/btf/vmlinux; its
    types can be the base's (struct fx_obj)."""
    tmp = tempfile.mkdtemp(prefix="fevent-mod-")
    try:
        base = os.path.join(tmp, "vmlinux")
        shutil.copy(fixture()["obj"], base)
        mod = os.path.join(tmp, "fxmod")
        subprocess.run(["gcc", "-g", "-O2", "-c", os.path.join(FIXTURES, "fx_mod.c"), "-o", mod],
                       check=True)
        subprocess.run(["pahole", "-J", "--btf_base", base, mod], check=True, capture_output=True)
        r = fe.run("compile", "--btf", base, "fxm_open(x64 d)",
                   "fxmod:fxm_open(d->unit, d->obj->in.flags, string d->label, flags)")
        expect_eq(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        expect_eq(lines[1].split()[:2], ["p:functions/fxm_open", "fxmod:fxm_open"])
        expect_eq(_args(lines[1]), [
            f"unit=+{off('fxm_dev.unit')}(%di):s32",
            f"flags=+{off('fx_obj.in') + off('fx_inner.flags')}(+{off('fxm_dev.obj')}(%di)):u32",
            f"label=+0(+{off('fxm_dev.label')}(%di)):string", "flags__1=%si:s32"])
        r = fe.run("compile", "--btf", base, "nomod:f(x64 a)")
        expect_eq(r.returncode, 0, r.stderr)
        check("no BTF for module 'nomod'" in r.stderr, r.stderr)
    finally:
        shutil.rmtree(tmp)


def test_unknown_functions_name_the_closest():
    fx = fixture()
    r = fe.run("compile", "-x", fx["so"], "fx_wlak(x64 a)")
    expect_eq(r.returncode, 2)
    check("no function 'fx_wlak'" in r.stderr and "did you mean 'fx_walk'?" in r.stderr, r.stderr)
    r = compile_btf("fx_wlak(x64 a)")
    expect_eq(r.returncode, 0, r.stderr)
    check("did you mean 'fx_walk'?" in r.stderr, r.stderr)
    r = fe.run("proto", "--btf", fx["obj"], "fx_wlak")
    expect_eq(r.returncode, 2)
    check("did you mean 'fx_walk'?" in r.stderr, r.stderr)


def test_inlined_only_function_is_probed_at_its_copy():
    # fx_helper is inlined once, at fx_walk's entry (DESIGN.md section 15),
    # where its x is folded away: the event has no x, and says so
    so = fixture()["so"]
    r = fe.run("compile", "-x", so, "fx_helper(x)")
    expect_eq(r.returncode, 0, r.stderr)
    nm = subprocess.run(["nm", so], capture_output=True, text=True, check=True).stdout
    walk = next(int(l.split()[0], 16) for l in nm.splitlines() if l.endswith(" fx_walk"))
    expect_eq(r.stdout, f"p:functions/fx_helper {so}:{walk:#x}\n")
    expect_eq(r.stderr, "fevent: warning: event 'fx_helper' (the copy of 'fx_helper' inlined "
              "into fx_walk+0x0) leaves out 'x': the compiler kept no value for it there "
              "(x: it is optimized out here)\n")
    # proto prints the same event and says the same of it (it was silent)
    r = fe.run("proto", "-x", so, "fx_helper")
    expect_eq((r.returncode, r.stdout),
              (0, "fx_helper(int x)\n# inlined everywhere: 1 copy, each an event at its entry, "
               f"none with a return event\n#   p:functions/fx_helper {so}:{walk:#x}\n"), r.stderr)
    expect_eq(r.stderr, "fevent: warning: '...' skips 'x': it is optimized out here (event "
              "'fx_helper', the copy of 'fx_helper' inlined into fx_walk+0x0)\n")
    # a return type has no copy to return from
    r = fe.run("compile", "-x", so, "int fx_helper(x)")
    expect_eq(r.returncode, 2)
    check("'fx_helper' is inlined everywhere" in r.stderr, r.stderr)
    expect_eq(fe.caret_column(r.stderr), 1)


def test_a_name_of_two_functions_warns():
    tmp = tempfile.mkdtemp(prefix="fevent-dup-")
    try:
        so = os.path.join(tmp, "libdup.so")
        subprocess.run(["gcc", "-g", "-O2", "-shared", "-fPIC",
                        os.path.join(FIXTURES, "fx_dup1.c"), os.path.join(FIXTURES, "fx_dup2.c"),
                        "-o", so], check=True)
        r = fe.run("compile", "-x", so, "fx_dup(v)")
        expect_eq(r.returncode, 0, r.stderr)
        check("'fx_dup' names 2 functions" in r.stderr, r.stderr)
    finally:
        shutil.rmtree(tmp)


def _stripped_copy(tmp):
    """libfx.so without DWARF, and its DWARF in libfx.so.debug."""
    so = os.path.join(tmp, "libfx.so")
    shutil.copy(fixture()["so"], so)
    subprocess.run(["objcopy", "--only-keep-debug", so, so + ".debug"], check=True)
    subprocess.run(["objcopy", "--strip-debug", so], check=True)
    return so


def _build_id(path):
    out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    return m.group(1) if m else None


WANT_SEPARATE = ["flags=+12(%di):u32"]


def test_separate_debuginfo_by_debuglink():
    tmp = tempfile.mkdtemp(prefix="fevent-dbglink-")
    try:
        so = _stripped_copy(tmp)
        # under a name only the debuglink gives (libdwfl also tries
        # "libfx.so.debug" beside the file by itself)
        other = os.path.join(tmp, "fx-dwarf.debug")
        os.rename(so + ".debug", other)
        r = fe.run("compile", "-x", so, "fx_walk(o->in.flags)")
        expect_eq(r.returncode, 2, "no DWARF: member paths cannot resolve")
        check("needs its type from debug info" in r.stderr or "unknown parameter" in r.stderr,
              r.stderr)
        subprocess.run(["objcopy", "--add-gnu-debuglink=fx-dwarf.debug", so], check=True, cwd=tmp)
        r = fe.run("compile", "-x", so, "fx_walk(o->in.flags)")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(_args(r.stdout.splitlines()[0]),
                  [f"flags=+{off('fx_obj.in') + off('fx_inner.flags')}(%di):u32"])
    finally:
        shutil.rmtree(tmp)


def test_separate_debuginfo_by_build_id():
    if os.geteuid() != 0:
        raise fe.Skip("needs root to write /usr/lib/debug/.build-id")
    tmp = tempfile.mkdtemp(prefix="fevent-buildid-")
    placed = None
    try:
        so = _stripped_copy(tmp)
        bid = _build_id(so)
        if not bid:
            raise fe.Skip("the linker wrote no build-id")
        placed = f"/usr/lib/debug/.build-id/{bid[:2]}/{bid[2:]}.debug"
        if os.path.exists(placed):
            raise fe.Skip(f"{placed} exists already")
        os.makedirs(os.path.dirname(placed), exist_ok=True)
        shutil.copy(so + ".debug", placed)
        os.unlink(so + ".debug")
        r = fe.run("compile", "-x", so, "fx_walk(o->in.flags)")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(_args(r.stdout.splitlines()[0]),
                  [f"flags=+{off('fx_obj.in') + off('fx_inner.flags')}(%di):u32"])
    finally:
        if placed and os.path.exists(placed):
            os.unlink(placed)
        shutil.rmtree(tmp)


def test_verbose_names_the_debug_info():
    r = compile_btf("-v", "fx_walk(o->id)")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stderr, f"fevent: fx_walk: probe on fx_walk; types from BTF {fixture()['obj']}\n")


def test_uprobes_have_no_symbol_type():
    r = fe.run("compile", "-x", fixture()["so"], "fx_walk(symbol o)")
    expect_eq(r.returncode, 2)
    check("uprobes cannot name symbols" in r.stderr, r.stderr)
    expect_eq(fe.caret_column(r.stderr), 9)
