import os


def archive_imported(folder, batch):
    """Move the whole imported/ folder to archive/<batch>/ with one rename, so
    the batch is either still waiting or fully archived."""
    src = os.path.join(folder, "imported")
    dest = os.path.join(folder, "archive", batch)
    if os.path.exists(dest):
        os.makedirs(src, exist_ok=True)
        return False  # this batch is archived already
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    os.rename(src, dest)
    os.makedirs(src, exist_ok=True)  # a fresh, empty inbox
    return True
