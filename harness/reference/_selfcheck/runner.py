"""Child process of selfcheck.py: runs one scenario once, maybe crashing at
the N-th write point. Usage: runner.py SPEC.json"""
import builtins
import importlib
import importlib.util
import io
import json
import os
import random
import secrets
import sqlite3
import sys
import traceback

if __name__ != "__main__":
    raise ImportError("runner.py is a script of selfcheck.py, not a module")
spec = json.load(open(sys.argv[1]))
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(spec["root"])
sys.path.insert(0, os.path.join(HERE, "stub"))
sys.path.insert(0, ROOT)

random.seed(1234)
_rng = random.Random(99 + spec.get("run_no", 0))
secrets.token_hex = lambda n=16: "%0*x" % (2 * n, _rng.getrandbits(8 * n))
secrets.token_urlsafe = lambda n=16: secrets.token_hex(n)

crashprobe = importlib.import_module("crashprobe")  # the stub

events = []
state = {"armed": False, "count": 0, "crashing": False}
crash = spec.get("crash")
raw_open = builtins.open
raw = {n: getattr(os, n) for n in ("rename", "replace", "remove", "unlink")}


def caller():
    f = sys._getframe(2)
    while f is not None:
        fn = os.path.abspath(f.f_code.co_filename)
        if fn.startswith(ROOT + os.sep) and not fn.startswith(HERE):
            return os.path.relpath(fn, ROOT), f.f_lineno
        f = f.f_back
    return None, None


def point(kind, call, exc):
    if not state["armed"] or state["crashing"]:
        return
    path, line = caller()
    idx = state["count"]
    state["count"] += 1
    events.append({"i": idx, "kind": kind, "call": call, "path": path, "line": line})
    if crash is not None and crash["index"] == idx:
        state["crashing"] = True
        if crash["kind"] == "hard":
            with raw_open(spec["result"], "w") as f:
                json.dump({"status": "killed", "events": events}, f)
            os._exit(137)
        raise exc


def is_read(sql):
    s = sql.lstrip().lower()
    if s.startswith(("select", "explain")):
        return True
    if s.startswith("pragma") and "=" not in s and "(" not in s.split(None, 1)[-1]:
        return True
    if s.startswith("pragma table_info") or s.startswith("pragma index_list"):
        return True
    return False


def dberr():
    return sqlite3.OperationalError("disk I/O error (injected)")


class TracedCursor(sqlite3.Cursor):
    def execute(self, sql, *a):
        if not is_read(sql):
            point("db", "execute", dberr())
        return super().execute(sql, *a)

    def executemany(self, sql, *a):
        point("db", "executemany", dberr())
        return super().executemany(sql, *a)

    def executescript(self, sql):
        point("db", "executescript", dberr())
        return super().executescript(sql)


class TracedConnection(sqlite3.Connection):
    def cursor(self, factory=TracedCursor):
        return super().cursor(factory)

    def execute(self, sql, *a):
        if not is_read(sql):
            point("db", "execute", dberr())
        return super().execute(sql, *a)

    def executemany(self, sql, *a):
        point("db", "executemany", dberr())
        return super().executemany(sql, *a)

    def executescript(self, sql):
        point("db", "executescript", dberr())
        return super().executescript(sql)

    def commit(self):
        point("db", "commit", dberr())
        return super().commit()

    def __exit__(self, et, ev, tb):
        if et is None:
            point("db", "commit(with)", dberr())
        return super().__exit__(et, ev, tb)


_connect = sqlite3.connect


def connect(*a, **kw):
    kw.setdefault("factory", TracedConnection)
    if "isolation_level" not in kw and "autocommit" not in kw and len(a) < 3:
        kw["isolation_level"] = None if spec["mode"] == "autocommit" else ""
    return _connect(*a, **kw)


sqlite3.connect = connect


class TracedFile:
    def __init__(self, f):
        self._f = f

    def write(self, data):
        point("file", "write", OSError(5, "Input/output error (injected)"))
        return self._f.write(data)

    def writelines(self, lines):
        point("file", "writelines", OSError(5, "Input/output error (injected)"))
        return self._f.writelines(lines)

    def __enter__(self):
        self._f.__enter__()
        return self

    def __exit__(self, *a):
        return self._f.__exit__(*a)

    def __iter__(self):
        return iter(self._f)

    def __getattr__(self, n):
        return getattr(self._f, n)


def traced_open(file, mode="r", *a, **kw):
    if any(c in mode for c in "wax+"):
        point("file", "open", OSError(5, "Input/output error (injected)"))
        return TracedFile(raw_open(file, mode, *a, **kw))
    return raw_open(file, mode, *a, **kw)


def mk(name):
    def f(*a, **kw):
        point("file", name, OSError(5, "Input/output error (injected)"))
        return raw[name](*a, **kw)
    return f


builtins.open = traced_open
io.open = traced_open
for n in raw:
    setattr(os, n, mk(n))

result = {"status": "ok"}
try:
    modname = "crash_scenarios_" + os.path.basename(spec["scenario_file"]).replace(".", "_")
    sp = importlib.util.spec_from_file_location(modname, spec["scenario_file"])
    mod = importlib.util.module_from_spec(sp)
    sp.loader.exec_module(mod)
    sc = crashprobe.REGISTRY[spec["name"]]
    world = crashprobe.World(spec["folder"], spec["mode"], spec["meta"], spec["emails"],
                             point, raw_open, TracedConnection)
    kwargs = sc["fn"](world)
    tpath, fname = sc["target"].split(":")
    tmod = importlib.import_module(tpath[:-3].replace("/", "."))
    state["armed"] = True
    getattr(tmod, fname)(**kwargs)
    state["armed"] = False
except BaseException as e:  # noqa
    result = {"status": "error", "error": "%s: %s" % (type(e).__name__, e),
              "tb": traceback.format_exc()[-1500:]}
result["events"] = events
with raw_open(spec["result"], "w") as f:
    json.dump(result, f)
