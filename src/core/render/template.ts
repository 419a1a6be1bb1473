import { TEMPLATES, type TemplateName } from './templates.generated.ts';

/** Fills `{{name}}` placeholders; unknown ones become empty, and runs of blank lines collapse. */
export function fill(name: TemplateName, values: Record<string, string | number | undefined>): string {
  return TEMPLATES[name]
    .replace(/\{\{(\w+)\}\}/g, (_, key: string) => String(values[key] ?? ''))
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

export function escapeCell(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
