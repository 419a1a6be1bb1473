// `with` blocks that hold a transaction: where a manager's BEGIN and its
// COMMIT/ROLLBACK fall (the block's start and end), and managers known by their
// name alone. Used by effects.ts for a function's own calls and its helpers'.
import type { Effect, SyntaxNode } from './model.ts';

/** Effects in source order, a `with` manager's COMMIT/ROLLBACK moved to where its block ends. */
export function inBlockOrder(effects: Effect[], endsAt: ReadonlyMap<Effect, number>): Effect[] {
  if (endsAt.size === 0) return effects;
  const at = (effect: Effect): number => endsAt.get(effect) ?? effect.node.startIndex;
  return effects.map((effect, index) => ({ effect, index })).sort((a, b) => at(a.effect) - at(b.effect) || a.index - b.index).map(({ effect }) => effect);
}

/**
 * Context managers that are transactions by their name, on an object the analysis cannot follow:
 * `with db.atomic():` (sqlite-utils, peewee), `with conn.transaction():` (psycopg 3), Django's
 * `with transaction.atomic():`, SQLAlchemy's `with session.begin():`. A same-repository manager
 * is followed as a helper instead, so its own code decides.
 */
const TRANSACTION_MANAGERS = new Set(['atomic', 'transaction', 'transact', 'begin', 'begin_nested']);

/** The `with` block that `call` manages when it is a transaction manager by name on an object not of this class. */
export function transactionManagerBlock(call: SyntaxNode, callee: string, withItems: readonly SyntaxNode[]): SyntaxNode | undefined {
  // `self.transaction()` / `cls.atomic()` is the class's own method, followed as a helper by findEffects: its code decides.
  if (withItems.length === 0 || /^(self|cls)\s*\.\s*\w+$/.test(callee)) return undefined;
  const method = /\.\s*(\w+)\s*$/.exec(callee)?.[1];
  return method !== undefined && TRANSACTION_MANAGERS.has(method) ? managedBlock(call, withItems) : undefined;
}

/** withStatementManaging, asked only of calls inside one of the scope's `with` items (most calls are not). */
export function managedBlock(call: SyntaxNode, withItems: readonly SyntaxNode[]): SyntaxNode | undefined {
  const inItem = withItems.some((item) => item.startIndex <= call.startIndex && call.endIndex <= item.endIndex);
  return inItem ? withStatementManaging(call) : undefined;
}

/** The `with` statement whose item is this call (`with m() as x:` or `with m():`), if it is one. */
function withStatementManaging(call: SyntaxNode): SyntaxNode | undefined {
  let item = call.parent;
  if (item?.type === 'as_pattern') item = item.parent;
  if (item?.type !== 'with_item') return undefined;
  const statement = item.parent?.parent;
  return statement?.type === 'with_statement' ? statement : undefined;
}
