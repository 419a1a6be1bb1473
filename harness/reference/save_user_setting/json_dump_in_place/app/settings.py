import json


def save_setting(path, key, value):
    with open(path) as f:
        settings = json.load(f)
    settings[key] = value
    with open(path, "w") as f:
        json.dump(settings, f, indent=2)
