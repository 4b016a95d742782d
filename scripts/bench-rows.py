#!/usr/bin/env python3
# Times the commands that change a few tasks of a big session (docs/measurements.md):
#   tdl debug populate --home /tmp/rows1m 1000000
#   scripts/bench-rows.py .build/release/tdl 9 /tmp/rows1m
# Medians of wall time and peak RSS (wait4) per command; tdl --version is the floor of a start.
import os, sys, subprocess, time, statistics

B, N = sys.argv[1], int(sys.argv[2])
home = sys.argv[3] if len(sys.argv) > 3 else "/tmp/rows1m"
H = ["--home", home]
res = {}
def run(label, args):
    t = time.perf_counter()
    p = subprocess.Popen([B] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    res.setdefault(label, []).append((time.perf_counter() - t, ru.ru_maxrss / 1024))
for i in range(N):
    u = f"http://example.com/bench/n{i}-{os.getpid()}.bin"
    run("--version (floor)", ["--version"])
    run("add URL", ["add"] + H + [u])
    run("pause URL", ["pause"] + H + [u])
    run("resume URL", ["resume"] + H + [u])
    run("stop URL", ["stop"] + H + [u])
    run("restart URL", ["restart"] + H + [u])
    run("rm URL", ["rm"] + H + [u])
    run("resume URL (from the trash)", ["resume"] + H + [u])
    run("rm --purge URL", ["rm", "--purge"] + H + [u])
    run("add URL1 URL2 URL3", ["add"] + H + [u + ".1", u + ".2", u + ".3"])
    run("pause URL1 URL2 URL3", ["pause"] + H + [u + ".1", u + ".2", u + ".3"])
for k, v in res.items():
    print(f"| `tdl {k}` | {statistics.median(t for t, _ in v)*1000:.0f} ms | {statistics.median(m for _, m in v):.0f} MB | {len(v)} |")
