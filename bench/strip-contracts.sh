#!/usr/bin/env bash
# Turns a copy of a crate that uses cargo-autodebug's macros into the same crate without
# them: every `#[requires]`, `#[ensures]`, `#[invariant]`, `#[autodebug]` attribute (and the
# `debug_`/`test_` variants, with or without an `autodebug_runtime::` prefix) is removed
# from the Rust sources under src/, tests/, benches/ and examples/, as are the
# `use autodebug_runtime::…;` imports and the dependency in Cargo.toml.
#
# It is a line/attribute filter, not a parser: an attribute is followed from its `#[` to the
# matching `]`, across lines, skipping brackets inside string and char literals, so
# multi-line contracts and messages containing `]` are handled. Everything else in the file
# is kept byte for byte (line numbers shift where whole lines are removed).
#
# Usage: strip-contracts.sh CRATE_DIR   (edits CRATE_DIR in place: run it on a copy)
set -euo pipefail

crate=${1:?usage: strip-contracts.sh CRATE_DIR}
[[ -f $crate/Cargo.toml ]] || { echo "strip-contracts: $crate/Cargo.toml not found" >&2; exit 2; }

strip_file() {
    awk '
    # Index (1-based) just past the `]` closing the attribute that starts at `from` in `s`,
    # given the bracket depth `depth` already open; 0 when the line ends first (the global
    # `depth` and `in_str` then carry over to the next line).
    function scan(s, from,    i, c) {
        for (i = from; i <= length(s); i++) {
            c = substr(s, i, 1)
            if (in_str) {
                if (c == "\\") { i++; continue }
                if (c == "\"") in_str = 0
                continue
            }
            if (c == "\"") { in_str = 1; continue }
            # a char literal such as '\'' or ']': skip it whole
            if (c == "\047" && substr(s, i + 2, 1) == "\047") { i += 2; continue }
            if (c == "\047" && substr(s, i + 1, 1) == "\\") {
                i = index(substr(s, i + 3), "\047") + i + 2; continue
            }
            if (c == "[") depth++
            else if (c == "]") { depth--; if (depth == 0) return i + 1 }
        }
        return 0
    }
    BEGIN {
        attr = "^[ \t]*#[ \t]*\\[[ \t]*(::)?(autodebug_runtime[ \t]*::[ \t]*)?(debug_|test_)?(requires|ensures|invariant|autodebug)([ \t(\\]]|$)"
        use_ = "^[ \t]*(pub[ \t]+)?use[ \t]+(::)?autodebug_runtime[ \t]*::"
    }
    {
        line = $0
        if (in_use) { if (index(line, ";")) in_use = 0; next }
        if (in_attr) {
            end = scan(line, 1)
            if (end == 0) next
            in_attr = 0
            line = substr(line, end)
            if (line ~ /^[ \t]*$/) next
        }
        # several attributes may share a line, or precede the item on it
        while (line ~ attr) {
            start = index(line, "#")
            depth = 0; in_str = 0
            end = scan(line, start)
            if (end == 0) { in_attr = 1; next }
            line = substr(line, 1, start - 1) substr(line, end)
            if (line ~ /^[ \t]*$/) next
        }
        if (line ~ use_) { if (!index(line, ";")) in_use = 1; next }
        print line
    }
    END { if (in_attr) { print "strip-contracts: unterminated attribute in " FILENAME > "/dev/stderr"; exit 1 } }
    ' "$1" > "$1.stripped"
    mv "$1.stripped" "$1"
}

for dir in src tests benches examples; do
    [[ -d $crate/$dir ]] || continue
    while IFS= read -r -d '' file; do
        strip_file "$file"
    done < <(find "$crate/$dir" -name '*.rs' -print0)
done

# The dependency line (`autodebug-runtime = …` or `autodebug-runtime.workspace = true`).
sed -i -E '/^[[:space:]]*autodebug-runtime([[:space:]]*=|\.)/d' "$crate/Cargo.toml"

if grep -rEn '^[[:space:]]*#[[:space:]]*\[[[:space:]]*(::)?(autodebug_runtime[[:space:]]*::[[:space:]]*)?(debug_|test_)?(requires|ensures|invariant|autodebug)([[:space:](]|\]|$)' \
        --include='*.rs' "$crate" >&2; then
    echo "strip-contracts: attributes left over (see above)" >&2
    exit 1
fi
