"""Task: save one user setting into the user's JSON settings file, keeping
the other settings. Setting a value is idempotent, so a repeat is
recognisable by the stored state. Files only."""
import json

from crashprobe import scenario


def settings_readable(state):
    data = json.loads(state.file("users/42/settings.json"))
    assert data.get("lang") == "en" and data.get("timezone") == "Europe/Oslo", "other settings lost"


@scenario("app/settings.py:save_setting", check=settings_readable)
def dark_theme(world):
    world.seed_file("users/42/settings.json",
                    json.dumps({"theme": "light", "lang": "en", "timezone": "Europe/Oslo"}, indent=2))
    return {"path": world.path("users/42/settings.json"), "key": "theme", "value": "dark"}
