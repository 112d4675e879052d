import { describe, expect, it } from 'vitest';
import type { QueueEntry, QueueInfo } from '../../src/api/types.js';
import { onlyQueue, renderQueue } from '../../src/ui/queue.js';
import { refusal } from '../helpers/refusal.js';

const entry = (position: number, job: string, queue?: string): QueueEntry => ({
  position,
  job,
  user: 'bob',
  band: 'interactive',
  ...(queue ? { queue } : {}),
  depth: 1,
  pendingTasks: 1,
  submittedAt: 0,
  timeLimitMs: 60_000,
  reason: 'waiting',
  reservedStart: null,
});
const named = (name: string, policy: string, isDefault = false) => ({
  name,
  policy,
  queueDepth: 32,
  reservationDepth: 64,
  workers: `pool=${name}`,
  default: isDefault,
});

describe('iris queue with named queues', () => {
  const info: QueueInfo = {
    policy: 'easy',
    queueDepth: 32,
    reservationDepth: 64,
    jobs: [entry(1, '/a', 'gpu'), entry(2, '/b', 'cpu'), entry(3, '/c', 'gpu')],
    queues: [named('gpu', 'easy', true), named('cpu', 'fcfs')],
  };

  it('lists the jobs under a heading per queue, in config order', () => {
    const text = renderQueue(info, 0);
    expect(text).toMatch(/^queue gpu: policy easy, queue depth 32, workers pool=gpu \(default\)\n/);
    const [gpu, cpu] = text.split('\n\n');
    expect(gpu).toMatch(/\/a[\s\S]*\/c/);
    expect(gpu).not.toMatch(/\/b/);
    expect(cpu).toMatch(/^queue cpu: policy fcfs, queue depth 32, workers pool=cpu\n[\s\S]*\/b/);
  });

  it('one queue reads as before; --queue keeps one queue and refuses an unknown name', () => {
    const single: QueueInfo = { ...info, jobs: [entry(1, '/a')], queues: undefined };
    expect(renderQueue(single, 0)).toMatch(/^policy easy, queue depth 32\n#/);
    const gpu = onlyQueue(info, 'gpu');
    expect(gpu.jobs.map((j) => j.job)).toEqual(['/a', '/c']);
    expect(renderQueue(gpu, 0, true)).toMatch(/^queue gpu: /);
    expect(refusal(() => onlyQueue(info, 'gpus')).hint).toBe('did you mean --queue gpu?');
  });
});
