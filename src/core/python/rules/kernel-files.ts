// A write to a kernel interface under /proc (bleachbit's make_self_oom_target_linux writes
// /proc/<pid>/oom_score_adj): not stored contents. Opening it 'w' truncates nothing a later
// run reads, and a crash leaves nothing torn on disk.
// Recognised: a path spelled out in full, `/proc/sys/...` or `/proc/<pid or self>/<file>`, the
// pid alone left to a placeholder (`'/proc/%d/oom_score_adj' % os.getpid()`, str.format or an
// f-string), or a name every binding of which in the function is such a path (not a parameter).
// Not the per-process links to stored files (cwd, root, fd, map_files, exe, task, and `..`),
// which a third reading showed resolve to ordinary files; not /sys, where some files are stored
// (an nvmem or EEPROM device, written a page at a time); not a path with any other placeholder.
import type { SyntaxNode } from '../model.ts';
import { callParts } from '../body-walk.ts';
import { enclosingFunctionNode } from '../functions.ts';
import { literalText, unparenthesized } from './syntax.ts';
import { binds, parameterNames } from './exclusive-guards.ts';

/** `{}` marks the pid placeholder once the template is read out of a literal. */
const KERNEL_FILE = /^\/proc\/(sys\/[\w.\/-]+|(self|\d+|\{\})\/(?!(cwd|root|fd|fdinfo|map_files|exe|task|cwd)(\/|$))[\w.-]+(\/[\w.-]+)*)$/;

export function isKernelPseudoFile(path: SyntaxNode): boolean {
  const node = unparenthesized(path);
  if (node.type !== 'identifier') return isKernelPath(node);
  const fn = enclosingFunctionNode(node);
  const body = fn?.childForFieldName('body');
  if (!fn || !body || parameterNames(fn).has(node.text)) return false;
  const bindings = body.descendantsOfType('identifier').filter((identifier) => identifier.text === node.text && binds(identifier));
  return bindings.length > 0 && bindings.every((identifier) => {
    const assignment = identifier.parent;
    const value = assignment?.type === 'assignment' && assignment.childForFieldName('left')?.id === identifier.id ? assignment.childForFieldName('right') : null;
    return value !== null && isKernelPath(value);
  });
}

function isKernelPath(expression: SyntaxNode): boolean {
  const template = templateOf(unparenthesized(expression));
  return template !== undefined && !template.includes('..') && KERNEL_FILE.test(template);
}

/** The path's text with each placeholder as `{}`: a plain literal, `'...%d...' % x`, `'...{}...'.format(x)` or an f-string. */
function templateOf(node: SyntaxNode): string | undefined {
  if (node.type === 'string') {
    const interpolations = node.descendantsOfType('interpolation');
    if (interpolations.length === 0) return literalText(node);
    let text = '';
    for (const child of node.namedChildren) {
      if (child.type === 'string_content') text += child.text;
      else if (child.type === 'interpolation') text += '{}';
    }
    return text;
  }
  if (node.type === 'binary_operator' && node.childForFieldName('operator')?.text === '%') {
    const left = node.childForFieldName('left');
    return left?.type === 'string' && left.descendantsOfType('interpolation').length === 0 ? literalText(left).replace(/%[ds]/g, '{}') : undefined;
  }
  if (node.type === 'call') {
    const call = callParts(node);
    const receiver = call.receiver;
    return call.method === 'format' && receiver?.type === 'string' && receiver.descendantsOfType('interpolation').length === 0 ? literalText(receiver).replace(/\{[^}]*\}/g, '{}') : undefined;
  }
  return undefined;
}
