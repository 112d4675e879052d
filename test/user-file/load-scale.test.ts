/**
 * Reading a YAML file with a mapping of many keys (a pipeline of N stages) does not compare each
 * key with every earlier key (src/user-file/load.ts). The work counted: the key comparisons the
 * YAML library makes (each goes through its `isScalar`, counted here), per key, at 1,000 and 4,000
 * stages; with its own duplicate-key check that was N²/2 (16 s of a 10,000-stage `iris submit -f`).
 * A duplicate key is still refused with its line (load.test.ts).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseUserText } from '../../src/user-file/load.js';

const require = createRequire(import.meta.url);
// The library's own module (CommonJS, the one the reader loads): its duplicate check calls isScalar.
const identity = require(path.join(path.dirname(require.resolve('yaml')), 'nodes', 'identity.js')) as {
  isScalar: (node: unknown) => boolean;
};
const original = identity.isScalar;
let calls = 0;

beforeEach(() => {
  calls = 0;
  identity.isScalar = (node) => {
    calls++;
    return original(node);
  };
});
afterEach(() => {
  identity.isScalar = original;
});

function pipelineText(n: number): string {
  const lines = ['name: p', 'stages:'];
  for (let i = 0; i < n; i++)
    lines.push(`  s${i}:`, '    command: "true"', ...(i > 0 ? [`    needs: [s${i - 1}]`] : []));
  return lines.join('\n');
}

describe('a YAML mapping of many keys', () => {
  it('is read with a bounded number of key comparisons per key at 1,000 and 4,000 stages', () => {
    for (const n of [1_000, 4_000]) {
      calls = 0;
      const data = parseUserText(pipelineText(n), 'p.yaml', 'yaml') as { stages: Record<string, unknown> };
      expect(Object.keys(data.stages).length).toBe(n);
      expect(calls / n).toBeLessThanOrEqual(20);
    }
  });

  it('still refuses a duplicate stage, naming its line', () => {
    const text = `${pipelineText(1_000)}\n  s10:\n    command: "true"\n`;
    expect(() => parseUserText(text, 'p.yaml', 'yaml')).toThrow(
      /^p\.yaml: invalid YAML: Map keys must be unique at line 3002, column 3/,
    );
  });
});
