"""Tracepoints in the prototype language (issue 20, DESIGN.md section 14),
compiled against the host's BTF: tp:NAME(...) and a bare NAME that is no
function, the raw arguments from BTF (btf_trace_NAME, named by
__probestub_NAME), members at the offsets BTF gives, $argN counted after
__data, and the refusals.  The events themselves are tested in the VM
(test_vm_tracepoints.py): the host kernel has no tracepoint probe events."""
import os
import re

import fe
from fe import check, expect_eq

BTF = "/sys/kernel/btf/vmlinux"


def compile_(*args):
    if not os.path.exists(BTF):
        raise fe.Skip("no BTF at " + BTF)
    return fe.run("compile", *args)


def one_line(proto, *opts):
    r = compile_(*opts, proto)
    expect_eq(r.returncode, 0, f"exit status of {proto}\n{r.stderr}")
    expect_eq(r.stderr, "", "no warnings")
    return r.stdout.splitlines()


def test_tp_prefix_by_name_and_members():
    expect_eq(one_line("tp:signal_generate(sig, info->si_code, group, result)"),
              ["t:functions/signal_generate signal_generate sig=$arg1:s32 "
               "si_code=+8($arg2):s32 group=$arg4:s32 result=$arg5:s32"])


def test_bare_name_is_a_tracepoint_where_no_function_has_it():
    expect_eq(one_line("sched_switch(prev, next, prev_state)"),
              ["t:functions/sched_switch sched_switch prev=$arg2:x64 next=$arg3:x64 "
               "prev_state=$arg4:u32"])
    # '...' is every raw argument, typed from BTF (bool preempt is u8)
    expect_eq(one_line("tp:sched_switch(...)"),
              ["t:functions/sched_switch sched_switch preempt=$arg1:u8 prev=$arg2:x64 "
               "next=$arg3:x64 prev_state=$arg4:u32"])


def test_member_offsets_are_those_of_a_kprobe_on_the_same_type():
    # wake_up_process(struct task_struct *p): the same member read from
    # %di must be read at the same offset from $arg2 (prev) and $arg3
    k = one_line("wake_up_process(p->pid, string p->comm)")[0]
    m = re.search(r"pid=\+(\d+)\(%di\):s32 comm=\+(\d+)\(%di\):string$", k)
    check(m, k)
    expect_eq(one_line("sched_switch(prev->pid, string next->comm)"),
              [f"t:functions/sched_switch sched_switch pid=+{m[1]}($arg2):s32 "
               f"comm=+{m[2]}($arg3):string"])


def test_slots_filter_name_and_group():
    expect_eq(one_line("tp:sched_switch(u8 preempt, x64 prev) if preempt == 1", "-g", "tps"),
              ["t:tps/sched_switch sched_switch preempt=$arg1:u8 prev=$arg2:x64",
               "# filter tps/sched_switch: preempt == 1"])
    expect_eq(one_line("tp:sched_switch(prev_state)", "-n", "sw"),
              ["t:functions/sw sched_switch prev_state=$arg4:u32"])


def test_kernel_spelling_compiles_back():
    # what 'fevent list' renders a t: event back as
    expect_eq(one_line("tp:sched_switch(s32 pid=+1264($arg2), string comm=+1752($arg3), "
                       "u8 preempt=$arg1)"),
              ["t:functions/sched_switch sched_switch pid=+1264($arg2):s32 "
               "comm=+1752($arg3):string preempt=$arg1:u8"])


def test_another_kernels_btf_compiles_the_same():
    # compile touches nothing: with --btf it prints the t: line whatever
    # the running kernel's tracing can do ('add' is what refuses)
    expect_eq(one_line("tp:signal_generate(sig)", "--btf", BTF),
              ["t:functions/signal_generate signal_generate sig=$arg1:s32"])


def test_a_function_keeps_its_name():
    # a name that is a function of the kernel stays a kprobe
    line = one_line("wake_up_process(p)")[0]
    check(line.startswith("p:functions/wake_up_process wake_up_process "), line)


def refused(proto, *opts):
    r = compile_(*opts, proto)
    expect_eq(r.returncode, 2, f"exit status of {proto}\n{r.stderr}")
    expect_eq(r.stdout, "", "nothing printed")
    return r.stderr


def test_refusals():
    err = refused("tp:no_such_tracepoint(x)")
    check("fevent: error: column 4: no tracepoint 'no_such_tracepoint' in "
          "/sys/kernel/btf/vmlinux (no typedef btf_trace_no_such_tracepoint)\n" in err, err)
    err = refused("long tp:sched_switch(prev)")
    check("fevent: error: column 1: a tracepoint returns nothing: drop the return type\n"
          in err, err)
    err = refused("tp:sched_switch(prev)", "-r")
    check("a tracepoint returns nothing: -r does not apply to tp:sched_switch\n" in err, err)
    err = refused("tp:sched_switch(prevv)")
    check("fevent: error: column 17: 'prevv' is no argument of tracepoint sched_switch; "
          "did you mean 'prev'? (its arguments: preempt, prev, next, prev_state)\n" in err, err)
    err = refused("tp:nosuch*(x)")
    check("fevent: error: column 4: no tracepoint matches 'nosuch*' ('fevent funcs "
          "\"tp:GLOB\"' lists them)\n" in err, err)
    err = refused("tp:sched_switch(prev->nosuch)")
    check("nosuch" in err, err)


def test_proto_prints_a_tracepoints_prototype():
    r = fe.run("proto", "tp:signal_generate", "sched_process_fork")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stdout.splitlines(), [
        "tp:signal_generate(int sig, struct kernel_siginfo *info, struct task_struct *task, "
        "int group, int result)",
        "#   t:functions/signal_generate signal_generate sig=$arg1:s32 info=$arg2:x64 "
        "task=$arg3:x64 group=$arg4:s32 result=$arg5:s32",
        "tp:sched_process_fork(struct task_struct *parent, struct task_struct *child)",
        "#   t:functions/sched_process_fork sched_process_fork parent=$arg1:x64 "
        "child=$arg2:x64"])
    r = fe.run("proto", "tp:no_such_tracepoint")
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq(r.stderr, "fevent: error: no tracepoint 'no_such_tracepoint' in "
              "/sys/kernel/btf/vmlinux (no typedef btf_trace_no_such_tracepoint)\n")


def test_funcs_lists_tracepoints():
    r = fe.run("funcs", "tp:sched_process_*")
    expect_eq(r.returncode, 0, r.stderr)
    got = r.stdout.splitlines()
    check({"tp:sched_process_exec", "tp:sched_process_exit", "tp:sched_process_fork"} <=
          set(got), got)
    expect_eq(got, sorted(got), "sorted")
    # each compiles as listed
    for name in got:
        r = fe.run("compile", name + "(...)")
        expect_eq(r.returncode, 0, f"{name}: {r.stderr}")
        check(r.stdout.startswith("t:functions/" + name[3:] + " " + name[3:]), r.stdout)


def test_a_glob_names_many_tracepoints():
    r = compile_("-v", "tp:sched_wak*(p->pid)")
    expect_eq(r.returncode, 0, r.stderr)
    k = one_line("wake_up_process(p->pid)")[0]
    off = re.search(r"pid=\+(\d+)\(%di\)", k)[1]
    names = [n[3:] for n in fe.run("funcs", "tp:sched_wak*").stdout.split()]
    check("sched_wake_idle_without_ipi" in names, names)
    expect_eq(r.stdout.splitlines(),
              [f"t:functions/{n} {n} pid=+{off}($arg1):s32" for n in names
               if n != "sched_wake_idle_without_ipi"])
    check("fevent: warning: skipped sched_wake_idle_without_ipi: 'p' is no argument of "
          "tracepoint sched_wake_idle_without_ipi (its arguments: cpu)\n" in r.stderr, r.stderr)


def test_a_tracepoint_globs_messages_say_tracepoints():
    names = [n[3:] for n in fe.run("funcs", "tp:sched_wak*").stdout.split()]
    r = compile_("tp:sched_wak*(p->pid)")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stderr, f"fevent: warning: 1 of the {len(names)} tracepoints 'sched_wak*' "
                        "names is skipped: the prototype does not compile for it (-v says why)\n")
    r = compile_("tp:sched_wak*(nosuch)")
    expect_eq((r.returncode, r.stderr.splitlines()[0]),
              (2, f"fevent: error: column 15: none of the {len(names)} tracepoints 'sched_wak*' "
                  "names compiles; the first, sched_wake_idle_without_ipi: 'nosuch' is no "
                  "argument of tracepoint sched_wake_idle_without_ipi (its arguments: cpu)"))
    r = compile_("-n", "x", "tp:sched_wak*(p)")
    expect_eq((r.returncode, r.stderr.splitlines()[0]),
              (2, f"fevent: error: column 4: -n names one event, but 'sched_wak*' matches "
                  f"{len(names)} tracepoints"))
    r = compile_("tp:sched_wak*(p)", "tp:sched_wak*(p)")
    check("fevent: warning: every tracepoint 'sched_wak*' names that compiles is named by an "
          "earlier prototype: it adds none\n" in r.stderr, r.stderr)
    r = compile_("tp:zzz*(p)")
    expect_eq((r.returncode, r.stderr.splitlines()[0]),
              (2, "fevent: error: column 4: no tracepoint matches 'zzz*' "
                  "('fevent funcs \"tp:GLOB\"' lists them)"))


def test_an_enum_argument_compiles():
    # compact_retry(int order, enum compact_priority, enum compact_result,
    # ...): an argument of an enum type asks the view for its enumerators
    # (fevent died there: the tracepoint's view had none to give)
    line = one_line("tp:compact_retry(priority, result)")
    expect_eq(line, ["t:functions/compact_retry compact_retry priority=$arg2:u32 "
                     "result=$arg3:u32"])


def test_btf_before_probestubs_gives_slots():
    """6.1's BTF (the vmlinux of tests/fetch-vmlinux-dbg, which has .BTF)
    has btf_trace_NAME but no __probestub_NAME: the arguments have types
    and no names, so a prototype reads them by slot."""
    from test_kernel_dwarf import need_vmlinux
    v = need_vmlinux()
    expect_eq(one_line("tp:signal_generate(int sig, x64 info, x64 task)", "--btf", v),
              ["t:functions/signal_generate signal_generate sig=$arg1:s32 info=$arg2:x64 "
               "task=$arg3:x64"])
    r = fe.run("proto", "--btf", v, "tp:signal_generate")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stdout.splitlines()[0],
              "tp:signal_generate(int arg1, struct kernel_siginfo *arg2, "
              "struct task_struct *arg3, int arg4, int arg5)")
    err = refused("tp:signal_generate(sig)", "--btf", v)
    check(f"fevent: error: column 20: 'sig' is no argument of tracepoint signal_generate "
          f"({v} names none of its 5: it has no __probestub_signal_generate, which kernels "
          f"since 6.5 have; read them by slot, TYPE NAME)\n" in err, err)


def test_add_refuses_where_the_kernel_has_no_tracepoint_probes():
    if os.geteuid() != 0:
        raise fe.Skip("needs root")
    readme = "/sys/kernel/tracing/README"
    if not os.path.exists(readme):
        raise fe.Skip("no tracefs README")
    if re.search(r"^\s*t\[:\[<group>/\]\[<event>\]\] <tracepoint>", open(readme).read(), re.M):
        raise fe.Skip("this kernel has tracepoint probe events (the VM tests cover them)")
    # refused before anything else (this kernel's BTF may name no
    # argument), as a prototype this kernel cannot take: exit 2
    r = fe.run("add", "-g", "fevent_tp_test", "tp:signal_generate(sig)")
    expect_eq((r.returncode, r.stdout), (2, ""), r.stderr)
    expect_eq(r.stderr,
              "fevent: error: column 4: this kernel has no tracepoint probe events (t:), which "
              "tp:signal_generate needs: its tracefs README (/sys/kernel/tracing/README) has "
              "no 't[:[<group>/][<event>]] <tracepoint>' line (CONFIG_FPROBE_EVENTS is off, "
              "or the kernel predates them)\n"
              "    tp:signal_generate(sig)\n"
              "       ^\n")
    # only this test's group: other fevents may add their own meanwhile
    ours = [l for l in open("/sys/kernel/tracing/dynamic_events", errors="replace")
            if l.split()[0].split(":", 1)[-1].startswith("fevent_tp_test/")]
    expect_eq(ours, [], "nothing added")


def test_portable_tracepoint_compiles_back():
    # compile --portable renders a tracepoint probe as tp:NAME(...), which
    # compiles to the same t: line
    r = fe.run("compile", "--portable", "tp:sched_switch(prev->pid)")
    expect_eq(r.returncode, 0, r.stderr)
    check(r.stdout.startswith("tp:sched_switch(s32 pid=+"), r.stdout)
    again = fe.run("compile", "-f", "-", stdin=r.stdout)
    expect_eq((again.returncode, again.stdout),
              (0, fe.run("compile", "tp:sched_switch(prev->pid)").stdout), again.stderr)
