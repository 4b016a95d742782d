#!/usr/bin/env bash
# One small file, start to finish: the installed binary's wall time from exec to exit for
# `tdl get` of a 1 KiB file from nginx on 127.0.0.1 into a fresh folder and a fresh home,
# against `curl -o FILE URL && sync -f` run in turn with it.
#
#   scripts/bench-start.sh                 21 runs each, medians
#
# Environment: TDL (binary, default .build/release/tdl; `make bench` gives the one `make
# install` installed), START_RUNS (default 21), BENCH_DIR (parent of the temp folder,
# default /var/tmp: a disk, not tmpfs), START_CHECK=1 exits 0 when the goal is missed.
# Goal: ≤ 15 ms median. Each run is timed from Python: its fork and exec (about a
# millisecond) count in both tools' figures.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
TDL=$(realpath -m "${TDL:-$root/.build/release/tdl}")
RUNS=${START_RUNS:-21}
die() { echo "bench-start: $*" >&2; exit 1; }
[ -x "$TDL" ] || die "no binary at $TDL (make release, or make install PREFIX=DIR and TDL=DIR/bin/tdl)"
. "$root/scripts/loopback-nginx.sh"

work=$(mktemp -d "${BENCH_DIR:-/var/tmp}/tdl-bench-start.XXXXXX")
cleanup() {
  stop_loopback_nginx "$work"
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/www"
chmod 755 "$work" "$work/www"
head -c 1024 /dev/urandom >"$work/www/small.bin"
chmod 644 "$work/www/small.bin"
start_loopback_nginx "$work"

python3 - "$TDL" "$NGINX_BASE/small.bin" "$work" "$RUNS" <<'PY'
import os, shutil, statistics, subprocess, sys, time
tdl, url, work, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
def fresh(name):
    path = os.path.join(work, name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path
def timed(command):
    start = time.perf_counter()
    subprocess.run(command, check=True, stdin=subprocess.DEVNULL)
    return time.perf_counter() - start
tools = {
    "tdl": lambda out, home: [tdl, "get", "--home", home, "-d", out, "-q", url],
    "curl": lambda out, home: ["sh", "-c", 'curl -sSf -o "$0/small.bin" "$1" && exec sync -f "$0"', out, url],
}
times = {name: [] for name in tools}
for round in range(runs + 1):  # round 0 warms up
    order = list(tools) if round % 2 else list(tools)[::-1]
    for name in order:
        out, home = fresh(f"out-{name}-{round}"), os.path.join(work, f"home-{name}-{round}")
        took = timed(tools[name](out, home))
        if not os.path.exists(os.path.join(out, "small.bin")):
            sys.exit(f"bench-start: {name} left no file")
        if round:
            times[name].append(took)
tdl_ms, curl_ms = (statistics.median(times[n]) * 1000 for n in ("tdl", "curl"))
ok = tdl_ms <= 15
print(f"one small file, exec to exit ({runs} runs each, medians): tdl {tdl_ms:.1f} ms (goal ≤ 15 ms) "
      f"{'✓' if ok else '✗'}, curl && sync -f {curl_ms:.1f} ms; fastest tdl {min(times['tdl']) * 1000:.1f} ms")
sys.exit(0 if ok or os.environ.get("START_CHECK") else 1)
PY
