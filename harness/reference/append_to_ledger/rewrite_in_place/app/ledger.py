def append_entry(path, entry_id, amount, memo):
    with open(path) as f:
        lines = f.readlines()

    # drop the old TOTAL line, add the entry, recompute the total
    entries = [line for line in lines[1:] if not line.startswith("TOTAL,")]
    if any(line.startswith(entry_id + ",") for line in entries):
        return
    entries.append(f"{entry_id},{amount},{memo}\n")
    total = sum(int(line.split(",")[1]) for line in entries)

    with open(path, "w") as f:
        f.write(lines[0])
        for line in entries:
            f.write(line)
        f.write(f"TOTAL,{total}\n")
