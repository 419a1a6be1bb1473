// A schema change written as `try: <DDL> except: pass` (lollypop 1.4's History.__init__:
// `try: with SqlCursor(self, True) as sql: sql.execute(CREATE TABLE history ...) except: pass`): the idiom for
// IF [NOT] EXISTS. The re-run after a crash reaches the statement again: if the first run's change still stands it
// fails (already exists, duplicate column, no such table) and the handler swallows that, else it runs as on any call;
// either way the re-run does not trip on it, as it would not on `IF [NOT] EXISTS`.
// What qualifies, in the function that runs the statement (the effect's own call, not a helper's):
// - the call is the last thing its try runs: nothing after it in the try body (at any level up to it), and the try
//   has no `else` (either would be skipped with the failure on the re-run);
// - the try's one except clause catches the database error (bare, Exception, BaseException, sqlite3's Error, or
//   DatabaseError / OperationalError) and its body is only `pass`;
// - no other database call in the try body (the re-run's failure would not skip it, but it could be the one failing).
// - no database write after it runs under a test (an if/for/while around it, or one before it that can return or
//   raise) whose value may derive from a name bound before the try (a parameter but self/cls, a local) or from a
//   non-constant `self.`/`cls.` attribute: such a value was computed before the change (`cols` read before an ALTER)
//   and the re-run computes it the other way, skipping the write the crash left undone. A database read after the try
//   is fresh (the re-run reads the same). Not seen: a value kept elsewhere (a module global, another object) or a test
//   on the file's existence written as a call (`if not os.path.exists(path)` with `path` a global), as with IF NOT
//   EXISTS.
import type { Effect, SyntaxNode } from '../model.ts';
import { bindingSource, derivesFrom, guardTestsOf } from './guard-region.ts';

const CATCHES = /^(?:Exception|BaseException|(?:(?:sqlite3\.dbapi2|sqlite3|sqlite|dbapi2)\.)?(?:DatabaseError|OperationalError)|(?:sqlite3\.dbapi2|sqlite3|sqlite|dbapi2)\.Error)$/;

/** True when the DDL effect's call is the whole of a try whose handler ignores its failure (see above). */
export function failureSwallowedDdl(effect: Effect, effects: readonly Effect[], fnNode: SyntaxNode): boolean {
  if (effect.via) return false;
  let child: SyntaxNode = effect.node;
  for (let at = effect.node.parent; at && at.id !== fnNode.id; child = at, at = at.parent) {
    // A loop would stop at the re-run's first failure and skip the rest of it.
    if (['function_definition', 'lambda', 'class_definition', 'for_statement', 'while_statement'].includes(at.type)) return false;
    // In a block: the statement holding the call must be the block's last.
    if (at.type === 'block' && at.namedChildren.filter((statement) => statement.type !== 'comment').at(-1)?.id !== child.id) return false;
    if (at.type !== 'try_statement') continue;
    const body = at.childForFieldName('body');
    if (body?.id !== child.id) return false;
    const clauses = at.namedChildren;
    if (clauses.some((clause) => clause.type === 'else_clause')) return false;
    // One handler: with several, an earlier one may catch the error first and do something else (re-raise).
    const handlers = clauses.filter((clause) => clause.type === 'except_clause' || clause.type === 'except_group_clause');
    if (handlers.length !== 1 || handlers[0]!.type !== 'except_clause' || !swallows(handlers[0]!)) return false;
    const others = effects.filter((other) => other !== effect && other.kind.startsWith('db-') && body.startIndex <= other.node.startIndex && other.node.endIndex <= body.endIndex);
    return others.length === 0 && laterWritesUnconditionedOnEarlier(at, effect, effects, fnNode);
  }
  return false;
}

/** `except:` / `except Exception:` / `except sqlite3.OperationalError as e:` with `pass` as its whole body. */
function swallows(clause: SyntaxNode): boolean {
  const block = clause.namedChildren.find((child) => child.type === 'block');
  if (!block || block.namedChildren.length !== 1 || block.namedChildren[0]!.type !== 'pass_statement') return false;
  const caught = clause.namedChildren.filter((child) => child.id !== block.id);
  if (caught.length === 0) return true;
  if (caught.length !== 1) return false;
  const type = caught[0]!.type === 'as_pattern' ? caught[0]!.namedChildren[0] : caught[0];
  return type !== undefined && CATCHES.test(type.text.replace(/\s+/g, ''));
}

const CONSTANT = /^_*[A-Z][A-Z0-9_]*$/;

/** No later write depends on a test derived from a value bound before the try (see above). */
function laterWritesUnconditionedOnEarlier(tryNode: SyntaxNode, ddl: Effect, effects: readonly Effect[], fnNode: SyntaxNode): boolean {
  const parameters = fnNode.childForFieldName('parameters');
  const earlier = new Set<string>();
  for (const use of fnNode.descendantsOfType('identifier')) {
    if (use.startIndex >= tryNode.startIndex || use.text === 'self' || use.text === 'cls') continue;
    const inParameters = parameters !== null && parameters.startIndex <= use.startIndex && use.endIndex <= parameters.endIndex;
    if (inParameters || bindingSource(use) !== undefined) earlier.add(use.text);
  }
  const source = (node: SyntaxNode): boolean => {
    if (node.type !== 'attribute') return false;
    const object = node.childForFieldName('object');
    const name = node.childForFieldName('attribute')?.text ?? '';
    // `self.db.execute(...)`: the callee of a call is the method, not a kept value.
    if (node.parent?.type === 'call' && node.parent.childForFieldName('function')?.id === node.id) return false;
    return object?.type === 'identifier' && (object.text === 'self' || object.text === 'cls') && !CONSTANT.test(name);
  };
  const derives = derivesFrom(fnNode, source, (name) => earlier.has(name));
  const at = effects.indexOf(ddl);
  return effects
    .slice(at + 1)
    .filter((later) => ['db-write', 'db-ddl', 'db-script'].includes(later.kind))
    .every((later) => !guardTestsOf(later.node, fnNode).some(derives));
}
