/** docs/api.md's request reference is the one the schemas render (regenerate: scripts/api-docs.js). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderRequestSchemas, replaceSchemaBlock } from '../../src/api/schema-docs.js';

const DOC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'api.md');

describe('docs/api.md', () => {
  it('holds the request schemas as they are (run `node scripts/api-docs.js` after a build when this fails)', () => {
    const doc = readFileSync(DOC, 'utf8');
    expect(replaceSchemaBlock(doc, renderRequestSchemas())).toBe(doc);
  });

  it('documents every submit field with its type', () => {
    const block = renderRequestSchemas();
    expect(block).toContain('| `command` | string[] | yes |');
    expect(block).toContain('| `replicas` | integer 1..10000 |');
    expect(block).toContain('| `maxPreemptions` | integer ≥ 0 |');
    expect(block).toContain('| `cpu` | number \\| string |');
  });
});
