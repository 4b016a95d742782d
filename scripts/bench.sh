#!/usr/bin/env bash
# Compares `tdl get` with curl, wget and aria2c, downloading from nginx on loopback.
#
#   scripts/bench.sh                      every scenario
#   scripts/bench.sh single many          a subset: single (1 GiB, one connection, plus CPU),
#                                         segmented (rate-limited server, 8 connections),
#                                         many (500 small files, 16 at a time),
#                                         mirrors (a file of the segmented size from three
#                                         mirrors at 20 MiB/s per connection, 3 to each)
#
# Environment: TDL (binary, default .build/release/tdl), BENCH_RUNS (timed runs per tool,
# default 5), BENCH_DIR (parent of the temp folder, default /var/tmp: it must be a disk,
# not tmpfs), BENCH_TIMEOUT (seconds before a run counts as hung, default 600),
# BENCH_BIG_MIB / BENCH_SEG_MIB / BENCH_FILES (sizes, for a quick trial), BENCH_KEEP=1
# (keep the temp folder, e.g. to rerun a failed command).
#
# Each round runs every tool once, tdl first in odd rounds and last in even ones, so the
# tdl/peer ratio of a round compares neighbours. Round 0 is an untimed warm-up whose
# output is checked against sha256. tdl makes its files durable before it exits, so curl
# and wget are followed by `sync -f` (aria2c fsyncs by itself). Progress goes to stderr, the markdown table to stdout.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
TDL=$(realpath -m "${TDL:-$root/.build/release/tdl}")
RUNS=${BENCH_RUNS:-5}
TIMEOUT=${BENCH_TIMEOUT:-600}
BIG_MIB=${BENCH_BIG_MIB:-1024}
SEG_MIB=${BENCH_SEG_MIB:-256}
FILES=${BENCH_FILES:-500}
SMALL_KIB=100
PEERS=(curl wget aria2c)

die() { echo "bench: $*" >&2; exit 1; }
have() { command -v "$1" >/dev/null; }
say() { echo "$*" >&2; }
. "$root/scripts/loopback-nginx.sh"

# The given peers that are installed.
installed() {
  local p
  for p in "$@"; do [[ " ${PEERS[*]} " != *" $p "* ]] || echo "$p"; done
}

check_tools() {
  [ -x "$TDL" ] || die "no tdl binary at $TDL (run 'make release' or set TDL=)"
  have /usr/sbin/nginx || have nginx || die "nginx is missing (scripts/install-deps.sh --test)"
  local p kept=()
  for p in python3 curl sha256sum; do have "$p" || die "$p is missing"; done
  for p in "${PEERS[@]}"; do
    if have "$p"; then kept+=("$p"); else say "bench: $p is not installed, skipping it"; fi
  done
  PEERS=("${kept[@]}")
}

# --- temp folder, files, nginx ----------------------------------------------------------

make_work() {
  work=$(mktemp -d "${BENCH_DIR:-/var/tmp}/tdl-bench.XXXXXX")
  # nginx workers run as www-data when started by root: they must be able to read the files.
  chmod 755 "$work"
  mkdir -p "$work/www/many"
  [ "$(fs_type)" != tmpfs ] || say "bench: warning: $work is on tmpfs, sync costs nothing there"
}

MIRROR_PIDS=()
cleanup() {
  [ -z "${work:-}" ] || stop_loopback_nginx "$work"
  local pid
  for pid in "${MIRROR_PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  [ -n "${work:-}" ] && [ -z "${BENCH_KEEP:-}" ] && rm -rf "$work"
  return 0
}

# Random content, so no layer can compress it; sha256 manifests for the checks.
make_files() {
  say "bench: writing test files into $work/www"
  head -c "$((BIG_MIB << 20))" /dev/urandom >"$work/www/big.bin"
  head -c "$((SEG_MIB << 20))" /dev/urandom >"$work/www/seg.bin"
  python3 - "$work/www/many" "$FILES" "$((SMALL_KIB << 10))" <<'EOF'
import os, sys
folder, count, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for i in range(1, count + 1):
    with open(os.path.join(folder, "f%04d.bin" % i), "wb") as f:
        f.write(os.urandom(size))
EOF
  (cd "$work/www" && sha256sum big.bin >"$work/single.sha256" && sha256sum seg.bin >"$work/segmented.sha256")
  (cd "$work/www/many" && sha256sum -- *.bin >"$work/many.sha256")
  local i
  for ((i = 1; i <= FILES; i++)); do printf '%s/many/f%04d.bin\n' "$BASE" "$i"; done >"$work/urls.txt"
  sed 's/.*/url = "&"/' "$work/urls.txt" >"$work/urls.curlrc"
  chmod -R a+rX "$work/www"
  # Write the sources back now, so their writeback does not land in a timed run.
  sync -f "$work/www/big.bin"
}

fs_type() { df --output=fstype "$work" | tail -n 1; }

# /slow/ serves the same folder at 40 MiB/s per connection: segmenting pays off there.
start_nginx() {
  start_loopback_nginx "$work" "location /slow/ { alias $work/www/; limit_rate 40m; }"
  BASE=$NGINX_BASE
}

# --- one timed run ----------------------------------------------------------------------

# Prints "wall_seconds user+sys_seconds" of a command and exits with its status (124 when
# it hung). wait4 counts the CPU of the child and of every descendant it waited for.
write_timer() {
  cat >"$work/timer.py" <<'EOF'
import os, signal, subprocess, sys, threading, time
timeout, log, cmd = float(sys.argv[1]), sys.argv[2], sys.argv[3:]
with open(log, "wb") as out:
    start = time.perf_counter()
    child = subprocess.Popen(cmd, stdout=out, stderr=out, stdin=subprocess.DEVNULL,
                             start_new_session=True)
    hung = []
    def kill():
        hung.append(True)
        os.killpg(child.pid, signal.SIGKILL)
    timer = threading.Timer(timeout, kill)
    timer.start()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    timer.cancel()
child.returncode = code = os.waitstatus_to_exitcode(status)
print("%.3f %.3f" % (wall, usage.ru_utime + usage.ru_stime))
sys.exit(124 if hung else (code if code >= 0 else 128 - code))
EOF
}

# Runs a peer, then flushes the file system, as tdl does before it reports success.
then_sync() {
  local target=$1
  shift
  CMD=(sh -c '"$@" && exec sync -f "$0"' "$target" "$@")
}

# aria2c fsyncs each file itself before it exits, so it needs no sync afterwards.
ARIA2=(aria2c -q --file-allocation=none --allow-overwrite=true --auto-file-renaming=false)

# Sets CMD: how TOOL downloads scenario SCEN into folder OUT, tdl keeping its session in HOME.
command_for() {
  local scen=$1 tool=$2 out=$3 home=$4 url
  case $scen in
    single) url=$BASE/big.bin ;;
    segmented) url=$BASE/slow/seg.bin ;;
    mirrors) url=${MIRRORS[0]} ;;
  esac
  case $scen/$tool in
    single/tdl) CMD=("$TDL" get --home "$home" -d "$out" -q -x 1 "$url") ;;
    segmented/tdl) CMD=("$TDL" get --home "$home" -d "$out" -q -x 8 "$url") ;;
    many/tdl) CMD=("$TDL" get --home "$home" -d "$out" -q -j 16 -i "$work/urls.txt") ;;
    */curl) if [ "$scen" = many ]; then
        then_sync "$out" curl -sSf -Z --parallel-max 16 --remote-name-all --output-dir "$out" -K "$work/urls.curlrc"
      else
        then_sync "$out" curl -sSf -o "$out/${url##*/}" "$url"
      fi ;;
    */wget) if [ "$scen" = many ]; then
        then_sync "$out" wget -q -P "$out" -i "$work/urls.txt"
      else
        then_sync "$out" wget -q -O "$out/${url##*/}" "$url"
      fi ;;
    single/aria2c) CMD=("${ARIA2[@]}" -x1 -s1 -d "$out" "$url") ;;
    segmented/aria2c) CMD=("${ARIA2[@]}" -x8 -s8 -k1M -d "$out" "$url") ;;
    many/aria2c) CMD=("${ARIA2[@]}" -j16 -i "$work/urls.txt" -d "$out") ;;
    mirrors/tdl) CMD=("$TDL" get --home "$home" -d "$out" -q -x $((3 * MIRROR_CONNECTIONS)) "${MIRRORS[0]}"
                      --mirror "${MIRRORS[1]}" --mirror "${MIRRORS[2]}") ;;
    # aria2c takes the URIs of one file as its mirrors: -s splits over them; its -x counts
    # per host name, and the three mirrors share 127.0.0.1.
    mirrors/aria2c) CMD=("${ARIA2[@]}" -s $((3 * MIRROR_CONNECTIONS)) -x $((3 * MIRROR_CONNECTIONS)) -k1M -d "$out" -o seg.bin "${MIRRORS[@]}") ;;
    *) die "no command for $scen/$tool" ;;
  esac
}

# The output must hold exactly the served files; sha256 too when FULL is set (warm-up).
check_output() {
  local scen=$1 tool=$2 out=$3 full=$4 want got
  want=$(awk '{print $2}' "$work/$scen.sha256" | sort | tr '\n' ' ')
  got=$(cd "$out" && find . -type f -printf '%P\n' | sort | tr '\n' ' ')
  [ "$want" = "$got" ] || die "$scen/$tool: unexpected files in $out: ${got:0:200}"
  [ -z "$full" ] || (cd "$out" && sha256sum --quiet -c "$work/$scen.sha256") >&2 ||
    die "$scen/$tool: sha256 mismatch in $out"
}

# One download into a fresh folder; the clean-up and its writeback stay outside the timing.
# The many-file runs' folders are only moved aside until the scenario ends: ext4 skips inodes
# freed in the last seconds when it allocates new ones, so deleting 500 files before each run
# made every tool's file creation about ten times slower (0.15 s instead of 0.02 s for 500).
run_once() {
  local scen=$1 tool=$2 round=$3 out=$work/out home=$work/home log=$work/last.log t
  if [ "$scen" = many ] && [ -d "$out" ]; then
    mkdir -p "$work/spent" && mv "$out" "$work/spent/$tool-$round"
  fi
  rm -rf "$out" "$home"
  mkdir -p "$out" "$home"
  sync -f "$work"
  command_for "$scen" "$tool" "$out" "$home"
  t=$(python3 "$work/timer.py" "$TIMEOUT" "$log" "${CMD[@]}") || {
    local rc=$?
    [ $rc -ne 124 ] || say "bench: $scen/$tool hung: killed after ${TIMEOUT}s"
    say "bench: $scen/$tool failed (exit $rc, round $round): $(printf "%q " "${CMD[@]}")"
    tail -n 20 "$log" >&2
    exit 1
  }
  check_output "$scen" "$tool" "$out" "$([ "$round" -eq 0 ] && echo full)"
  if [ "$round" -eq 0 ]; then
    say "$(printf '  %-9s %-7s warm-up    %7.2fs wall %6.2fs cpu' "$scen" "$tool" $t)"
  else
    say "$(printf '  %-9s %-7s run %d/%d    %7.2fs wall %6.2fs cpu' "$scen" "$tool" "$round" "$RUNS" $t)"
    printf '%s\t%s\t%s\t%s\n' "$scen" "$tool" "$round" "${t/ /$'\t'}" >>"$work/results.tsv"
  fi
}

# Round 0 warms nginx's page cache and the binaries; tdl alternates first and last.
run_scenario() {
  local scen=$1 round tool i
  shift
  local tools=("$@") reversed=() order
  for ((i = ${#tools[@]} - 1; i >= 0; i--)); do reversed+=("${tools[i]}"); done
  say "bench: $scen (${tools[*]})"
  for ((round = 0; round <= RUNS; round++)); do
    if ((round % 2)); then order=("${tools[@]}"); else order=("${reversed[@]}"); fi
    for tool in "${order[@]}"; do run_once "$scen" "$tool" "$round"; done
  done
  rm -rf "$work/spent" "$work/out"
}

# goal SCEN METRIC PEER LIMIT: tdl/peer of METRIC (wall or cpu) should stay at or below LIMIT.
goal() { printf '%s\t%s\t%s\t%s\n' "$@" >>"$work/goals.tsv"; }

scenario_single() {
  goal single wall curl 1.0
  goal single wall aria2c 0.9
  goal single cpu curl 1.3
  run_scenario single tdl "${PEERS[@]}"
}

scenario_segmented() {
  goal segmented wall aria2c 1.0
  # curl (one connection) only as a reference: the server caps it at 40 MiB/s.
  run_scenario segmented tdl $(installed aria2c curl)
}

scenario_many() {
  goal many wall curl 1.2
  goal many cpu curl 1.5
  goal many wall aria2c 0.5
  run_scenario many tdl "${PEERS[@]}"
}

# Three mirrors of one file: the project's fault server (Tests/Support/fault_server.py) three
# times, each pacing every connection at 20 MiB/s. Not nginx: its limit_rate lets a
# connection's first second of bytes go at once and then counts whole seconds, so a 1.5 s
# download ended at nginx's next second boundary, whoever downloaded it.
MIRROR_RATE_MIB=20
MIRROR_CONNECTIONS=3
start_mirrors() {
  local m line query
  query="size=$((SEG_MIB << 20))&seed=7&rate=$((MIRROR_RATE_MIB << 20))"
  MIRRORS=()
  for m in 1 2 3; do
    python3 "$root/Tests/Support/fault_server.py" --port 0 >"$work/mirror$m.port" 2>/dev/null &
    MIRROR_PIDS+=($!)
    for _ in $(seq 100); do [ -s "$work/mirror$m.port" ] && break; sleep 0.05; done
    read -r line <"$work/mirror$m.port" || die "fault server $m did not start"
    MIRRORS+=("http://127.0.0.1:${line#PORT }/file/seg.bin?$query")
  done
  echo "$(curl -s "http://127.0.0.1:${line#PORT }/sha256/seg.bin?$query")  seg.bin" >"$work/mirrors.sha256"
}

scenario_mirrors() {
  goal mirrors wall aria2c 0.9
  # The time the mirrors' combined capacity allows: what the connections can carry at their cap.
  goal mirrors wall capacity 1.1
  start_mirrors
  run_scenario mirrors tdl $(installed aria2c)
  local round capacity
  capacity=$(python3 -c "print('%.3f' % ($SEG_MIB / (3 * $MIRROR_CONNECTIONS * $MIRROR_RATE_MIB)))")
  for ((round = 1; round <= RUNS; round++)); do
    printf 'mirrors\tcapacity\t%s\t%s\t0\n' "$round" "$capacity" >>"$work/results.tsv"
  done
}

# --- report -----------------------------------------------------------------------------

print_machine() {
  echo "Machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(uname -sr)," \
    "files on $(fs_type); load average at start: $LOAD0"
  echo
  echo "Versions: $(curl --version | head -1 | cut -d' ' -f1-2)," \
    "$(have wget && wget --version | head -1 | cut -d' ' -f1-3)," \
    "$(have aria2c && aria2c --version | head -1 | cut -d' ' -f1,3)," \
    "$(/usr/sbin/nginx -v 2>&1 | cut -d' ' -f3), tdl $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?');" \
    "timed runs per tool: $RUNS, medians"
  echo
}

print_table() {
  python3 - "$work/results.tsv" "$work/goals.tsv" "$BIG_MIB" "$SEG_MIB" "$FILES" "$SMALL_KIB" <<'EOF'
import collections, statistics, sys
results, goals_file, big, seg, files, small = sys.argv[1:]
def size(mib):
    mib = int(mib)
    return "%d GiB" % (mib // 1024) if mib % 1024 == 0 else "%d MiB" % mib
labels = {
    "single": "%s, 1 connection" % size(big),
    "segmented": "%s, 40 MiB/s per connection" % size(seg),
    "many": "%s × %s KiB, 16 at a time" % (files, small),
    "mirrors": "%s, 3 mirrors at 20 MiB/s per connection, 9 connections" % size(seg),
}
runs = collections.defaultdict(dict)   # (scen, tool) -> round -> (wall, cpu)
for line in open(results):
    scen, tool, rnd, wall, cpu = line.split()
    runs[scen, tool][int(rnd)] = (float(wall), float(cpu))
goals = {}
for line in open(goals_file):
    scen, metric, peer, limit = line.split()
    goals[scen, metric, peer] = float(limit)

def median(values): return statistics.median(values) if values else float("nan")
def ratio(scen, peer, i):
    a, b = runs[scen, "tdl"], runs[scen, peer]
    return median([a[r][i] / b[r][i] for r in a if r in b and b[r][i] > 0])
def goal_cell(scen, metric, peer, value):
    limit = goals.get((scen, metric, peer))
    if limit is None: return ""
    return "≤ %.1f× %s" % (limit, "✓" if value <= limit else "✗")

print("| scenario | tool | median wall s | median user+sys s | tdl/peer (median of pairs) | goal |")
print("|---|---|---:|---:|---:|---|")
scens = [s for s in labels if (s, "tdl") in runs]
for scen in scens:
    tools = [t for t in ("tdl", "curl", "wget", "aria2c", "capacity") if (scen, t) in runs]
    for tool in tools:
        rows = runs[scen, tool].values()
        wall, cpu = median([w for w, _ in rows]), median([c for _, c in rows])
        r = "" if tool == "tdl" else ratio(scen, tool, 0)
        cells = [labels[scen], tool, "%.2f" % wall, "" if tool == "capacity" else "%.2f" % cpu,
                 "" if tool == "tdl" else "%.2f" % r,
                 "" if tool == "tdl" else goal_cell(scen, "wall", tool, r)]
        print("| " + " | ".join(cells) + " |")
for (scen, metric, peer), limit in goals.items():
    if metric == "cpu" and (scen, peer) in runs:
        r = ratio(scen, peer, 1)
        print("| %s, CPU | tdl vs %s | | %.2f vs %.2f | %.2f | %s |" % (
            labels[scen], peer,
            median([c for _, c in runs[scen, "tdl"].values()]),
            median([c for _, c in runs[scen, peer].values()]),
            r, goal_cell(scen, metric, peer, r)))
EOF
}

main() {
  local scens=("$@") s
  [ ${#scens[@]} -gt 0 ] || scens=(single segmented many mirrors)
  for s in "${scens[@]}"; do
    case $s in single | segmented | many | mirrors) ;; *) die "unknown scenario '$s' (single, segmented, many, mirrors)" ;; esac
  done
  check_tools
  LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
  trap cleanup EXIT
  trap 'exit 130' INT TERM
  make_work
  start_nginx
  make_files
  write_timer
  : >"$work/results.tsv"
  : >"$work/goals.tsv"
  for s in "${scens[@]}"; do "scenario_$s"; done
  print_machine
  print_table
  echo
  echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
}

main "$@"
