"""A simulated clock and fixed seeds, so a second campaign reproduces every outcome.

Installed once per process before the target is imported; each run sets its start
time and seed. `time.time` is the simulated clock: it moves only when the code
sleeps. `time.sleep` advances it, and, while other threads of the run are busy,
first waits for real until they are idle (or `seconds` have really passed), so
that a thread polling with `time.sleep` never times out on a worker thread that
is still working. `time.monotonic` and `time.perf_counter` are the real clocks
plus every simulated second slept, so they agree with `time.time` on each sleep.
`threading` and `queue` keep the real monotonic clock they bound when imported
(patches.py imports them first): their timed waits wait in real time.

A run in which nothing happens but sleeping (polling for something that never
comes) is reported to the runner as idle (heartbeat.py), which ends it as a hang.
"""
import datetime as _datetime_module
import os
import random
import sys
import threading
import time
import uuid

from . import heartbeat

# The real clocks: real_* are the ones the runner and the run's report time themselves by.
_real_time = time.time
real_sleep = time.sleep
real_monotonic = time.monotonic
real_perf_counter = time.perf_counter
_real_datetime = _datetime_module.datetime
_real_date = _datetime_module.date

_now = 0.0  # the simulated clock: time.time()
_skew = 0.0  # simulated seconds slept beyond the real time those sleeps took
_rng = random.Random(0)
_lock = threading.Lock()
_IDLE_SLICE = 0.004  # real seconds a sleep waits, once the other threads are idle
_BUSY_SLICE = 0.001
_POLLS_BEFORE_SLOWING = 2000  # sleeps without progress after which a lone thread is polling


def now() -> float:
    return _now


def set_run(start: float, seed: int) -> None:
    global _now, _skew
    _now = float(start)
    _skew = 0.0
    random.seed(seed)
    _rng.seed(seed ^ 0x5EED)


def _fake_time() -> float:
    return _now


def _fake_time_ns() -> int:
    return int(round(_now * 1_000_000_000))


def _fake_monotonic() -> float:
    return real_monotonic() + _skew


def _fake_monotonic_ns() -> int:
    return int(_fake_monotonic() * 1_000_000_000)


def _fake_perf_counter() -> float:
    return real_perf_counter() + _skew


def _fake_perf_counter_ns() -> int:
    return int(_fake_perf_counter() * 1_000_000_000)


def _others_busy() -> bool:
    """Whether another thread of this process is running (not blocked), read from /proc."""
    me = threading.get_native_id()
    try:
        tids = os.listdir("/proc/self/task")
    except OSError:
        return False
    for tid in tids:
        if int(tid) == me:
            continue
        try:
            with open(f"/proc/self/task/{tid}/stat", "rb") as handle:  # the real open: reads are not intercepted
                stat = handle.read()
        except OSError:
            continue
        if stat[stat.rindex(b")") + 2:][:1] in (b"R", b"D"):
            return True
    return False


def _fake_sleep(seconds) -> None:
    global _now, _skew
    if seconds < 0:
        raise ValueError("sleep length must be non-negative")
    seconds = float(seconds)
    polls = heartbeat.slept()
    if threading.active_count() > 1:
        started = real_monotonic()
        real_sleep(min(seconds, _BUSY_SLICE))
        while real_monotonic() - started < seconds and _others_busy():
            real_sleep(_BUSY_SLICE)
        if real_monotonic() - started < seconds:
            real_sleep(min(seconds, _IDLE_SLICE))
        spent = real_monotonic() - started
    elif polls > _POLLS_BEFORE_SLOWING:
        spent = min(seconds, _IDLE_SLICE)  # a lone thread polling for what never comes: let the runner see it idle
        real_sleep(spent)
    else:
        spent = 0.0
    with _lock:
        _now += seconds
        _skew += max(0.0, seconds - spent)


def _with_default_now(fn):
    def wrapper(*args):
        if not args or args[0] is None:
            return fn(_now)
        return fn(*args)

    wrapper.__name__ = fn.__name__
    return wrapper


def _strftime_default_now(real):
    def strftime(fmt, t=None):
        return real(fmt, time.localtime(_now) if t is None else t)

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
        return _real_datetime.fromtimestamp(_now, tz)

    @classmethod
    def utcnow(cls):
        return _real_datetime.utcfromtimestamp(_now)

    @classmethod
    def today(cls):
        return _real_datetime.fromtimestamp(_now)


class FakeDate(_real_date, metaclass=_DateMeta):
    @classmethod
    def today(cls):
        return _real_date.fromtimestamp(_now)


def _seeded_urandom(n: int) -> bytes:
    return _rng.getrandbits(8 * n).to_bytes(n, "little") if n else b""


def _seeded_uuid4():
    return uuid.UUID(int=_rng.getrandbits(128), version=4)


def install() -> None:
    time.time = _fake_time
    time.time_ns = _fake_time_ns
    time.sleep = _fake_sleep
    time.monotonic = _fake_monotonic
    time.monotonic_ns = _fake_monotonic_ns
    time.perf_counter = _fake_perf_counter
    time.perf_counter_ns = _fake_perf_counter_ns
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
