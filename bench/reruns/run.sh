#!/bin/sh
# Reruns per second: the in-process harness vs one process per rerun, side by side, on the
# same test and the same 200 flip plans. Writes bench/reruns/results.md. See README.md.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
profile=${PROFILE:-release}
flag=""
[ "$profile" = release ] && flag="--release"
cd "$repo"
AUTODEBUG_BENCH_RERUNS_OUT="$here/results.md.new" \
    cargo test $flag -p cargo-autodebug --bin cargo-autodebug bench_reruns -- --ignored --nocapture
{
    echo "# Reruns per second: in-process harness vs one process per rerun"
    echo
    echo "Measured by \`bench/reruns/run.sh\` (tool built \`$profile\`, fixture built as \`cargo autodebug\` builds tests: \`cargo test --no-run\`, instrumented) on $(date -u +%Y-%m-%d), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)."
    echo
    cat "$here/results.md.new"
} > "$here/results.md"
rm -f "$here/results.md.new"
cat "$here/results.md"
