import json


def count_view(path, page):
    try:
        with open(path) as f:
            counts = json.load(f)
    except (FileNotFoundError, json.JSONDecodeError):
        counts = {}
    counts[page] = counts.get(page, 0) + 1
    with open(path, "w") as f:
        json.dump(counts, f, indent=2)
    return counts[page]
