import json
import os


def count_view(path, page):
    try:
        with open(path) as f:
            counts = json.load(f)
    except FileNotFoundError:
        counts = {}
    counts[page] = counts.get(page, 0) + 1
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(json.dumps(counts, indent=2))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return counts[page]
