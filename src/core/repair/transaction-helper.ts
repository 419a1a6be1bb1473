// The one small helper every transaction repair uses, added once per module:
// BEGIN when no transaction is open, a SAVEPOINT when the caller holds one (so
// the function composes inside a caller's transaction), commit or roll back on
// every way out of the block. A class, so the module needs no new import.
import type { PyModule, SyntaxNode } from '../python/model.ts';
import { indentUnit, lineStart, type TextEdit } from './source-edit.ts';

export const TRANSACTION_HELPER = '_own_transaction';

export function transactionHelperSource(unit: string): string {
  const lines = [
    `class ${TRANSACTION_HELPER}:`,
    `    """All of the block's writes or none, in either sqlite3 mode: BEGIN when no`,
    `    transaction is open, a SAVEPOINT inside the caller's; commit or roll back on exit."""`,
    '',
    '    def __init__(self, conn):',
    '        self.conn = conn',
    '        self.savepoint = False',
    '',
    '    def __enter__(self):',
    '        self.savepoint = self.conn.in_transaction',
    '        self.conn.execute("SAVEPOINT own_transaction" if self.savepoint else "BEGIN IMMEDIATE")',
    '        return self.conn',
    '',
    '    def __exit__(self, exc_type, exc, tb):',
    '        if self.savepoint:',
    '            if exc_type is not None:',
    '                self.conn.execute("ROLLBACK TO own_transaction")',
    '            self.conn.execute("RELEASE own_transaction")',
    '        elif exc_type is None:',
    '            self.conn.commit()',
    '        else:',
    '            self.conn.rollback()',
    '        return False',
  ];
  return lines.map((line) => line.replace(/^((?: {4})+)/, (spaces) => unit.repeat(spaces.length / 4))).join('\n') + '\n';
}

/** True when the module already defines (or imports) the helper. */
export function definesHelper(module: PyModule): boolean {
  return module.tree.rootNode.namedChildren.some((s) => {
    if (s.type === 'class_definition' || s.type === 'function_definition') return s.childForFieldName('name')?.text === TRANSACTION_HELPER;
    if (s.type === 'import_from_statement') return s.text.includes(TRANSACTION_HELPER);
    return false;
  });
}

/** Inserts the helper just above the top-level statement holding `fnNode`, so that the repair stays one region of the file. */
export function helperInsertion(module: PyModule, fnNode: SyntaxNode): TextEdit | undefined {
  if (definesHelper(module)) return undefined;
  let top: SyntaxNode = fnNode;
  while (top.parent && top.parent.type !== 'module') top = top.parent;
  const at = lineStart(module.source, top.startIndex);
  const unit = indentUnit(module.tree.rootNode, module.source);
  return { start: at, end: at, text: `${transactionHelperSource(unit)}\n\n` };
}
