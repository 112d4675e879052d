import { describe, expect, it } from 'vitest';
import { escapeXml, niceTicks } from '../../src/plot/svg.js';

describe('svg primitives', () => {
  it('nice ticks and escaping', () => {
    expect(niceTicks(7)).toEqual([0, 2, 4, 6, 8]);
    expect(niceTicks(1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceTicks(0)).toEqual([0]);
    expect(escapeXml(`a<b>&"'`)).toBe('a&lt;b&gt;&amp;&quot;&apos;');
  });
});
