// Every assignment in a module to an attribute (`x.attr = value`, `a, x.attr = pair`) and to an item
// of one (`x.attr[key] = value`), by attribute name, found once per module. A chained assignment
// (`self._dbs[k] = db = SqliteDb(...)`) is listed with the whole chain's right-hand value.
import type { PyModule, SyntaxNode } from './model.ts';
import { memoizePer } from './memo.ts';

export interface AttributeAssignment {
  /** `x.attr`, or the subscript `x.attr[key]` for an item assignment. */
  target: SyntaxNode;
  value: SyntaxNode;
  /** The target's place in an unpacking (`a, self.conn = pair`). */
  position?: number;
  augmented: boolean;
}

export interface AttributeAssignments {
  /** `x.attr = ...` (and `x.attr += ...`). */
  whole: Map<string, AttributeAssignment[]>;
  /** `x.attr[key] = ...`. */
  items: Map<string, AttributeAssignment[]>;
}

export const attributeAssignments = memoizePer((module: PyModule): AttributeAssignments => {
  const whole = new Map<string, AttributeAssignment[]>();
  const items = new Map<string, AttributeAssignment[]>();
  const add = (index: Map<string, AttributeAssignment[]>, name: string, entry: AttributeAssignment): void => {
    const list = index.get(name);
    if (list) list.push(entry);
    else index.set(name, [entry]);
  };
  for (const assignment of module.tree.rootNode.descendantsOfType(['assignment', 'augmented_assignment'])) {
    const left = assignment.childForFieldName('left');
    let value = assignment.childForFieldName('right');
    if (!left || !value) continue;
    while (value.type === 'assignment' && value.childForFieldName('right')) value = value.childForFieldName('right')!;
    const augmented = assignment.type === 'augmented_assignment';
    const targets = left.type === 'pattern_list' || left.type === 'tuple_pattern' ? left.namedChildren : [left];
    targets.forEach((target, index) => {
      const entry: AttributeAssignment = { target, value: value!, augmented };
      if (targets.length > 1 || target !== left) entry.position = index;
      if (target.type === 'attribute') add(whole, target.childForFieldName('attribute')?.text ?? '', entry);
      const container = target.type === 'subscript' ? target.childForFieldName('value') : null;
      if (container?.type === 'attribute') add(items, container.childForFieldName('attribute')?.text ?? '', entry);
    });
  }
  return { whole, items };
});
