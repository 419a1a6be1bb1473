#!/usr/bin/env python3
"""Runs the real `crashprobe crash` on every reference solution (or those
given) and compares its verdict with expected.json. Standard library only.
usage: python3 compare.py [SOLUTION_DIR ...]"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REF = os.path.dirname(HERE)
MAIN = os.path.dirname(os.path.dirname(REF))


def solutions(args):
    if args:
        return [os.path.abspath(a) for a in args]
    return sorted(dp for dp, _, fs in os.walk(REF) if "expected.json" in fs)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    verbose = "-v" in sys.argv
    ok = bad = 0
    rows = []
    for sol in solutions(args):
        rel = os.path.relpath(sol, REF)
        exp = json.load(open(os.path.join(sol, "expected.json")))
        out = tempfile.mktemp(suffix=".json")
        for _attempt in range(3):  # retry a tool crash (e.g. esbuild dying), not a verdict
            p = subprocess.run(["node", "bin/crashprobe.js", "crash", sol, "--json", out],
                               cwd=MAIN, capture_output=True, text=True)
            if p.returncode == 0 and os.path.exists(out):
                break
        if p.returncode != 0 or not os.path.exists(out):
            bad += 1
            print("ERROR    %-50s exit %s %s" % (rel, p.returncode, (p.stderr or p.stdout)[-600:]))
            continue
        rep = json.load(open(out))["scenarios"]
        os.remove(out)
        s = rep[0]
        got = {"class": s["class"], "double_applies": s["double_applies"], "fully_crash_safe": s["fully_crash_safe"]}
        want = {k: exp[k] for k in got}
        if want["double_applies"] is None:
            want["double_applies"] = got["double_applies"]
        mism = {k: (want[k], got[k]) for k in got if want[k] != got[k]}
        if exp.get("unsafe_only_under") == "hard":
            soft_half = [f for f in s.get("failures", []) if f["crash"] == "soft" and f.get("outcome") != "recovered"
                         and f["mode"] == "default"]
            hard = [f for f in s.get("failures", []) if f["crash"] == "hard"]
            if soft_half or not hard:
                mism["unsafe_only_under"] = ("hard", "soft failures: %d, hard failures: %d" % (len(soft_half), len(hard)))
        if mism:
            bad += 1
            print("MISMATCH %-50s %s" % (rel, mism))
        else:
            ok += 1
            print("ok       %-50s %s" % (rel, got))
        if mism or verbose:
            print("    modes:", json.dumps(s["modes"]))
            for f in s.get("failures", [])[:12]:
                print("    ", json.dumps(f)[:300])
        rows.append((rel, got))
    print("%d as intended, %d not" % (ok, bad))


if __name__ == "__main__":
    main()
