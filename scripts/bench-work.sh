#!/usr/bin/env bash
# The work `tdl get` does in its own code for 500 small files (100 KiB, 16 at a time, from
# nginx on loopback): user-space instructions, counted by valgrind, beside curl -Z's.
#
# CPU time on a shared virtual machine moves 10-30 % between runs (the kernel's page-cache
# and file-creation costs swing with what the machine did before); this count moves about
# 0.5 %, so it shows what a change to tdl's code saves. The kernel's part is not in it: for
# that, and for the goal, see `scripts/bench.sh many`.
#
# Environment: TDL (binary, default .build/release/tdl), BENCH_FILES (default 500),
# BENCH_DIR (parent of the temp folder, default /var/tmp). Prints a markdown table.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
TDL=$(realpath -m "${TDL:-$root/.build/release/tdl}")
FILES=${BENCH_FILES:-500}
RUNS=3

die() { echo "bench-work: $*" >&2; exit 1; }
say() { echo "$*" >&2; }
. "$root/scripts/loopback-nginx.sh"

[ -x "$TDL" ] || die "no tdl binary at $TDL (run 'make release' or set TDL=)"
for p in valgrind curl python3 strip; do command -v "$p" >/dev/null || die "$p is missing (scripts/install-deps.sh --bench)"; done

work=$(mktemp -d "${BENCH_DIR:-/var/tmp}/tdl-work.XXXXXX")
trap 'stop_loopback_nginx "$work"; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
chmod 755 "$work"
mkdir -p "$work/www/many"
python3 - "$work/www/many" "$FILES" <<'EOF'
import os, sys
for i in range(1, int(sys.argv[2]) + 1):
    with open(os.path.join(sys.argv[1], "f%04d.bin" % i), "wb") as f:
        f.write(os.urandom(100 << 10))
EOF
chmod -R a+rX "$work/www"
start_loopback_nginx "$work"
for ((i = 1; i <= FILES; i++)); do printf '%s/many/f%04d.bin\n' "$NGINX_BASE" "$i"; done >"$work/urls.txt"
sed 's/.*/url = "&"/' "$work/urls.txt" >"$work/urls.curlrc"
# valgrind cannot read the DWARF of tdl's lld-linked binary; its symbols are enough.
strip -g -o "$work/tdl" "$TDL"

# instructions TOOL ROUND: the user-space instructions of one download into a fresh folder.
instructions() {
  local tool=$1 out=$work/out-$1-$2 count
  mkdir -p "$out"
  case $1 in
    tdl) set -- "$work/tdl" get --home "$out.home" -d "$out" -q -j 16 -i "$work/urls.txt" ;;
    curl) set -- curl -sSf -Z --parallel-max 16 --remote-name-all --output-dir "$out" -K "$work/urls.curlrc" ;;
  esac
  count=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
  [ -n "$count" ] || die "$tool: valgrind counted no instructions (run it by hand: $*)"
  [ "$(find "$out" -maxdepth 1 -name '*.bin' | wc -l)" -eq "$FILES" ] || die "$*: not every file arrived"
  echo "$count"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

declare -A counts
for tool in tdl curl; do
  for ((round = 1; round <= RUNS; round++)); do
    counts[$tool]+="$(instructions "$tool" "$round") "
    say "  $tool run $round/$RUNS: $(echo "${counts[$tool]}" | awk '{ print $NF }') instructions"
  done
done
tdl=$(echo "${counts[tdl]}" | tr ' ' '\n' | grep . | median)
curl=$(echo "${counts[curl]}" | tr ' ' '\n' | grep . | median)
echo "Versions: tdl $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'), $(curl --version | head -n 1 | cut -d' ' -f1-2), $(valgrind --version); runs per tool: $RUNS, medians"
echo
echo "| $FILES × 100 KiB, 16 at a time | user-space instructions (millions) | tdl/curl |"
echo "|---|---:|---:|"
echo "| tdl | $((tdl / 1000000)) | $(python3 -c "print('%.2f' % ($tdl / $curl))") |"
echo "| curl | $((curl / 1000000)) | |"
