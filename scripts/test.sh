#!/usr/bin/env bash
# Runs the project's tests: formatting, lints, and every unit, macro, UI and end-to-end test.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
"$root/scripts/ensure-deps.sh"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
cargo test --workspace
