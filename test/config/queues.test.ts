import { describe, expect, it } from 'vitest';
import { messageOf, PROBE, SOURCE } from './probe.js';
import { validateConfig } from '../../src/config/index.js';

describe('config: queues', () => {
  it('no queues: null, the queue: block as before', () => {
    const config = validateConfig({ queue: { policy: 'fcfs' } }, SOURCE, PROBE);
    expect(config.queues).toBeNull();
    expect(config.queue.policy).toBe('fcfs');
  });

  it('reads each queue with its policy block, workers and job defaults, in config order', () => {
    const config = validateConfig(
      {
        queues: {
          gpu: { policy: 'fcfs', workers: 'pool=gpu', 'time-limit': '1h', priority: 'batch' },
          cpu: { policy: 'hybrid', depth: 8, 'reservation-depth': 2, workers: ['pool in (a,b)', 'zone'] },
        },
        'default-queue': 'cpu',
      },
      SOURCE,
      PROBE,
    );
    expect(config.queues!.defaultQueue).toBe('cpu');
    const [gpu, cpu] = config.queues!.queues;
    expect(gpu).toMatchObject({ name: 'gpu', policy: 'fcfs', depth: 32, timeLimitMs: 3_600_000, band: 'batch' });
    expect(gpu!.workers).toHaveLength(1);
    expect(cpu).toMatchObject({ name: 'cpu', policy: 'hybrid', depth: 8, reservationDepth: 2, band: null });
    expect(cpu!.workers).toHaveLength(2);
  });

  it('one queue is the default; of several, the one named default', () => {
    expect(validateConfig({ queues: { only: null } }, SOURCE, PROBE).queues!.defaultQueue).toBe('only');
    const two = validateConfig({ queues: { a: {}, default: {} } }, SOURCE, PROBE);
    expect(two.queues!.defaultQueue).toBe('default');
    expect(two.queues!.queues[0]!.policy).toBe('easy');
  });

  it('refuses bad configs naming the key', () => {
    expect(messageOf({ queues: { a: {}, b: {} } })).toMatch(/default-queue.*required with 2 queues/);
    expect(messageOf({ queues: { a: {} }, 'default-queue': 'b' })).toMatch(/default-queue.*"b" is not a queue/);
    expect(messageOf({ 'default-queue': 'a' })).toMatch(/default-queue needs queues/);
    expect(messageOf({ queue: { policy: 'easy' }, queues: { a: {} } })).toMatch(/queues.*not both/);
    expect(messageOf({ queues: { a: { policy: 'lifo' } } })).toMatch(/queues\.a\.policy/);
    expect(messageOf({ queues: { a: { workers: ['pool in ()'] } } })).toMatch(/queues\.a\.workers\[0\]/);
    expect(messageOf({ queues: { A_1: {} } })).toMatch(/invalid queue name "A_1"/);
    expect(messageOf({ queues: { a: { depth: 0 } } })).toMatch(/queues\.a\.depth/);
    expect(messageOf({ queues: { a: { 'reservation-depth': 5, 'max-reservation-depth': 2 } } })).toMatch(
      /queues\.a\.reservation-depth/,
    );
    expect(messageOf({ queues: {} })).toMatch(/names no queue/);
  });
});
