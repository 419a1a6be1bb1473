import os


def archive_imported(folder, batch):
    src = os.path.join(folder, "imported")
    dest = os.path.join(folder, "archive", batch)
    os.makedirs(dest, exist_ok=True)
    moved = []
    try:
        for name in sorted(os.listdir(src)):
            os.rename(os.path.join(src, name), os.path.join(dest, name))
            moved.append(name)
    except OSError:
        # put back what we already moved, so a failed archive leaves nothing half done
        for name in reversed(moved):
            os.rename(os.path.join(dest, name), os.path.join(src, name))
        raise
    return moved
