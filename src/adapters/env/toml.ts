// A small TOML reader for what dependency files hold: tables, arrays of tables,
// strings, numbers, booleans, (multi-line) arrays and inline tables. Not a full TOML
// parser: dates and dotted keys inside inline tables are read as plain values or
// skipped, and a line it cannot read is reported (with its number), never guessed.

export type TomlValue = string | number | boolean | TomlValue[] | TomlTable;
export interface TomlTable {
  [key: string]: TomlValue;
}

export interface TomlResult {
  data: TomlTable;
  /** Lines that were not understood, as "line N: why". */
  problems: string[];
}

class Cursor {
  pos = 0;
  constructor(readonly text: string) {}
  peek(): string {
    return this.text[this.pos] ?? '';
  }
  skipSpace(newlines: boolean): void {
    for (;;) {
      const c = this.peek();
      if (c === ' ' || c === '\t' || c === '\r' || (newlines && c === '\n')) this.pos += 1;
      else if (newlines && c === '#') while (this.pos < this.text.length && this.peek() !== '\n') this.pos += 1;
      else return;
    }
  }
  line(): number {
    return this.text.slice(0, this.pos).split('\n').length;
  }
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\', b: '\b', f: '\f' };

function readString(c: Cursor): string {
  const quote = c.peek();
  const triple = c.text.startsWith(quote.repeat(3), c.pos);
  c.pos += triple ? 3 : 1;
  if (triple && c.peek() === '\n') c.pos += 1;
  let out = '';
  for (;;) {
    if (c.pos >= c.text.length) throw new Error('unterminated string');
    if (triple ? c.text.startsWith(quote.repeat(3), c.pos) : c.peek() === quote) {
      c.pos += triple ? 3 : 1;
      return out;
    }
    const ch = c.peek();
    if (!triple && ch === '\n') throw new Error('newline in a string');
    if (quote === '"' && ch === '\\') {
      const next = c.text[c.pos + 1] ?? '';
      if (next === 'u' || next === 'U') {
        const len = next === 'u' ? 4 : 8;
        out += String.fromCodePoint(Number.parseInt(c.text.slice(c.pos + 2, c.pos + 2 + len), 16));
        c.pos += 2 + len;
      } else if (triple && (next === '\n' || next === ' ' || next === '\r')) {
        c.pos += 1;
        c.skipSpace(true);
      } else {
        out += ESCAPES[next] ?? next;
        c.pos += 2;
      }
      continue;
    }
    out += ch;
    c.pos += 1;
  }
}

function readKey(c: Cursor): string[] {
  const parts: string[] = [];
  for (;;) {
    c.skipSpace(false);
    const ch = c.peek();
    if (ch === '"' || ch === "'") parts.push(readString(c));
    else {
      const m = /^[A-Za-z0-9_-]+/.exec(c.text.slice(c.pos));
      if (!m) throw new Error('expected a key');
      parts.push(m[0]);
      c.pos += m[0].length;
    }
    c.skipSpace(false);
    if (c.peek() !== '.') return parts;
    c.pos += 1;
  }
}

function readValue(c: Cursor): TomlValue {
  c.skipSpace(false);
  const ch = c.peek();
  if (ch === '"' || ch === "'") return readString(c);
  if (ch === '[') {
    c.pos += 1;
    const items: TomlValue[] = [];
    for (;;) {
      c.skipSpace(true);
      if (c.peek() === ']') {
        c.pos += 1;
        return items;
      }
      items.push(readValue(c));
      c.skipSpace(true);
      if (c.peek() === ',') c.pos += 1;
      else if (c.peek() !== ']') throw new Error('expected , or ] in an array');
    }
  }
  if (ch === '{') {
    c.pos += 1;
    const table: TomlTable = {};
    for (;;) {
      c.skipSpace(false);
      if (c.peek() === '}') {
        c.pos += 1;
        return table;
      }
      const key = readKey(c);
      if (c.peek() !== '=') throw new Error('expected = in an inline table');
      c.pos += 1;
      setPath(table, key, readValue(c));
      c.skipSpace(false);
      if (c.peek() === ',') c.pos += 1;
    }
  }
  const m = /^[^\s,\]}#]+/.exec(c.text.slice(c.pos));
  if (!m) throw new Error('expected a value');
  c.pos += m[0].length;
  if (m[0] === 'true') return true;
  if (m[0] === 'false') return false;
  const n = Number(m[0].replaceAll('_', ''));
  return Number.isNaN(n) ? m[0] : n;
}

function setPath(table: TomlTable, key: string[], value: TomlValue): void {
  let t = table;
  for (const part of key.slice(0, -1)) {
    const next = t[part];
    if (next === undefined || typeof next !== 'object' || Array.isArray(next)) t[part] = {};
    t = t[part] as TomlTable;
  }
  t[key[key.length - 1]!] = value;
}

function tableAt(root: TomlTable, key: string[], arrayItem: boolean): TomlTable {
  let t = root;
  key.forEach((part, i) => {
    const last = i === key.length - 1;
    let next = t[part];
    if (last && arrayItem) {
      if (!Array.isArray(next)) next = t[part] = [];
      const item: TomlTable = {};
      (next as TomlValue[]).push(item);
      t = item;
      return;
    }
    if (Array.isArray(next)) next = next[next.length - 1];
    if (next === undefined || typeof next !== 'object' || Array.isArray(next)) next = t[part] = {};
    t = next as TomlTable;
  });
  return t;
}

export function parseToml(text: string): TomlResult {
  const c = new Cursor(text.replace(/^\uFEFF/, ''));
  const data: TomlTable = {};
  const problems: string[] = [];
  let current = data;
  while (c.pos < c.text.length) {
    c.skipSpace(true);
    if (c.pos >= c.text.length) break;
    const start = c.pos;
    try {
      if (c.peek() === '[') {
        const array = c.text.startsWith('[[', c.pos);
        c.pos += array ? 2 : 1;
        const key = readKey(c);
        if (!c.text.startsWith(array ? ']]' : ']', c.pos)) throw new Error('expected ] after a table name');
        c.pos += array ? 2 : 1;
        current = tableAt(data, key, array);
      } else {
        const key = readKey(c);
        if (c.peek() !== '=') throw new Error('expected =');
        c.pos += 1;
        setPath(current, key, readValue(c));
      }
      c.skipSpace(false);
      if (c.peek() === '#') while (c.pos < c.text.length && c.peek() !== '\n') c.pos += 1;
      if (c.pos < c.text.length && c.peek() !== '\n') throw new Error('unexpected text after a value');
    } catch (error) {
      c.pos = start;
      problems.push(`line ${c.line()}: ${(error as Error).message}`);
      while (c.pos < c.text.length && c.peek() !== '\n') c.pos += 1;
    }
  }
  return { data, problems };
}
