// The simulator's speed work must not move a single start: every policy's schedule of all
// 10,000 jobs of lublin_256.swf (256 processors, queue depth 32) hashes to what the code gave
// before that work (commit e990dab). A hash is sha256 over "name start" lines in result order.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { simulate } from '../../src/sim/engine.js';
import { swfWorkload } from '../../src/sim/load.js';
import { createScheduler } from '../../src/sim/policy.js';
import { parseSwf } from '../../src/sim/swf.js';

const TRACE = resolve(process.cwd(), '../shared/traces/lublin_256.swf');
const haveTrace = existsSync(TRACE);
if (!haveTrace) console.warn(`skipping the lublin_256 schedule check: ${TRACE} not found`);

const BEFORE = {
  'first-fit': { passes: 27098, hash: '771b5c3f7baad95b91f0b1ba63f0aa16d7bd4cfda87ccb5b12cc5d335f53e8c8' },
  fcfs: { passes: 22537, hash: '2af5e4ac6c487035b61385f5cc2869e53184f9990bbf43736c944a55da07c298' },
  easy: { passes: 24447, hash: '64a844bf650cfdd15c0b1131c84ab95112b6e3b78b3625756b6d5f71cb570ef5' },
  conservative: { passes: 24099, hash: '3acfe7dad338a81ad4c9982320787e89451723d40f57f8054dc17f724bfb9fc9' },
  hybrid: { passes: 23958, hash: '5a88df3d97b9af3b7fd670c3a10fa0ec2d7e2d9a4fc4636c232060a9f8be966f' },
} as const;

describe.skipIf(!haveTrace)('lublin_256.swf schedules are unchanged (all 10,000 start times)', () => {
  const trace = haveTrace ? parseSwf(readFileSync(TRACE, 'utf8'), TRACE) : null;
  for (const [policy, want] of Object.entries(BEFORE)) {
    it(`${policy}: the same start for every job, in as many passes`, { timeout: 120_000 }, () => {
      const workload = swfWorkload(trace!, TRACE, { procs: 256 });
      const result = simulate(workload, {
        scheduler: createScheduler({ policy: policy as keyof typeof BEFORE }),
        queueDepth: 32,
      });
      expect(result.jobs).toHaveLength(10_000);
      expect(result.unfinished).toEqual([]);
      const text = result.jobs.map((j) => `${j.name} ${j.start}`).join('\n');
      expect(createHash('sha256').update(text).digest('hex')).toBe(want.hash);
      expect(result.summary.passes).toBe(want.passes);
    });
  }
});
