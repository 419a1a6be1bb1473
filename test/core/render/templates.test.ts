import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateTemplatesModule } from '../../../scripts/build-templates.ts';

describe('templates', () => {
  it('the generated module matches templates/*.md (run `npm run templates` after editing one)', () => {
    const committed = readFileSync(path.resolve(import.meta.dirname, '../../../src/core/render/templates.generated.ts'), 'utf8');
    expect(committed).toBe(generateTemplatesModule());
  });
});
