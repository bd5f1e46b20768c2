#!/usr/bin/env python3
"""The kept BTF function index (/run/fevent/vmlinux.btf.funcs) mutated
under the sanitized build's compile of a list: 1 to 16 bytes set (the
head page often), a tenth cut short, some grown.  Any change must be
refused, so the output must be the one with the real table, with no
sanitizer report.  Root only; the real table is put back at the end.

usage: tests/fuzz/mutate_kept_index.py SECONDS   (from the top of the tree,
after scripts/build --sanitized and an add that kept the table; PROTOS
names a -f list of kernel functions, default /tmp/protos)
"""
import os, random, subprocess, time, shutil
K="/run/fevent/vmlinux.btf.funcs"
real=open(K,"rb").read()
env=dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0")
args=["build-asan/fevent","compile","-q","-f",os.environ.get("PROTOS", "/tmp/protos")]
ref=subprocess.run(args,capture_output=True,text=True,env=env)
assert ref.returncode==0, ref.stderr
rng=random.Random(15); end=time.time()+float(os.sys.argv[1]); runs=bad=0
try:
    while time.time()<end:
        d=bytearray(real)
        for _ in range(rng.choice([1,1,2,4,16])):
            i=rng.randrange(len(d)) if rng.random()<0.8 else rng.randrange(200)
            d[i]=rng.choice([0,0xff,0x30,0x31,0x0a,0x20,rng.randrange(256),d[i]^(1<<rng.randrange(8))])
        if rng.random()<0.1: d=d[:rng.randrange(len(d))]
        if rng.random()<0.05: d=d+bytes(rng.randrange(1,9000))
        os.unlink(K); open(K,"wb").write(d); os.chmod(K,0o600)
        r=subprocess.run(args,capture_output=True,text=True,errors="replace",env=env)
        runs+=1
        if (r.returncode,r.stdout)!=(0,ref.stdout) or "Sanitizer" in r.stderr or "runtime error" in r.stderr:
            bad+=1; open(f"/tmp/fevent-kept-bad{bad}","wb").write(d); print("BAD",r.returncode,r.stderr[-500:],flush=True)
finally:
    os.unlink(K); open(K,"wb").write(real); os.chmod(K,0o600)
print(runs,"runs,",bad,"bad")
