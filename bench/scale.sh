#!/usr/bin/env bash
# Scale: a crate with N tests (default 2000: half unit tests in src/lib.rs, half in
# tests/many.rs), one of them red, debugged by the release build of cargo-autodebug with
# --jobs 1 and with --jobs 2 (the machine's cores) side by side. Prints a Markdown table of
# wall time, the time of each phase, the tool's own peak memory (VmHWM, from report.json;
# the tests' and cargo's processes are not counted), the largest peak of the solver's
# workers (diagnosis, path generation, synthesis: `timing.solver_peak_mb`, or
# `repair.solver_peak_mb` from a tool before it; their resident size, the tool's as it
# forked included) and trace sizes; writes it to
# results/scale.md.
#
#   bench/scale.sh                 # 2000 tests
#   N=5000 bench/scale.sh -o /tmp/scale.md
#   N=20000 MEMBERS=4 JOBS=2 bench/scale.sh -o results/scale-20000.md   # a workspace of 4 crates
#   TOOL=path/to/cargo-autodebug bench/scale.sh    # a binary already built
#   KEEP=1 bench/scale.sh                          # keep the generated crate and its reports
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
n="${N:-2000}"
out="$here/results/scale.md"
while [ $# -gt 0 ]; do
    case "$1" in
        -o) out="$2"; shift 2 ;;
        *) echo "usage: $0 [-o FILE]  (N=tests in the environment)" >&2; exit 2 ;;
    esac
done

"$root/scripts/ensure-deps.sh"
if [ -z "${TOOL:-}" ]; then
    cargo build --release -p cargo-autodebug --manifest-path "$root/Cargo.toml" -q
fi
tool="${TOOL:-$root/target/release/cargo-autodebug}"

work="$(mktemp -d /tmp/autodebug-scale-XXXXXX)"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
crate="$work/many"
members="${MEMBERS:-1}"
mkdir -p "$crate"
if [ "$members" -le 1 ]; then
    cat > "$crate/Cargo.toml" <<EOF
[package]
name = "many"
version = "0.1.0"
edition = "2024"

[workspace]
EOF
    dirs=("$crate")
else
    # A workspace of MEMBERS crates (many0, many1, ...), the tests split evenly; the red
    # test is in the second member.
    {
        echo "[workspace]"
        echo 'resolver = "3"'
        printf 'members = ['
        for ((m = 0; m < members; m++)); do printf '"many%d", ' "$m"; done
        echo ']'
    } > "$crate/Cargo.toml"
    dirs=()
    for ((m = 0; m < members; m++)); do
        mkdir -p "$crate/many$m"
        printf '[package]\nname = "many%d"\nversion = "0.1.0"\nedition = "2024"\n' "$m" \
            > "$crate/many$m/Cargo.toml"
        dirs+=("$crate/many$m")
    done
fi
per=$((n / ${#dirs[@]}))
half=$((per / 2))
red=$((half / 2 + 7))
for ((m = 0; m < ${#dirs[@]}; m++)); do
dir="${dirs[$m]}"
name="$(basename "$dir")"
# Only one member has the fault (the second of several).
fault=$red
[ "${#dirs[@]}" -eq 1 ] || [ "$m" -eq 1 ] || fault=-1
mkdir -p "$dir/src" "$dir/tests"
python3 - "$dir" "$half" "$fault" "$name" <<'EOF'
import sys
crate, half, red, name = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
lib = [
    "//! A small library with many tests; one input hits a fault.",
    "",
    "/// The checksum of the digits of `n`, weighted by position.",
    "pub fn checksum(n: u64) -> u64 {",
    "    let mut rest = n;",
    "    let mut weight = 1;",
    "    let mut sum = 0;",
    "    while rest > 0 {",
    "        sum += (rest % 10) * weight;",
    "        rest /= 10;",
    "        weight += 1;",
    "    }",
] + ([
    f"    if n == {red} {{",
    "        sum + 1 // the fault",
    "    } else {",
    "        sum",
    "    }",
] if red >= 0 else ["    sum"]) + [
    "}",
    "",
    "/// What `checksum` should give, the slow way.",
    "pub fn expected(n: u64) -> u64 {",
    "    n.to_string().chars().rev().enumerate().map(|(i, c)| (i as u64 + 1) * c.to_digit(10).unwrap() as u64).sum()",
    "}",
    "",
    "#[cfg(test)]",
    "mod tests {",
    "    use super::*;",
]
for i in range(half):
    lib.append(f"    #[test]\n    fn checksum_{i:05}() {{\n        assert_eq!(checksum({i}), expected({i}));\n    }}")
lib.append("}")
open(f"{crate}/src/lib.rs", "w").write("\n".join(lib) + "\n")
many = [f"use {name}::{{checksum, expected}};", ""]
for i in range(half, 2 * half):
    many.append(f"#[test]\nfn checksum_{i:05}() {{\n    assert_eq!(checksum({i}), expected({i}));\n}}")
open(f"{crate}/tests/many.rs", "w").write("\n".join(many) + "\n")
EOF
done
(cd "$crate" && git init -q && git add -A && git -c user.name=b -c user.email=b@b commit -qm init)

run() {
    local jobs="$1"
    rm -rf "$crate/autodebug.out" "$crate/autodebug.out.old"
    local start end
    start=$(date +%s.%N)
    (cd "$crate" && "$tool" autodebug --jobs "$jobs" --target-dir "$work/target" >"$work/out-$jobs.txt" 2>"$work/err-$jobs.txt") || true
    end=$(date +%s.%N)
    python3 - "$crate/autodebug.out/report.json" "$jobs" "$start" "$end" <<'EOF'
import json, sys, os
report = json.load(open(sys.argv[1]))
jobs, start, end = sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
t = report["timing"]
traces = os.path.join(os.path.dirname(sys.argv[1]), "traces")
size = sum(os.path.getsize(os.path.join(traces, f)) for f in os.listdir(traces)) if os.path.isdir(traces) else 0
top = report["suspects"][0] if report["suspects"] else {}
fix = next((f for f in report["fixes"] if f["validated"]), None)
print(f"| {jobs} | {report['tests']['total']} | {report['tests']['failed']} | {end - start:.1f} | {t['build_s']:.1f} | {t['baseline_s']:.1f} | "
      f"{t['record_s'] + t['oracle_s']:.1f} | {t['localize_s']:.1f} | {t['repair_s']:.1f} | {t.get('peak_rss_mb', 0):.0f} | "
      f"{t.get('solver_peak_mb', (report.get('repair') or {}).get('solver_peak_mb', '-'))} | {end - start - t['build_s']:.1f} | "
      f"{len(report['traces'])} ({size / 1e6:.1f} MB) | {top.get('file', '')}:{top.get('line', '-')} | {'`' + fix['replacement'] + '`' if fix else '-'} |")
EOF
}

# The first run builds; it is not measured.
(cd "$crate" && "$tool" autodebug --no-fix --techniques spectrum --target-dir "$work/target" >/dev/null 2>&1) || true
{
    echo "Scale: $n tests (one red) in $members member(s), $(nproc) cores, tool $(git -C "$root" rev-parse --short HEAD), $(date -u +%Y-%m-%d)."
    echo
    echo "| jobs | tests | failed | wall s | build s | baseline s | record+oracle s | localize s | repair s | tool peak MB | solver peak MB | after the build s | traces | top suspect | fix |"
    echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|"
    for jobs in ${JOBS:-1 $(nproc)}; do run "$jobs"; done
} | tee "$out"
