import { describe, expect, it } from 'vitest';
import { simulate } from '../../src/sim/engine.js';
import { createScheduler } from '../../src/sim/policy.js';
import type { SimRunInfo } from '../../src/sim/report.js';
import { parseWorkload } from '../../src/sim/workload-file.js';
import { renderSimulation } from '../../src/ui/simulation.js';

// A parent whose two tasks wait for their subtree without releasing their CPU: its child can
// never start, and the scheduler's reason reserves it a start at the parent's time limit.
const TREE = {
  workers: [{ name: 'w', cpu: 2, memory: '4GiB' }],
  jobs: [
    {
      name: 'a',
      replicas: 2,
      run: 60,
      cpu: 1,
      memory: '256MiB',
      'time-limit': 600,
      wait: true,
      children: [{ name: 'b', run: 60, cpu: 1, memory: '256MiB' }],
    },
  ],
};
const INFO: SimRunInfo = {
  trace: 'tree.yaml',
  kind: 'iris',
  policy: 'easy',
  placement: 'first-fit',
  selection: 'first',
  order: 'fcfs',
  queueDepth: 32,
  reservationDepth: 1,
  procs: null,
  workers: 1,
  window: null,
};

describe('iris simulate: instants in reasons are virtual time', () => {
  it('the text names the reserved start as a time from the start of the trace', () => {
    const scheduler = createScheduler({ policy: 'easy' });
    const result = simulate(parseWorkload(TREE, 'tree.yaml'), { scheduler, release: false });
    const child = result.deadlocked.find((d) => d.name === '/a/b')!;
    expect(child.reason).toMatch(/; reserved to start at <t:\d+>$/);
    const text = renderSimulation(INFO, result);
    expect(text).toMatch(/\/a\/b +deadlocked +need 1 CPU, .*; reserved to start at 10m00s \(600 s\)/);
  });
});
