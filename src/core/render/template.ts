// The template engine for templates/*.md. Escapes by default, as good template
// engines do: in a template crashprobe posts (a comment, a check run, a job
// summary), a plain string value is made inert (src/core/render/inert.ts);
// markdown crashprobe already rendered, from inert parts, goes in as raw(...).
// The LLM prompt templates below are never posted: their values (source code,
// schemas, context) are inserted as they are, since escaping would corrupt them.
import { inertCell, inertText } from './inert.ts';
import { TEMPLATES, type TemplateName } from './templates.generated.ts';

/** Templates that are LLM prompts, filled verbatim; every other template is posted and escapes its values. */
export const PROMPT_TEMPLATES: ReadonlySet<TemplateName> = new Set<TemplateName>(['audit-pass', 'context-document', 'duplicate-judge', 'repair']);

const RAW = Symbol('raw markdown');

/** Markdown crashprobe rendered itself, from inert parts: inserted into a posted template as it is. */
export interface Raw {
  readonly [RAW]: string;
}

export function raw(markdown: string): Raw {
  return { [RAW]: markdown };
}

function isRaw(value: unknown): value is Raw {
  return typeof value === 'object' && value !== null && RAW in value;
}

export type TemplateValue = string | number | Raw | undefined;

/** Fills `{{name}}` placeholders; unknown ones become empty, and runs of blank lines collapse. */
export function fill(name: TemplateName, values: Record<string, TemplateValue>): string {
  const verbatim = PROMPT_TEMPLATES.has(name);
  return TEMPLATES[name]
    .replace(/\{\{(\w+)\}\}/g, (_, key: string) => {
      const value = values[key];
      if (value === undefined) return '';
      if (isRaw(value)) return value[RAW];
      if (typeof value === 'number') return String(value);
      return verbatim ? value : inertText(value);
    })
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** @deprecated use inertCell from ./inert.ts (kept for callers written before it). */
export const escapeCell = (value: unknown): string => inertCell(value);
