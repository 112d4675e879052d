/**
 * Settling what an earlier life left running (recovery.ts) cannot stop the start: an attempt whose
 * settling throws has its change undone and its job quarantined; the others are settled.
 */
import { describe, expect, it } from 'vitest';
import { settleRecovered } from '../../../src/cluster/controller/recovery.js';
import { memStore, spec, start } from '../state/helpers.js';

describe('settleRecovered', () => {
  it('quarantines the job of an attempt whose settling throws, and settles the others', async () => {
    const { store } = memStore();
    for (const name of ['/ok', '/bad', '/again']) {
      store.submit(spec(name, { maxPreemptions: 1 }));
      start(store, `${name}/task-0`);
    }
    store.submit(spec('/next', { after: [{ job: '/bad', condition: 'ok' }] }));
    const leftovers = store.activeAttempts();
    const finish = store.finishAttempt.bind(store);
    store.finishAttempt = (task, attempt, outcome) => {
      if (task === '/bad/task-0') {
        finish(task, attempt, outcome); // a change that must be undone with the failure
        throw new Error('boom');
      }
      return finish(task, attempt, outcome);
    };
    const exit = { exitCode: 0, signal: null };
    const ended = ['/ok/task-0', '/bad/task-0'].map((task) => ({
      key: { job: task.slice(0, -7), task, attempt: 0 },
      exit,
    }));
    await settleRecovered(store, ended, leftovers);
    expect(store.job('/ok')!.state).toBe('SUCCEEDED');
    expect(store.job('/bad')).toMatchObject({
      state: 'FAILED',
      reason: 'quarantined at start-up: its recovery failed: boom',
    });
    expect(store.tasksOf('/bad')[0]).toMatchObject({
      state: 'KILLED',
      reason: 'quarantined at start-up: its recovery failed: boom',
    });
    expect(store.job('/next')).toMatchObject({ state: 'FAILED', reason: 'dependency /bad failed' });
    expect(store.tasksOf('/again')[0]).toMatchObject({
      state: 'PENDING',
      attempt: 1,
      reason: 'requeued after preemption: cluster restarted',
    });
    expect(store.quarantined).toEqual([{ job: '/bad', problem: 'its recovery failed: boom' }]);
  });
});
