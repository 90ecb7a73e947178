#!/usr/bin/env bash
# First run on a crate the tool has not seen: what the instrumented build costs over a plain
# `cargo test --no-run` of the same crate, each in a fresh copy with a target dir of its own.
#
# For each crate it times, interleaved (p, c, w, p, c, w, …) so that drifting machine load
# hits every variant alike:
#   (p) plain    cargo test --no-run, in a fresh target dir
#   (c) cold     cargo autodebug --baseline-only, fresh target dir, the per-user unit cache
#                switched off (AUTODEBUG_CACHE_DIR=): the runtime and its dependencies are
#                compiled into the crate's target dir, as before the cache
#   (w) warm     the same with a unit cache that an earlier run (on another crate) filled:
#                a user's first run on a new crate
# (c) and (w) also run the baseline (every test once, instrumented); the build alone is in
# the report's timing.build_s, printed beside. It prints a Markdown table of the medians.
#
# Usage: bench/first-build.sh [-n RUNS] [-o OUTPUT.md] CRATE_DIR...
#   -n RUNS   measured runs per variant and crate (default 3)
#   -o FILE   where the table goes (default bench/results/first-build.md)
# The tool is built first into a target dir of its own ($TOOL_TARGET, default
# $TMPDIR/autodebug-first-build-tool). The crates are only read.
set -euo pipefail

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$bench_dir/.." && pwd)
runs=3
output=$bench_dir/results/first-build.md
while getopts "n:o:h" opt; do
    case $opt in
        n) runs=$OPTARG ;;
        o) output=$OPTARG ;;
        *) sed -n '2,21p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "first-build: -n needs a positive number" >&2; exit 2; }
(($# > 0)) || { echo "first-build: name at least one crate directory (-h for help)" >&2; exit 2; }
for crate in "$@"; do
    [[ -f $crate/Cargo.toml ]] || { echo "first-build: $crate has no Cargo.toml" >&2; exit 2; }
done

log() { echo "first-build: $*" >&2; }
tool_target=${TOOL_TARGET:-${TMPDIR:-/tmp}/autodebug-first-build-tool}
log "building the tool into $tool_target"
CARGO_TARGET_DIR=$tool_target cargo build --release -q -p cargo-autodebug --manifest-path "$repo/Cargo.toml"
tool=$tool_target/release/cargo-autodebug

work=$(mktemp -d "${TMPDIR:-/tmp}/autodebug-first-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
cache=$work/unit-cache

# Runs variant $1 on crate $2 in a fresh copy; prints its wall seconds and build_s.
run() {
    local v=$1 crate=$2 dir=$work/run start end build_s=-
    rm -rf "$dir" "$work/target"
    mkdir -p "$dir"
    (cd "$crate" && tar --exclude=./target --exclude=./autodebug.out -cf - .) | (cd "$dir" && tar -xf -)
    start=$EPOCHREALTIME
    case $v in
        p) (cd "$dir" && cargo test --no-run -q --target-dir "$work/target") > /dev/null 2>&1 ;;
        c) (cd "$dir" && AUTODEBUG_CACHE_DIR= "$tool" autodebug --baseline-only \
               --target-dir "$work/target") > /dev/null 2>&1 || true ;;
        w) (cd "$dir" && AUTODEBUG_CACHE_DIR=$cache "$tool" autodebug --baseline-only \
               --target-dir "$work/target") > /dev/null 2>&1 || true ;;
    esac
    end=$EPOCHREALTIME
    if [[ $v != p && -f $dir/autodebug.out/report.json ]]; then
        build_s=$(python3 -c 'import json,sys; print("%.1f" % json.load(open(sys.argv[1]))["timing"]["build_s"])' "$dir/autodebug.out/report.json")
    fi
    echo "$(python3 -c "print('%.2f' % ($end - $start))") $build_s"
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

rows=()
for crate in "$@"; do
    crate=$(cd "$crate" && pwd)
    name=$(basename "$crate")
    # Fills the unit cache from another crate: (w) is a first run on this one.
    log "$name: filling the unit cache from a crate of its own"
    filler=$work/filler
    rm -rf "$filler" && mkdir -p "$filler/src"
    printf '[package]\nname = "filler"\nversion = "0.1.0"\nedition = "2021"\n\n[workspace]\n' > "$filler/Cargo.toml"
    printf 'pub fn one(x: u32) -> u32 {\n    if x > 1 { x } else { 1 }\n}\n\n#[test]\nfn one_is_one() {\n    assert_eq!(one(1), 1);\n}\n' > "$filler/src/lib.rs"
    (cd "$filler" && AUTODEBUG_CACHE_DIR=$cache "$tool" autodebug --baseline-only \
        --target-dir "$work/filler-target") > /dev/null 2>&1 || true
    declare -A wall=() build=()
    for ((i = 1; i <= runs; i++)); do
        for v in p c w; do
            read -r seconds build_s < <(run "$v" "$crate")
            log "$name run $i ($v): ${seconds}s (build_s $build_s)"
            wall[$v]+="$seconds "
            build[$v]+="$build_s "
        done
    done
    mp=$(tr ' ' '\n' <<< "${wall[p]}" | grep . | median)
    mc=$(tr ' ' '\n' <<< "${wall[c]}" | grep . | median)
    mw=$(tr ' ' '\n' <<< "${wall[w]}" | grep . | median)
    bc=$(tr ' ' '\n' <<< "${build[c]}" | grep -v -- - | grep . | median)
    bw=$(tr ' ' '\n' <<< "${build[w]}" | grep -v -- - | grep . | median)
    rows+=("| $name | $mp | $mc ($bc) | $mw ($bw) | $(python3 -c "print('%+.1f' % ($mw - $mp))") |")
    unset wall build
done

{
    echo "| crate | plain \`cargo test --no-run\` s | cold: tool, no unit cache s (build_s) | warm: tool, unit cache filled by another crate s (build_s) | warm − plain s |"
    echo "|---|---:|---:|---:|---:|"
    printf '%s\n' "${rows[@]}"
    echo
    echo "Medians of $runs runs per variant, interleaved, $(nproc) cores, $(date -u +%Y-%m-%d), commit $(git -C "$repo" rev-parse --short HEAD). The tool's runs are \`--baseline-only\` (instrumented build, then every test once)."
} | tee "$output"
