"""A simulated clock and fixed seeds, so a second campaign reproduces every outcome.

Installed once per process before the target is imported; each run sets its start
time and seed. `time.sleep` advances the simulated clock instead of waiting.
"""
import datetime as _datetime_module
import os
import random
import sys
import time
import uuid

_real_time = time.time
_real_datetime = _datetime_module.datetime
_real_date = _datetime_module.date

_now = [0.0]
_rng = random.Random(0)


def now() -> float:
    return _now[0]


def set_run(start: float, seed: int) -> None:
    _now[0] = float(start)
    random.seed(seed)
    _rng.seed(seed ^ 0x5EED)


def _fake_time() -> float:
    return _now[0]


def _fake_time_ns() -> int:
    return int(round(_now[0] * 1_000_000_000))


def _fake_sleep(seconds) -> None:
    if seconds < 0:
        raise ValueError("sleep length must be non-negative")
    _now[0] += float(seconds)


def _with_default_now(fn):
    def wrapper(*args):
        if not args or args[0] is None:
            return fn(_now[0])
        return fn(*args)

    wrapper.__name__ = fn.__name__
    return wrapper


def _strftime_default_now(real):
    def strftime(fmt, t=None):
        return real(fmt, time.localtime(_now[0]) if t is None else t)

    return strftime


class _DatetimeMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, _real_datetime)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, _real_datetime)


class _DateMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, _real_date)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, _real_date)


class FakeDatetime(_real_datetime, metaclass=_DatetimeMeta):
    @classmethod
    def now(cls, tz=None):
        return _real_datetime.fromtimestamp(_now[0], tz)

    @classmethod
    def utcnow(cls):
        return _real_datetime.utcfromtimestamp(_now[0])

    @classmethod
    def today(cls):
        return _real_datetime.fromtimestamp(_now[0])


class FakeDate(_real_date, metaclass=_DateMeta):
    @classmethod
    def today(cls):
        return _real_date.fromtimestamp(_now[0])


def _seeded_urandom(n: int) -> bytes:
    return _rng.getrandbits(8 * n).to_bytes(n, "little") if n else b""


def _seeded_uuid4():
    return uuid.UUID(int=_rng.getrandbits(128), version=4)


def install() -> None:
    time.time = _fake_time
    time.time_ns = _fake_time_ns
    time.sleep = _fake_sleep
    time.localtime = _with_default_now(time.localtime)
    time.gmtime = _with_default_now(time.gmtime)
    time.ctime = _with_default_now(time.ctime)
    time.strftime = _strftime_default_now(time.strftime)
    _datetime_module.datetime = FakeDatetime
    _datetime_module.date = FakeDate
    uuid.uuid4 = _seeded_uuid4
    os.urandom = _seeded_urandom
    random._urandom = _seeded_urandom  # SystemRandom and `secrets` read it at call time
    import tempfile

    tempfile._Random = lambda: random.Random(_rng.getrandbits(64))
    _register_sqlite_adapters()


def _register_sqlite_adapters() -> None:
    # sqlite3 looks adapters up by exact type; values built as datetime(...) are FakeDatetime.
    sqlite3 = sys.modules.get("sqlite3")
    if sqlite3 is None:
        import sqlite3
    for (typ, proto), adapter in list(sqlite3.adapters.items()):
        if typ is _real_datetime:
            sqlite3.adapters[(FakeDatetime, proto)] = adapter
        elif typ is _real_date:
            sqlite3.adapters[(FakeDate, proto)] = adapter
