#!/usr/bin/env bash
# How fast a key shows on the screen while two big files download at full loopback speed.
#
#   scripts/bench-keys.sh                 two 1 GiB files, 200 key presses
#
# Runs tdl (the full-screen list) in tmux, downloading two files from nginx on 127.0.0.1,
# and presses keys that change what is shown (? opens help, q closes it); each press is
# timed from send-keys until capture-pane shows the change (the polling costs a few ms of
# its own). Prints p50, p99 and the worst, in ms, and how many presses came during the
# end of a file (finishing: the last write, fsync, rename).
#
# Environment: TDL (binary, default .build/release/tdl), KEYS_MIB (size of each file,
# default 1024), KEYS_PRESSES (default 200), BENCH_DIR (parent of the temp folder, default
# /var/tmp: a disk, not tmpfs), KEYS_KEEP=1 keeps the temp folder, KEYS_CHECK=1 exits 0 when a
# goal is missed (p50 ≤ 16 ms, p99 ≤ 50 ms), KEYS_LOG=FILE writes one line a press (its
# start by the wall clock and by CLOCK_MONOTONIC, the key, ms until send-keys returned, ms until the screen showed it).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
TDL=$(realpath -m "${TDL:-$root/.build/release/tdl}")
MIB=${KEYS_MIB:-1024}
PRESSES=${KEYS_PRESSES:-200}
die() { echo "bench-keys: $*" >&2; exit 1; }
[ -x "$TDL" ] || die "no binary at $TDL (make release)"
command -v tmux >/dev/null || die "tmux is missing (scripts/install-deps.sh --test)"
. "$root/scripts/loopback-nginx.sh"

work=$(mktemp -d "${BENCH_DIR:-/var/tmp}/tdl-bench-keys.XXXXXX")
sock="tdl-bench-keys-$$"
cleanup() {
  tmux -L "$sock" kill-server 2>/dev/null || true
  stop_loopback_nginx "$work"
  [ "${KEYS_KEEP:-0}" = 1 ] || rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/www" "$work/home" "$work/downloads"
chmod 755 "$work" "$work/www"
for name in one two; do head -c "$((MIB * 1024 * 1024))" /dev/urandom >"$work/www/$name.bin"; done
chmod 644 "$work/www/"*.bin

start_loopback_nginx "$work"

export TDL_HOME="$work/home"
"$TDL" add -d "$work/downloads" "$NGINX_BASE/one.bin" "$NGINX_BASE/two.bin" >/dev/null
tmux -L "$sock" new-session -d -s tdl -x 120 -y 30 "TDL_HOME=$work/home '$TDL' -d '$work/downloads'; sleep 600"

python3 - "$sock" "$PRESSES" "$work/downloads" <<'PY'
import os, subprocess, sys, time
sock, presses, downloads = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def tmux(*args):
    return subprocess.run(["tmux", "-L", sock, *args], capture_output=True, text=True).stdout
def screen():
    return tmux("capture-pane", "-p", "-t", "tdl")
def wait_for(text, timeout=30):
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if text in screen(): return time.monotonic() - start
        time.sleep(0.0005)
    return None
if wait_for("one.bin") is None: sys.exit("tdl did not show the list")
wait_for("downloading")
samples, during_end, missed = [], 0, 0
log = open(os.environ["KEYS_LOG"], "w") if os.environ.get("KEYS_LOG") else None
for n in range(presses):
    key, want = ("?", " · Help · ") if n % 2 == 0 else ("q", " · Downloads · ")
    t0, wall = time.monotonic(), time.time()
    tmux("send-keys", "-t", "tdl", key)
    sent = time.monotonic()
    took = wait_for(want, timeout=20)
    if took is None:
        missed += 1
        continue
    samples.append((time.monotonic() - t0) * 1000)
    if log:  # the start (wall clock, monotonic clock), then ms: send-keys returned, the screen showed it
        log.write(f"{wall:.6f} {t0:.6f} {key} {(sent - t0) * 1000:.2f} {samples[-1]:.2f}\n")
    if any(name.endswith(".part") for name in os.listdir(downloads)) and "finishing" in screen().lower():
        during_end += 1
    time.sleep(0.02)
    if n % 2 == 1 and "2 done" in screen():
        break
samples.sort()
def pct(p): return samples[min(len(samples) - 1, int(p / 100 * len(samples)))]
print(f"presses {len(samples)} (missed {missed}), p50 {pct(50):.1f} ms, p99 {pct(99):.1f} ms, worst {samples[-1]:.1f} ms")
print("still downloading at the end" if "2 done" not in screen() else "both files done")
met = pct(50) <= 16 and pct(99) <= 50 and missed == 0
print(f"keys during two full-speed downloads: p50 {pct(50):.1f} ms (goal ≤ 16 ms) {'✓' if pct(50) <= 16 else '✗'}, "
      f"p99 {pct(99):.1f} ms (goal ≤ 50 ms) {'✓' if pct(99) <= 50 else '✗'}")
sys.exit(0 if met or os.environ.get("KEYS_CHECK") else 1)
PY
