/** Admission of `after`: names resolve like the job's; unknown jobs, the job itself and cycles are refused. */
import { describe, expect, it } from 'vitest';
import { admit, type AdmissionRequest, type ClusterView } from '../../../src/cluster/admission/index.js';
import type { TaskCaller } from '../../../src/model/caller.js';
import type { JobState } from '../../../src/model/states.js';

const CALLER: TaskCaller = { task: '/p/task-0', job: '/p', attempt: 0, user: 'alice', env: {}, rootSubmittedAt: 1000 };
const DEFAULTS = { user: 'alice', cwd: '/home/alice', timeLimitMs: null, maxPreemptions: 100, image: null };

/** Stored jobs with their states and the names each depends on. */
function view(jobs: Record<string, { state: JobState; after?: string[] }>): ClusterView {
  return {
    workers: [
      {
        id: 'w0',
        device: { type: 'cpu', variant: null, count: 0 },
        attributes: {},
        capacity: { cpuMillis: 4000, memoryBytes: 1 << 30 },
        free: { cpuMillis: 4000, memoryBytes: 1 << 30, devices: [] },
        schedulable: true,
      },
    ],
    quotas: new Map(),
    pendingTasks: () => 0,
    isNameTaken: (name) => name in jobs,
    generateName: () => 'gen',
    jobState: (name) => jobs[name]?.state,
    dependenciesOf: (name) => jobs[name]?.after ?? [],
  };
}

function admitted(
  request: Omit<AdmissionRequest, 'command'>,
  jobs: Record<string, { state: JobState; after?: string[] }>,
  caller: TaskCaller | null = null,
) {
  return admit({ ...request, command: ['true'] } as AdmissionRequest, caller, view(jobs), DEFAULTS);
}

describe('admission of --after', () => {
  it('stores canonical names with their conditions (ok by default)', () => {
    const answer = admitted(
      { name: 'train', after: ['prep', '/clean:any', 'probe:failed'] },
      { '/prep': { state: 'RUNNING' }, '/clean': { state: 'PENDING' }, '/probe': { state: 'RUNNING' } },
    );
    expect(answer).toMatchObject({
      ok: true,
      spec: {
        after: [
          { job: '/prep', condition: 'ok' },
          { job: '/clean', condition: 'any' },
          { job: '/probe', condition: 'failed' },
        ],
      },
    });
  });

  it('inside a task a relative name is a child of its job: a child may depend on a sibling', () => {
    const answer = admitted(
      { name: 'b', after: ['a'] },
      { '/p': { state: 'RUNNING' }, '/p/a': { state: 'RUNNING' } },
      CALLER,
    );
    expect(answer).toMatchObject({ ok: true, spec: { name: '/p/b', after: [{ job: '/p/a', condition: 'ok' }] } });
  });

  it.each([
    ['an unknown job', { name: 'train', after: ['nope'] }, {}, 'not_found', 'after[0]: no job /nope'],
    [
      'the job itself',
      { name: 'train', after: ['train'] },
      {},
      'invalid_argument',
      'after[0]: job /train cannot run after itself',
    ],
    [
      'an unknown condition',
      { name: 'train', after: ['prep:later'] },
      { '/prep': { state: 'RUNNING' } },
      'invalid_argument',
      'after[0]: unknown condition in "prep:later"',
    ],
    [
      'a cycle, named',
      { name: 'a', after: ['c'] },
      {
        '/a': { state: 'SUCCEEDED' },
        '/b': { state: 'RUNNING', after: ['/a'] },
        '/c': { state: 'PENDING', after: ['/b'] },
      },
      'invalid_argument',
      'after: would close a cycle: /a -> /c -> /b -> /a',
    ],
  ] as const)('refuses %s', (_what, request, jobs, code, message) => {
    const answer = admitted(
      request as unknown as Omit<AdmissionRequest, 'command'>,
      jobs as Record<string, { state: JobState; after?: string[] }>,
    );
    expect(answer).toMatchObject({ ok: false, refusal: { code, message } });
  });

  it('looks for a cycle only when a job depends on the name: a new job after a long chain costs no walk', () => {
    const jobs: Record<string, { state: JobState; after?: string[] }> = {
      '/a': { state: 'SUCCEEDED' },
      '/b': { state: 'RUNNING', after: ['/a'] },
    };
    const walked: string[] = [];
    const base = view(jobs);
    const watched = (dependedOn: ClusterView['dependedOn']): ClusterView => ({
      ...base,
      dependedOn,
      dependenciesOf: (name) => {
        walked.push(name);
        return base.dependenciesOf(name);
      },
    });
    const request = { name: 'a', after: ['b'], command: ['true'] } as AdmissionRequest;
    expect(
      admit(
        request,
        null,
        watched((name) => Object.values(jobs).some((j) => j.after?.includes(name))),
        DEFAULTS,
      ),
    ).toMatchObject({ ok: false, refusal: { message: 'after: would close a cycle: /a -> /b -> /a' } });
    expect(walked).toEqual(['/b']);
    walked.length = 0;
    expect(
      admit(
        { ...request, name: 'new' },
        null,
        watched(() => false),
        DEFAULTS,
      ),
    ).toMatchObject({ ok: true });
    expect(walked).toEqual([]);
  });
});
