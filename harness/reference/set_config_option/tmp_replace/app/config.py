import configparser
import io
import os


def set_option(path, section, key, value):
    cfg = configparser.ConfigParser()
    cfg.read(path)
    if not cfg.has_section(section):
        cfg.add_section(section)
    cfg.set(section, key, value)
    buf = io.StringIO()
    cfg.write(buf)
    tmp = path + ".new"
    with open(tmp, "w") as f:
        f.write(buf.getvalue())
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
