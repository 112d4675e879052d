import { describe, expect, it } from 'vitest';
import { instantMark, renderInstants } from '../../src/model/reason-instants.js';

describe('instants inside reason texts', () => {
  it('a reason carries the instant as data: the number in a placeholder', () => {
    expect(instantMark(1_735_725_780_000)).toBe('<t:1735725780000>');
    expect(instantMark(120.5)).toBe('<t:120.5>');
  });

  it("renders each placeholder with the reader's style, and leaves other text as it is", () => {
    const text = `delay /a at ${instantMark(5)}; reserved to start at ${instantMark(7)}`;
    expect(renderInstants(text, (t) => `[${t}]`)).toBe('delay /a at [5]; reserved to start at [7]');
    const plain = 'need 4 CPU, largest free worker has 0';
    expect(renderInstants(plain, String)).toBe(plain);
    expect(renderInstants('a <t:x> b <t:> <t:1', String)).toBe('a <t:x> b <t:> <t:1');
  });

  it('a number that is no instant is written as text, and a placeholder holding one is left alone', () => {
    expect(instantMark(Infinity)).toBe('Infinity');
    expect(instantMark(1e300)).toBe('1e+300');
    expect(instantMark(NaN)).toBe('NaN');
    expect(renderInstants('at <t:99999999999999999999>', () => 'rendered')).toBe('at <t:99999999999999999999>');
  });
});
