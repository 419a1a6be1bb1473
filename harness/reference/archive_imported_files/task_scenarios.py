"""Task: archive a batch of imported files: move everything in imported/
into archive/<batch>/. A repeat is recognisable by the stored state (the
batch folder exists). Files only."""
from crashprobe import scenario


@scenario("app/archiver.py:archive_imported")
def batch_2026_11(world):
    world.seed_file("imported/orders-01.csv", "id,total\n1,10\n")
    world.seed_file("imported/orders-02.csv", "id,total\n2,25\n")
    world.seed_file("imported/orders-03.csv", "id,total\n3,40\n")
    world.seed_file("archive/2026-10/orders-00.csv", "id,total\n0,5\n")
    return {"folder": world.path(), "batch": "2026-11"}
