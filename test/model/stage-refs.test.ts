import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkStageRefs, findStageRefs, refValue, resolveStageRefs, substitute, type StageResults } from '../../src/model/stage-refs.js';

const succeeded = (tasks: Array<Record<string, string>>): StageResults => ({ state: 'SUCCEEDED', tasks: new Map(tasks.map((t, i) => [i, t])) });

describe('stage references', () => {
  it('finds stage-wide and per-task references, and skips escaped ones', () => {
    expect(findStageRefs('run ${stages.train.result.checkpoint} --m ${stages.eval.task-3.result.eval.loss} $${stages.x.result.y}')).toEqual([
      { text: '${stages.train.result.checkpoint}', stage: 'train', task: null, key: 'checkpoint' },
      { text: '${stages.eval.task-3.result.eval.loss}', stage: 'eval', task: 3, key: 'eval.loss' },
    ]);
  });

  it('refuses a malformed reference with its field', () => {
    expect(() => findStageRefs('${stages.train.checkpoint}', 'stages.eval.command[1]')).toThrow('stages.eval.command[1]: malformed reference ${stages.train.checkpoint}');
  });

  it('refuses at submit a reference to a stage not in needs, naming the field', () => {
    expect(() => checkStageRefs('eval', { command: ['x'], env: { CKPT: '${stages.trian.result.c}' } }, ['train']))
      .toThrow('stages.eval.env.CKPT: ${stages.trian.result.c}: stage "trian" is not in needs (needs: train)');
    expect(checkStageRefs('eval', { command: ['${stages.train.result.c}'] }, ['train'])).toHaveLength(1);
  });

  it('a stage-wide value is task-0\'s, else the one value the tasks agree on', () => {
    const ref = findStageRefs('${stages.t.result.k}')[0]!;
    expect(refValue(ref, succeeded([{ k: 'a' }, { k: 'b' }]))).toEqual({ kind: 'value', value: 'a' });
    expect(refValue(ref, succeeded([{}, { k: 'b' }, { k: 'b' }]))).toEqual({ kind: 'value', value: 'b' });
    expect(refValue(ref, succeeded([{}, { k: 'b' }, { k: 'c' }]))).toMatchObject({ kind: 'never', reason: expect.stringContaining('different values of k') });
    expect(refValue(ref, succeeded([{}]))).toEqual({ kind: 'never', reason: 'stage_reference_pending: stage t succeeded without result k' });
    expect(refValue(ref, { state: 'RUNNING', tasks: new Map() })).toEqual({ kind: 'pending', reason: 'stage_reference_pending: stage t is RUNNING' });
    expect(refValue(ref, { state: 'FAILED', tasks: new Map() })).toMatchObject({ kind: 'never' });
    const one = findStageRefs('${stages.t.task-1.result.k}')[0]!;
    expect(refValue(one, succeeded([{ k: 'a' }, { k: 'b' }]))).toEqual({ kind: 'value', value: 'b' });
    expect(refValue(one, succeeded([{ k: 'a' }]))).toEqual({ kind: 'never', reason: 'stage_reference_pending: stage t task-1 succeeded without result k' });
  });

  it('resolves command, env and image together, or gives the first reason', () => {
    const results = (stage: string) => (stage === 'train' ? succeeded([{ ckpt: '/c/1', img: 'py:3' }]) : undefined);
    expect(resolveStageRefs({ command: ['eval', '--ckpt=${stages.train.result.ckpt}', '$${HOME}'], env: { C: '${stages.train.task-0.result.ckpt}' }, image: '${stages.train.result.img}' }, results))
      .toEqual({ kind: 'resolved', parts: { command: ['eval', '--ckpt=/c/1', '${HOME}'], env: { C: '/c/1' }, image: 'py:3' } });
    expect(resolveStageRefs({ command: ['${stages.train.result.nope}'], env: {}, image: null }, results))
      .toEqual({ kind: 'never', reason: 'stage_reference_pending: stage train succeeded without result nope' });
  });

  // Any text without `${` or `$$` comes back as it was; a reference to any value is replaced by
  // exactly that value, whatever characters the value holds (no re-expansion).
  it('property: substitution replaces references by their values and leaves other text alone', () => {
    const plain = fc.string().filter((s) => !s.includes('${') && !s.includes('$$'));
    // A `$` just before a reference escapes it (`$${`), so the text before one does not end in `$`.
    fc.assert(fc.property(plain.filter((s) => !s.endsWith('$')), plain, fc.string(), (before, after, value) => {
      expect(substitute(before, () => ({ kind: 'value', value: 'X' }))).toEqual({ kind: 'value', value: before });
      const text = `${before}\${stages.s.result.k}${after}`;
      const got = substitute(text, (ref) => (ref.stage === 's' && ref.key === 'k' ? { kind: 'value', value } : { kind: 'never', reason: 'no' }));
      expect(got).toEqual({ kind: 'value', value: `${before}${value}${after}` });
    }), { numRuns: 300 });
  });
});
