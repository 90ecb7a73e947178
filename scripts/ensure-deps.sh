#!/usr/bin/env bash
# Makes sure the system has what cargo-autodebug links against: libz3 (Debian's libz3-dev)
# and pkg-config. Installs them with apt-get when missing (as root, or through sudo).
# With --browser, also Debian's `chromium` for the HTML report's browser test; where it
# cannot be installed, a warning says so and that test skips.
set -euo pipefail

browser=false
for arg in "$@"; do
    case "$arg" in
        --browser) browser=true ;;
        *) echo "error: unknown argument '$arg' (expected --browser)" >&2; exit 2 ;;
    esac
done

have_z3() {
    # grep reads ldconfig's whole list: with -q it would stop at the first match, and
    # ldconfig, killed by SIGPIPE, would fail the pipeline under pipefail now and then.
    [ -e /usr/include/z3.h ] && ldconfig -p 2>/dev/null | grep 'libz3\.so' >/dev/null
}

have_browser() {
    command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 ||
        [ -n "${CHROMIUM:-}" ]
}

need_z3=true
if have_z3 && command -v pkg-config >/dev/null 2>&1; then
    need_z3=false
fi
need_browser=false
if $browser && ! have_browser; then
    need_browser=true
fi
if ! $need_z3 && ! $need_browser; then
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
else
    SUDO="none"
fi
export DEBIAN_FRONTEND=noninteractive

if $need_z3; then
    echo "cargo-autodebug: installing libz3-dev and pkg-config (needed to link the z3 solver)..." >&2
    if [ "$SUDO" = none ]; then
        echo "error: libz3-dev is missing and this user cannot install packages." >&2
        echo "hint: run 'apt-get install -y libz3-dev pkg-config' as root, then retry." >&2
        exit 1
    fi
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq libz3-dev pkg-config >/dev/null
    have_z3 || { echo "error: libz3 still not found after installing libz3-dev" >&2; exit 1; }
fi

if $need_browser; then
    echo "cargo-autodebug: installing chromium (the HTML report's browser test)..." >&2
    if [ "$SUDO" = none ] ||
        ! { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq chromium >/dev/null; }; then
        echo "warning: could not install chromium: the HTML report's browser test will skip" >&2
        echo "hint: 'apt-get install -y chromium' as root, or set CHROMIUM=/path/to/chrome" >&2
    fi
fi
