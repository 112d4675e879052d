#!/usr/bin/env node
// Renders the request schemas (src/api, built into dist/api) into the marked block of
// docs/api.md. Build first: node_modules/.bin/tsc -p tsconfig.build.json
// Usage: node scripts/api-docs.js [--check]   (--check: exit 1 when docs/api.md is stale)
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { renderRequestSchemas, replaceSchemaBlock } = await import(path.join(root, 'dist', 'api', 'schema-docs.js'));
const file = path.join(root, 'docs', 'api.md');
const before = readFileSync(file, 'utf8');
const after = replaceSchemaBlock(before, renderRequestSchemas());
if (process.argv.includes('--check')) {
  if (after !== before) {
    process.stderr.write('docs/api.md is out of date: run node scripts/api-docs.js\n');
    process.exit(1);
  }
} else if (after !== before) {
  writeFileSync(file, after);
  process.stdout.write('docs/api.md updated\n');
}
