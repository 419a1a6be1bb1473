import configparser
import os


def set_option(path, section, key, value):
    config = configparser.ConfigParser()
    config.read(path)
    if not config.has_section(section):
        config.add_section(section)
    config.set(section, key, value)

    tmp_path = path + ".tmp"
    with open(tmp_path, "w") as f:
        config.write(f)
    # os.rename fails on Windows when the target exists, so remove it first
    if os.path.exists(path):
        os.remove(path)
    os.rename(tmp_path, path)
