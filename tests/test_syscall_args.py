"""System call arguments by name on the host (issue 20 items 4 and 5): their
names and C types from the running kernel's trace event format, their
places in the wrapper's pt_regs, user memory behind their pointers, and a
member path through one ('how->flags') typed by the struct BTF names.
tests/test_vm_syscall_args.py records them on every kernel of the VM."""
import os

import fe
from fe import check, expect_eq

HEAD = "__caller=$stack0:symbol "
OPENAT = "p:functions/SyS_openat __x64_sys_openat " + HEAD
OPENAT2 = "p:functions/SyS_openat2 __x64_sys_openat2 " + HEAD


def need_formats():
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        raise fe.Skip("no running-kernel BTF")
    if not os.access("/sys/kernel/tracing/events/syscalls/sys_enter_openat2/format", os.R_OK):
        raise fe.Skip("no syscall trace event formats readable here")


def compile_one(proto, *opts):
    r = fe.run("compile", *opts, proto)
    expect_eq((r.returncode, r.stderr), (0, ""), proto)
    return r.stdout.rstrip("\n")


def test_arguments_by_name_from_the_format():
    need_formats()
    for proto, want in [
            ("SyS_openat(dfd, filename, flags, mode)",
             OPENAT + "dfd=+112(%di):s32 filename=+0(+104(%di)):ustring flags=+96(%di):s32 "
             "mode=+56(%di):u16"),
            # slots typed, then a member path through the user pointer
            ("SyS_openat2(int dfd, string filename, how->flags)",
             OPENAT2 + "dfd=+112(%di):s32 filename=+0(+104(%di)):ustring "
             "flags=+u0(+96(%di)):u64"),
            ("SyS_openat2(how->resolve, u32 m=how->mode, usize)",
             OPENAT2 + "resolve=+u16(+96(%di)):u64 m=+u8(+96(%di)):u32 usize=+56(%di):u64"),
            # '...': every argument the format names
            ("SyS_openat2(...)",
             OPENAT2 + "dfd=+112(%di):s32 filename=+0(+104(%di)):ustring how=+96(%di):x64 "
             "usize=+56(%di):u64"),
            ("SyS_openat(int dfd, ...)",
             OPENAT + "dfd=+112(%di):s32 filename=+0(+104(%di)):ustring flags=+96(%di):s32 "
             "mode=+56(%di):u16"),
            # C indexing of an 'int *' argument: the caller's array
            ("SyS_pipe2(fildes[1], flags)",
             "p:functions/SyS_pipe2 __x64_sys_pipe2 " + HEAD +
             "fildes=+u4(+112(%di)):s32 flags=+104(%di):s32"),
            # through both pointers of a 'const char *const *': the string
            ("SyS_execve(argv[1], string e=envp[0], x64 p=argv[2])",
             "p:functions/SyS_execve __x64_sys_execve " + HEAD +
             "argv=+0(+u8(+104(%di))):ustring e=+0(+u0(+96(%di))):ustring "
             "p=+u16(+104(%di)):x64"),
            # a whole struct through the user pointer: every member of
            # the struct the format names, from BTF (issue 31 item 6)
            ("SyS_openat2(dfd, filename, *how)",
             OPENAT2 + "dfd=+112(%di):s32 filename=+0(+104(%di)):ustring "
             "flags=+u0(+96(%di)):x64 mode=+u8(+96(%di)):x64 resolve=+u16(+96(%di)):x64"),
            ("SyS_openat2(how->*)",
             OPENAT2 + "flags=+u0(+96(%di)):x64 mode=+u8(+96(%di)):x64 resolve=+u16(+96(%di)):x64"),
            # a pointer typedef (cap_user_header_t) walked with BTF's types
            ("SyS_capget(header->pid)",
             "p:functions/SyS_capget __x64_sys_capget " + HEAD + "pid=+u4(+112(%di)):s32"),
    ]:
        expect_eq(compile_one(proto), want, proto)


def test_another_kernels_btf_falls_back_to_the_format():
    """--btf names another kernel: its own __do_sys_X would come first;
    without one, the running kernel's format (the system call ABI) names
    the arguments and that BTF types the struct."""
    need_formats()
    expect_eq(compile_one("SyS_openat2(int dfd, string filename, how->flags)",
                          "--btf", "/sys/kernel/btf/vmlinux"),
              OPENAT2 + "dfd=+112(%di):s32 filename=+0(+104(%di)):ustring "
              "flags=+u0(+96(%di)):u64")


def test_wrong_names_and_paths_say_what_the_format_has():
    need_formats()
    fmt = "/sys/kernel/tracing/events/syscalls/sys_enter_openat/format"
    for proto, col, msg in [
            ("SyS_openat(dfdx)", 12, "'SyS_openat' has no parameter 'dfdx'; did you mean 'dfd'?"),
            # a slot past the last argument, once the format is read
            ("SyS_openat(dfd, x64 b, x64 c, x64 d, x64 e)", 38,
             f"'SyS_openat' has 4 arguments ({fmt})"),
            ("SyS_openat2(how.flags)", 16,
             "'.flags' on 'struct open_how *', which is a pointer; use '->'"),
            ("SyS_openat2(how->nosuch)", 18,
             "struct open_how has no member 'nosuch'"),
            ("SyS_openat(filename->x)", 20,
             "'->x' on 'const char *', which points to no struct or union"),
            ("SyS_io_submit(iocbpp->x)", 21,
             "'->x' on 'struct iocb * *', which points to no struct or union"),
            ("SyS_pipe2(fildes[1][0])", 20,
             "'[]' on an element of 'int *', which is an integer"),
            ("SyS_openat2(*filename)", 13,
             "'*' reads every member of the struct a pointer points to; 'filename' is "
             "'const char *' (/sys/kernel/tracing/events/syscalls/sys_enter_openat2/format)"),
            ("SyS_openat2(how->nosuch.*)", 18, "struct open_how has no member 'nosuch'"),
    ]:
        r = fe.run("compile", proto)
        expect_eq((r.returncode, r.stdout), (2, ""), proto)
        expect_eq(r.stderr.splitlines()[0], f"fevent: error: column {col}: {msg}", proto)
        expect_eq(fe.caret_column(r.stderr), col, r.stderr)


def test_proto_prints_only_the_arguments():
    need_formats()
    r = fe.run("proto", "SyS_openat2")
    expect_eq((r.returncode, r.stderr), (0, ""))
    lines = r.stdout.splitlines()
    expect_eq(lines[0], "long SyS_openat2(int dfd, const char * filename, "
                        "struct open_how * how, size_t usize)")
    c = fe.run("compile", "-r", lines[0])
    expect_eq(c.returncode, 0, c.stderr)


def test_typed_slots_read_no_tracefs():
    """Only names need the format: typed slots compile as non-root, as
    before, and by name says what is missing there."""
    need_formats()
    r = fe.run_as_nobody("compile", "SyS_openat(int dfd, string path)")
    expect_eq((r.returncode, r.stderr), (0, ""))
    expect_eq(r.stdout, OPENAT + "dfd=+112(%di):s32 path=+0(+104(%di)):ustring\n")
    r = fe.run_as_nobody("proto", "SyS_openat")
    expect_eq(r.returncode, 1)
    check("its trace event format, which names them, is not at hand: "
          "/sys/kernel/tracing/events/syscalls is not readable: run as root" in r.stderr,
          r.stderr)


def test_an_array_from_a_user_pointer_is_read_plainly():
    # the kernel refuses '+u' under an array ("String accepts only memory
    # argument"); a plain dereference reads the user's bytes (the kernel
    # matrix records them on every kernel)
    r = fe.run("compile", "SyS_write(unsigned int fd, x8[4] buf, size_t count)")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stdout, "p:functions/SyS_write __x64_sys_write __caller=$stack0:symbol "
              "fd=+112(%di):u32 buf=+0(+104(%di)):x8[4] count=+96(%di):u64\n")
