import json
import os
import tempfile


def save_setting(path, key, value):
    """Atomically update one key: write a temp file next to the original and
    os.replace() it over the old one."""
    try:
        with open(path, encoding="utf-8") as f:
            settings = json.load(f)
    except FileNotFoundError:
        settings = {}
    settings[key] = value
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".settings-", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(json.dumps(settings, indent=2))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
