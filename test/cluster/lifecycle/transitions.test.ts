import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IrisError } from '../../../src/model/errors.js';
import {
  FAILURE_STATES,
  JOB_STATES,
  TASK_STATES,
  isFailureState,
  isFinalJobState,
  isFinalTaskState,
  parseJobStates,
  TASK_TRANSITIONS,
  JOB_TRANSITIONS,
  type JobState,
  type TaskState,
} from '../../../src/model/states.js';
import {
  assertJobTransition,
  assertTaskTransition,
  classifyOutcome,
  deriveJobState,
  emptyCounts,
  type JobTally,
} from '../../../src/cluster/lifecycle/transitions.js';
import { retryAfterFailure, retryAfterPreemption, taskFailureReason } from '../../../src/cluster/lifecycle/retries.js';

function tally(states: Partial<Record<TaskState, number>>, failedTasks = 0, maxTaskFailures = 0): JobTally {
  const counts = { ...emptyCounts(), ...states };
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  return { total, counts, failedTasks, maxTaskFailures };
}

describe('deriveJobState', () => {
  const cases: [string, JobState, JobTally, JobState][] = [
    ['all tasks pending -> PENDING', 'PENDING', tally({ PENDING: 3 }), 'PENDING'],
    ['one task assigned -> RUNNING', 'PENDING', tally({ PENDING: 2, ASSIGNED: 1 }), 'RUNNING'],
    ['one task running -> RUNNING', 'PENDING', tally({ PENDING: 2, RUNNING: 1 }), 'RUNNING'],
    ['some succeeded, rest pending -> PENDING', 'RUNNING', tally({ SUCCEEDED: 2, PENDING: 1 }), 'PENDING'],
    ['some succeeded, one running -> RUNNING', 'RUNNING', tally({ SUCCEEDED: 2, RUNNING: 1 }), 'RUNNING'],
    ['all succeeded -> SUCCEEDED', 'RUNNING', tally({ SUCCEEDED: 3 }), 'SUCCEEDED'],
    [
      'failures within tolerance, rest succeeded -> SUCCEEDED',
      'RUNNING',
      tally({ SUCCEEDED: 2, FAILED: 1 }, 1, 1),
      'SUCCEEDED',
    ],
    ['failures within tolerance, one running -> RUNNING', 'RUNNING', tally({ FAILED: 1, RUNNING: 1 }, 1, 1), 'RUNNING'],
    ['failed tasks exceed maxTaskFailures -> FAILED', 'RUNNING', tally({ FAILED: 1, RUNNING: 2 }, 1, 0), 'FAILED'],
    ['a gang sibling COSCHED_FAILED -> FAILED', 'RUNNING', tally({ FAILED: 1, COSCHED_FAILED: 1 }, 1, 5), 'FAILED'],
    ['a task WORKER_FAILED -> WORKER_FAILED', 'RUNNING', tally({ WORKER_FAILED: 1, RUNNING: 1 }), 'WORKER_FAILED'],
    ['a task UNSCHEDULABLE -> UNSCHEDULABLE', 'PENDING', tally({ UNSCHEDULABLE: 1, PENDING: 1 }), 'UNSCHEDULABLE'],
    ['a task KILLED -> KILLED', 'RUNNING', tally({ KILLED: 1, RUNNING: 1 }), 'KILLED'],
    ['final state is sticky even if tasks look pending', 'FAILED', tally({ PENDING: 3 }), 'FAILED'],
    ['SUCCEEDED is sticky', 'SUCCEEDED', tally({ RUNNING: 1 }), 'SUCCEEDED'],
    ['KILLED is sticky', 'KILLED', tally({ SUCCEEDED: 3 }), 'KILLED'],
  ];
  it.each(cases)('%s', (_name, current, t, expected) => {
    expect(deriveJobState(current, t)).toBe(expected);
  });

  it('every derived change from a non-final state is a legal job transition', () => {
    for (const from of JOB_STATES) {
      for (const s of TASK_STATES) {
        const to = deriveJobState(from, tally({ [s]: 1 }));
        if (to !== from) expect(JOB_TRANSITIONS[from]).toContain(to);
      }
    }
  });
});

describe('transition guards', () => {
  it('accept every listed task transition and reject every other one with an internal error', () => {
    for (const from of TASK_STATES) {
      for (const to of TASK_STATES) {
        const legal = from === to || TASK_TRANSITIONS[from].includes(to);
        if (legal) expect(() => assertTaskTransition('/j/task-0', from, to)).not.toThrow();
        else {
          try {
            assertTaskTransition('/j/task-0', from, to);
            expect.fail(`${from} -> ${to} should be illegal`);
          } catch (e) {
            expect(e).toBeInstanceOf(IrisError);
            expect((e as IrisError).code).toBe('internal');
          }
        }
      }
    }
  });

  it('reject leaving a final job state', () => {
    expect(() => assertJobTransition('/j', 'SUCCEEDED', 'RUNNING')).toThrow(
      /illegal job transition SUCCEEDED -> RUNNING/,
    );
    expect(() => assertJobTransition('/j', 'RUNNING', 'PENDING')).not.toThrow();
  });
});

describe('classifyOutcome', () => {
  it.each([
    [{ kind: 'exited', exitCode: 0 } as const, 'succeeded', null, 'SUCCEEDED', 0, null],
    [{ kind: 'exited', exitCode: 3 } as const, 'failed', 'FAILED', 'FAILED', 3, 'exit 3'],
    [
      { kind: 'exited', exitCode: 137, signal: 'SIGKILL' } as const,
      'failed',
      'FAILED',
      'FAILED',
      137,
      'killed by SIGKILL',
    ],
    [
      {
        kind: 'exited',
        exitCode: 137,
        signal: 'SIGKILL',
        reason: 'OOM killed (memory limit 8MiB)',
        oom: true,
      } as const,
      'failed',
      'OUT_OF_MEMORY',
      'FAILED',
      137,
      'OOM killed (memory limit 8MiB) (exit 137)',
    ],
    [{ kind: 'timeout' } as const, 'failed', 'TIMEOUT', 'FAILED', null, 'time-limit'],
    [
      { kind: 'launch_failed', reason: 'no such file' } as const,
      'failed',
      'FAILED',
      'FAILED',
      null,
      'launch failed: no such file',
    ],
    [{ kind: 'preempted', reason: 'worker lost' } as const, 'preempted', null, 'PREEMPTED', null, 'worker lost'],
    [{ kind: 'killed', reason: 'cancelled' } as const, 'killed', 'FAILED', 'KILLED', null, 'cancelled'],
  ])('%o is %s', (outcome, kind, failure, attemptState, exitCode, reason) => {
    expect(classifyOutcome(outcome)).toEqual({ kind, failure, attemptState, exitCode, reason });
  });
});

describe('the failures (FAILED, TIMEOUT, OUT_OF_MEMORY)', () => {
  const failure = fc.constantFrom(...FAILURE_STATES);

  it('are final task states that go back to PENDING only for a retry, and final job states', () => {
    for (const state of FAILURE_STATES) {
      expect(isFailureState(state)).toBe(true);
      expect(isFinalTaskState(state)).toBe(true);
      expect(TASK_TRANSITIONS[state]).toEqual(['PENDING']);
      expect(isFinalJobState(state)).toBe(true);
      expect(TASK_TRANSITIONS.RUNNING).toContain(state);
      expect(JOB_TRANSITIONS.RUNNING).toContain(state);
      expect(JOB_TRANSITIONS.PENDING).toContain(state);
    }
    for (const state of ['SUCCEEDED', 'KILLED', 'CANCELLED', 'WORKER_FAILED', 'PREEMPTED'] as const)
      expect(isFailureState(state)).toBe(false);
  });

  it('a job that fails takes the failure of its deciding task', () => {
    fc.assert(
      fc.property(failure, fc.nat(3), fc.nat(3), (deciding, running, tolerance) => {
        const t = { ...tally({ [deciding]: tolerance + 1, RUNNING: running }, tolerance + 1, tolerance) };
        expect(deriveJobState('RUNNING', { ...t, decidingFailure: deciding })).toBe(deciding);
      }),
    );
    expect(deriveJobState('RUNNING', tally({ TIMEOUT: 1 }, 1, 0))).toBe('FAILED'); // deciding task unknown
    // A gang: the member that failed decides; its siblings are COSCHED_FAILED.
    const gang = { ...tally({ OUT_OF_MEMORY: 1, COSCHED_FAILED: 3 }, 1, 0), decidingFailure: 'OUT_OF_MEMORY' as const };
    expect(deriveJobState('RUNNING', gang)).toBe('OUT_OF_MEMORY');
  });

  it('within the maxTaskFailures tolerance a job succeeds by its other tasks, whatever the failures were', () => {
    fc.assert(
      fc.property(fc.array(failure, { minLength: 1, maxLength: 4 }), fc.nat(3), (failures, ok) => {
        const counts: Partial<Record<TaskState, number>> = { SUCCEEDED: ok };
        for (const f of failures) counts[f] = (counts[f] ?? 0) + 1;
        const t = tally(counts, failures.length, failures.length);
        expect(deriveJobState('RUNNING', { ...t, decidingFailure: failures[0]! })).toBe('SUCCEEDED');
      }),
    );
  });

  it('a stored job state reads back as one: the states parse from --state, any case', () => {
    expect(parseJobStates(['timeout,out-of-memory'])).toEqual(['TIMEOUT', 'OUT_OF_MEMORY']);
    expect(JOB_STATES).toEqual(expect.arrayContaining(['TIMEOUT', 'OUT_OF_MEMORY']));
  });
});

describe('retry budgets', () => {
  it('a task is retried while failures <= maxRetries', () => {
    expect(retryAfterFailure(1, 0)).toBe(false);
    expect(retryAfterFailure(1, 1)).toBe(true);
    expect(retryAfterFailure(2, 1)).toBe(false);
  });
  it('a task is requeued while preemptions <= maxPreemptions', () => {
    expect(retryAfterPreemption(1, 0)).toBe(false);
    expect(retryAfterPreemption(3, 3)).toBe(true);
  });
  it('failure reasons name the task and cause', () => {
    expect(taskFailureReason('/j/task-2', 'exit 3')).toBe('task /j/task-2 failed (exit 3)');
  });
});
