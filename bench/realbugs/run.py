#!/usr/bin/env python3
"""Benchmark runner for the real-bug cases (bench/realbugs/cases, or any set in the same format).

For each case `<cases>/<name>/` (a crate) with `<cases>/<name>.truth.json` beside it:

  1. copy the crate (never the truth file) to RUN_DIR/<name>/;
  2. unless --no-plain, time a plain `cargo test --no-fail-fast` in the copy (own target dir
     RUN_DIR/<name>.plain-target, removed afterwards unless --keep-plain-target);
  3. run the tool command in the copy; it must write <copy>/autodebug.out/report.json;
  4. score the report against the truth.

Both commands run under `nice -n 15` with CARGO_BUILD_JOBS=1 (unless already set), in their own
process group, killed when they exceed --timeout seconds, and through `/usr/bin/time -f %M`
(when it exists) for their peak resident size. Writes, per case, <copy>/plain.txt + plain.json
and <copy>/out.txt + run.json; overall, results.json and results.md in --out (default RUN_DIR).

Python 3, standard library only (plus `patch` or `git` to apply diffs when scoring `exact`).

    python3 run.py --root RUN_DIR
    python3 run.py --only slab-5c08e061 --root RUN_DIR
    python3 run.py --cases OTHER/cases --root RUN_DIR --tool "cargo autodebug --timeout 120"
    python3 run.py --score-only RUN_DIR
"""

import argparse
import json
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CASES = os.path.join(HERE, "cases")
DEFAULT_TOOL = "cargo autodebug --timeout 120"
DEFAULT_TIMEOUT = 1800.0
NICE = ["nice", "-n", "15"]
GNU_TIME = "/usr/bin/time"
SLOW_S = 300.0


# --------------------------------------------------------------------------- helpers
def log(msg):
    print(msg, flush=True)


def read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def write_json(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")


def read_text(path):
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            return f.read()
    except OSError:
        return None


def squash(text):
    """The text with all whitespace removed (None stays None)."""
    return None if text is None else re.sub(r"\s+", "", text)


def norm_path(path, base=None):
    """A report's or diff's file path, relative to the crate root, with '/' separators."""
    if not path:
        return path
    p = str(path).replace("\\", "/")
    if base and os.path.isabs(p):
        b = os.path.abspath(base).replace("\\", "/").rstrip("/") + "/"
        if p.startswith(b):
            p = p[len(b):]
    while p.startswith("./"):
        p = p[2:]
    return p


def as_int(v):
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


# --------------------------------------------------------------------------- unified diffs
def diff_header_path(line):
    p = line[4:].rstrip("\n").split("\t")[0].strip()
    if p.startswith('"') and p.endswith('"'):
        p = p[1:-1]
    return p


def diff_files(diff):
    """[(path, had_prefix)] of the files a unified diff changes (path without a/ b/)."""
    out = []
    old = None
    for line in (diff or "").splitlines():
        if line.startswith("--- "):
            old = diff_header_path(line)
        elif line.startswith("+++ ") and old is not None:
            new = diff_header_path(line)
            p = new if new != "/dev/null" else old
            prefixed = p.startswith(("a/", "b/"))
            if prefixed:
                p = p[2:]
            out.append((norm_path(p), prefixed))
            old = None
    return out


def apply_diff(files, diff):
    """Apply a unified diff to {path: text} with `patch` (or `git apply`) in a scratch dir.

    Returns {path: text or None} for the given paths plus the ones the diff names, or None
    when the diff does not apply."""
    names = diff_files(diff)
    if not names:
        return None
    strip = "1" if all(prefixed for _, prefixed in names) else "0"
    paths = set(files) | {p for p, _ in names}
    attempts = []
    if shutil.which("patch"):
        attempts.append(["patch", "-p" + strip, "--batch", "--forward", "--silent",
                         "--no-backup-if-mismatch", "-r", "-", "-i"])
    if shutil.which("git"):
        attempts.append(["git", "apply", "-p" + strip, "--recount", "--whitespace=nowarn",
                         "--unsafe-paths"])
    for cmd in attempts:
        with tempfile.TemporaryDirectory(prefix="realbugs-apply-") as tmp:
            tree = os.path.join(tmp, "tree")
            os.makedirs(tree)
            for p, text in files.items():
                if text is None:
                    continue
                fp = os.path.join(tree, p)
                os.makedirs(os.path.dirname(fp), exist_ok=True)
                with open(fp, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
                    f.write(text)
            dfile = os.path.join(tmp, "fix.diff")
            with open(dfile, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
                f.write(diff if diff.endswith("\n") else diff + "\n")
            try:
                r = subprocess.run(cmd + [dfile], cwd=tree, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                                   timeout=60, env=dict(os.environ, GIT_DIR=os.path.join(tmp, "nogit")))
            except (OSError, subprocess.TimeoutExpired):
                continue
            if r.returncode != 0:
                continue
            return {p: read_text(os.path.join(tree, p)) for p in paths}
    return None


# --------------------------------------------------------------------------- scoring
def truth_lines(truth):
    """{file: set(buggy lines)} from a truth file (the `files` list, else `file`/`buggy_lines`)."""
    out = {}
    for f in truth.get("files") or []:
        out.setdefault(norm_path(f["file"]), set()).update(int(x) for x in f.get("buggy_lines") or [])
    if not out and truth.get("file"):
        out[norm_path(truth["file"])] = set(int(x) for x in truth.get("buggy_lines") or [])
    return out


def test_matches(got, want):
    if not got or not want:
        return False
    return got == want or got.endswith("::" + want) or want.endswith("::" + got)


def meets(file_lines, path, lo, hi):
    lo, hi = as_int(lo), as_int(hi)
    if path not in file_lines or lo is None:
        return False
    if hi is None or hi < lo:
        hi = lo
    return any(lo <= x <= hi for x in file_lines[path])


def score(case_src, truth, report, copy_dir=None):
    res = {"report": report is not None, "status": None, "detected": False, "rank": None,
           "validated": False, "exact": False, "fix_at_truth": False, "n_failing_reported": 0,
           "n_suspects": 0, "n_fixes": 0, "n_validated": 0, "left_out": None, "timing": None,
           "top_suspect": None, "top_fix": None}
    if not isinstance(report, dict):
        return res
    base = copy_dir or case_src
    res["status"] = report.get("status")

    # detected
    want = [t.get("name") for t in truth.get("failing_tests") or [] if t.get("name")]
    failing = report.get("failing_tests") or []
    res["n_failing_reported"] = len(failing)
    for ft in failing:
        name = ft.get("name") if isinstance(ft, dict) else ft
        if any(test_matches(name, w) for w in want):
            res["detected"] = True
            break

    # rank
    tl = truth_lines(truth)
    suspects = report.get("suspects") or []
    res["n_suspects"] = len(suspects)
    if suspects:
        s = suspects[0]
        res["top_suspect"] = "%s:%s %s" % (norm_path(s.get("file"), base), s.get("line"),
                                           (s.get("code") or "").strip()[:60])
    for pos, s in enumerate(suspects, 1):
        if meets(tl, norm_path(s.get("file"), base), s.get("line"), s.get("end_line")):
            res["rank"] = pos
            break

    # fixes
    fixes = report.get("fixes") or []
    res["n_fixes"] = len(fixes)
    validated = [fx for fx in fixes if isinstance(fx, dict) and fx.get("validated") is True]
    res["n_validated"] = len(validated)
    res["validated"] = bool(validated)
    if validated:
        fx = validated[0]
        res["top_fix"] = "%s:%s `%s` -> `%s`" % (
            norm_path(fx.get("file"), base), fx.get("line"),
            (fx.get("original") or "").strip()[:60], (fx.get("replacement") or "").strip()[:60])

    truth_paths = set(tl) | {p for p, _ in diff_files(truth.get("fix_diff") or "")}
    buggy_cache = {}

    def buggy(paths):
        for p in paths:
            if p not in buggy_cache:
                buggy_cache[p] = read_text(os.path.join(case_src, p))
        return {p: buggy_cache[p] for p in paths}

    fixed_truth = None
    if validated and truth.get("fix_diff"):
        fixed_truth = apply_diff(buggy(truth_paths), truth["fix_diff"])
        if fixed_truth is None:
            res["note"] = "truth fix_diff does not apply"
    for fx in validated:
        edits = [e for e in fx.get("edits") or [] if isinstance(e, dict)] or [fx]
        for e in edits:
            if meets(tl, norm_path(e.get("file"), base), e.get("line"), e.get("end_line")):
                res["fix_at_truth"] = True
        diff = fx.get("diff") or ""
        if fixed_truth is not None and diff and not res["exact"]:
            paths = truth_paths | {p for p, _ in diff_files(diff)}
            got = apply_diff(buggy(paths), diff)
            if got is not None:
                want_all = dict(buggy(paths))
                want_all.update(fixed_truth)
                if all(squash(got.get(p)) == squash(want_all.get(p)) for p in paths):
                    res["exact"] = True

    inst = report.get("instrumentation")
    if isinstance(inst, dict) and "left_out" in inst:
        lo = inst["left_out"]
        res["left_out"] = len(lo) if isinstance(lo, (list, dict)) else as_int(lo)
    if isinstance(report.get("timing"), dict):
        res["timing"] = report["timing"]
    return res


# --------------------------------------------------------------------------- running
def kill_group(pgid, sig):
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def run_cmd(cmd, cwd, log_path, timeout, env):
    """Run cmd under nice (and /usr/bin/time) in its own process group; returns a record."""
    rss_file = None
    full = list(NICE)
    if os.access(GNU_TIME, os.X_OK):
        fd, rss_file = tempfile.mkstemp(prefix="realbugs-rss-")
        os.close(fd)
        full += [GNU_TIME, "-f", "%M", "-o", rss_file]
    full += cmd
    timed_out = False
    t0 = time.monotonic()
    started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    with open(log_path, "wb") as out:
        try:
            p = subprocess.Popen(full, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, env=env, start_new_session=True)
        except OSError as e:
            out.write(("could not start %r: %s\n" % (full, e)).encode())
            return {"cmd": full, "rc": None, "error": str(e), "wall_s": 0.0,
                    "timed_out": False, "peak_mb": None, "started": started}
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            kill_group(p.pid, signal.SIGTERM)
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                kill_group(p.pid, signal.SIGKILL)
                p.wait()
            rc = "timeout"
        # anything the command left running in its group
        kill_group(p.pid, signal.SIGKILL)
    wall = time.monotonic() - t0
    peak_mb = None
    if rss_file:
        text = read_text(rss_file) or ""
        os.unlink(rss_file)
        nums = [int(x) for x in re.findall(r"^\s*(\d+)\s*$", text, re.M)]
        if nums:
            peak_mb = round(nums[-1] / 1024.0, 1)
    if timed_out:
        with open(log_path, "ab") as out:
            out.write(("\n[realbugs] killed after %.0f s (timeout %.0f s)\n" % (wall, timeout)).encode())
    return {"cmd": full, "rc": rc, "wall_s": round(wall, 3), "timed_out": timed_out,
            "peak_mb": peak_mb, "started": started}


def run_case(name, cases, root, tool_cmd, timeout, plain, keep_plain_target):
    src = os.path.join(cases, name)
    work = os.path.join(root, name)
    plain_target = os.path.join(root, name + ".plain-target")
    shutil.rmtree(work, ignore_errors=True)
    shutil.rmtree(plain_target, ignore_errors=True)
    shutil.copytree(src, work, symlinks=True,
                    ignore=shutil.ignore_patterns("target", "autodebug.out", "autodebug.out.*"))
    env = dict(os.environ)
    env.setdefault("CARGO_BUILD_JOBS", "1")

    plain_rec = None
    for stale in ("plain.json", "run.json"):
        try:
            os.unlink(os.path.join(work, stale))
        except OSError:
            pass
    if plain:
        penv = dict(env, CARGO_TARGET_DIR=plain_target)
        plain_rec = run_cmd(["cargo", "test", "--no-fail-fast"], work,
                            os.path.join(work, "plain.txt"), timeout, penv)
        plain_rec["target_dir"] = plain_target
        write_json(os.path.join(work, "plain.json"), plain_rec)
        if not keep_plain_target:
            shutil.rmtree(plain_target, ignore_errors=True)
        log("   plain: rc=%s %.1fs peak=%s MB" % (plain_rec["rc"], plain_rec["wall_s"],
                                                   plain_rec["peak_mb"]))
    tool_rec = run_cmd(tool_cmd, work, os.path.join(work, "out.txt"), timeout, env)
    tool_rec["tool"] = " ".join(shlex.quote(x) for x in tool_cmd)
    tool_rec["report"] = os.path.isfile(os.path.join(work, "autodebug.out", "report.json"))
    write_json(os.path.join(work, "run.json"), tool_rec)
    log("   tool:  rc=%s %.1fs peak=%s MB" % (tool_rec["rc"], tool_rec["wall_s"], tool_rec["peak_mb"]))
    return plain_rec, tool_rec


def tool_of(rec):
    """The tool command of a run.json record (older records: from `cmd`, minus the wrappers)."""
    if rec.get("tool"):
        return rec["tool"]
    cmd = list(rec.get("cmd") or [])
    if cmd[:len(NICE)] == NICE:
        cmd = cmd[len(NICE):]
    if cmd[:1] == [GNU_TIME] and len(cmd) >= 5:
        cmd = cmd[5:]
    return " ".join(shlex.quote(x) for x in cmd) or None


def case_result(name, cases, root, truth, plain_rec, tool_rec):
    work = os.path.join(root, name)
    report = read_json(os.path.join(work, "autodebug.out", "report.json"))
    r = {"name": name}
    r.update(score(os.path.join(cases, name), truth, report, work))
    tool_rec = tool_rec or {}
    plain_rec = plain_rec or {}
    plain_s, tool_s = plain_rec.get("wall_s"), tool_rec.get("wall_s")
    r.update({
        "tool": tool_of(tool_rec),
        "tool_rc": tool_rec.get("rc"),
        "tool_s": tool_s,
        "tool_timed_out": bool(tool_rec.get("timed_out")),
        "tool_peak_mb": tool_rec.get("peak_mb"),
        "plain_rc": plain_rec.get("rc"),
        "plain_s": plain_s,
        "plain_timed_out": bool(plain_rec.get("timed_out")),
        "plain_peak_mb": plain_rec.get("peak_mb"),
        "ratio": round(tool_s / plain_s, 2) if tool_s is not None and plain_s else None,
    })
    return r


# --------------------------------------------------------------------------- output
def yn(b):
    return "yes" if b else "no"


def num(v, fmt="%.0f"):
    return "-" if v is None else fmt % v


def pct(k, n):
    return "%.0f%%" % (100.0 * k / n) if n else "-"


def render(results, header):
    lines = [header, "",
             "| case | detected | rank | validated | fix at truth | exact | tool s | plain s | ratio | tool peak MB | left_out |",
             "|---|---|---:|---|---|---|---:|---:|---:|---:|---:|"]
    for r in results:
        tool_s = num(r["tool_s"]) + (" (timeout)" if r["tool_timed_out"] else "")
        if r["tool_s"] is not None and not r["report"]:
            tool_s += " (no report)"
        plain_s = num(r["plain_s"], "%.1f") + (" (timeout)" if r["plain_timed_out"] else "")
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["name"], yn(r["detected"]), r["rank"] or "-", yn(r["validated"]),
            yn(r["fix_at_truth"]), yn(r["exact"]), tool_s, plain_s, num(r["ratio"], "%.1f"),
            num(r["tool_peak_mb"]), "-" if r["left_out"] is None else r["left_out"]))
    n = len(results)

    def cnt(f):
        return sum(1 for r in results if f(r))

    def top(k):
        return cnt(lambda r: r["rank"] is not None and r["rank"] <= k)

    tools = [r["tool_s"] for r in results if r["tool_s"] is not None]
    ratios = [r["ratio"] for r in results if r["ratio"] is not None]
    fat, exact = cnt(lambda r: r["fix_at_truth"]), cnt(lambda r: r["exact"])
    lines += [
        "",
        "| total | |",
        "|---|---:|",
        "| cases | %d |" % n,
        "| detected | %d |" % cnt(lambda r: r["detected"]),
        "| top-1 | %d (%s) |" % (top(1), pct(top(1), n)),
        "| top-3 | %d |" % top(3),
        "| top-5 | %d (%s) |" % (top(5), pct(top(5), n)),
        "| ranked at all | %d |" % cnt(lambda r: r["rank"] is not None),
        "| validated | %d |" % cnt(lambda r: r["validated"]),
        "| fix at truth | %d (%s) |" % (fat, pct(fat, n)),
        "| exact | %d (%s) |" % (exact, pct(exact, n)),
        "| median tool time | %s s |" % (num(statistics.median(tools)) if tools else "-"),
        "| tool time over %d s | %d |" % (SLOW_S, sum(1 for t in tools if t > SLOW_S)),
        "| median ratio tool/plain | %s |" % (num(statistics.median(ratios), "%.1f") if ratios else "-"),
    ]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- main
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tool", default=DEFAULT_TOOL,
                    help="command run in each copy (default: %(default)s)")
    ap.add_argument("--root", metavar="RUN_DIR", help="where the copies go (default: a new temporary directory, kept)")
    ap.add_argument("--cases", default=DEFAULT_CASES, metavar="DIR",
                    help="directory of <name>/ + <name>.truth.json (default: %(default)s)")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="run only these cases")
    ap.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                    help="wall-clock limit of each command of a case (default: %(default).0f)")
    ap.add_argument("--no-plain", action="store_true", help="skip the plain `cargo test` timing run")
    ap.add_argument("--keep-plain-target", action="store_true",
                    help="keep RUN_DIR/<name>.plain-target after the plain run")
    ap.add_argument("--keep-target", action="store_true",
                    help="keep each copy's target/ (the tool's builds) after it is scored")
    ap.add_argument("--score-only", nargs="?", const="", default=None, metavar="RUN_DIR",
                    help="do not run anything: score the copies kept under RUN_DIR (default: --root)")
    ap.add_argument("--out", metavar="DIR", help="where results.json and results.md go (default: the run dir)")
    a = ap.parse_args(argv)

    cases = os.path.abspath(a.cases)
    if not os.path.isdir(cases):
        ap.error("no cases directory %s" % cases)
    names = sorted(f[:-len(".truth.json")] for f in os.listdir(cases)
                   if f.endswith(".truth.json") and os.path.isdir(os.path.join(cases, f[:-len(".truth.json")])))
    if a.only:
        unknown = [n for n in a.only if n not in names]
        if unknown:
            ap.error("unknown case(s) in %s: %s" % (cases, " ".join(unknown)))
        names = [n for n in names if n in set(a.only)]
    if not names:
        log("no cases in %s" % cases)
        return 1

    scoring = a.score_only is not None
    if scoring:
        root = a.score_only or a.root
        if not root:
            log("nothing to score: no run directory given (--score-only RUN_DIR, or --root RUN_DIR)")
            return 1
        root = os.path.abspath(root)
        if not os.path.isdir(root):
            log("nothing to score: %s does not exist" % root)
            return 1
    else:
        try:
            tool_cmd = shlex.split(a.tool)
        except ValueError as e:
            ap.error("--tool: %s" % e)
        if not tool_cmd:
            ap.error("--tool is empty")
        root = os.path.abspath(a.root) if a.root else tempfile.mkdtemp(prefix="realbugs-")
        os.makedirs(root, exist_ok=True)

    results = []
    missing = []
    for n in names:
        truth = read_json(os.path.join(cases, n + ".truth.json"))
        if truth is None:
            log("== %s: unreadable truth file, skipped" % n)
            continue
        work = os.path.join(root, n)
        if scoring:
            if not os.path.isdir(work):
                missing.append(n)
                continue
            plain_rec = read_json(os.path.join(work, "plain.json"))
            tool_rec = read_json(os.path.join(work, "run.json"))
            log("== %s (score only)" % n)
        else:
            log("== %s" % n)
            plain_rec, tool_rec = run_case(n, cases, root, tool_cmd, a.timeout, not a.no_plain,
                                           a.keep_plain_target)
        r = case_result(n, cases, root, truth, plain_rec, tool_rec)
        results.append(r)
        if not scoring and not a.keep_target:
            # The tool's build dirs (a GB or more per case); the report and the sources stay.
            shutil.rmtree(os.path.join(work, "target"), ignore_errors=True)
        log("   detected=%s rank=%s validated=%s fix_at_truth=%s exact=%s left_out=%s" % (
            yn(r["detected"]), r["rank"] or "-", yn(r["validated"]), yn(r["fix_at_truth"]),
            yn(r["exact"]), "-" if r["left_out"] is None else r["left_out"]))

    if missing:
        log("%d selected case(s) have no copy under %s, not scored%s" % (
            len(missing), root, ": " + " ".join(missing) if a.only or len(missing) <= 5 else ""))
    if not results:
        log("nothing to score: none of the %d selected case(s) has a copy under %s" % (len(names), root))
        return 1

    out = os.path.abspath(a.out) if a.out else root
    os.makedirs(out, exist_ok=True)
    write_json(os.path.join(out, "results.json"), results)
    header = "# realbugs results: %d case(s) from %s" % (len(results), cases)
    if not scoring:
        header += "\n\ntool: `%s`%s; timeout %.0f s per command" % (
            a.tool, "" if a.no_plain else "; plain: `cargo test --no-fail-fast`", a.timeout)
    else:
        tools = sorted({r["tool"] for r in results if r.get("tool")})
        if tools:
            header += "\n\nrescored; tool: %s" % ", ".join("`%s`" % t for t in tools)
    md = render(results, header)
    with open(os.path.join(out, "results.md"), "w", encoding="utf-8") as f:
        f.write(md)
    log("")
    log(md)
    log("copies under %s; results.json and results.md in %s" % (root, out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
