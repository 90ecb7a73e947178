#!/usr/bin/env bash
# Sets up this machine and runs the main job on a bundled example: installs libz3-dev if
# missing, installs the `cargo autodebug` subcommand from this checkout, and debugs
# examples/max-array (the AutoDebug paper's "max of an unsorted array", with a wrong
# relational operator). Usage: scripts/demo.sh [EXAMPLE]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
example="${1:-max-array}"

"$root/scripts/ensure-deps.sh"
cargo install --quiet --locked --path "$root/cargo-autodebug" --target-dir "$root/target/install"

# Debug a scratch copy so the checkout stays clean (autodebug.out/ is written beside the crate).
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$root/examples/$example" "$work/"
rm -rf "$work/$example/target" "$work/$example/autodebug.out"
sed -i "s|path = \"../../autodebug-runtime\"|path = \"$root/autodebug-runtime\"|" "$work/$example/Cargo.toml"
cd "$work/$example"
echo "\$ cargo autodebug   (in examples/$example)"
status=0
cargo autodebug --target-dir "$root/target/demo" || status=$?
# The example's tests are red on purpose: exit code 5 means they were found and diagnosed.
if [ "$status" -ne 5 ]; then
    echo "error: expected cargo autodebug to exit with 5 (tests failed, diagnosed), got $status" >&2
    exit 1
fi
mkdir -p "$root/autodebug.out.demo"
cp -r autodebug.out/. "$root/autodebug.out.demo/"
echo "The report and traces were copied to autodebug.out.demo/ in the checkout."
