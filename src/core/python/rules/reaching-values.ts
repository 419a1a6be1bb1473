// Which of a local name's values it may hold where it is used, by statement order: name-bindings.ts
// gives every value a name takes anywhere in its function, but `old_file = srt_file` after the read
// of old_file is not what was read (yt-dlp's FFmpegSubtitlesConvertorPP.run, where old_file is bound
// afresh from sub['filepath'] at the top of every iteration). A value bound before the use reaches it
// unless a plain assignment to the name that every path to the use runs (one in a block around the use)
// comes in between; one bound after the use reaches it only around a loop holding both, unless such an
// assignment within the innermost loop around the use comes first, or in a comprehension holding both. Partial, on the side of more values:
// an assignment on one arm of an `if`, a `with ... as` or a for loop's own target are never taken to
// end an earlier value.
import type { SyntaxNode } from '../model.ts';
import { walkFunctionBody } from '../body-walk.ts';
import { nameBindings } from './name-bindings.ts';
import { ancestorsWithin, contains } from './syntax-tree.ts';

const LOOPS = new Set(['for_statement', 'while_statement']);
const COMPREHENSIONS = new Set(['list_comprehension', 'set_comprehension', 'dictionary_comprehension', 'generator_expression']);

/** The values of the identifier `use` (name-bindings.ts) that it may hold where it is, in source order. */
export function reachingValues(use: SyntaxNode, fnNode: SyntaxNode): SyntaxNode[] {
  const values = nameBindings(fnNode).values.get(use.text) ?? [];
  const loops = ancestorsWithin(use, fnNode).filter((ancestor) => LOOPS.has(ancestor.type));
  const kills = (plainAssignments(fnNode).get(use.text) ?? []).filter((statement) => statement.endIndex <= use.startIndex && around(statement.parent, use));
  return values.filter((value) => {
    if (value.endIndex <= use.startIndex) return !kills.some((kill) => kill.startIndex >= value.endIndex);
    // `[open(p).read() for p in paths]`: a comprehension binds before its element runs, though written after it.
    if (ancestorsWithin(value, fnNode).some((ancestor) => COMPREHENSIONS.has(ancestor.type) && contains(ancestor, use))) return true;
    // Bound after the use: only a loop brings it back, through the start of the innermost loop around the use.
    const [innermost] = loops;
    return innermost !== undefined && loops.some((loop) => contains(loop, value)) && !kills.some((kill) => contains(innermost, kill));
  });
}

function around(block: SyntaxNode | null, use: SyntaxNode): boolean {
  return block !== null && (block.type === 'block' || block.type === 'module') && contains(block, use);
}

const cache = new WeakMap<SyntaxNode, Map<string, SyntaxNode[]>>();

/** `name = value` (`a = b = value` too) as a statement of its own, by the names it binds whole: assignments that always bind. */
function plainAssignments(fnNode: SyntaxNode): Map<string, SyntaxNode[]> {
  let byName = cache.get(fnNode);
  if (byName) return byName;
  byName = new Map();
  cache.set(fnNode, byName);
  const found = byName;
  walkFunctionBody(fnNode, (node) => {
    if (node.type !== 'expression_statement') return;
    for (let assignment = node.namedChildren[0]; assignment?.type === 'assignment'; assignment = assignment.childForFieldName('right') ?? undefined) {
      const left = assignment.childForFieldName('left');
      if (left?.type !== 'identifier' || !assignment.childForFieldName('right')) continue;
      const known = found.get(left.text);
      if (known) known.push(node);
      else found.set(left.text, [node]);
    }
  });
  return byName;
}
