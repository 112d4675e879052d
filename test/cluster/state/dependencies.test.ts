import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { JOB_STATES, isFinalJobState, type JobState } from '../../../src/model/states.js';
import type { DependencyCondition, JobDependency } from '../../../src/model/types.js';
import {
  DEPENDENCY_CONDITIONS, dependenciesStatus, dependencyFailureReason, dependencyOutcome, findCycle, splitDependency, waitingForReason,
} from '../../../src/cluster/state/dependencies.js';

describe('dependency rules (pure)', () => {
  it.each([
    ['ok', 'SUCCEEDED', 'met'], ['ok', 'FAILED', 'never'], ['ok', 'KILLED', 'never'], ['ok', 'UNSCHEDULABLE', 'never'], ['ok', 'RUNNING', 'waiting'],
    ['any', 'SUCCEEDED', 'met'], ['any', 'FAILED', 'met'], ['any', 'KILLED', 'met'], ['any', 'PENDING', 'waiting'],
    ['failed', 'FAILED', 'met'], ['failed', 'KILLED', 'met'], ['failed', 'WORKER_FAILED', 'met'], ['failed', 'SUCCEEDED', 'never'], ['failed', 'RUNNING', 'waiting'],
  ] as const)('%s on a %s job is %s', (condition, state, outcome) => {
    expect(dependencyOutcome(condition, state)).toBe(outcome);
  });

  it('property: a dependency waits exactly while its job has not ended, and an ended one is met or never, never both', () => {
    fc.assert(fc.property(fc.constantFrom(...DEPENDENCY_CONDITIONS), fc.constantFrom(...JOB_STATES), (condition, state) => {
      const outcome = dependencyOutcome(condition, state);
      expect(outcome === 'waiting').toBe(!isFinalJobState(state));
      // `any` is never "never"; `ok` and `failed` split the final states between them.
      if (condition === 'any') expect(outcome).not.toBe('never');
      if (isFinalJobState(state)) expect(dependencyOutcome('ok', state) === 'met').toBe(dependencyOutcome('failed', state) === 'never');
    }));
  });

  it('all dependencies: a never-met one wins over waiting ones; else the first waiting one is named; an unknown job counts as met', () => {
    const states: Record<string, JobState> = { '/a': 'RUNNING', '/b': 'FAILED', '/c': 'SUCCEEDED', '/d': 'PENDING' };
    const of = (name: string) => states[name];
    const dep = (job: string, condition: DependencyCondition = 'ok'): JobDependency => ({ job, condition });
    expect(dependenciesStatus([dep('/a'), dep('/b')], of)).toEqual({ kind: 'never', on: dep('/b'), state: 'FAILED' });
    expect(dependenciesStatus([dep('/c'), dep('/d'), dep('/a')], of)).toEqual({ kind: 'waiting', on: dep('/d'), state: 'PENDING' });
    expect(dependenciesStatus([dep('/c'), dep('/b', 'failed'), dep('/gone')], of)).toEqual({ kind: 'met' });
    expect(dependenciesStatus(undefined, of)).toEqual({ kind: 'met' });
  });

  it('the words: waiting for /prep (RUNNING); dependency /prep failed / succeeded / ended KILLED', () => {
    expect(waitingForReason({ job: '/prep', condition: 'ok' }, 'RUNNING')).toBe('waiting for /prep (RUNNING)');
    expect(dependencyFailureReason({ job: '/prep', condition: 'ok' }, 'FAILED')).toBe('dependency /prep failed');
    expect(dependencyFailureReason({ job: '/prep', condition: 'failed' }, 'SUCCEEDED')).toBe('dependency /prep succeeded');
    expect(dependencyFailureReason({ job: '/prep', condition: 'ok' }, 'KILLED')).toBe('dependency /prep ended KILLED');
  });

  it('splits JOB[:ok|:any|:failed]; an unknown condition is null', () => {
    expect(splitDependency('prep')).toEqual({ job: 'prep', condition: 'ok' });
    expect(splitDependency('/a/b:any')).toEqual({ job: '/a/b', condition: 'any' });
    expect(splitDependency('/a:FAILED')).toEqual({ job: '/a', condition: 'failed' });
    expect(splitDependency('/a:later')).toBeNull();
  });
});

describe('cycle detection (pure)', () => {
  it('names the cycle a new dependency would close, and finds none in a chain', () => {
    const deps: Record<string, string[]> = { '/b': ['/a'], '/c': ['/b'], '/x': [] };
    const of = (job: string) => deps[job] ?? [];
    expect(findCycle('/a', ['/c'], of)).toEqual(['/a', '/c', '/b', '/a']);
    expect(findCycle('/d', ['/c', '/x'], of)).toBeNull();
  });

  it('property: on a random graph, a cycle is reported exactly when the new job is reachable from its dependencies, and the path is made of real edges', () => {
    const names = ['/n0', '/n1', '/n2', '/n3', '/n4', '/n5'];
    const graph = fc.dictionary(fc.constantFrom(...names), fc.uniqueArray(fc.constantFrom(...names), { maxLength: 3 }));
    fc.assert(fc.property(graph, fc.constantFrom(...names), fc.uniqueArray(fc.constantFrom(...names), { minLength: 1, maxLength: 3 }), (edges, name, after) => {
      const of = (job: string) => edges[job] ?? [];
      // Reachability by a plain breadth-first walk.
      const seen = new Set<string>(after);
      const queue = [...after];
      while (queue.length > 0) for (const next of of(queue.shift()!)) if (!seen.has(next)) { seen.add(next); queue.push(next); }
      const cycle = findCycle(name, after, of);
      expect(cycle !== null).toBe(seen.has(name));
      if (cycle) {
        expect(cycle[0]).toBe(name);
        expect(cycle[cycle.length - 1]).toBe(name);
        expect(after).toContain(cycle[1]);
        for (let i = 1; i < cycle.length - 1; i++) expect(of(cycle[i]!)).toContain(cycle[i + 1]);
      }
    }));
  });
});
