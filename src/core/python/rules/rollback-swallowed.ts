import type { Effect, SourceRange, SyntaxNode } from '../model.ts';
import { callParts } from '../body-walk.ts';
import { defineRule } from './rule.ts';
import { contains } from './syntax.ts';
import { resolveSameModuleHelper } from '../effects.ts';
import { onlyRaises, type NeverReturnsScope } from './never-returns.ts';

/** Handlers this broad catch the crash-like failures (a soft crash raises an ordinary error). */
const BROAD_EXCEPTIONS = /^(Exception|BaseException|(sqlite3\.)?(Error|DatabaseError|OperationalError))$/;
const UNDO_CALL = /^_?(undo|revert|compensate|rollback)/i;

export const rollbackSwallowed = defineRule({
  meta: {
    id: 'rollback-swallowed',
    description: 'An except clause rolls back or undoes the work, then hides the error: nothing tells the caller to retry.',
    category: 'sqlite-transaction',
    severity: 'warning',
    messages: {
      rollbackSwallowed:
        'this handler {{undo}} and then swallows the error: the caller sees success, so the lost work is never retried',
    },
    hint: 'Re-raise after rolling back (a bare `raise`), or return a failure the caller must handle.',
  },
  create(context) {
    const check = (node: SyntaxNode): void => {
      if (!catchesBroadly(node)) return;
      const undo = undoIn(node, context.effects);
      if (!undo || signalsFailure(node)) return;
      // Rules see same-module helpers only (never-returns.ts says what that leaves out).
      if (handlerOnlyRaises(node, { fn: context.fn, module: context.module, resolveHelper: resolveSameModuleHelper })) return;
      context.report({
        node,
        range: headerRange(node),
        messageId: 'rollbackSwallowed',
        data: { undo: undo === 'rollback' ? 'rolls back' : `undoes the work (${undo})` },
      });
    };
    return { except_clause: check, except_group_clause: check };
  },
});

function catchesBroadly(clause: SyntaxNode): boolean {
  const caught = exceptionTypes(clause);
  return caught.length === 0 || caught.some((name) => BROAD_EXCEPTIONS.test(name));
}

/** The exception names of `except A:`, `except (A, B) as e:`; none for a bare `except:`. */
function exceptionTypes(clause: SyntaxNode): string[] {
  let value = clause.childForFieldName('value') ?? clause.namedChildren.find((child) => child.type !== 'block' && child.type !== 'comment') ?? null;
  if (value?.type === 'as_pattern') value = value.namedChildren[0] ?? null;
  if (!value) return [];
  const names = value.type === 'tuple' || value.type === 'parenthesized_expression' ? value.namedChildren : [value];
  return names.map((name) => name.text.replace(/\s+/g, ''));
}

/** 'rollback' for a rollback (call or SQL), the callee for an undo-named call, undefined for neither. */
function undoIn(clause: SyntaxNode, effects: readonly Effect[]): string | undefined {
  if (effects.some((effect) => effect.kind === 'db-rollback' && contains(clause, effect.node))) return 'rollback';
  let undo: string | undefined;
  for (const call of clause.descendantsOfType('call')) {
    const parts = callParts(call);
    if (UNDO_CALL.test(parts.method)) undo ??= `${parts.callee}()`;
  }
  return undo;
}

/** A raise anywhere in the handler, or a `return <value>` that is not None. */
function signalsFailure(clause: SyntaxNode): boolean {
  if (clause.descendantsOfType('raise_statement').length > 0) return true;
  return clause.descendantsOfType('return_statement').some((statement) => {
    const value = statement.namedChildren[0];
    return value !== undefined && value.type !== 'none';
  });
}

/** `except: rollback_and_reraise(sys.exc_info())`: every path of the handler ends in an exception, so nothing is hidden. */
function handlerOnlyRaises(clause: SyntaxNode, scope: NeverReturnsScope): boolean {
  const block = clause.namedChildren.find((child) => child.type === 'block');
  return block !== undefined && onlyRaises(block, scope);
}

/** `except Exception as e:`, up to the colon: the body is not the finding. */
function headerRange(clause: SyntaxNode): SourceRange {
  const colon = clause.children.find((child) => child.type === ':');
  const end = colon ?? clause;
  return {
    startLine: clause.startPosition.row + 1,
    startColumn: clause.startPosition.column,
    endLine: end.endPosition.row + 1,
    endColumn: end.endPosition.column,
  };
}
