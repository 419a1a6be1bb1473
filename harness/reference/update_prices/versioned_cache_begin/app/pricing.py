import hashlib
import json
import os


def update_prices(conn, cache_dir, changes):
    """Write the new cache under a content-hashed name, then switch prices and
    the cache pointer in one transaction; old cache files are removed last."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        for sku, price in sorted(changes.items()):
            conn.execute("UPDATE products SET price = ? WHERE sku = ?", (price, sku))
        prices = dict(conn.execute("SELECT sku, price FROM products ORDER BY sku"))
        content = json.dumps(prices, sort_keys=True, indent=2).encode()
        name = "prices-%s.json" % hashlib.sha256(content).hexdigest()[:12]
        path = os.path.join(cache_dir, name)
        if not os.path.exists(path):
            with open(path + ".tmp", "wb") as f:
                f.write(content)
                f.flush()
                os.fsync(f.fileno())
            os.replace(path + ".tmp", path)
        conn.execute("UPDATE meta SET value = ? WHERE key = 'price_cache'", (name,))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    for other in os.listdir(cache_dir):
        if other.startswith("prices-") and other != name:
            os.remove(os.path.join(cache_dir, other))
    return name
