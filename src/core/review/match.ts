// Stage 5, matching: a static finding and a failing crash scenario in the same function are
// shown together, the scenario as proof; the separate crash finding then collapses
// into the static finding nearest the crash point. Identical fingerprints collapse.
import type { ReviewFinding } from '../model/review.ts';

export function matchFindings(findings: readonly ReviewFinding[]): ReviewFinding[] {
  const unique = new Map<string, ReviewFinding>();
  for (const f of findings) if (!unique.has(f.fingerprint)) unique.set(f.fingerprint, { ...f });
  const all = [...unique.values()];
  const crash = all.filter((f) => f.source === 'crash');
  const dropped = new Set<string>();
  for (const c of crash) {
    const line = c.range.startLine;
    const partners = all.filter((f) => f.source !== 'crash' && f.path === c.path && f.function === c.function);
    if (partners.length === 0) continue;
    const nearest = [...partners].sort((a, b) => Math.abs(a.range.startLine - line) - Math.abs(b.range.startLine - line))[0]!;
    nearest.confirmedBy = c.confirmedBy;
    nearest.severity = c.severity === 'error' || nearest.severity === 'error' ? 'error' : 'warning';
    nearest.message = `${nearest.message.replace(/[.\s]*$/, '.')} **Crash-tested:** ${c.message}`;
    dropped.add(c.fingerprint);
  }
  return all.filter((f) => !dropped.has(f.fingerprint));
}
