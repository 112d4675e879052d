import { describe, expect, it } from 'vitest';
import { stickyParent, STICKY_KEY } from '../../src/model/stickiness.js';

describe('stickyParent: the stage a stage sticks to', () => {
  it('a command reference to a checkpoint, weights or adapter result sticks to its stage', () => {
    expect(stickyParent({ command: ['eval', '--ckpt', '${stages.train.result.checkpoint}'] })).toBe('train');
    expect(stickyParent({ command: ['x'], env: { W: '${stages.pre.task-1.result.model_weights}' } })).toBe('pre');
    expect(stickyParent({ command: ['x'], image: 'reg/${stages.ft.result.LoRA-Adapter}' })).toBe('ft');
  });

  it('the key matches case-insensitively anywhere in it', () => {
    for (const key of ['checkpoint', 'best_checkpoint', 'CHECKPOINT_DIR', 'Weights', 'adapter-path'])
      expect(STICKY_KEY.test(key)).toBe(true);
    for (const key of ['score', 'path', 'ckpt', 'weight']) expect(STICKY_KEY.test(key)).toBe(false);
  });

  it('other keys, escaped references and no references stick to nothing', () => {
    expect(stickyParent({ command: ['eval', '${stages.train.result.score}'] })).toBeNull();
    expect(stickyParent({ command: ['echo', '$${stages.train.result.checkpoint}'] })).toBeNull();
    expect(stickyParent({ command: ['echo', 'hi'], env: { A: 'b' }, image: null })).toBeNull();
  });

  it('the first qualifying reference wins: command, then env, then image', () => {
    expect(
      stickyParent({
        command: ['a', '${stages.b.result.score}', '${stages.c.result.checkpoint}'],
        env: { X: '${stages.d.result.weights}' },
      }),
    ).toBe('c');
    expect(
      stickyParent({ command: ['a'], env: { X: '${stages.d.result.weights}' }, image: '${stages.e.result.adapter}' }),
    ).toBe('d');
  });
});
