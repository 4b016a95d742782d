#!/usr/bin/env bash
# Regenerates Screenshots/*.png from the real tdl: it runs in a private tmux server against the
# test fault server (throttled files, so the list shows live speed and ETA), is driven with
# keys, and each screen is captured with its colours and drawn by scripts/ansi_to_png.py.
#   scripts/screenshots.sh            uses .build/debug/tdl (make screenshots builds it first)
#   TDL=path/to/tdl scripts/screenshots.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# What the drawing needs besides tmux (installed by install-deps.sh --test): Pillow, the
# monospace font and a fallback font with CJK glyphs.
packages=(python3-pil fonts-dejavu-core fonts-droid-fallback tmux)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "Installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# Debian's python3, which has python3-pil, even when another python3 comes first in PATH.
PYTHON=/usr/bin/python3

TDL=${TDL:-.build/debug/tdl}
[ -x "$TDL" ] || { echo "no tdl at $TDL: run make screenshots, or set TDL=path/to/tdl" >&2; exit 1; }
TDL=$(realpath "$TDL")
# tdl draws names with wide (CJK) characters only in a UTF-8 locale.
export LC_ALL=C.UTF-8
COLS=110
ROWS=22          # the list screens
HELP_ROWS=36     # the help screen lists every key, one per row
OUT=Screenshots
mkdir -p "$OUT"

work=$(mktemp -d)
sock="tdl-screenshots-$$"
server_pid=""
cleanup() {
  tmux -L "$sock" kill-server 2>/dev/null || true
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The fault server prints "PORT <n>" once it listens.
"$PYTHON" Tests/Support/fault_server.py --port 0 >"$work/server.out" 2>"$work/server.err" &
server_pid=$!
for _ in $(seq 100); do
  [ -s "$work/server.out" ] && break
  sleep 0.1
done
port=$(awk '{print $NF; exit}' "$work/server.out")
[ -n "$port" ] || { echo "fault server did not start" >&2; cat "$work/server.err" >&2; exit 1; }
base="http://127.0.0.1:$port/file"

# rate= throttles each connection and tdl opens up to 8 per file (1 MiB segments at least),
# so a large file arrives at 8x that rate. The small ones come first: they finish (or fail)
# at once and leave the slots to the large, slow ones.
urls=(
  "$base/report.pdf?size=2400000&seed=1"
  "$base/cover.png?size=850000&seed=2"
  "$base/missing.iso?status=404"
  "$base/movie.mp4?size=360000000&seed=3&rate=1250000"
  "$base/album.flac?size=48000000&seed=4&rate=320000"
  "$base/下载.zip?size=24000000&seed=5&rate=120000"
  "$base/photos.zip?size=150000000&seed=6&rate=250000"
  "$base/podcast-episode-42.mp3?size=58000000&seed=7&rate=100000"
  "$base/slides.pptx?size=12000000&seed=8&rate=100000"
  "$base/dataset.tar.gz?size=2100000000&seed=9&rate=100000"
  "$base/screenshot-2024.png?size=3100000&seed=10&rate=100000"
  "$base/debian-12.iso?size=660000000&seed=11&rate=100000"
)
"$TDL" add --home "$work/home" -d "$work/downloads" "${urls[@]}" >/dev/null

# -f /dev/null: the user's tmux.conf must not change what is drawn.
tmux -L "$sock" -f /dev/null new-session -d -s tdl -x "$COLS" -y "$ROWS" \
  "$(printf '%q ' "$TDL" ui --home "$work/home" -d "$work/downloads")"

keys() { tmux -L "$sock" send-keys -t tdl "$@"; }
screen() { tmux -L "$sock" capture-pane -p -t tdl; }
header() { screen | sed -n 1p; }

# Waits until the screen shows a text (fixed string); fails with the screen after 20 s.
wait_for() {
  for _ in $(seq 200); do
    # Not `screen | grep -q`: grep quitting early could fail the pipe (pipefail).
    [[ $(screen) == *"$1"* ]] && return 0
    sleep 0.1
  done
  echo "timed out waiting for \"$1\"; the screen was:" >&2
  screen >&2
  exit 1
}

# Waits until at least $2 rows show a text (fixed string), e.g. two rows that say "  Done".
wait_rows() {
  for _ in $(seq 200); do
    [ "$(screen | grep -cF -- "$1" || true)" -ge "$2" ] && return 0
    sleep 0.1
  done
  echo "timed out waiting for $2 rows with \"$1\"; the screen was:" >&2
  screen >&2
  exit 1
}

# Captures the screen with its colours and draws it as $OUT/$1.png.
shot() {
  local rows
  rows=$(tmux -L "$sock" display -p -t tdl '#{pane_height}')
  tmux -L "$sock" capture-pane -p -e -N -t tdl >"$work/$1.txt"
  "$PYTHON" scripts/ansi_to_png.py "$work/$1.txt" "$OUT/$1.png" --cols "$COLS" --rows "$rows" --title tdl
  echo "$OUT/$1.png"
}

# Presses s until the header names the sort (s cycles manual, add time, name, size, type),
# each press only once the previous one shows, so none is skipped.
sort_by() {
  local current
  for _ in 1 2 3 4 5 6; do
    current=$(header | grep -o 'sort: [a-z ]*[a-z]')
    [ "$current" = "sort: $1" ] && return 0
    keys s
    for _ in $(seq 50); do
      [[ $(header) == *"$current "* ]] || break
      sleep 0.1
    done
  done
  wait_for "sort: $1"
}

# 1. The list while downloading: the quick files done, one failed, the last one paused, one
#    more download at once than the default, then time for the bars to fill and the speeds
#    to settle.
wait_rows "  Done" 2
wait_rows "  Failed: 404 Not Found" 1
keys G p
wait_rows "  Paused" 1
keys g +
# A downloading row shows a progress bar: "[####------] 45%".
wait_rows "] " 4
sleep 8
shot list

# 2. Sorted by type, a section per type.
sort_by type
wait_for "── Video"
shot by-type

# 3. The trash: in add-time order (rows as added, no sections) mark the finished cover.png,
#    the failed missing.iso and the paused debian-12.iso (v marks and moves down), move them
#    there and open it.
sort_by "add time"
keys g j v v G v d
wait_for "moved 3 downloads to the trash"
keys t
wait_for "u Restore"
shot trash
keys t

# 4. The help screen, on a taller window so every key fits on one page (a smaller one scrolls).
tmux -L "$sock" resize-window -t tdl -y "$HELP_ROWS"
keys '?'
wait_for "Press q or Esc to close."
shot help
keys q
wait_for "a Add"
keys q
