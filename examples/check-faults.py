#!/usr/bin/env python3
"""Checks that every example's `fault.json` tells the truth.

For each example: the span (line, column .. end_column, 1-based character columns, end
exclusive) holds exactly `faulty`; `cargo test` fails exactly the `failing_tests` and
passes at least one other test; with the span temporarily replaced by `original`, every
test passes. The source file is restored byte for byte afterwards, also on errors.

Modes:
  (default)        build as a user would: contracts on, no instrumentation.
  --instrumented   build with AUTODEBUG_INSTRUMENT=1 (and record a trace at run time):
                   instrumentation must not change which tests fail.
  --stripped       check a copy with every contract attribute removed by
                   ../bench/strip-contracts.sh (works without the contract macros); tests of
                   the contracts themselves fail in both versions there, so the check is
                   that (failing with the fault) - (failing without it) == failing_tests.

Usage: check-faults.py [--instrumented | --stripped] [EXAMPLE ...]
Builds share one target dir per mode (CARGO_TARGET_DIR overrides it).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
STRIP = os.path.join(HERE, "..", "bench", "strip-contracts.sh")
TEST_LINE = re.compile(r"^test (\S+)(?: - should panic)? \.\.\. (ok|FAILED|ignored)", re.M)


def run_tests(crate, target_dir, instrumented, trace_dir):
    """Runs `cargo test` in `crate`; returns (passed, failed) sets of test names."""
    env = dict(os.environ, CARGO_TARGET_DIR=target_dir)
    env.pop("AUTODEBUG_INSTRUMENT", None)
    env.pop("AUTODEBUG_TRACE", None)
    if instrumented:
        env["AUTODEBUG_INSTRUMENT"] = "1"
        env["AUTODEBUG_TRACE"] = os.path.join(trace_dir, "trace.jsonl")
    proc = subprocess.run(
        ["cargo", "test", "--no-fail-fast", "--", "--test-threads=1"],
        cwd=crate, env=env, capture_output=True, text=True,
    )
    out = proc.stdout + proc.stderr
    if "error[" in out or "could not compile" in out:
        raise RuntimeError(f"build failed in {crate}:\n{out}")
    passed, failed = set(), set()
    for name, outcome in TEST_LINE.findall(out):
        (failed if outcome == "FAILED" else passed).add(name)
    if not passed and not failed:
        raise RuntimeError(f"no tests ran in {crate}:\n{out}")
    return passed, failed


def replace_span(text, fault, replacement):
    """`text` with the fault's span replaced; checks that the span holds `faulty`."""
    lines = text.split("\n")
    assert fault["line"] == fault["end_line"], "multi-line spans are not used by the examples"
    line = lines[fault["line"] - 1]
    start, end = fault["column"] - 1, fault["end_column"] - 1
    found = line[start:end]
    if found != fault["faulty"]:
        raise RuntimeError(f"span {fault['line']}:{fault['column']} holds {found!r}, not {fault['faulty']!r}")
    lines[fault["line"] - 1] = line[:start] + replacement + line[end:]
    return "\n".join(lines)


def check(example, mode, target_dir):
    src_dir = os.path.join(HERE, example)
    with open(os.path.join(src_dir, "fault.json"), encoding="utf-8") as f:
        fault = json.load(f)
    expected = set(fault["failing_tests"])
    with tempfile.TemporaryDirectory(prefix=f"check-{example}-") as tmp:
        crate = src_dir
        if mode == "stripped":
            crate = os.path.join(tmp, example)
            shutil.copytree(src_dir, crate, ignore=shutil.ignore_patterns("target"))
            # The span is checked on the original file; the stripped copy is edited by
            # matching the faulty line's text, since removed attribute lines shift numbers.
        path = os.path.join(crate, fault["file"])
        with open(path, encoding="utf-8", newline="") as f:
            original_text = f.read()
        fixed_text = replace_span(original_text, fault, fault["original"])
        if mode == "stripped":
            subprocess.run([STRIP, crate], check=True)
            with open(path, encoding="utf-8", newline="") as f:
                stripped = f.read()
            faulty_line = original_text.split("\n")[fault["line"] - 1]
            fixed_line = fixed_text.split("\n")[fault["line"] - 1]
            if stripped.count(faulty_line) != 1:
                raise RuntimeError("faulty line not unique after stripping")
            original_text, fixed_text = stripped, stripped.replace(faulty_line, fixed_line)

        passed, failed = run_tests(crate, target_dir, mode == "instrumented", tmp)
        try:
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(fixed_text)
            fixed_passed, fixed_failed = run_tests(crate, target_dir, mode == "instrumented", tmp)
        finally:
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(original_text)

    problems = []
    if mode == "stripped":
        introduced = failed - fixed_failed
        if introduced != expected:
            problems.append(f"fault makes {sorted(introduced)} fail, fault.json says {sorted(expected)}")
    else:
        if failed != expected:
            problems.append(f"failing {sorted(failed)}, fault.json says {sorted(expected)}")
        if fixed_failed:
            problems.append(f"still failing without the fault: {sorted(fixed_failed)}")
    if not passed:
        problems.append("every test fails with the fault")
    total = len(passed) + len(failed)
    status = "ok" if not problems else "MISMATCH"
    print(f"{example:14} {status}: {len(failed)}/{total} tests fail with the fault, "
          f"{len(fixed_failed)}/{len(fixed_passed) + len(fixed_failed)} without it")
    for p in problems:
        print(f"    {p}")
    return not problems


def main(argv):
    mode = "normal"
    args = []
    for a in argv:
        if a == "--instrumented":
            mode = "instrumented"
        elif a == "--stripped":
            mode = "stripped"
        elif a.startswith("-"):
            print(__doc__)
            return 2
        else:
            args.append(a.rstrip("/"))
    examples = args or sorted(
        d for d in os.listdir(HERE) if os.path.isfile(os.path.join(HERE, d, "fault.json"))
    )
    target_dir = os.environ.get("CARGO_TARGET_DIR") or {
        "normal": "/tmp/examples-target",
        "instrumented": "/tmp/examples-target-instr",
        "stripped": "/tmp/examples-target-stripped",
    }[mode]
    ok = True
    for example in examples:
        try:
            ok &= check(example, mode, target_dir)
        except RuntimeError as e:
            print(f"{example:14} ERROR: {e}")
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
