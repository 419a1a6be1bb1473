import { describe, expect, it } from 'vitest';
import { commentableLines, parseUnifiedDiff, touchedFunctions } from '../../../src/core/python/diff.ts';
import { listFunctions } from '../../../src/core/python/functions.ts';
import { moduleOf, py } from './python-source.ts';

const newSource = py`
  import sqlite3

  def unchanged(conn):
      return conn.execute("SELECT 1").fetchone()

  class Orders:
      @retry
      def place(self, item):
          self.conn.execute("INSERT INTO orders VALUES (?)", (item,))
          self.conn.commit()

      def cancel(self, order_id):
          def log():
              print("cancel")
          self.conn.execute("DELETE FROM orders WHERE id = ?", (order_id,))

  def trimmed(conn):
      conn.commit()
`;

const diff = `diff --git a/app/orders.py b/app/orders.py
index 1111111..2222222 100644
--- a/app/orders.py
+++ b/app/orders.py
@@ -6,9 +6,9 @@ class Orders:
 class Orders:
-    @retry(3)
+    @retry
     def place(self, item):
         self.conn.execute("INSERT INTO orders VALUES (?)", (item,))
         self.conn.commit()
${' '}
     def cancel(self, order_id):
         def log():
-            print "cancel"
+            print("cancel")
@@ -17,3 +17,2 @@ class Orders:
 def trimmed(conn):
     conn.commit()
-    conn.close()
diff --git a/app/old_name.py b/app/new_name.py
similarity index 92%
rename from app/old_name.py
rename to app/new_name.py
index 3333333..4444444 100644
--- a/app/old_name.py
+++ b/app/new_name.py
@@ -1,2 +1,2 @@
-def f(): pass
+def g(): pass
 x = 1
diff --git a/app/moved.py b/lib/moved.py
similarity index 100%
rename from app/moved.py
rename to lib/moved.py
diff --git a/app/gone.py b/app/gone.py
deleted file mode 100644
index 5555555..0000000
--- a/app/gone.py
+++ /dev/null
@@ -1,2 +0,0 @@
-def gone(conn):
-    conn.commit()
diff --git a/app/fresh.py b/app/fresh.py
new file mode 100644
index 0000000..6666666
--- /dev/null
+++ b/app/fresh.py
@@ -0,0 +1,2 @@
+def fresh(conn):
+    conn.commit()
`;

describe('parseUnifiedDiff', () => {
  const changes = parseUnifiedDiff(diff);

  it('reads status, paths and changed new-side lines per file', () => {
    expect(changes.map(({ path, oldPath, status, addedLines, removalAnchors }) => ({ path, oldPath, status, addedLines, removalAnchors }))).toEqual([
      { path: 'app/orders.py', oldPath: undefined, status: 'modified', addedLines: [7, 14], removalAnchors: [7, 14, 18] },
      { path: 'app/new_name.py', oldPath: 'app/old_name.py', status: 'renamed', addedLines: [1], removalAnchors: [1] },
      { path: 'lib/moved.py', oldPath: 'app/moved.py', status: 'renamed', addedLines: [], removalAnchors: [] },
      { path: 'app/gone.py', oldPath: 'app/gone.py', status: 'deleted', addedLines: [], removalAnchors: [] },
      { path: 'app/fresh.py', oldPath: undefined, status: 'added', addedLines: [1, 2], removalAnchors: [] },
    ]);
  });

  it('exposes every new-side line inside a hunk for anchoring comments; deleted files have none', () => {
    const lines = commentableLines(changes);
    expect([...lines.get('app/orders.py')!].sort((a, b) => a - b)).toEqual([6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 18]);
    expect(lines.has('app/gone.py')).toBe(false);
    expect([...lines.get('lib/moved.py')!]).toEqual([]);
  });

  it('maps changed lines to the innermost touched functions (decorators and trailing removals included)', () => {
    const functions = listFunctions(moduleOf(newSource, 'app/orders.py'));
    expect(touchedFunctions(changes[0]!, functions).map((fn) => fn.qualname)).toEqual([
      'Orders.place',
      'Orders.cancel.log',
      'trimmed',
    ]);
  });

  it('touches nothing in a deleted file or a pure rename', () => {
    const functions = listFunctions(moduleOf('def gone(conn):\n    conn.commit()\n'));
    expect(touchedFunctions(changes[3]!, functions)).toEqual([]);
    expect(touchedFunctions(changes[2]!, listFunctions(moduleOf('def f():\n    pass\n')))).toEqual([]);
  });

  it('returns nothing for an empty diff', () => {
    expect(parseUnifiedDiff('')).toEqual([]);
  });
});
