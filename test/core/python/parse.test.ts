import { describe, expect, it } from 'vitest';
import { parseModule } from '../../../src/core/python/parse.ts';
import { listFunctions } from '../../../src/core/python/functions.ts';
import { findEffects } from '../../../src/core/python/effects.ts';
import { detectTxStyle } from '../../../src/core/python/tx-style.ts';

function analyzeAll(path: string, input: string | Uint8Array, maxBytes?: number) {
  const module = parseModule(path, input, maxBytes === undefined ? {} : { maxBytes });
  const functions = listFunctions(module).map((fn) => ({
    qualname: fn.qualname,
    effects: findEffects(fn, module).map((effect) => effect.kind),
    style: detectTxStyle(fn, module).style,
  }));
  return { module, functions };
}

describe('parseModule', () => {
  it('records syntax errors as ranges and analyses the rest', () => {
    const { module, functions } = analyzeAll('broken.py', [
      'def ok(conn):',
      '    conn.execute("INSERT INTO t VALUES (1)")',
      '',
      'def broken(:',
      '    pass',
      '',
      'x = (1 +',
      '',
      'def later(conn):',
      '    conn.commit()',
      '',
    ].join('\n'));
    expect(module.errors.length).toBeGreaterThan(0);
    expect(module.errors.every((range) => range.startLine >= 4)).toBe(true);
    expect(functions.find((fn) => fn.qualname === 'ok')).toEqual({ qualname: 'ok', effects: ['db-write'], style: 'none' });
  });

  it('decodes a file that is not UTF-8 as latin-1, with a note', () => {
    const bytes = Buffer.concat([Buffer.from('# caf'), Buffer.from([0xe9]), Buffer.from('\ndef f(conn):\n    conn.commit()\n')]);
    const { module, functions } = analyzeAll('latin.py', bytes);
    expect(module.source.startsWith('# café')).toBe(true);
    expect(module.notes).toEqual(['not UTF-8: decoded as latin-1, so non-ASCII text may be garbled']);
    expect(functions).toEqual([{ qualname: 'f', effects: ['db-commit'], style: 'none' }]);
  });

  it('follows a PEP 263 coding declaration when the bytes are not UTF-8', () => {
    const bytes = Buffer.concat([Buffer.from('# -*- coding: iso-8859-15 -*-\nx = "'), Buffer.from([0xa4]), Buffer.from('"\n')]);
    const module = parseModule('cp.py', bytes);
    expect(module.source).toContain('x = "€"');
    expect(module.notes).toEqual(['not UTF-8: decoded as iso-8859-15 (its coding declaration)']);
  });

  it('decodes UTF-8 with a BOM without a note', () => {
    const module = parseModule('bom.py', Buffer.from('\ufeffdef f():\n    pass\n', 'utf8'));
    expect(module.notes).toEqual([]);
    expect(listFunctions(module).map((fn) => fn.qualname)).toEqual(['f']);
  });

  it('skips a file over the size limit with a note', () => {
    const big = 'x = 1\n'.repeat(200_000);
    const { module, functions } = analyzeAll('gen/huge.py', big);
    expect(module.notes).toEqual(['skipped: 1.1 MiB is over the 1.0 MiB limit (likely generated or vendored)']);
    expect(module.source).toBe('');
    expect(functions).toEqual([]);
  });

  it('parses large files under the limit in full (no 32 KiB buffer cut)', () => {
    const body = Array.from({ length: 4000 }, (_, i) => `def f${i}(conn):\n    conn.execute("DELETE FROM t${i}")\n`).join('');
    expect(body.length).toBeGreaterThan(100_000);
    const { module, functions } = analyzeAll('large.py', body);
    expect(module.errors).toEqual([]);
    expect(functions).toHaveLength(4000);
    expect(functions[3999]).toEqual({ qualname: 'f3999', effects: ['db-write'], style: 'none' });
  });

  it('survives Python 2 leftovers', () => {
    const { module, functions } = analyzeAll('old.py', [
      'print "starting"',
      'exec "x = 1"',
      'def legacy(conn):',
      '    print >>sys.stderr, "saving"',
      '    try:',
      '        conn.execute("INSERT INTO t VALUES (1)")',
      '    except Exception, e:',
      '        raise ValueError, "bad"',
      '    conn.commit()',
      '',
    ].join('\n'));
    expect(module.path).toBe('old.py');
    expect(functions.map((fn) => fn.qualname)).toEqual(['legacy']);
    expect(functions[0]!.effects).toContain('db-commit');
  });

  it('normalizes the path to forward slashes, relative', () => {
    expect(parseModule('.\\app\\x.py', '').path).toBe('app/x.py');
  });
});
