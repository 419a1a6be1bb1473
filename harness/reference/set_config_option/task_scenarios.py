"""Task: set one option in an INI config file (configparser), keeping the
rest. Setting a value is idempotent, so a repeat is recognisable by the
stored state. Files only."""
import configparser

from crashprobe import scenario

CONFIG = """[server]
host = 0.0.0.0
port = 8080

[database]
path = /var/lib/app/app.db
pool_size = 5

[mail]
sender = noreply@example.com
"""


def config_complete(state):
    cfg = configparser.ConfigParser()
    cfg.read_string(state.file("etc/app.ini").decode())
    assert cfg.get("server", "port") == "8080", "server section lost"
    assert cfg.get("mail", "sender") == "noreply@example.com", "mail section lost"


@scenario("app/config.py:set_option", check=config_complete)
def bigger_pool(world):
    world.seed_file("etc/app.ini", CONFIG)
    return {"path": world.path("etc/app.ini"), "section": "database", "key": "pool_size", "value": "20"}
