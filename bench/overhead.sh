#!/usr/bin/env bash
# Overhead benchmark: what contracts and instrumentation cost a test suite.
#
# Builds the test binary of bench/overhead-example three ways, each in its own copy with its
# own target dir (cargo judges freshness by timestamps, so variants must never share one):
#   (a) plain         every contract attribute and import removed (strip-contracts.sh)
#   (b) contracts     as written: contracts checked, instrumentation off (a normal `cargo test`)
#   (c) instrumented  built with AUTODEBUG_INSTRUMENT=1, run with AUTODEBUG_TRACE=<tmpfile>
# and, for information, (i): the binary of (c) run without a trace (the hooks idle). It runs
# the binaries interleaved (a, b, i, c, a, b, i, c, …) so that drifting machine load hits
# every variant alike, and reports the median wall time of each and its ratio to (a).
#
# Usage: bench/overhead.sh [-n RUNS] [-o OUTPUT.md] [-k]
#   -n RUNS    measured runs per variant (default 30; env RUNS works too)
#   -o FILE    where the Markdown table goes (default bench/results/overhead.md)
#   -k         keep the scratch directory (printed) instead of deleting it
# Env: VARIANTS (default "a b i c"; (a) is always measured, it is the baseline) picks the
# variants; THREADS (default 1) is passed as --test-threads: one thread keeps the measurement
# stable on a busy machine; TARGET_RATIO (default 1.05) is the goal for (b)/(a).
set -euo pipefail

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$bench_dir/.." && pwd)
example=$bench_dir/overhead-example
runs=${RUNS:-30}
threads=${THREADS:-1}
target_ratio=${TARGET_RATIO:-1.05}
output=$bench_dir/results/overhead.md
keep=0

while getopts "n:o:kh" opt; do
    case $opt in
        n) runs=$OPTARG ;;
        o) output=$OPTARG ;;
        k) keep=1 ;;
        *) sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 2 ;;
    esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "overhead: -n needs a positive number" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/autodebug-overhead.XXXXXX")
cleanup() { if ((keep)); then echo "scratch kept in $work" >&2; else rm -rf "$work"; fi; }
trap cleanup EXIT

log() { echo "overhead: $*" >&2; }

read -r -a variants <<< "${VARIANTS:-a b i c}"
[[ " ${variants[*]} " == *" a "* ]] || variants=(a "${variants[@]}")
for v in "${variants[@]}"; do
    [[ $v == [abci] ]] || { echo "overhead: unknown variant $v (a, b, i or c)" >&2; exit 2; }
done
has() { [[ " ${variants[*]} " == *" $1 "* ]]; }
declare -A label=([a]="(a) plain: no contracts" [b]="(b) contracts, not instrumented"
    [i]="(i) instrumented, not recording" [c]="(c) instrumented + recording")
declare -A exe

# A copy of the example whose path dependency on the runtime still resolves.
make_copy() {
    local dir=$work/$1
    mkdir -p "$dir"
    cp -R "$example/Cargo.toml" "$example/Cargo.lock" "$example/src" "$dir/"
    sed -i -E "s|path = \"\\.\\./\\.\\./autodebug-runtime\"|path = \"$repo/autodebug-runtime\"|" "$dir/Cargo.toml"
}

# Builds variant $1 and prints the path of its lib test executable.
build() {
    local v=$1 dir=$work/$1 json
    local -a env=(CARGO_TARGET_DIR="$dir/target")
    env+=(AUTODEBUG_INSTRUMENT="$([[ $v == c ]] && echo 1 || echo 0)")
    # (c) is built as `cargo autodebug` builds: the recording path (the runtime and the
    # serialization crates it runs) optimized, the crate under test in its own profile
    # (OPTIMIZED_PACKAGES in cargo-autodebug/src/build.rs).
    local -a config=()
    if [[ $v == c ]]; then
        for p in autodebug-runtime serde_json serde_core itoa ryu; do
            config+=(--config "profile.dev.package.$p.opt-level=3")
        done
        config+=(--config "profile.dev.package.autodebug-runtime.debug-assertions=false")
    fi
    json=$(cd "$dir" && env "${env[@]}" cargo test --no-run --message-format=json "${config[@]}" 2> "$work/build-$v.log") || {
        cat "$work/build-$v.log" >&2
        echo "overhead: build of variant $v failed" >&2
        return 1
    }
    # The artifact of the lib's unit tests: `"test":true` in its profile, an executable.
    local line
    line=$(grep '"reason":"compiler-artifact"' <<< "$json" | grep '"test":true' \
        | grep '"kind":\["lib"\]' | grep -o '"executable":"[^"]*"' | tail -n 1) || true
    [[ -n $line ]] || { echo "overhead: no test executable for variant $v" >&2; return 1; }
    line=${line#\"executable\":\"}
    echo "${line%\"}"
}

# Runs variant $1 once; prints the wall time in seconds.
run_once() {
    local v=$1 start end status=0
    # Nothing inherited from the caller may steer the runtime; only (c) records.
    local -a env=(-u AUTODEBUG_TRACE -u AUTODEBUG_PLAN -u AUTODEBUG_TRACE_MODE -u AUTODEBUG_MAX_EVENTS)
    [[ $v == c ]] && env+=(AUTODEBUG_TRACE="$work/trace.jsonl")
    rm -f "$work/trace.jsonl"
    start=$(date +%s%N)
    env "${env[@]}" "${exe[$v]}" --test-threads="$threads" -q > "$work/run-$v.log" 2>&1 || status=$?
    end=$(date +%s%N)
    if ((status != 0)); then
        cat "$work/run-$v.log" >&2
        echo "overhead: variant $v failed (exit $status)" >&2
        return 1
    fi
    awk -v ns=$((end - start)) 'BEGIN { printf "%.4f\n", ns / 1e9 }'
}

median() { sort -g | awk '{ x[NR] = $1 } END { if (NR % 2) printf "%.4f", x[(NR + 1) / 2]; else printf "%.4f", (x[NR / 2] + x[NR / 2 + 1]) / 2 }'; }
minimum() { sort -g | head -n 1; }

log "scratch dir $work"
# (i) runs the binary of (c): build c whenever either is asked for.
builds=(a)
has b && builds+=(b)
{ has c || has i; } && builds+=(c)
for v in "${builds[@]}"; do make_copy "$v"; done
"$bench_dir/strip-contracts.sh" "$work/a"
for v in "${builds[@]}"; do
    log "building variant $v"
    exe[$v]=$(build "$v")
done
[[ -z ${exe[c]:-} ]] || exe[i]=${exe[c]}
# Each binary must really be its variant: the plain one has no contract messages, the
# contract ones have them, and only the instrumented one writes a trace.
if grep -q 'Pre-condition of' "${exe[a]}"; then log "variant a still checks contracts"; exit 1; fi
for v in "${variants[@]}"; do
    [[ $v == a ]] && continue
    grep -q 'Pre-condition of' "${exe[$v]}" || log "warning: no 'Pre-condition of' text in variant $v"
done

log "warm-up"
for v in "${variants[@]}"; do run_once "$v" > /dev/null; done
if has c; then
    [[ -s $work/trace.jsonl ]] || { log "the instrumented run wrote no trace"; exit 1; }
    trace_bytes=$(wc -c < "$work/trace.jsonl")
    trace_lines=$(wc -l < "$work/trace.jsonl")
fi

log "measuring: $runs runs per variant, interleaved"
for ((i = 1; i <= runs; i++)); do
    for v in "${variants[@]}"; do
        run_once "$v" >> "$work/times-$v"
    done
    ((i % 10 == 0)) && log "  $i/$runs"
done

declare -A med mins
for v in "${variants[@]}"; do
    med[$v]=$(median < "$work/times-$v")
    mins[$v]=$(minimum < "$work/times-$v")
done
ratio() { awk -v x="$1" -v y="$2" 'BEGIN { printf "%.3f", x / y }'; }
ratio_b=
has b && ratio_b=$(ratio "${med[b]}" "${med[a]}")
verdict=
[[ -n $ratio_b ]] && verdict=$(awk -v r="$ratio_b" -v t="$target_ratio" 'BEGIN { print (r <= t ? "met" : "NOT met") }')

contracts=$(grep -E '^[[:space:]]*#\[(requires|ensures|invariant)' "$example/src/lib.rs" \
    | sed -E 's/^[[:space:]]*/    /')

{
    echo "## Overhead of contracts and instrumentation"
    echo
    echo "Test suite of \`bench/overhead-example\` (sorting and searching a few thousand"
    echo "pseudo-random arrays), $runs interleaved runs per variant, \`--test-threads=$threads\`,"
    echo "debug profile as \`cargo test\` builds it. $(date -u +%Y-%m-%d), $(rustc --version),"
    echo "$(nproc) cores (shared: other builds may have run at the same time)."
    echo
    echo "| variant | median (s) | min (s) | ratio to (a) |"
    echo "|---|---:|---:|---:|"
    for v in "${variants[@]}"; do
        echo "| ${label[$v]} | ${med[$v]} | ${mins[$v]} | $(ratio "${med[$v]}" "${med[a]}") |"
    done
    echo
    if [[ -n $verdict ]]; then
        echo "Target (b)/(a) ≤ $target_ratio: **$verdict** ($ratio_b)."
    fi
    if has c; then
        echo "Each run of (c) wrote a trace of $trace_lines records ($trace_bytes bytes)."
    fi
    echo
    echo "Contracts checked in (b) and (c):"
    echo
    echo '```rust'
    echo "$contracts"
    echo '```'
} > "$work/table.md"

mkdir -p "$(dirname "$output")"
cp "$work/table.md" "$output"
cat "$work/table.md"
log "written to $output"
