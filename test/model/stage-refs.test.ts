import fc from 'fast-check';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  checkStageRefs,
  findStageRefs,
  refValue,
  resolveStageRefs,
  substitute,
  type StageResults,
} from '../../src/model/stage-refs.js';

const succeeded = (tasks: Array<Record<string, string>>): StageResults => ({
  state: 'SUCCEEDED',
  tasks: new Map(tasks.map((t, i) => [i, t])),
});

describe('stage references', () => {
  it('a reference in a one-string command (sh -c SCRIPT) is refused at `command`, as written', () => {
    const parts = { command: ['sh', '-c', 'python x.py ${stages.prep.result.x}'] };
    expect(() => checkStageRefs('train', parts, [], true)).toThrow(
      'stages.train.command: ${stages.prep.result.x}: stage "prep" is not in needs (needs: none)',
    );
    expect(() => checkStageRefs('train', parts, [])).toThrow(/^stages\.train\.command\[2\]: /);
    expect(() => checkStageRefs('train', { command: ['sh', '-c', 'echo ${stages.x'] }, [], true)).toThrow(
      /^stages\.train\.command: malformed reference/,
    );
  });

  it('finds stage-wide and per-task references, and skips escaped ones', () => {
    expect(
      findStageRefs(
        'run ${stages.train.result.checkpoint} --m ${stages.eval.task-3.result.eval.loss} $${stages.x.result.y}',
      ),
    ).toEqual([
      { text: '${stages.train.result.checkpoint}', stage: 'train', task: null, key: 'checkpoint' },
      { text: '${stages.eval.task-3.result.eval.loss}', stage: 'eval', task: 3, key: 'eval.loss' },
    ]);
  });

  it('refuses a malformed reference with its field', () => {
    expect(() => findStageRefs('${stages.train.checkpoint}', 'stages.eval.command[1]')).toThrow(
      'stages.eval.command[1]: malformed reference ${stages.train.checkpoint}',
    );
  });

  it('refuses at submit a reference to a stage not in needs, naming the field', () => {
    expect(() =>
      checkStageRefs('eval', { command: ['x'], env: { CKPT: '${stages.trian.result.c}' } }, ['train']),
    ).toThrow('stages.eval.env.CKPT: ${stages.trian.result.c}: stage "trian" is not in needs (needs: train)');
    expect(checkStageRefs('eval', { command: ['${stages.train.result.c}'] }, ['train'])).toHaveLength(1);
  });

  it("a stage-wide value is task-0's, else the one value the tasks agree on", () => {
    const ref = findStageRefs('${stages.t.result.k}')[0]!;
    expect(refValue(ref, succeeded([{ k: 'a' }, { k: 'b' }]))).toEqual({ kind: 'value', value: 'a' });
    expect(refValue(ref, succeeded([{}, { k: 'b' }, { k: 'b' }]))).toEqual({ kind: 'value', value: 'b' });
    expect(refValue(ref, succeeded([{}, { k: 'b' }, { k: 'c' }]))).toMatchObject({
      kind: 'never',
      reason: expect.stringContaining('different values of k'),
    });
    expect(refValue(ref, succeeded([{}]))).toEqual({
      kind: 'never',
      reason: 'stage_reference_failed: stage t succeeded without result k',
    });
    expect(refValue(ref, { state: 'RUNNING', tasks: new Map() })).toEqual({
      kind: 'pending',
      reason: 'stage_reference_pending: stage t is RUNNING',
    });
    expect(refValue(ref, { state: 'FAILED', tasks: new Map() })).toMatchObject({ kind: 'never' });
    const one = findStageRefs('${stages.t.task-1.result.k}')[0]!;
    expect(refValue(one, succeeded([{ k: 'a' }, { k: 'b' }]))).toEqual({ kind: 'value', value: 'b' });
    expect(refValue(one, succeeded([{ k: 'a' }]))).toEqual({
      kind: 'never',
      reason: 'stage_reference_failed: stage t task-1 succeeded without result k',
    });
  });

  it('resolves command, env and image together, or gives the first reason', () => {
    const results = (stage: string) => (stage === 'train' ? succeeded([{ ckpt: '/c/1', img: 'py:3' }]) : undefined);
    expect(
      resolveStageRefs(
        {
          command: ['eval', '--ckpt=${stages.train.result.ckpt}', '$${HOME}'],
          env: { C: '${stages.train.task-0.result.ckpt}' },
          image: '${stages.train.result.img}',
        },
        results,
      ),
    ).toEqual({
      kind: 'resolved',
      parts: { command: ['eval', '--ckpt=/c/1', '${HOME}'], env: { C: '/c/1' }, image: 'py:3' },
    });
    expect(resolveStageRefs({ command: ['${stages.train.result.nope}'], env: {}, image: null }, results)).toEqual({
      kind: 'never',
      reason: 'stage_reference_failed: stage train succeeded without result nope',
    });
  });

  // Any text without `${` or `$$` comes back as it was; a reference to any value is replaced by
  // exactly that value, whatever characters the value holds (no re-expansion).
  it('property: substitution replaces references by their values and leaves other text alone', () => {
    const plain = fc.string().filter((s) => !s.includes('${') && !s.includes('$$'));
    // A `$` just before a reference escapes it (`$${`), so the text before one does not end in `$`.
    fc.assert(
      fc.property(
        plain.filter((s) => !s.endsWith('$')),
        plain,
        fc.string(),
        (before, after, value) => {
          expect(substitute(before, () => ({ kind: 'value', value: 'X' }))).toEqual({ kind: 'value', value: before });
          const text = `${before}\${stages.s.result.k}${after}`;
          const got = substitute(text, (ref) =>
            ref.stage === 's' && ref.key === 'k' ? { kind: 'value', value } : { kind: 'never', reason: 'no' },
          );
          expect(got).toEqual({ kind: 'value', value: `${before}${value}${after}` });
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('a value is data, never code', () => {
  const results = (value: string) => (stage: string) =>
    stage === 'up' ? succeeded([{ score: value, other: 'o' }]) : undefined;

  it(
    'passes a reference in a shell script as an environment variable; argv elements and env values get the ' + 'value',
    () => {
      const payload = '0.9; id > /tmp/x';
      const got = resolveStageRefs(
        {
          command: [
            'sh',
            '-c',
            'echo score=${stages.up.result.score} ${stages.up.result.other} "${stages.up.result.score}"',
            'name',
            '${stages.up.result.score}',
          ],
          env: { S: '${stages.up.result.score}' },
          image: null,
        },
        results(payload),
      );
      expect(got).toEqual({
        kind: 'resolved',
        parts: {
          command: ['sh', '-c', 'echo score=${IRIS_REF_0} ${IRIS_REF_1} "${IRIS_REF_0}"', 'name', payload],
          env: { S: payload, IRIS_REF_0: payload, IRIS_REF_1: 'o' },
          image: null,
        },
      });
    },
  );

  it('a reference that cannot resolve in a script still gives its reason', () => {
    expect(
      resolveStageRefs({ command: ['sh', '-c', 'echo ${stages.up.result.nope}'], env: {}, image: null }, results('v')),
    ).toEqual({ kind: 'never', reason: 'stage_reference_failed: stage up succeeded without result nope' });
  });

  it('the real shell prints any value verbatim and runs none of it (property)', () => {
    // Text rich in what a shell treats specially, and any other character but NUL (which
    // neither argv nor the environment can hold).
    const special = fc.constantFrom(
      ...'\'"$`;|&()<>\\ \n\t*?[]{}~#!=%'.split(''),
      '$(id)',
      '`id`',
      '${HOME}',
      "'; id; '",
    );
    const piece = fc.oneof(special, fc.string({ unit: 'binary', maxLength: 3 }));
    const value = fc.array(piece, { maxLength: 12 }).map((parts) => parts.join('').replaceAll('\0', ''));
    // Many values per shell run: one process per property run, not per value.
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 30 }), (values) => {
        const script = values
          .map((_, i) => `printf '%s\\0' "\${stages.up.result.k${i}}"; : \${stages.up.result.k${i}}`)
          .join('\n');
        const published = Object.fromEntries(values.map((v, i) => [`k${i}`, v]));
        const got = resolveStageRefs({ command: ['sh', '-c', script], env: {}, image: null }, (stage) =>
          stage === 'up' ? succeeded([published]) : undefined,
        );
        if (got.kind !== 'resolved') throw new Error(got.reason);
        const [file, ...args] = got.parts.command;
        const out = execFileSync(file!, args, {
          env: { PATH: process.env.PATH, ...got.parts.env },
          encoding: 'utf8',
          cwd: '/',
        });
        expect(out.split('\0').slice(0, -1)).toEqual(values);
      }),
      { numRuns: 8 },
    );
  });
});
