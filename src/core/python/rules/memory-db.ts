// A database opened on ":memory:" dies with the process: a crash leaves
// nothing half-written, so its effects are no concern of the crash rules.
import type { Effect, PyFunction, PyModule, SyntaxNode } from '../model.ts';
import type { HelperResolver } from '../effects.ts';
import { callParts } from '../body-walk.ts';
import { localAssignmentBefore } from '../local-assignments.ts';
import { resolveString } from '../string-value.ts';
import { compactText } from './syntax.ts';

/**
 * The function's effects without the database calls made on a connection (or
 * its cursor) opened on ":memory:". `resolveHelper` follows a call such as a
 * test utility's `memory_database()` to the function that opens it.
 */
export function withoutInMemoryDatabase(effects: readonly Effect[], fn: PyFunction, module: PyModule, resolveHelper: HelperResolver): Effect[] {
  if (!effects.some((effect) => effect.kind.startsWith('db-'))) return [...effects];
  const names = inMemoryNames(fn, module, resolveHelper);
  return effects.filter((effect) => {
    if (!effect.kind.startsWith('db-')) return true;
    if (effect.via) return !(effect.via.path === module.path && closureCallInMemory(effect.via.line, module, names));
    const receiver = callParts(effect.node).receiver;
    if (!receiver) return true;
    return !(names.has(baseName(receiver)) || opensInMemory(receiver, module));
  });
}

/**
 * Names bound to an in-memory connection or a cursor of one: in the function
 * itself (`con = sqlite3.connect(":memory:")`, `with connect(":memory:") as c`),
 * and `self.x` attributes set so anywhere in the enclosing class (a test's setUp).
 */
function inMemoryNames(fn: PyFunction, module: PyModule, resolveHelper: HelperResolver): Set<string> {
  const fnNode = fn.node;
  const scopes = [fnNode];
  const classNode = enclosingClass(fnNode);
  if (classNode) scopes.push(classNode);
  const bindings: { name: string; value: SyntaxNode }[] = [];
  for (const scope of scopes) {
    for (const assignment of scope.descendantsOfType('assignment')) {
      const left = assignment.childForFieldName('left');
      const right = assignment.childForFieldName('right');
      if (!left || !right) continue;
      if (scope === classNode && !compactText(left).startsWith('self.')) continue;
      // `cx = self.cx = connect(...)`: the inner assignment is visited on its own.
      bindings.push({ name: compactText(left), value: right.type === 'assignment' ? right.childForFieldName('right') ?? right : right });
    }
    for (const pattern of scope.descendantsOfType('as_pattern')) {
      const value = pattern.namedChildren[0];
      const alias = pattern.childForFieldName('alias');
      if (value && alias && pattern.parent?.type === 'with_item') bindings.push({ name: compactText(alias), value });
    }
  }
  const names = new Set<string>();
  // Twice: a cursor or an alias (`con = self.con`) may be bound before the connection it comes from is seen.
  for (let round = 0; round < 2; round++) {
    for (const { name, value } of bindings) {
      const alias = (value.type === 'identifier' || value.type === 'attribute') && names.has(compactText(value));
      if (alias || opensInMemory(value, module) || cursorOf(value, names) || returnsInMemory(value, fn, module, resolveHelper)) names.add(name);
    }
  }
  return names;
}

function opensInMemory(node: SyntaxNode, module: PyModule): boolean {
  if (node.type !== 'call') return false;
  const call = callParts(node);
  // contextlib.closing(connect(":memory:")) is the same connection.
  if (call.method === 'closing' && call.positional[0]) return opensInMemory(call.positional[0], module);
  if (call.method !== 'connect') return false;
  const database = resolveString(call.positional[0] ?? call.keywords.get('database'), module)?.text;
  return database !== undefined && /^(:memory:|file::memory:|file:[^?]*\?(.*&)?mode=memory)/.test(database);
}

/** `x.cursor()`, or `[x.cursor() for ...]`, of a name already known to be in memory. */
function cursorOf(node: SyntaxNode, names: Set<string>): boolean {
  if (node.type === 'list_comprehension') return node.namedChildren[0] !== undefined && cursorOf(node.namedChildren[0], names);
  if (node.type !== 'call') return false;
  const call = callParts(node);
  return call.method === 'cursor' && call.receiver !== undefined && names.has(compactText(call.receiver));
}

function enclosingClass(node: SyntaxNode): SyntaxNode | undefined {
  for (let current = node.parent; current; current = current.parent) {
    if (current.type === 'class_definition') return current;
    if (current.type === 'function_definition') return undefined;
  }
  return undefined;
}

/** A call to a function that returns an in-memory connection (a test's `memory_database()`). */
function returnsInMemory(node: SyntaxNode, caller: PyFunction, module: PyModule, resolveHelper: HelperResolver): boolean {
  if (node.type !== 'call') return false;
  const helper = resolveHelper(node, caller, module);
  if (!helper || helper.fn.node === caller.node) return false;
  const helperModule = helper.module;
  return helper.fn.node.descendantsOfType('return_statement').some((statement) => {
    const value = statement.namedChildren[0];
    if (!value) return false;
    if (opensInMemory(value, helperModule)) return true;
    if (value.type !== 'call' || callParts(value).method !== 'closing') return false;
    const inner = callParts(value).positional[0];
    const assigned = inner?.type === 'identifier' ? localAssignmentBefore(inner) : undefined;
    return assigned !== undefined && opensInMemory(assigned, helperModule);
  });
}

/** `cursors[0]` and `cursors` are one name for this purpose. */
function baseName(node: SyntaxNode): string {
  return compactText(node.type === 'subscript' ? node.childForFieldName('value') ?? node : node);
}

/** A helper nested in the function that writes through the function's in-memory connection (a closure). */
function closureCallInMemory(line: number, module: PyModule, names: Set<string>): boolean {
  const row = line - 1;
  return module.tree.rootNode
    .descendantsOfType('call', { row, column: 0 }, { row: row + 1, column: 0 })
    .some((call) => {
      const receiver = call.startPosition.row === row ? callParts(call).receiver : undefined;
      return receiver !== undefined && names.has(baseName(receiver));
    });
}
