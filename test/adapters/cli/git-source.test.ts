import { describe, expect, it } from 'vitest';
import { splitGitDiff } from '../../../src/adapters/cli/git-source.ts';

const DIFF = `diff --git a/app/new.py b/app/new.py
new file mode 100644
index 0000000..1111111
--- /dev/null
+++ b/app/new.py
@@ -0,0 +1,2 @@
+def f():
+    pass
diff --git a/app/gone.py b/app/gone.py
deleted file mode 100644
index 2222222..0000000
--- a/app/gone.py
+++ /dev/null
@@ -1 +0,0 @@
-x = 1
diff --git a/app/old_name.py b/app/new_name.py
similarity index 90%
rename from app/old_name.py
rename to app/new_name.py
index 3333333..4444444 100644
--- a/app/old_name.py
+++ b/app/new_name.py
@@ -1,2 +1,2 @@
 def g():
-    return 1
+    return 2
diff --git a/app/moved.py b/app/moved_too.py
similarity index 100%
rename from app/moved.py
rename to app/moved_too.py
`;

describe('splitGitDiff', () => {
  it('turns git diff output into per-file patches with statuses', () => {
    const files = splitGitDiff(DIFF);
    expect(files.map(({ path, status, previousPath }) => ({ path, status, previousPath }))).toEqual([
      { path: 'app/new.py', status: 'added', previousPath: undefined },
      { path: 'app/gone.py', status: 'removed', previousPath: undefined },
      { path: 'app/new_name.py', status: 'renamed', previousPath: 'app/old_name.py' },
      { path: 'app/moved_too.py', status: 'renamed', previousPath: 'app/moved.py' },
    ]);
    expect(files[2]?.patch).toBe('@@ -1,2 +1,2 @@\n def g():\n-    return 1\n+    return 2');
    expect(files[3]?.patch).toBe('');
  });
});
