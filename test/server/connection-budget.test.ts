/** The caps of the doors against the open-file limit (src/server/connection-budget.ts). */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  FALLBACK_SOFT_LIMIT,
  parseOpenFileLimit,
  planConnections,
  readSoftLimit,
  reserveFor,
} from '../../src/server/connection-budget.js';
import type { ConnectionsConfig } from '../../src/config/schema/connections.js';
import { IrisError } from '../../src/model/errors.js';
import { joined } from '../helpers/regex.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            20000                20000                files
Max locked memory         8388608              8388608              bytes
`;

const DEFAULTS: ConnectionsConfig = {
  owner: null,
  taskDoor: null,
  metrics: null,
  perPeer: 256,
  headerTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
};

function total(plan: ReturnType<typeof planConnections>): number {
  return plan.reserve + plan.owner + plan.taskDoor + (plan.tcpTaskDoor ?? 0) + (plan.metrics ?? 0);
}

describe('the open-file limit', () => {
  it('is read from /proc/self/limits, unlimited as a very large number, and assumed when unreadable', () => {
    expect(parseOpenFileLimit(LIMITS)).toEqual({ soft: 20000, hard: 20000 });
    expect(parseOpenFileLimit('Max open files            1024       unlimited     files\n')).toEqual({
      soft: 1024,
      hard: Number.MAX_SAFE_INTEGER,
    });
    expect(parseOpenFileLimit('nothing here')).toBeNull();
    expect(readSoftLimit(() => LIMITS)).toBe(20000);
    expect(readSoftLimit(() => 'garbage')).toBe(FALLBACK_SOFT_LIMIT);
    expect(
      readSoftLimit(() => {
        throw new Error('ENOENT');
      }),
    ).toBe(FALLBACK_SOFT_LIMIT);
  });
});

describe('planConnections', () => {
  it('gives the defaults where the limit allows them, and keeps a quarter for the controller', () => {
    expect(planConnections(20000, DEFAULTS, { tcp: true, metrics: true })).toEqual({
      softLimit: 20000,
      reserve: 5000,
      owner: 1024,
      taskDoor: 4096,
      tcpTaskDoor: 4096,
      metrics: 64,
    });
    expect(planConnections(20000, DEFAULTS, { tcp: false, metrics: false })).toEqual({
      softLimit: 20000,
      reserve: 5000,
      owner: 1024,
      taskDoor: 4096,
      tcpTaskDoor: null,
      metrics: null,
    });
  });

  it('scales the defaults down under a small limit, and keeps the caps the config gives', () => {
    const plan = planConnections(4096, DEFAULTS, { tcp: false, metrics: false });
    expect(plan.reserve).toBe(1024);
    expect(plan.owner).toBeLessThan(1024);
    expect(plan.taskDoor).toBeGreaterThan(plan.owner);
    expect(total(plan)).toBeLessThanOrEqual(4096);
    const given = planConnections(4096, { ...DEFAULTS, taskDoor: 2000 }, { tcp: false, metrics: false });
    expect(given.taskDoor).toBe(2000);
    expect(total(given)).toBeLessThanOrEqual(4096);
  });

  it('refuses given caps that do not fit beside the reserve, naming the keys and the limit', () => {
    let error: unknown;
    try {
      planConnections(20000, { ...DEFAULTS, taskDoor: 9000 }, { tcp: true, metrics: false });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(IrisError);
    expect((error as IrisError).code).toBe('invalid_argument');
    expect((error as IrisError).message).toMatch(
      joined(
        /^connections\.task-door: the doors would hold 18001 connections,/,
        / and the open-file limit 20000 leaves them 15000 \(5000 are kept/,
      ),
    );
    expect((error as IrisError).hint).toContain('ulimit -Hn');
  });

  it('never lets the caps and the reserve pass the limit, every cap at least 1 (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 16, max: 1 << 24 }),
        fc.option(fc.integer({ min: 1, max: 5000 }), { nil: null }),
        fc.option(fc.integer({ min: 1, max: 5000 }), { nil: null }),
        fc.boolean(),
        fc.boolean(),
        (soft, owner, taskDoor, tcp, metrics) => {
          let plan: ReturnType<typeof planConnections>;
          try {
            plan = planConnections(soft, { ...DEFAULTS, owner, taskDoor }, { tcp, metrics });
          } catch (error) {
            // Only given caps may be refused, and only when they do not fit.
            expect(owner !== null || taskDoor !== null).toBe(true);
            expect((owner ?? 0) + (taskDoor ?? 0) * (tcp ? 2 : 1)).toBeGreaterThan(soft - reserveFor(soft) - 4);
            return;
          }
          expect(total(plan)).toBeLessThanOrEqual(soft);
          expect(plan.reserve).toBeGreaterThanOrEqual(Math.min(1024, Math.floor(soft / 2)));
          for (const cap of [plan.owner, plan.taskDoor, plan.tcpTaskDoor ?? 1, plan.metrics ?? 1])
            expect(cap).toBeGreaterThanOrEqual(1);
          if (owner !== null) expect(plan.owner).toBe(owner);
          if (taskDoor !== null) expect(plan.taskDoor).toBe(taskDoor);
        },
      ),
    );
  });
});
