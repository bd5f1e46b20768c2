"""The README's first command, scripts/demo: fevent's main job (add the seed,
record 'cat /etc/hostname') shown through fevent's own view.  On this
kernel it runs in the test VM, through the same scripts/demo-job a kprobe
kernel runs directly (issue 9, item 16)."""
import os
import re
import subprocess

import fe
from fe import check, expect_eq

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = "SyS_openat(int dfd, string path, x32 flags, x16 mode)"


def test_demo_shows_the_seed_event_in_feventss_view():
    if os.environ.get("FEVENT_NO_VM") == "1":
        raise fe.Skip("FEVENT_NO_VM=1")
    r = subprocess.run([os.path.join(HERE, "vm", "run-demo"), fe.binary()],
                       capture_output=True, text=True, timeout=900)
    expect_eq(r.returncode, 0, r.stderr)
    lines = r.stdout.splitlines()
    expect_eq(lines[1:5], [
        f"# fevent add '{SEED}'",
        "p:functions/SyS_openat __x64_sys_openat __caller=$stack0:symbol dfd=+112(%di):s32 "
        "path=+0(+104(%di)):ustring flags=+96(%di):x32 mode=+56(%di):x16",
        "# fevent record -- cat /etc/hostname",
        "fevent-vm",
    ], r.stdout)
    events = [l for l in lines[5:] if l.strip()]
    expect_eq(len(events), 1, r.stdout)
    check(re.fullmatch(r" +cat-\d+ \[\d{3}\] +\d+\.\d{6}: do_syscall_64->SyS_openat\(dfd=-100, "
                       r'path="/etc/hostname", flags=0x0, mode=0x0\)', events[0]), events[0])
    expect_eq(r.stderr, "fevent: 1 event; none lost\n")
