import json
import os


def update_prices(conn, cache_dir, changes):
    conn.isolation_level = None  # autocommit: each new price goes live right away
    for sku, price in changes.items():
        conn.execute("UPDATE products SET price = ? WHERE sku = ?", (price, sku))

    # refresh the storefront's cache file
    prices = dict(conn.execute("SELECT sku, price FROM products ORDER BY sku").fetchall())
    cache_file = conn.execute("SELECT value FROM meta WHERE key = 'price_cache'").fetchone()[0]
    with open(os.path.join(cache_dir, cache_file), "w") as f:
        json.dump(prices, f, indent=2, sort_keys=True)
