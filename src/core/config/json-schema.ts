// The published JSON Schema of `.github/crashprobe.yml`, generated from the zod
// schema so the two cannot drift (a test compares it with the committed file).
import { zodToJsonSchema } from 'zod-to-json-schema';
import { configSchema } from './schema.ts';

export function configJsonSchema(): Record<string, unknown> {
  const schema = zodToJsonSchema(configSchema, { target: 'jsonSchema7', $refStrategy: 'none' }) as Record<string, unknown>;
  return {
    $schema: schema.$schema,
    title: 'crashprobe configuration (.github/crashprobe.yml)',
    ...Object.fromEntries(Object.entries(schema).filter(([key]) => key !== '$schema')),
  };
}

export function configJsonSchemaText(): string {
  return JSON.stringify(configJsonSchema(), null, 2) + '\n';
}
