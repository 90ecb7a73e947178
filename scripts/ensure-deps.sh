#!/usr/bin/env bash
# Makes sure the system has what cargo-autodebug links against: libz3 (Debian's libz3-dev)
# and pkg-config. Installs them with apt-get when missing (as root, or through sudo).
set -euo pipefail

have_z3() {
    [ -e /usr/include/z3.h ] && ldconfig -p 2>/dev/null | grep -q 'libz3\.so'
}

if have_z3 && command -v pkg-config >/dev/null 2>&1; then
    exit 0
fi

echo "cargo-autodebug: installing libz3-dev and pkg-config (needed to link the z3 solver)..." >&2
if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo -n"
else
    echo "error: libz3-dev is missing and this user cannot install packages." >&2
    echo "hint: run 'apt-get install -y libz3-dev pkg-config' as root, then retry." >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq libz3-dev pkg-config >/dev/null
have_z3 || { echo "error: libz3 still not found after installing libz3-dev" >&2; exit 1; }
