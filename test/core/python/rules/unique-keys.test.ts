import { describe, expect, it } from 'vitest';
import { parseModule } from '../../../../src/core/python/parse.ts';
import { insertHitsKey } from '../../../../src/core/python/rules/unique-keys.ts';

const SCHEMA = `
SCHEMA = """
CREATE TABLE IF NOT EXISTS bookmarks (id integer PRIMARY KEY, URL text NOT NULL UNIQUE, tags text DEFAULT ',');
CREATE TABLE pairs (a TEXT, b TEXT, note TEXT, UNIQUE (a, b));
CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT);
CREATE TABLE tagged (tag TEXT, item TEXT);
"""
INDEX = "CREATE UNIQUE INDEX IF NOT EXISTS tagged_key ON tagged (tag, item)"
`;

describe('insertHitsKey', () => {
  const module = parseModule('schema.py', SCHEMA);

  it('finds an inline UNIQUE or PRIMARY KEY column the insert names', () => {
    expect(insertHitsKey(module, 'bookmarks', ['URL', 'tags'])).toBe(true);
    expect(insertHitsKey(module, 'events', ['id', 'name'])).toBe(true);
  });

  it('needs every column of a table-level UNIQUE or a unique index', () => {
    expect(insertHitsKey(module, 'pairs', ['a', 'b', 'note'])).toBe(true);
    expect(insertHitsKey(module, 'pairs', ['a', 'note'])).toBe(false);
    expect(insertHitsKey(module, 'tagged', ['tag', 'item'])).toBe(true);
    expect(insertHitsKey(module, 'tagged', ['tag'])).toBe(false);
  });

  it('does not take an autoincrement id the insert leaves out, nor a table the module does not declare', () => {
    expect(insertHitsKey(module, 'events', ['name'])).toBe(false);
    expect(insertHitsKey(module, 'elsewhere', ['name'])).toBe(false);
  });
});
