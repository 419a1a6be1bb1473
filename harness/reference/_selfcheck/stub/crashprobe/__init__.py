"""Minimal stand-in for the harness's `crashprobe` package, used only by
harness/reference/_selfcheck (a quick stdlib-only self-check of the reference
suite). The real package is supplied by `crashprobe crash`."""
import json
import os
import sqlite3

REGISTRY = {}


def scenario(target, resumable=False, check=None):
    def deco(fn):
        REGISTRY[fn.__name__] = {"fn": fn, "target": target,
                                 "resumable": resumable, "check": check}
        return fn
    return deco


class _Mailer:
    def __init__(self, world):
        self._world = world

    def send(self, to, subject, body, idempotency_key=None):
        self._world._point("send", "send", ConnectionError("email provider unreachable"))
        path = self._world._emails_path
        seen = []
        if os.path.exists(path):
            with self._world._raw_open(path, "r") as f:
                seen = [json.loads(l) for l in f if l.strip()]
        if idempotency_key is not None and any(m["idempotency_key"] == idempotency_key for m in seen):
            return {"status": "duplicate"}
        with self._world._raw_open(path, "a") as f:
            f.write(json.dumps({"to": to, "subject": subject, "body": body,
                                "idempotency_key": idempotency_key}) + "\n")
            f.flush()
            os.fsync(f.fileno())
        return {"status": "sent"}


class World:
    def __init__(self, folder, mode, meta_dir, emails_path, point, raw_open, factory):
        self._folder = folder
        self._mode = mode
        self._meta = meta_dir
        self._emails_path = emails_path
        self._point = point
        self._raw_open = raw_open
        self._factory = factory

    def _once(self, key):
        marker = os.path.join(self._meta, "seeded-" + key.replace("/", "_"))
        if os.path.exists(marker):
            return False
        with self._raw_open(marker, "w") as f:
            f.write("1")
        return True

    def path(self, relpath=""):
        return os.path.join(self._folder, relpath) if relpath else self._folder

    def seed_sqlite(self, name, script):
        if self._once("db-" + name):
            c = sqlite3.connect(self.path(name), isolation_level=None)
            c.executescript(script)
            c.close()

    def seed_file(self, relpath, content):
        if self._once("file-" + relpath):
            p = self.path(relpath)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            data = content.encode() if isinstance(content, str) else content
            with self._raw_open(p, "wb") as f:
                f.write(data)

    def sqlite(self, name):
        iso = None if self._mode == "autocommit" else ""
        return sqlite3.connect(self.path(name), isolation_level=iso, factory=self._factory)

    def email(self):
        return _Mailer(self)
