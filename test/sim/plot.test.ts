import { describe, expect, it } from 'vitest';
import type { SimSample } from '../../src/sim/engine.js';
import { renderPlot } from '../../src/sim/plot.js';

/** Minimal XML well-formedness check: one root, balanced tags, quoted attributes, no raw & or <. */
function checkWellFormed(xml: string): void {
  const stack: string[] = [];
  let roots = 0;
  const token = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
  let match: RegExpExecArray | null;
  let at = 0;
  while (at < xml.length) {
    token.lastIndex = at;
    match = token.exec(xml);
    if (!match) throw new Error(`malformed XML near: ${xml.slice(at, at + 60)}`);
    at = token.lastIndex;
    const [, closing, name, , selfClosing, text] = match;
    if (text !== undefined) {
      if (/&(?!(lt|gt|amp|quot|apos);)/.test(text)) throw new Error(`raw & in text: ${text}`);
      continue;
    }
    if (closing) {
      if (stack.pop() !== name) throw new Error(`unbalanced </${name}>`);
    } else if (!selfClosing) {
      if (stack.length === 0) roots++;
      stack.push(name!);
    } else if (stack.length === 0) roots++;
  }
  expect(stack).toEqual([]);
  expect(roots).toBe(1);
}

const samples: SimSample[] = [
  { time: 100, queued: 0, runningTasks: 1, utilization: 0.5 },
  { time: 110, queued: 3, runningTasks: 2, utilization: 1 },
  { time: 150, queued: 7, runningTasks: 2, utilization: 1 },
  { time: 400, queued: 0, runningTasks: 0, utilization: 0 },
];

function points(svg: string, id: string): Array<[number, number]> {
  const match = new RegExp(`id="${id}-series"[^>]*points="([^"]*)"`).exec(svg);
  if (!match) throw new Error(`no ${id} series`);
  return match[1]!.split(' ').map((p) => p.split(',').map(Number) as [number, number]);
}

describe('renderPlot', () => {
  it('is well-formed SVG with a title, two panels, axes labels and both series', () => {
    const svg = renderPlot(samples, { title: 'lublin <easy> & co' });
    checkWellFormed(svg);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain('lublin &lt;easy&gt; &amp; co');
    expect(svg).toContain('id="queue-panel"');
    expect(svg).toContain('id="utilization-panel"');
    expect(svg).toContain('>queued jobs<');
    expect(svg).toContain('>utilization<');
    expect(svg).toContain('>100%<');
    expect(svg).toContain('time since the first submission (minutes)');
  });

  it('draws the series values at the right heights (queue max 7 -> axis to 8)', () => {
    const svg = renderPlot(samples, { title: 't', width: 960, height: 560 });
    const queue = points(svg, 'queue');
    const ys = queue.map(([, y]) => y);
    // Panel: top 48, height (560-48-52-44)/2 = 208; axis max 8 (ticks 0,2,...,8).
    const yOf = (v: number) => 48 + 208 - (v / 8) * 208;
    expect(Math.min(...ys)).toBeCloseTo(yOf(7), 1);
    expect(Math.max(...ys)).toBeCloseTo(yOf(0), 1);
    const xs = queue.map(([x]) => x);
    expect(Math.min(...xs)).toBeCloseTo(70, 1);
    expect(Math.max(...xs)).toBeCloseTo(960 - 24, 1);
    const util = points(svg, 'utilization').map(([, y]) => y);
    const top2 = 48 + 208 + 44;
    expect(Math.min(...util)).toBeCloseTo(top2, 1);
    expect(Math.max(...util)).toBeCloseTo(top2 + 208, 1);
  });

  it('reduces a long run to a bounded number of points without losing the peak', () => {
    const many: SimSample[] = [];
    for (let i = 0; i < 100_000; i++)
      many.push({ time: i, queued: i === 54_321 ? 500 : i % 7, runningTasks: 0, utilization: (i % 10) / 10 });
    const svg = renderPlot(many, { title: 'long' });
    checkWellFormed(svg);
    const queue = points(svg, 'queue');
    expect(queue.length).toBeLessThanOrEqual(4 * 2 * 960);
    expect(Math.min(...queue.map(([, y]) => y))).toBeCloseTo(48 + 208 - (500 / 500) * 208, 1);
    expect(svg.length).toBeLessThan(400_000);
  });

  it('handles no samples', () => {
    const svg = renderPlot([], { title: 'empty' });
    checkWellFormed(svg);
    expect(svg).not.toContain('-series');
  });
});
