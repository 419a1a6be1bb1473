import json
import os


def save_setting(path, key, value):
    with open(path) as f:
        settings = json.load(f)
    settings[key] = value
    os.replace(path, path + ".bak")  # keep the previous version around
    with open(path, "w") as f:
        f.write(json.dumps(settings, indent=2))
