"""Task: set new prices and refresh the price cache file that the storefront
reads. The current cache file is named in `meta` (key 'price_cache'); cache
files are named by a hash of their content. Prices are absolute, so a repeat
is recognisable by the stored state."""
import hashlib
import json

from crashprobe import scenario

START = {"A1": 1000, "B2": 500, "C3": 250, "D4": 75}


def cache_content(prices):
    return json.dumps(prices, sort_keys=True, indent=2).encode()


def cache_name(content):
    return "prices-%s.json" % hashlib.sha256(content).hexdigest()[:12]


SEED_CACHE = cache_content(START)

SCHEMA = """
CREATE TABLE products(sku TEXT PRIMARY KEY, price INTEGER NOT NULL);
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO products VALUES %s;
INSERT INTO meta VALUES ('price_cache', '%s');
""" % (", ".join("('%s', %d)" % kv for kv in sorted(START.items())), cache_name(SEED_CACHE))


def cache_matches_db(state):
    db = state.db("catalog.db")
    prices = dict(db.execute("SELECT sku, price FROM products"))
    (name,) = db.execute("SELECT value FROM meta WHERE key = 'price_cache'").fetchone()
    content = state.file("cache/" + name)
    assert content is not None, "cache file %s missing" % name
    assert json.loads(content) == prices, "cache %s is stale" % name


@scenario("app/pricing.py:update_prices", check=cache_matches_db)
def autumn_prices(world):
    world.seed_sqlite("catalog.db", SCHEMA)
    world.seed_file("cache/" + cache_name(SEED_CACHE), SEED_CACHE)
    return {"conn": world.sqlite("catalog.db"), "cache_dir": world.path("cache"),
            "changes": {"A1": 1200, "C3": 199, "D4": 80}}
