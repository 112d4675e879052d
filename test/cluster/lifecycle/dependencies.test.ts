import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { JOB_STATES, isFinalJobState, type JobState } from '../../../src/model/states.js';
import type { DependencyCondition, JobDependency } from '../../../src/model/types.js';
import {
  DEPENDENCY_CONDITIONS,
  cascadedDependents,
  dependenciesStatus,
  dependencyFailureReason,
  dependencyOutcome,
  findCycle,
  splitDependency,
  waitingForReason,
} from '../../../src/cluster/lifecycle/dependencies.js';
import type { Job } from '../../../src/model/types.js';

/** findCycle as it was (a stack of whole paths, copied at each step): the reference for the loop that keeps links. */
function findCycleByPaths(
  name: string,
  after: readonly string[],
  depsOf: (job: string) => readonly string[],
): string[] | null {
  const seen = new Set<string>();
  const stack: string[][] = [...after].reverse().map((dep) => [name, dep]);
  while (stack.length > 0) {
    const path = stack.pop()!;
    const last = path[path.length - 1]!;
    if (last === name) return path;
    if (seen.has(last)) continue;
    seen.add(last);
    const next = depsOf(last);
    for (let i = next.length - 1; i >= 0; i--) stack.push([...path, next[i]!]);
  }
  return null;
}

describe('dependency rules (pure)', () => {
  it.each([
    ['ok', 'SUCCEEDED', 'met'],
    ['ok', 'FAILED', 'never'],
    ['ok', 'KILLED', 'never'],
    ['ok', 'UNSCHEDULABLE', 'never'],
    ['ok', 'RUNNING', 'waiting'],
    ['any', 'SUCCEEDED', 'met'],
    ['any', 'FAILED', 'met'],
    ['any', 'KILLED', 'met'],
    ['any', 'PENDING', 'waiting'],
    ['failed', 'FAILED', 'met'],
    ['failed', 'KILLED', 'met'],
    ['failed', 'WORKER_FAILED', 'met'],
    ['failed', 'SUCCEEDED', 'never'],
    ['failed', 'RUNNING', 'waiting'],
  ] as const)('%s on a %s job is %s', (condition, state, outcome) => {
    expect(dependencyOutcome(condition, state)).toBe(outcome);
  });

  it(
    'property: a dependency waits exactly while its job has not ended, and an ended one is met or never, never ' +
      'both',
    () => {
      fc.assert(
        fc.property(fc.constantFrom(...DEPENDENCY_CONDITIONS), fc.constantFrom(...JOB_STATES), (condition, state) => {
          const outcome = dependencyOutcome(condition, state);
          expect(outcome === 'waiting').toBe(!isFinalJobState(state));
          // `any` is never "never"; `ok` and `failed` split the final states between them.
          if (condition === 'any') expect(outcome).not.toBe('never');
          if (isFinalJobState(state))
            expect(dependencyOutcome('ok', state) === 'met').toBe(dependencyOutcome('failed', state) === 'never');
        }),
      );
    },
  );

  it(
    'all dependencies: a never-met one wins over waiting ones; else the first waiting one is named; an unknown job ' +
      'counts as met',
    () => {
      const states: Record<string, JobState> = { '/a': 'RUNNING', '/b': 'FAILED', '/c': 'SUCCEEDED', '/d': 'PENDING' };
      const of = (name: string) => states[name];
      const dep = (job: string, condition: DependencyCondition = 'ok'): JobDependency => ({ job, condition });
      expect(dependenciesStatus([dep('/a'), dep('/b')], of)).toEqual({ kind: 'never', on: dep('/b'), state: 'FAILED' });
      expect(dependenciesStatus([dep('/c'), dep('/d'), dep('/a')], of)).toEqual({
        kind: 'waiting',
        on: dep('/d'),
        state: 'PENDING',
      });
      expect(dependenciesStatus([dep('/c'), dep('/b', 'failed'), dep('/gone')], of)).toEqual({ kind: 'met' });
      expect(dependenciesStatus(undefined, of)).toEqual({ kind: 'met' });
    },
  );

  it('the words: waiting for /prep (RUNNING); dependency /prep failed / succeeded / ended KILLED', () => {
    expect(waitingForReason({ job: '/prep', condition: 'ok' }, 'RUNNING')).toBe('waiting for /prep (RUNNING)');
    expect(dependencyFailureReason({ job: '/prep', condition: 'ok' }, 'FAILED')).toBe('dependency /prep failed');
    expect(dependencyFailureReason({ job: '/prep', condition: 'failed' }, 'SUCCEEDED')).toBe(
      'dependency /prep succeeded',
    );
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

  it(
    'property: on a random graph, a cycle is reported exactly when the new job is reachable from its dependencies, ' +
      'and the path is made of real edges',
    () => {
      const names = ['/n0', '/n1', '/n2', '/n3', '/n4', '/n5'];
      const graph = fc.dictionary(
        fc.constantFrom(...names),
        fc.uniqueArray(fc.constantFrom(...names), { maxLength: 3 }),
      );
      fc.assert(
        fc.property(
          graph,
          fc.constantFrom(...names),
          fc.uniqueArray(fc.constantFrom(...names), { minLength: 1, maxLength: 3 }),
          (edges, name, after) => {
            const of = (job: string) => edges[job] ?? [];
            // Reachability by a plain breadth-first walk.
            const seen = new Set<string>(after);
            const queue = [...after];
            while (queue.length > 0)
              for (const next of of(queue.shift()!))
                if (!seen.has(next)) {
                  seen.add(next);
                  queue.push(next);
                }
            const cycle = findCycle(name, after, of);
            expect(cycle !== null).toBe(seen.has(name));
            if (cycle) {
              expect(cycle[0]).toBe(name);
              expect(cycle[cycle.length - 1]).toBe(name);
              expect(after).toContain(cycle[1]);
              for (let i = 1; i < cycle.length - 1; i++) expect(of(cycle[i]!)).toContain(cycle[i + 1]);
            }
          },
        ),
      );
    },
  );

  it('property: the same answer (the same path) as the walk that copied whole paths', () => {
    const names = ['/n0', '/n1', '/n2', '/n3', '/n4', '/n5', '/n6'];
    const graph = fc.dictionary(fc.constantFrom(...names), fc.array(fc.constantFrom(...names), { maxLength: 4 }));
    fc.assert(
      fc.property(
        graph,
        fc.constantFrom(...names),
        fc.array(fc.constantFrom(...names), { minLength: 1, maxLength: 3 }),
        (edges, name, after) => {
          const of = (job: string) => edges[job] ?? [];
          expect(findCycle(name, after, of)).toEqual(findCycleByPaths(name, after, of));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('walks a 100,000-long chain in linear time, with or without a cycle at its end', () => {
    const n = 100_000;
    const of = (job: string) => {
      const i = Number(job.slice(2));
      return i === 0 ? [] : [`/c${i - 1}`];
    };
    let t0 = performance.now();
    expect(findCycle('/new', [`/c${n - 1}`], of)).toBeNull();
    const cycle = findCycle('/c0', [`/c${n - 1}`], of);
    expect(cycle).toHaveLength(n + 1);
    expect(cycle!.slice(0, 3)).toEqual(['/c0', `/c${n - 1}`, `/c${n - 2}`]);
    expect(performance.now() - t0).toBeLessThan(5_000);
    t0 = performance.now();
    const jobs = new Map<string, Job>();
    for (let i = 1; i < n; i++)
      jobs.set(`/c${i}`, { state: 'FAILED', cause: { kind: 'dependency_failure', parent: `/c${i - 1}` } } as Job);
    const cascaded = cascadedDependents(
      '/c0',
      (job) => (jobs.has(`/c${Number(job.slice(2)) + 1}`) ? [`/c${Number(job.slice(2)) + 1}`] : []),
      (job) => jobs.get(job),
    );
    expect(cascaded).toHaveLength(n - 1);
    expect(cascaded[n - 2]).toBe(`/c${n - 1}`);
    expect(performance.now() - t0).toBeLessThan(5_000);
  });
});
