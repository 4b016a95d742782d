#!/usr/bin/env bash
# Installs the Debian packages tdl needs that are missing; silent when nothing is.
#   scripts/install-deps.sh          build and run: curl, ncursesw, sqlite headers
#   scripts/install-deps.sh --test  also what the tests start and use: nginx (HTTP and HTTPS with an
#                                   openssl-made certificate), an FTP server (pyftpdlib), tmux,
#                                   strace (to inject system-call failures), time (peak memory),
#                                   chromium (a real browser calling the JSON-RPC from a web page),
#                                   aria2 (aria2c, which the JSON-RPC tests compare tdl's answers with)
#   scripts/install-deps.sh --bench also the peers the benchmark times (wget) and valgrind, which
#                                   counts the instructions of tdl's own work (bench-work.sh)
#   scripts/install-deps.sh --aria2p  only aria2p (from PyPI, in .build/aria2p, a venv of its own),
#                                   the aria2 front end the JSON-RPC tests drive; --test does it too
#   scripts/install-deps.sh --aria2-clients  only the other aria2 front ends the tests drive:
#                                   aria2tui (a curses screen) and aioaria2 (an asyncio library),
#                                   from PyPI, in .build/aria2-clients; --test does it too
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# A venv at $1; Debian's python3 keeps venv in a package of its own.
make_venv() {
  [ -x "$1/bin/pip" ] && return 0
  mkdir -p "$root/.build"
  if ! python3 -m venv "$1" >/dev/null 2>&1; then
    rm -rf "$1"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
    python3 -m venv "$1"
  fi
}
install_aria2p() {
  local venv="$root/.build/aria2p"
  # aria2p[tui]: `aria2p top`'s curses screen (asciimatics) too.
  [ -x "$venv/bin/aria2p" ] && "$venv/bin/python" -c "import asciimatics" 2>/dev/null && return 0
  make_venv "$venv"
  echo "Installing aria2p into $venv"
  "$venv/bin/pip" install -q --disable-pip-version-check 'aria2p[tui]'
}
install_aria2_clients() {
  local venv="$root/.build/aria2-clients"
  [ -x "$venv/bin/aria2tui" ] && "$venv/bin/python" -c "import aioaria2" 2>/dev/null && return 0
  make_venv "$venv"
  echo "Installing aria2tui and aioaria2 into $venv"
  "$venv/bin/pip" install -q --disable-pip-version-check aria2tui aioaria2
}
if [ "${1:-}" = "--aria2p" ]; then
  install_aria2p
  exit 0
fi
if [ "${1:-}" = "--aria2-clients" ]; then
  install_aria2_clients
  exit 0
fi
# libcurl is linked in from its static archive, with those of the libraries it needs
# (Package.swift; its LDAP, RTMP and GSS-API back ends are left out).
packages=(libncursesw5-dev libcurl4-openssl-dev libsqlite3-dev pkg-config libssl-dev libnghttp2-dev libssh2-1-dev
  libpsl-dev libidn2-dev libunistring-dev libzstd-dev libbrotli-dev zlib1g-dev)
if [ "${1:-}" = "--test" ] || [ "${1:-}" = "--bench" ]; then
  packages+=(nginx-light tmux curl python3 sqlite3 openssl python3-pyftpdlib strace time chromium aria2 binutils)
fi
if [ "${1:-}" = "--bench" ]; then
  packages+=(wget valgrind)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  [ "${1:-}" = "--test" ] && install_aria2p && install_aria2_clients
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "Installing: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
[ "${1:-}" = "--test" ] && install_aria2p && install_aria2_clients
exit 0
