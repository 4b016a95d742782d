#!/usr/bin/env bash
# Installs the Debian packages tdl needs that are missing; silent when nothing is.
#   scripts/install-deps.sh          build and run: curl, ncursesw, sqlite headers
#   scripts/install-deps.sh --test  also what the tests start and use: nginx (HTTP and HTTPS with an
#                                   openssl-made certificate), an FTP server (pyftpdlib), tmux,
#                                   strace (to inject system-call failures)
#   scripts/install-deps.sh --bench also the peers the benchmark times: wget, aria2
set -euo pipefail
packages=(libncursesw5-dev libcurl4-openssl-dev libsqlite3-dev pkg-config)
if [ "${1:-}" = "--test" ] || [ "${1:-}" = "--bench" ]; then
  packages+=(nginx-light tmux curl python3 sqlite3 openssl python3-pyftpdlib strace)
fi
if [ "${1:-}" = "--bench" ]; then
  packages+=(wget aria2)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "Installing: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
