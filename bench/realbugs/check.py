#!/usr/bin/env python3
"""Check every real-bug case in both directions (Python 3, standard library only).

    python3 check.py                      # every case under ./cases
    python3 check.py --only NAME [NAME...]
    python3 check.py --cases DIR --keep   # keep the temporary copies

For each case <name>/ beside <name>.truth.json: copy the crate to a temporary directory,
run `cargo test --no-fail-fast` there (under `nice -n 15`, CARGO_BUILD_JOBS=1 unless set),
and note the failing tests as (target, name): `lib` for unit tests, the test file's stem for
integration tests, `doc` for doc-tests. Then apply the truth's `fix_diff` to the copy and run
`cargo test --no-fail-fast` again. A case is OK when the buggy run fails exactly the truth's
`failing_tests` (a truth test with an `outcome` such as SIGSEGV counts as failed when its
target's process died of a signal) and the fixed run passes every test (exit code 0).

`apply_udiff` is imported from the dev set's runner, /work/shared/external/realbugs/run.py,
when that file exists, else taken from the equivalent copy in this file.
"""
import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEV_RUN = "/work/shared/external/realbugs/run.py"


# ---------------------------------------------------------------- unified diffs (local copy)
def _parse_udiff(text):
    files, cur, hunk = [], None, None
    for line in text.splitlines(True):
        if line.startswith("--- "):
            continue
        if line.startswith("+++ "):
            p = line[4:].strip().split("\t")[0]
            p = p[2:] if p.startswith(("a/", "b/")) else p
            cur = (p, [])
            files.append(cur)
            hunk = None
            continue
        m = re.match(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", line)
        if m and cur is not None:
            hunk = [int(m.group(1)), [], []]
            cur[1].append(hunk)
            continue
        if hunk is None:
            continue
        if line.startswith("\\"):
            for side in (1, 2):
                if hunk[side] and hunk[side][-1].endswith("\n"):
                    hunk[side][-1] = hunk[side][-1][:-1]
            continue
        tag, body = line[:1], line[1:]
        if tag == " ":
            hunk[1].append(body)
            hunk[2].append(body)
        elif tag == "-":
            hunk[1].append(body)
        elif tag == "+":
            hunk[2].append(body)
    return files


def _apply_udiff(texts, diff):
    out = dict(texts)
    for path, hunks in _parse_udiff(diff):
        if path not in out:
            return None
        lines = out[path].splitlines(True)
        offset = 0
        for start, old, new in hunks:
            pos = max(start - 1 + offset, 0)
            cands = [pos] + [p for d in range(1, len(lines) + 1) for p in (pos - d, pos + d)]
            for p in cands:
                if 0 <= p <= len(lines) - len(old) and lines[p:p + len(old)] == old:
                    lines[p:p + len(old)] = new
                    offset += len(new) - len(old)
                    break
            else:
                return None
        out[path] = "".join(lines)
    return out


def load_apply_udiff():
    if os.path.isfile(DEV_RUN):
        try:
            spec = importlib.util.spec_from_file_location("realbugs_dev_run", DEV_RUN)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            return mod.apply_udiff, DEV_RUN
        except Exception:  # fall back to the local copy
            pass
    return _apply_udiff, "local copy"


# ---------------------------------------------------------------- cargo test output
def parse_results(out):
    """(failed [(target, name)], passed count, crashed targets)"""
    target, fails, passed, crashed = None, [], 0, []
    for line in out.splitlines():
        m = re.match(r"\s*Running (unittests )?(\S+)", line)
        if m:
            src = m.group(2)
            if m.group(1):
                target = "lib" if src == "src/lib.rs" else "bin:" + src
            else:
                target = os.path.splitext(os.path.basename(src))[0]
            continue
        if line.startswith("   Doc-tests"):
            target = "doc"
            continue
        m = re.match(r"test (.+?)(?: - should panic)? \.\.\. (ok|FAILED|ignored)", line)
        if m:
            if m.group(2) == "FAILED":
                fails.append((target, m.group(1)))
            elif m.group(2) == "ok":
                passed += 1
        if "process didn't exit successfully" in line and "signal" in line:
            crashed.append(target)
    return fails, passed, crashed


def cargo_test(d, log):
    env = dict(os.environ)
    env.setdefault("CARGO_BUILD_JOBS", "1")
    t0 = time.time()
    p = subprocess.run(["nice", "-n", "15", "cargo", "test", "--no-fail-fast"], cwd=d, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = p.stdout.decode("utf-8", "replace")
    with open(log, "w") as f:
        f.write(out)
    return p.returncode, time.time() - t0, out


def truth_consistency(truth):
    """Disagreements inside a truth file: the scorer reads `files` first, so a line corrected
    only in the top-level `buggy_lines` would go unseen."""
    notes = []
    files = truth.get("files") or []
    if truth.get("file") and len(files) == 1:
        top = (truth["file"], sorted(truth.get("buggy_lines") or []))
        per_file = (files[0].get("file"), sorted(files[0].get("buggy_lines") or []))
        if top != per_file:
            notes.append("truth: file/buggy_lines %s:%s disagree with files[0] %s:%s" % (top + per_file))
    return notes


def check_case(name, cases, root, apply_udiff):
    truth = json.load(open(os.path.join(cases, name + ".truth.json")))
    work = os.path.join(root, name)
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(os.path.join(cases, name), work, ignore=shutil.ignore_patterns("target"))
    r = {"name": name, "ok": False, "notes": []}
    r["notes"].extend(truth_consistency(truth))
    rc, wall, out = cargo_test(work, work + ".buggy.log")
    fails, passed, crashed = parse_results(out)
    r.update(buggy_rc=rc, buggy_wall_s=round(wall, 1), buggy_failed=sorted(set(fails)), buggy_passed=passed)
    want = set((t["target"], t["name"]) for t in truth["failing_tests"])
    got = set(fails)
    for t in truth["failing_tests"]:
        if t.get("outcome") and t["target"] in crashed:
            got.add((t["target"], t["name"]))
    buggy_ok = rc != 0 and got == want
    if not buggy_ok:
        r["notes"].append("buggy run: expected %s, got %s%s" % (sorted(want), sorted(got),
                          " (crashed: %s)" % crashed if crashed else ""))
    files = sorted(set(p for p, _ in parse_udiff_paths(truth["fix_diff"])))
    texts = {}
    for p in files:
        with open(os.path.join(work, p), encoding="utf-8", newline="") as f:
            texts[p] = f.read()
    new = apply_udiff(texts, truth["fix_diff"])
    if new is None:
        r["notes"].append("fix_diff does not apply")
        r["fixed_rc"] = None
        return r
    for p, t in new.items():
        with open(os.path.join(work, p), "w", encoding="utf-8", newline="") as f:
            f.write(t)
    rc2, wall2, out2 = cargo_test(work, work + ".fixed.log")
    fails2, passed2, crashed2 = parse_results(out2)
    r.update(fixed_rc=rc2, fixed_wall_s=round(wall2, 1), fixed_failed=sorted(set(fails2)), fixed_passed=passed2)
    fixed_ok = rc2 == 0 and not fails2 and not crashed2
    if not fixed_ok:
        r["notes"].append("fixed run: rc=%s, failed %s" % (rc2, sorted(set(fails2))))
    r["ok"] = buggy_ok and fixed_ok and not truth_consistency(truth)
    return r


def parse_udiff_paths(diff):
    return [(p, h) for p, h in _parse_udiff(diff)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", default=os.path.join(HERE, "cases"))
    ap.add_argument("--only", nargs="*", help="case names")
    ap.add_argument("--root", help="where the copies go (default: a new temp dir)")
    ap.add_argument("--keep", action="store_true", help="keep the copies (default: delete each target/)")
    ap.add_argument("--json", help="write the per-case results here")
    a = ap.parse_args()
    apply_udiff, src = load_apply_udiff()
    names = sorted(f[:-len(".truth.json")] for f in os.listdir(a.cases) if f.endswith(".truth.json"))
    if a.only:
        missing = [n for n in a.only if n not in names]
        if missing:
            print("no such case: %s" % " ".join(missing), file=sys.stderr)
            return 2
        names = [n for n in names if n in a.only]
    root = a.root or tempfile.mkdtemp(prefix="realbugs-check-")
    os.makedirs(root, exist_ok=True)
    print("apply_udiff from %s; copies under %s" % (src, root), flush=True)
    results = []
    for n in names:
        print("== %s" % n, flush=True)
        r = check_case(n, a.cases, root, apply_udiff)
        results.append(r)
        print("   %s  buggy rc=%s %.0fs failed=%s | fixed rc=%s %ss%s" % (
            "OK  " if r["ok"] else "FAIL", r.get("buggy_rc"), r.get("buggy_wall_s") or 0,
            ["%s::%s" % t if t[0] != "lib" else t[1] for t in r.get("buggy_failed", [])],
            r.get("fixed_rc"), r.get("fixed_wall_s"), ("  " + "; ".join(r["notes"])) if r["notes"] else ""),
            flush=True)
        if not a.keep:
            shutil.rmtree(os.path.join(root, n, "target"), ignore_errors=True)
    ok = sum(1 for r in results if r["ok"])
    walls = sorted(r["buggy_wall_s"] for r in results if r.get("buggy_wall_s") is not None)
    med = walls[len(walls) // 2] if len(walls) % 2 else (sum(walls[len(walls) // 2 - 1:len(walls) // 2 + 1]) / 2 if walls else 0)
    print("\n%d/%d cases OK; median buggy `cargo test` wall time %.0f s" % (ok, len(results), med))
    for r in results:
        if not r["ok"]:
            print("  FAIL %s: %s" % (r["name"], "; ".join(r["notes"])))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0 if ok == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
