"""Task: count a page view in a JSON file of per-page counters. Every call
is a new view, so a repeat is NOT recognisable: this task is not judged on
double counting. Files only."""
import json

from crashprobe import scenario


def counters_readable(state):
    counts = json.loads(state.file("stats/views.json"))
    assert counts.get("/about") == 7, "other pages' counters lost"
    assert counts.get("/home", 0) >= 41, "home counter went backwards"


@scenario("app/stats.py:count_view", check=counters_readable)
def home_page(world):
    world.seed_file("stats/views.json", json.dumps({"/home": 41, "/about": 7}, indent=2))
    return {"path": world.path("stats/views.json"), "page": "/home"}
