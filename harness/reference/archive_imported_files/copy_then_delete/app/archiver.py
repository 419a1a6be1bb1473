import os


def archive_imported(folder, batch):
    src_dir = os.path.join(folder, "imported")
    dest_dir = os.path.join(folder, "archive", batch)
    os.makedirs(dest_dir, exist_ok=True)
    for name in os.listdir(src_dir):
        src = os.path.join(src_dir, name)
        with open(src, "rb") as f:
            data = f.read()
        with open(os.path.join(dest_dir, name), "wb") as f:
            f.write(data)
        os.remove(src)
