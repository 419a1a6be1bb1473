// JSON crashprobe writes (`--json`, `--format json`, SARIF files): the full values,
// with `<`, `>`, `&` and the JS line separators written as \u escapes. The parsed
// value is exactly the same; the file's text holds no `<!--`, no tag and no
// entity, so pasting or embedding it anywhere HTML is read stays inert.
const UNSAFE = /[<>&\u2028\u2029]/g;

export function safeJson(value: unknown, indent = 2): string {
  return JSON.stringify(value, null, indent).replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
