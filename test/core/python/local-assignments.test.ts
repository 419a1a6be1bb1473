import { describe, expect, it } from 'vitest';
import { localAssignmentBefore } from '../../../src/core/python/local-assignments.ts';
import type { SyntaxNode } from '../../../src/core/python/model.ts';
import { functionOf, moduleOf, py } from './python-source.ts';

const source = py`
  x = "module"

  def f(conn):
      run = conn.execute
      run("A")
      def g():
          run = conn.executescript
          return run
      run = conn.executemany
      run("B")
      other = other + 1
      return x
`;

/** The identifier uses of `name` in function `qualname`, in source order. */
function uses(qualname: string, name: string): SyntaxNode[] {
  const module = moduleOf(source);
  return functionOf(module, qualname).node.descendantsOfType('identifier').filter((node) => node.text === name);
}

describe('localAssignmentBefore', () => {
  it('gives the value last assigned before the use, not one assigned after it or in a nested function', () => {
    // f's own uses and g's, in source order: assigned, called, (g: assigned, returned), assigned, called.
    const [, firstCall, , , , secondCall] = uses('f', 'run');
    expect(localAssignmentBefore(firstCall!)?.text).toBe('conn.execute');
    expect(localAssignmentBefore(secondCall!)?.text).toBe('conn.executemany');
  });

  it('answers inside the nested function from its own assignments', () => {
    const [, returned] = uses('f.g', 'run');
    expect(localAssignmentBefore(returned!)?.text).toBe('conn.executescript');
  });

  it('ignores an assignment whose value holds the use, and names assigned only outside the function', () => {
    const [, inOwnValue] = uses('f', 'other');
    expect(localAssignmentBefore(inOwnValue!)).toBeUndefined();
    const [x] = uses('f', 'x');
    expect(localAssignmentBefore(x!)).toBeUndefined();
  });
});
