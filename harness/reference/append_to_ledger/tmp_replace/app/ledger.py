import os


def append_entry(path, entry_id, amount, memo):
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    header, entries = lines[0], [l for l in lines[1:] if not l.startswith("TOTAL,")]
    if any(l.split(",", 1)[0] == entry_id for l in entries):
        return False  # already in the ledger
    entries.append("%s,%d,%s" % (entry_id, amount, memo.replace(",", " ")))
    total = sum(int(l.split(",")[1]) for l in entries)
    content = "\n".join([header] + entries + ["TOTAL,%d" % total]) + "\n"
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(content)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return True
