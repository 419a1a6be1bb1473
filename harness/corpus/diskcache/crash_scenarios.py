"""python-diskcache 5.4.0 (Debian's python3-diskcache; Apache-2.0, see SOURCE.md): a cache on SQLite (autocommit
stated, explicit BEGIN IMMEDIATE in _transact) that stores large values in files
under random two-level folders (`ab/cd/<uuid4 hex>.val`), written before the row
that names them."""
from crashprobe import scenario

VALUE = b"0123456789abcdef" * 4096  # 64 KiB: over disk_min_file_size, so stored in a file


@scenario("diskcache/core.py:Cache.set")
def set_large_value(world):
    from diskcache import Cache
    return {"self": Cache(world.path("cache")), "key": "report-2024", "value": VALUE}
