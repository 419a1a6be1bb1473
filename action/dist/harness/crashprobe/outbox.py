"""The `world.email()` client: each send is a crash point and is recorded outside
the process (appended and fsynced), so a send survives a crash. A repeated
`idempotency_key` is dropped, as a real provider would."""
import json
import os

from .points import TRACKER
from .intercept_files import real_open, real_os_open, real_os_write, real_os_close


def _crash_error(message):
    return ConnectionError(message)


def read_outbox(path: str) -> list:
    if not os.path.exists(path):
        return []
    with real_open(path, "r", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


class EmailClient:
    def __init__(self, outbox_path: str):
        self._outbox = outbox_path

    def send(self, to, subject, body, idempotency_key=None):
        TRACKER.hit("send", _crash_error)
        if idempotency_key is not None:
            key = str(idempotency_key)
            if any(sent.get("idempotency_key") == key for sent in read_outbox(self._outbox)):
                return {"status": "duplicate", "idempotency_key": key}
        else:
            key = None
        record = {"to": str(to), "subject": str(subject), "body": str(body), "idempotency_key": key}
        fd = real_os_open(self._outbox, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o666)
        try:
            real_os_write(fd, (json.dumps(record, sort_keys=True) + "\n").encode("utf-8"))
            os.fsync(fd)
        finally:
            real_os_close(fd)
        return {"status": "sent", "idempotency_key": key}
