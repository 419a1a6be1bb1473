#!/usr/bin/env python3
"""Quick stdlib-only self-check of the reference suite, for use while the real
`crashprobe crash` is not available. It approximates the contract
(/work/shared/contracts/crash-scenarios.md): normal runs in both modes, a soft
and a hard crash before EVERY write point (no first/middle/last sampling),
re-run, judge. It is an approximation, not the harness.

usage: python3 selfcheck.py [SOLUTION_DIR ...]   (default: every solution)
"""
import collections
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
REF = os.path.dirname(HERE)
DBEXT = (".db", ".sqlite", ".sqlite3")


def run(sol, name, mode, folder, meta, crash=None, run_no=0):
    os.makedirs(folder, exist_ok=True)
    os.makedirs(meta, exist_ok=True)
    spec = {"root": sol, "scenario_file": os.path.join(sol, "crash_scenarios.py"),
            "name": name, "mode": mode, "folder": folder, "meta": meta,
            "emails": os.path.join(meta, "emails.jsonl"), "crash": crash,
            "result": os.path.join(meta, "result.json"), "run_no": run_no}
    sp = os.path.join(meta, "spec.json")
    with open(sp, "w") as f:
        json.dump(spec, f)
    if os.path.exists(spec["result"]):
        os.remove(spec["result"])
    p = subprocess.run([sys.executable, os.path.join(HERE, "runner.py"), sp],
                       capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, PYTHONHASHSEED="0"))
    try:
        with open(spec["result"]) as f:
            return json.load(f)
    except Exception:
        return {"status": "error", "error": "runner died: " + p.stderr[-800:], "events": []}


def snapshot(folder, meta):
    st = {"db": {}, "files": {}, "emails": []}
    for dirpath, _, files in os.walk(folder):
        for fn in files:
            full = os.path.join(dirpath, fn)
            rel = os.path.relpath(full, folder)
            if rel.endswith(DBEXT):
                tmp = tempfile.mkdtemp()
                for suf in ("", "-journal", "-wal"):
                    if os.path.exists(full + suf):
                        shutil.copy(full + suf, os.path.join(tmp, fn + suf))
                c = sqlite3.connect(os.path.join(tmp, fn))
                tabs = [r[0] for r in c.execute(
                    "select name from sqlite_master where type='table' and name not like 'sqlite_%'")]
                st["db"][rel] = {t: {"cols": [d[1] for d in c.execute("pragma table_info(%s)" % t)],
                                     "rows": sorted((tuple(r) for r in c.execute("select * from %s" % t)), key=repr)}
                                 for t in tabs}
                c.close()
                shutil.rmtree(tmp)
            elif rel.endswith(("-journal", "-wal", "-shm")):
                continue
            else:
                with open(full, "rb") as f:
                    st["files"][rel] = f.read()
    ep = os.path.join(meta, "emails.jsonl")
    if os.path.exists(ep):
        with open(ep) as f:
            st["emails"] = [json.loads(l) for l in f if l.strip()]
    return st


class Mask:
    def __init__(self, a, b):
        self.cols = set()
        for db in a["db"]:
            for t in a["db"][db]:
                ta, tb = a["db"][db][t], b["db"].get(db, {}).get(t)
                if tb is None:
                    continue
                for i, _ in enumerate(ta["cols"]):
                    va = sorted(repr(r[i]) for r in ta["rows"] if i < len(r))
                    vb = sorted(repr(r[i]) for r in tb["rows"] if i < len(r))
                    if va != vb:
                        self.cols.add((db, t, i))
        self.files = {p for p in a["files"] if p in b["files"] and a["files"][p] != b["files"][p]}
        self.efields = set()
        for k in ("to", "subject", "body", "idempotency_key"):
            if [m[k] for m in a["emails"]] != [m[k] for m in b["emails"]]:
                self.efields.add(k)

    def apply(self, st, drop=()):
        out = {"db": {}, "files": {}, "emails": []}
        for db, tabs in st["db"].items():
            out["db"][db] = {}
            for t, tv in tabs.items():
                rows = [tuple("*" if (db, t, i) in self.cols else v for i, v in enumerate(r)) for r in tv["rows"]]
                out["db"][db][t] = (tuple(tv["cols"]), tuple(sorted(rows, key=repr)))
        for p, c in st["files"].items():
            if p in drop:
                continue
            out["files"][p] = "*" if p in self.files else c
        out["emails"] = sorted(json.dumps({k: ("*" if k in self.efields else v) for k, v in m.items()},
                                          sort_keys=True) for m in st["emails"])
        return out


def cells(st):
    s = set()
    for tabs in st["db"].values():
        for tv in tabs.values():
            for r in tv["rows"]:
                for v in r:
                    if isinstance(v, str):
                        s.add(v)
    return s


def named(path, cellset):
    base = os.path.basename(path)
    return any(path in c or (len(base) > 3 and base in c) for c in cellset)


def orphans(st, before, normal):
    c_st, c_n = cells(st), cells(normal)
    out = set()
    for p in st["files"]:
        if p not in before["files"] and p not in normal["files"]:
            out.add(p)
        elif named(p, c_n) and not named(p, c_st):
            out.add(p)
    return out


def more(st, normal, before):
    if len(st["emails"]) > len(normal["emails"]):
        return True
    for db, tabs in st["db"].items():
        for t, tv in tabs.items():
            nt = normal["db"].get(db, {}).get(t)
            if nt is None:
                continue
            if len(tv["rows"]) > len(nt["rows"]):
                return True
            bt = before["db"].get(db, {}).get(t)
            for i in range(len(tv["cols"])):
                def tot(rows):
                    return sum(r[i] for r in rows if i < len(r) and isinstance(r[i], (int, float)))
                if bt is not None and abs(tot(tv["rows"]) - tot(bt["rows"])) > abs(tot(nt["rows"]) - tot(bt["rows"])):
                    return True
    for p, c in st["files"].items():
        if p in normal["files"] and len(c) > len(normal["files"][p]):
            return True
    return False


def judge_solution(sol, keep=False):
    sys.path.insert(0, os.path.join(HERE, "stub"))
    crashprobe = __import__("crashprobe")  # the stub in ./stub
    crashprobe.REGISTRY.clear()
    import importlib.util
    sp = importlib.util.spec_from_file_location("cs_probe", os.path.join(sol, "crash_scenarios.py"))
    m = importlib.util.module_from_spec(sp)
    sp.loader.exec_module(m)
    reports = []
    for name, sc in list(crashprobe.REGISTRY.items()):
        reports.append(judge_scenario(sol, name, sc))
    return reports


def judge_scenario(sol, name, sc):
    base = tempfile.mkdtemp(prefix="cpsc-")
    n = [0]

    def fresh():
        n[0] += 1
        d = os.path.join(base, str(n[0]))
        return os.path.join(d, "w"), os.path.join(d, "m")

    def check(st, folder_snapshot_dir=None):
        if sc["check"] is None:
            return None
        class S:
            emails = st["emails"]
            def db(self_, name):
                tmp = tempfile.mkdtemp()
                c = sqlite3.connect(os.path.join(tmp, "x.db"))
                for t, tv in st["db"][name].items():
                    c.execute("create table %s(%s)" % (t, ",".join('"%s"' % x for x in tv["cols"])))
                    c.executemany("insert into %s values(%s)" % (t, ",".join("?" * len(tv["cols"]))), tv["rows"])
                c.commit()
                return c
            def file(self_, rel):
                return st["files"].get(rel)
        try:
            sc["check"](S())
        except AssertionError as e:
            return "check failed: %s" % e
        return None

    # before state + two normal runs in default mode
    w, mdir = fresh()
    before = None
    out = {"name": name, "target": sc["target"], "resumable": sc["resumable"], "modes": {}, "failures": []}
    normals = {}
    for mode in ("default", "autocommit"):
        states = []
        for k in range(2):
            w, mdir = fresh()
            res = run(sol, name, mode, w, mdir, run_no=k)
            st = snapshot(w, mdir)
            states.append((res, st, w, mdir))
        normals[mode] = states
    # 'before': seed only, by running the scenario with a crash at point 0
    w, mdir = fresh()
    rb = run(sol, name, "default", w, mdir, crash={"index": 0, "kind": "hard"})
    before = snapshot(w, mdir)
    if not rb.get("events"):
        before = normals["default"][0][1]  # no write at all
    mask = Mask(normals["default"][0][1], normals["default"][1][1])
    N = normals["default"][0][1]
    NM = mask.apply(N)
    BM = mask.apply(before)
    double = False
    all_full = True
    for mode in ("default", "autocommit"):
        res, st, w, mdir = normals[mode][0]
        works = res["status"] == "ok"
        why = None if works else res.get("error")
        if works:
            c = check(st)
            if c:
                works, why = False, c
        if works and mode == "autocommit" and mask.apply(st) != NM:
            works, why = False, "autocommit normal state differs from default normal state"
        events = res.get("events", [])
        md = {"works": works, "half_updated": False, "crash_points": len(events)}
        if why:
            md["why"] = why
        out["modes"][mode] = md
        if not works:
            all_full = False
            continue
        # normal re-run
        r2 = run(sol, name, mode, w, mdir, run_no=5)
        s2 = snapshot(w, mdir)
        if r2["status"] != "ok":
            out["failures"].append({"mode": mode, "crash": "none", "point": None, "outcome": "rerun-fails", "error": r2.get("error")})
        elif mask.apply(s2) != NM:
            oc = "double-applied" if more(s2, N, before) else "half-done"
            double = double or oc == "double-applied"
            out["failures"].append({"mode": mode, "crash": "none", "point": None, "outcome": oc})
        jobs = [(ev, kind) for ev in events for kind in ("soft", "hard")]

        def one(job):
            ev, kind = job
            w, mdir = fresh()
            r1 = run(sol, name, mode, w, mdir, crash={"index": ev["i"], "kind": kind})
            s1 = snapshot(w, mdir)
            r2 = run(sol, name, mode, w, mdir, run_no=7)
            s2 = snapshot(w, mdir)
            return ev, kind, r1, s1, r2, s2
        with ThreadPoolExecutor(4) as ex:
            results = list(ex.map(one, jobs))
        for ev, kind, r1, s1, r2, s2 in results:
            o1 = orphans(s1, before, N)
            s1m = mask.apply(s1, drop=o1)
            half = s1m not in (BM, NM) and not sc["resumable"]
            c1 = check(s1) if not sc["resumable"] else None
            if c1:
                half = True
            o2 = orphans(s2, before, N)
            if r2["status"] != "ok":
                oc = "rerun-fails"
            elif mask.apply(s2, drop=o2) == NM:
                oc = "recovered"
            elif more(s2, N, before):
                oc = "double-applied"
            else:
                oc = "half-done"
            if sc["resumable"]:
                half = oc != "recovered" or bool(check(s2))
            if oc == "double-applied":
                double = True
            if oc != "recovered" or o2:
                all_full = False
            if half:
                md["half_updated"] = True
            if half or oc != "recovered" or o2:
                out["failures"].append({"mode": mode, "crash": kind,
                                        "point": {"path": ev["path"], "line": ev["line"], "call": ev["call"], "i": ev["i"]},
                                        "half_updated": half, "outcome": oc,
                                        "orphans_after_rerun": sorted(o2),
                                        "rerun_error": r2.get("error")})
    d, a = out["modes"]["default"], out["modes"]["autocommit"]
    if not d["works"]:
        cls = "not_working"
    elif d["half_updated"]:
        cls = "unsafe"
    elif not a["works"] or a["half_updated"]:
        cls = "safe_by_accident"
    else:
        cls = "safe_by_design"
    out["class"] = cls
    out["double_applies"] = double
    out["fully_crash_safe"] = all_full and d["works"] and a["works"]
    hard_only = all(f["crash"] == "hard" for f in out["failures"] if f.get("half_updated") and f["mode"] == "default")
    out["half_only_hard"] = hard_only and cls == "unsafe" and not any(
        f.get("half_updated") and f["crash"] == "soft" for f in out["failures"])
    shutil.rmtree(base, ignore_errors=True)
    return out


def main():
    args = sys.argv[1:]
    verbose = "-v" in args
    args = [a for a in args if a != "-v"]
    if not args:
        args = sorted(os.path.dirname(p) for p in
                      (os.path.join(dp, "expected.json") for dp, _, fs in os.walk(REF) if "expected.json" in fs))
    ok = bad = 0
    for sol in args:
        sol = os.path.abspath(sol)
        exp = json.load(open(os.path.join(sol, "expected.json")))
        try:
            reps = judge_solution(sol)
        except Exception as e:
            print("ERROR", sol, e)
            bad += 1
            continue
        rep = reps[0]
        got = {"class": rep["class"], "double_applies": rep["double_applies"], "fully_crash_safe": rep["fully_crash_safe"]}
        want = {"class": exp["class"], "double_applies": exp["double_applies"], "fully_crash_safe": exp["fully_crash_safe"]}
        if exp["double_applies"] is None:
            want["double_applies"] = got["double_applies"]
        mism = {k: (want[k], got[k]) for k in want if want[k] != got[k]}
        if exp.get("unsafe_only_under") == "hard" and not rep["half_only_hard"]:
            mism["unsafe_only_under"] = ("hard", "also soft")
        rel = os.path.relpath(sol, REF)
        if mism:
            bad += 1
            print("MISMATCH %-55s %s" % (rel, mism))
        else:
            ok += 1
            print("ok       %-55s %s" % (rel, got))
        if mism or verbose:
            for m in ("default", "autocommit"):
                print("   ", m, rep["modes"][m])
            for f in rep["failures"][:14]:
                print("    ", json.dumps(f)[:400])
    print("%d ok, %d mismatched" % (ok, bad))


if __name__ == "__main__":
    main()
