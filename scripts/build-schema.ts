// `npm run schema`: writes schema/crashprobe.schema.json from the zod config schema.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configJsonSchemaText } from '../src/core/config/json-schema.ts';

const target = fileURLToPath(new URL('../schema/crashprobe.schema.json', import.meta.url));
writeFileSync(target, configJsonSchemaText());
console.log(`wrote ${target}`);
