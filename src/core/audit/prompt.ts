// One pass's prompt from templates/audit-pass.md: the context document, the
// target files with line numbers, the changed lines, the call-graph excerpt and
// the partner snippets the planner chose.
import type { RepoIndex } from '../python/callgraph.ts';
import { fill } from '../render/template.ts';
import { FINDINGS_JSON_SCHEMA } from './findings.ts';
import type { AuditPass, PartnerRef } from './planner.ts';

export function numbered(source: string, from = 1): string {
  const lines = source.split('\n');
  const width = String(from + lines.length - 1).length;
  return lines.map((line, i) => `${String(from + i).padStart(width)} | ${line}`).join('\n');
}

/** `3-5, 9` from [3, 4, 5, 9]. */
export function lineRanges(lines: readonly number[]): string {
  const sorted = [...new Set(lines)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(sorted[i] === sorted[j] ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(', ');
}

function snippet(index: RepoIndex, ref: PartnerRef): string {
  const source = index.summaries.get(ref.path)?.source ?? '';
  const text = source.split('\n').slice(ref.startLine - 1, ref.endLine).join('\n');
  return `#### ${ref.path}:${ref.qualname} (lines ${ref.startLine}-${ref.endLine}, ${ref.resolution})\n\`\`\`python\n${numbered(text, ref.startLine)}\n\`\`\``;
}

export function passPrompt(pass: AuditPass, index: RepoIndex, context: string, changedLines: ReadonlyMap<string, readonly number[]>): string {
  const changed = pass.files
    .map((f) => [f.path, changedLines.get(f.path) ?? []] as const)
    .filter(([, lines]) => lines.length)
    .map(([p, lines]) => `- ${p}: lines ${lineRanges(lines)}`);
  return fill('audit-pass', {
    context,
    passId: pass.id,
    passKind: pass.kind === 'own' ? 'a file with a pass of its own' : `a batch of ${pass.files.length} file(s) in ${pass.directory}`,
    targetList: pass.files.map((f) => `- ${f.path} (${f.lines} lines)`).join('\n'),
    changedLines: changed.length ? `The pull request changed these lines; look hardest at them and at what they affect:\n${changed.join('\n')}` : '',
    targets: pass.files.map((f) => `### ${f.path}\n\`\`\`python\n${numbered(index.summaries.get(f.path)?.source ?? '')}\n\`\`\``).join('\n\n'),
    callGraph: pass.calls.map((c) => `- ${c.from} → ${c.to} [${c.resolution}]`).join('\n') || '(no resolved calls to or from other files)',
    callers: pass.callers.map((ref) => snippet(index, ref)).join('\n\n') || '(none)',
    callees: pass.callees.map((ref) => snippet(index, ref)).join('\n\n') || '(none)',
    schema: JSON.stringify(FINDINGS_JSON_SCHEMA.schema, null, 2),
  });
}
