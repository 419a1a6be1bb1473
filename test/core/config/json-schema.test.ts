import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configJsonSchema, configJsonSchemaText } from '../../../src/core/config/json-schema.ts';

const committed = readFileSync(new URL('../../../schema/crashprobe.schema.json', import.meta.url), 'utf8');

describe('published JSON Schema', () => {
  it('matches the zod schema (run `npm run schema` after changing src/core/config/schema.ts)', () => {
    expect(committed).toBe(configJsonSchemaText());
  });

  it('describes every top-level setting and refuses unknown ones', () => {
    const schema = configJsonSchema() as { properties: Record<string, { enum?: string[] }>; additionalProperties: boolean };
    expect(Object.keys(schema.properties).sort()).toEqual(['assume_autocommit', 'audit', 'drafts', 'fail_on', 'harness', 'max_inline_comments', 'paths', 'scenarios', 'windows_only']);
    expect(schema.properties.fail_on?.enum).toEqual(['unsafe', 'safe_by_accident', 'never']);
    expect(schema.additionalProperties).toBe(false);
  });
});
