import { describe, expect, it } from 'vitest';
import type { Band } from '../../../../src/model/band.js';
import {
  chooseVictims,
  type Amount,
  type PreemptorView,
  type RunningTaskView,
  type VictimChoice,
} from '../../../../src/cluster/scheduler/preemption/victims.js';

const NOW = 10_000_000;
const OPTS = { now: NOW, exemptMs: 60_000 };
const MIN = 60_000;

const amt = (cpu: number, mem = 0, devices = 0): Amount => ({ cpuMillis: cpu * 1000, memoryBytes: mem, devices });
const free = (id: string, cpu: number, mem = 0, devices = 0) => ({ id, free: amt(cpu, mem, devices) });

/** A running task: `/job/task-N` on a worker, 4 cpu, batch, started 10 minutes ago unless told. */
function run(task: string, workerId: string, o: Partial<RunningTaskView> & { cpu?: number } = {}): RunningTaskView {
  const { cpu = 4, ...rest } = o;
  return {
    task,
    job: task.replace(/\/task-\d+$/, ''),
    workerId,
    cpuMillis: cpu * 1000,
    memoryBytes: 0,
    devices: 0,
    band: 'batch',
    startedAt: NOW - 10 * MIN,
    gang: null,
    ...rest,
  };
}

function pre(o: Partial<PreemptorView> = {}): PreemptorView {
  return {
    job: '/urgent',
    band: 'interactive' as Band,
    need: amt(4),
    tasks: 1,
    gang: false,
    workers: [free('w1', 0)],
    ...o,
  };
}

interface Row {
  rule: string;
  p: PreemptorView;
  running: RunningTaskView[];
  want: { victims: string[]; workers: string[] } | { none: RegExp };
}

const rows: Row[] = [
  {
    rule: 'a lower band is a victim',
    p: pre(),
    running: [run('/sweep/task-0', 'w1')],
    want: { victims: ['/sweep/task-0'], workers: ['w1'] },
  },
  {
    rule: 'the same band never',
    p: pre(),
    running: [run('/other/task-0', 'w1', { band: 'interactive' })],
    want: { none: /no lower-band work to stop on a fitting worker \(1 same or higher band\)/ },
  },
  {
    rule: 'a higher band never',
    p: pre(),
    running: [run('/prod/task-0', 'w1', { band: 'production' })],
    want: { none: /same or higher band/ },
  },
  {
    rule: 'batch never preempts',
    p: pre({ band: 'batch' }),
    running: [run('/sweep/task-0', 'w1')],
    want: { none: /^batch never preempts$/ },
  },
  {
    rule: 'mixed bands choose the lower band (even when it lost more work)',
    p: pre({ band: 'production', workers: [free('w1', 0), free('w2', 0)] }),
    running: [
      run('/ia/task-0', 'w1', { band: 'interactive', startedAt: NOW - 2 * MIN }),
      run('/sweep/task-0', 'w2', { startedAt: NOW - 100 * MIN }),
    ],
    want: { victims: ['/sweep/task-0'], workers: ['w2'] },
  },
  {
    rule: 'an ancestor is never a victim (/train above /train/eval, /trainer is not)',
    p: pre({ job: '/train/eval' }),
    running: [
      run('/train/task-0', 'w1', { startedAt: NOW - 2 * MIN }),
      run('/trainer/task-0', 'w1', { startedAt: NOW - 50 * MIN }),
    ],
    want: { victims: ['/trainer/task-0'], workers: ['w1'] },
  },
  {
    rule: "the preemptor's own job (borrowing, so batch) is not a victim",
    p: pre({ job: '/train/eval' }),
    running: [run('/train/eval/task-1', 'w1'), run('/train/task-0', 'w1')],
    want: { none: /\(2 its own job or an ancestor\)/ },
  },
  {
    rule: 'a descendant of a sibling prefix (/ab under /a) may be a victim',
    p: pre({ job: '/a/b' }),
    running: [run('/ab/task-0', 'w1')],
    want: { victims: ['/ab/task-0'], workers: ['w1'] },
  },
  {
    rule: 'a task within the exempt time is skipped (exactly exemptMs old is not)',
    p: pre({ need: amt(8) }),
    running: [
      run('/new/task-0', 'w1', { startedAt: NOW - MIN + 1 }),
      run('/edge/task-0', 'w1', { startedAt: NOW - MIN }),
      run('/old/task-0', 'w1', { startedAt: NOW - 30 * MIN }),
    ],
    want: { victims: ['/edge/task-0', '/old/task-0'], workers: ['w1'] },
  },
  {
    rule: 'a victim gang is taken whole, members on non-candidate workers too',
    p: pre(),
    running: [run('/g/task-0', 'w1', { gang: '/g' }), run('/g/task-1', 'w9', { gang: '/g' })],
    want: { victims: ['/g/task-0', '/g/task-1'], workers: ['w1'] },
  },
  {
    rule: 'a gang with one exempt member is not a victim at all',
    p: pre(),
    running: [run('/g/task-0', 'w1', { gang: '/g' }), run('/g/task-1', 'w2', { gang: '/g', startedAt: NOW - 1000 })],
    want: { none: /\(2 started within the exempt time\)/ },
  },
  {
    rule: 'a gang preemptor frees one whole group, the one that loses least',
    p: pre({
      band: 'production',
      tasks: 2,
      gang: true,
      onePerWorker: true,
      need: amt(1, 0, 4),
      workers: [free('a1', 8), free('a2', 8), free('b1', 8), free('b2', 8)],
      groups: [
        ['a1', 'a2'],
        ['b1', 'b2'],
      ],
    }),
    running: [
      run('/x/task-0', 'a1', { devices: 4, startedAt: NOW - 90 * MIN }),
      run('/x/task-1', 'a2', { devices: 4, startedAt: NOW - 90 * MIN, band: 'interactive' }),
      run('/y/task-0', 'b1', { devices: 4, startedAt: NOW - 80 * MIN }),
      run('/y/task-1', 'b2', { devices: 4, startedAt: NOW - 70 * MIN }),
    ],
    want: { victims: ['/y/task-0', '/y/task-1'], workers: ['b1', 'b2'] },
  },
  {
    rule: 'a gang preemptor with onePerWorker uses a free host and stops work only on the other',
    p: pre({
      tasks: 2,
      gang: true,
      onePerWorker: true,
      need: amt(2),
      workers: [free('h0', 16), free('h1', 0)],
      groups: [['h0', 'h1']],
    }),
    running: [run('/s/task-0', 'h1')],
    want: { victims: ['/s/task-0'], workers: ['h0', 'h1'] },
  },
  {
    rule: 'shape: a GPU job never stops work on a worker that is not a candidate (CPU-only)',
    p: pre({ need: amt(1, 0, 1), workers: [free('gpu', 0, 0, 0)] }),
    running: [
      run('/cpu/task-0', 'cpu-only', { startedAt: NOW - 2 * MIN }),
      run('/train/task-0', 'gpu', { devices: 1, cpu: 1, startedAt: NOW - 20 * MIN }),
    ],
    want: { victims: ['/train/task-0'], workers: ['gpu'] },
  },
  {
    rule: 'shape: CPU-only work on a GPU worker frees no GPU, so a higher band with a GPU goes',
    p: pre({ band: 'production', need: amt(1, 0, 1), workers: [free('gpu', 0, 0, 0)] }),
    running: [
      run('/cpu/task-0', 'gpu', { band: 'batch' }),
      run('/ia/task-0', 'gpu', { band: 'interactive', devices: 1, cpu: 1 }),
    ],
    want: { victims: ['/ia/task-0'], workers: ['gpu'] },
  },
  {
    rule: 'fewest beats most recent',
    p: pre({ need: amt(8), workers: [free('w1', 0), free('w2', 0)] }),
    running: [
      run('/old/task-0', 'w1', { cpu: 8, startedAt: NOW - 100 * MIN }),
      run('/new/task-0', 'w2', { startedAt: NOW - 2 * MIN }),
      run('/new/task-1', 'w2', { startedAt: NOW - 2 * MIN }),
    ],
    want: { victims: ['/old/task-0'], workers: ['w1'] },
  },
  {
    rule: 'the most recently started among equals',
    p: pre({ workers: [free('w1', 0), free('w2', 0)] }),
    running: [run('/a/task-0', 'w1', { startedAt: NOW - 9 * MIN }), run('/b/task-0', 'w2')],
    want: { victims: ['/a/task-0'], workers: ['w1'] },
  },
  {
    rule: 'then the smallest',
    p: pre({ workers: [free('w1', 0), free('w2', 0)] }),
    running: [run('/a/task-0', 'w1', { cpu: 8 }), run('/b/task-0', 'w2')],
    want: { victims: ['/b/task-0'], workers: ['w2'] },
  },
  {
    rule: 'then the task id',
    p: pre({ workers: [free('w2', 0), free('w1', 0)] }),
    running: [run('/b/task-0', 'w2'), run('/a/task-0', 'w1')],
    want: { victims: ['/a/task-0'], workers: ['w1'] },
  },
  {
    rule: 'minimal: only the victims whose capacity is needed',
    p: pre({ workers: [free('w1', 2)] }),
    running: [
      run('/s/task-0', 'w1', { cpu: 2 }),
      run('/s/task-1', 'w1', { cpu: 2 }),
      run('/s/task-2', 'w1', { cpu: 2 }),
    ],
    want: { victims: ['/s/task-0'], workers: ['w1'] },
  },
  {
    rule: 'memory counts: freeing cpu alone does not make a memory-bound job fit',
    p: pre({ need: { cpuMillis: 1000, memoryBytes: 8, devices: 0 }, workers: [free('w1', 0, 4)] }),
    running: [
      run('/cpu/task-0', 'w1', { cpu: 4, memoryBytes: 0 }),
      run('/mem/task-0', 'w1', { cpu: 1, memoryBytes: 4, startedAt: NOW - 50 * MIN }),
    ],
    want: { victims: ['/mem/task-0'], workers: ['w1'] },
  },
  {
    rule: 'several tasks go on one worker when there is room',
    p: pre({ tasks: 2, need: amt(2), workers: [free('w1', 0)] }),
    running: [run('/s/task-0', 'w1')],
    want: { victims: ['/s/task-0'], workers: ['w1', 'w1'] },
  },
  {
    rule: 'nothing is stopped when it already fits',
    p: pre({ workers: [free('w1', 4)] }),
    running: [run('/s/task-0', 'w1')],
    want: { none: /fits on free capacity now/ },
  },
  {
    rule: 'nothing is stopped when no set of victims makes it fit',
    p: pre({ need: amt(16), workers: [free('w1', 0)] }),
    running: [run('/s/task-0', 'w1'), run('/t/task-0', 'w1', { band: 'interactive', cpu: 12 })],
    want: { none: /would still not make room/ },
  },
  {
    rule: 'nothing is stopped without a candidate worker',
    p: pre({ workers: [] }),
    running: [run('/s/task-0', 'w1')],
    want: { none: /no candidate worker/ },
  },
];

describe('chooseVictims: one row per rule', () => {
  it.each(rows)('$rule', ({ p, running, want }) => {
    const got: VictimChoice = chooseVictims(p, running, OPTS);
    if ('none' in want) {
      expect(got.kind).toBe('none');
      if (got.kind === 'none') expect(got.reason).toMatch(want.none);
    } else {
      expect(got).toEqual({ kind: 'preempt', ...want });
    }
  });

  it('is the same for the running tasks in any order', () => {
    const row = rows.find((r) => r.rule.startsWith('a gang preemptor frees'))!;
    const a = chooseVictims(row.p, row.running, OPTS);
    const b = chooseVictims(row.p, [...row.running].reverse(), OPTS);
    expect(b).toEqual(a);
  });
});

describe('chooseVictims past the exact bound (greedy, still minimal)', () => {
  it('with 20 units on one worker takes the fewest here and nothing unneeded', () => {
    const running = Array.from({ length: 20 }, (_, i) =>
      run(`/s${String(i).padStart(2, '0')}/task-0`, 'w1', { cpu: 1, startedAt: NOW - (i + 2) * MIN }),
    );
    const got = chooseVictims(pre({ need: amt(3) }), running, OPTS);
    // The three most recently started (least work lost), each needed.
    expect(got).toEqual({ kind: 'preempt', victims: ['/s00/task-0', '/s01/task-0', '/s02/task-0'], workers: ['w1'] });
  });
});

describe('chooseVictims at scale', () => {
  it('1,000 workers x 20 running tasks each, one preemptor, completes', () => {
    const workers = Array.from({ length: 1000 }, (_, w) => free(`w${w}`, 0, 0, 0));
    const running: RunningTaskView[] = [];
    for (let w = 0; w < 1000; w++) {
      for (let k = 0; k < 20; k++) {
        const i = w * 20 + k;
        running.push(
          run(`/j${i % 500}/task-${i}`, `w${w}`, {
            cpu: 2,
            band: i % 3 === 0 ? 'interactive' : 'batch',
            startedAt: NOW - (i % 97) * MIN,
            gang: k < 4 && w % 10 === 0 ? `/gang${w}` : null,
          }),
        );
      }
    }
    const p = pre({ band: 'production', need: amt(6), tasks: 3, workers });
    const t0 = performance.now();
    const got = chooseVictims(p, running, OPTS);
    const ms = performance.now() - t0;
    console.log(
      `victims at 1,000 x 20: ${ms.toFixed(1)} ms, ${got.kind === 'preempt' ? got.victims.length : 0} victims`,
    );
    expect(got.kind).toBe('preempt');
    if (got.kind === 'preempt') expect(got.workers).toHaveLength(3);
  });
});
