"""The `world` a scenario function receives (see the public contract)."""
import os

from .intercept_files import real_open
from .intercept_sqlite import real_connect, connect_in_mode
from .outbox import EmailClient


class World:
    def __init__(self, folder: str, outbox_path: str, seeding: bool):
        self._folder = folder
        self._outbox = outbox_path
        self._seeding = seeding

    def path(self, relpath: str = "") -> str:
        return os.path.join(self._folder, relpath) if relpath else self._folder

    def seed_sqlite(self, name: str, script: str) -> None:
        if not self._seeding:
            return
        target = self.path(name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        conn = real_connect(target)
        try:
            conn.executescript(script)
            conn.commit()
        finally:
            conn.close()

    def seed_file(self, relpath: str, content) -> None:
        if not self._seeding:
            return
        target = self.path(relpath)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
        with real_open(target, "wb") as handle:
            handle.write(data)

    def sqlite(self, name: str):
        return connect_in_mode(self.path(name))

    def email(self) -> EmailClient:
        return EmailClient(self._outbox)
