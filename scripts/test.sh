#!/usr/bin/env bash
# Runs the project's tests: formatting, lints, every unit, macro, UI and end-to-end test, and
# the benchmark's quick subset (it must write its table, and its overall figures must hold
# the floors in bench/floors.json).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
"$root/scripts/ensure-deps.sh" --browser
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
log="$(mktemp)"
cargo test --workspace 2>&1 | tee "$log"

quick="$(mktemp -d)"
trap 'rm -rf "$quick" "$log"' EXIT
# The benchmark and the tool as `cargo test --workspace` just built them (a `cargo run -p`
# would unify features without the dev-dependencies and compile both again).
target="${CARGO_TARGET_DIR:-$root/target}"
# CI's quick subset: the corpus programs that no example crate stands for (the end-to-end
# suite runs the tool on array-copy, binary-search, max-array, quicksort and sum, with more
# checks than a table row), less numeric (a minute and a half of the run with its
# brute-force sample). bench/README.md has the figures.
"$target/debug/autodebug-bench" run --quick --tool "$target/debug/cargo-autodebug" \
    --program replace --program schedule --program strings --program tcas \
    --program tokenizer --program vending \
    --out "$quick" --floors bench/floors.json
if [ ! -s "$quick/results.md" ] || ! grep -q '^| ' "$quick/results.md"; then
    echo "error: the benchmark's quick run wrote no results table" >&2
    exit 1
fi
echo "benchmark quick run: table written ($(grep -c '^| ' "$quick/results.md") table rows)"

# One closing line for the whole run, summed over every test binary.
passed=$(grep -o 'test result: [A-Za-z]*\. [0-9]* passed' "$log" | awk '{s += $4} END {print s + 0}')
failed=$(grep -o '; [0-9]* failed' "$log" | awk '{s += $2} END {print s + 0}')
echo "tests: $passed passed, $failed failed"
