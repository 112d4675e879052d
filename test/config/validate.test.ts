import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/model/duration.js';
import type { IrisError } from '../../src/model/errors.js';
import { validateConfig, type MachineProbe } from '../../src/config/index.js';
import { DEFAULT_WORKER_CPU_MILLIS, DEFAULT_WORKER_MEMORY_BYTES } from '../../src/config/defaults.js';
import { suggestKey } from '../../src/model/schema-errors.js';
import { refusal } from '../helpers/refusal.js';

const SOURCE = '/home/u/proj/.irisrc.yaml';
const GiB = 1024 ** 3;
/** A machine with 8 CPUs, 32 GiB, no GPUs and no TPU device files: tests never depend on the host. */
const PROBE: MachineProbe = { cpus: () => 8, memoryBytes: () => 32 * GiB, gpus: () => [], tpuDevicePaths: () => [] };

const errorOf = (raw: unknown, source = SOURCE): IrisError => refusal(() => validateConfig(raw, source, PROBE));

describe('validateConfig: the documented example', () => {
  const config = validateConfig(
    {
      home: '~/.iris-dev',
      'stop-grace': '5s',
      'max-preemptions': 3,
      workers: [
        { name: 'cpu-0', cpu: 8, memory: '16GiB', attributes: { region: 'us-central1' } },
        { name: 'gpu-0', cpu: 16, memory: '64GiB', gpu: { variant: 'H100', count: 8 } },
        {
          name: 'tpu-a-0',
          cpu: 8,
          memory: '32GiB',
          tpu: { variant: 'v5litepod-16' },
          attributes: { 'tpu-name': 'slice-a', 'tpu-worker-id': 0 },
        },
      ],
      quotas: {
        alice: { cpu: 8, memory: '32GiB', accelerators: 8, 'pending-tasks': 100 },
        bob: { cpu: 0.5, weight: 2.5, hard: true },
      },
    },
    SOURCE,
    PROBE,
  );

  it('keeps source, expands home and reads defaults', () => {
    expect(config.source).toBe(SOURCE);
    expect(config.home).toBe(path.join(os.homedir(), '.iris-dev'));
    expect(config.defaults).toEqual({
      maxPreemptions: 3,
      stopGraceMs: 5000,
      timeLimitMs: 24 * 3_600_000,
      retryBackoffMs: null,
    });
  });

  it('resolves cpu, memory and devices', () => {
    expect(config.workers.map((w) => [w.id, w.cpuMillis, w.memoryBytes])).toEqual([
      ['cpu-0', 8000, 16 * GiB],
      ['gpu-0', 16000, 64 * GiB],
      ['tpu-a-0', 8000, 32 * GiB],
    ]);
    expect(config.workers[0]!.device).toEqual({ type: 'cpu', variant: null, count: 0 });
    expect(config.workers[1]!.device).toEqual({ type: 'gpu', variant: 'H100', count: 8 });
    // v5litepod-16: 4 hosts of 4 chips.
    expect(config.workers[2]!.device).toEqual({ type: 'tpu', variant: 'v5litepod-16', count: 4 });
  });

  it('reports device-type and device-variant and stringifies attribute values', () => {
    expect(config.workers[0]!.attributes).toEqual({ region: 'us-central1', 'device-type': 'cpu' });
    expect(config.workers[1]!.attributes).toEqual({ 'device-type': 'gpu', 'device-variant': 'H100' });
    expect(config.workers[2]!.attributes).toEqual({
      'tpu-name': 'slice-a',
      'tpu-worker-id': '0',
      'device-type': 'tpu',
      'device-variant': 'v5litepod-16',
    });
  });

  it('parses quotas per user, absent limits are null, weight 1 and soft by default', () => {
    expect(config.quotas.get('alice')).toEqual({
      maxRunningCpuMillis: 8000,
      maxRunningMemoryBytes: 32 * GiB,
      maxRunningAccelerators: 8,
      maxPendingTasks: 100,
      weight: 1,
      hard: false,
    });
    expect(config.quotas.get('bob')).toEqual({
      maxRunningCpuMillis: 500,
      maxRunningMemoryBytes: null,
      maxRunningAccelerators: null,
      maxPendingTasks: null,
      weight: 2.5,
      hard: true,
    });
    expect(config.quotas.has('carol')).toBe(false);
  });
});

describe('validateConfig: defaults and shorthands', () => {
  it('an empty file gives the machine worker and default settings', () => {
    for (const raw of [undefined, null, {}]) {
      const config = validateConfig(raw, SOURCE, PROBE);
      expect(config.source).toBe(SOURCE);
      expect(config.home).toBeNull();
      expect(config.workers).toHaveLength(1);
      expect(config.workers[0]).toMatchObject({
        id: 'local',
        cpuMillis: 8000,
        memoryBytes: 32 * GiB,
        device: { type: 'cpu', variant: null, count: 0 },
        attributes: { 'device-type': 'cpu' },
      });
      expect(config.quotas.size).toBe(0);
      expect(config.defaults).toEqual({
        maxPreemptions: 100,
        stopGraceMs: 10_000,
        timeLimitMs: 24 * 3_600_000,
        retryBackoffMs: null,
      });
    }
  });

  it('a worker without cpu or memory gets 1 core and 2GiB', () => {
    const [worker] = validateConfig({ workers: [{ name: 'w' }] }, SOURCE, PROBE).workers;
    expect(worker!.cpuMillis).toBe(DEFAULT_WORKER_CPU_MILLIS);
    expect(worker!.memoryBytes).toBe(DEFAULT_WORKER_MEMORY_BYTES);
    expect(DEFAULT_WORKER_MEMORY_BYTES).toBe(2 * GiB);
  });

  it('accepts fractional cpu, string cpu and byte counts', () => {
    const [a, b] = validateConfig(
      {
        workers: [
          { name: 'a', cpu: 0.25, memory: 1048576 },
          { name: 'b', cpu: '2', memory: '512M' },
        ],
      },
      SOURCE,
      PROBE,
    ).workers;
    expect([a!.cpuMillis, a!.memoryBytes, b!.cpuMillis, b!.memoryBytes]).toEqual([250, 1048576, 2000, 512 * 1024 ** 2]);
  });

  it('gpu shorthands and defaults', () => {
    const workers = validateConfig(
      {
        workers: [
          { name: 'g1', gpu: 'H100x4' },
          { name: 'g2', gpu: 2 },
          { name: 'g3', gpu: { variant: 'A100' } },
          { name: 'g4', gpu: { count: 3 } },
        ],
      },
      SOURCE,
      PROBE,
    ).workers;
    expect(workers.map((w) => w.device)).toEqual([
      { type: 'gpu', variant: 'H100', count: 4 },
      { type: 'gpu', variant: null, count: 2 },
      { type: 'gpu', variant: 'A100', count: 1 },
      { type: 'gpu', variant: null, count: 3 },
    ]);
    expect(workers[1]!.attributes).toEqual({ 'device-type': 'gpu' });
  });

  it('tpu shorthand, canonical variant names and explicit chips', () => {
    const workers = validateConfig(
      {
        workers: [
          { name: 't1', tpu: 'V6E-8' },
          { name: 't2', tpu: { variant: 'v4-32', chips: 2 } },
          { name: 't3', tpu: { variant: 'v5litepod-1' } },
        ],
      },
      SOURCE,
      PROBE,
    ).workers;
    expect(workers.map((w) => w.device)).toEqual([
      { type: 'tpu', variant: 'v6e-8', count: 8 },
      { type: 'tpu', variant: 'v4-32', count: 2 },
      { type: 'tpu', variant: 'v5litepod-1', count: 1 },
    ]);
    expect(workers[0]!.attributes['device-variant']).toBe('v6e-8');
  });

  it('well-known attributes may be repeated with the same value', () => {
    const [worker] = validateConfig(
      {
        workers: [
          {
            name: 'g',
            gpu: { variant: 'H100', count: 1 },
            attributes: { 'device-type': 'gpu', 'device-variant': 'H100', ok: true },
          },
        ],
      },
      SOURCE,
      PROBE,
    ).workers;
    expect(worker!.attributes).toEqual({ 'device-type': 'gpu', 'device-variant': 'H100', ok: 'true' });
  });

  it('home relative to the config file, absolute home kept', () => {
    expect(validateConfig({ home: 'state' }, SOURCE, PROBE).home).toBe('/home/u/proj/state');
    expect(validateConfig({ home: '/var/iris/' }, SOURCE, PROBE).home).toBe('/var/iris/');
    expect(validateConfig({ home: '~' }, SOURCE, PROBE).home).toBe(os.homedir());
  });

  it('stop-grace durations', () => {
    expect(parseDuration('10s')).toBe(10_000);
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('2m')).toBe(120_000);
    expect(parseDuration('1h')).toBe(3_600_000);
    expect(parseDuration('1.5s')).toBe(1500);
    expect(parseDuration(3)).toBe(3000);
    expect(parseDuration('0s')).toBe(0);
    expect(validateConfig({ 'stop-grace': '500ms' }, SOURCE, PROBE).defaults.stopGraceMs).toBe(500);
  });

  it('time-limit takes every duration the CLI takes, days and beyond 2^31 ms included', () => {
    for (const text of ['30d', '720h', '25d', '1d12h', '90s', '45', '365d']) {
      expect(validateConfig({ 'time-limit': text }, SOURCE, PROBE).defaults.timeLimitMs).toBe(parseDuration(text));
    }
    expect(validateConfig({ 'time-limit': '30d' }, SOURCE, PROBE).defaults.timeLimitMs).toBe(30 * 86_400_000);
    expect(validateConfig({ 'deadlock-grace': '30d' }, SOURCE, PROBE).deadlockGraceMs).toBe(30 * 86_400_000);
  });

  it('retry-backoff: the default --retry-backoff of a job, none unless given, longer than 0', () => {
    expect(validateConfig({}, SOURCE, PROBE).defaults.retryBackoffMs).toBeNull();
    expect(validateConfig({ 'retry-backoff': '10s' }, SOURCE, PROBE).defaults.retryBackoffMs).toBe(10_000);
    expect(() => validateConfig({ 'retry-backoff': '0s' }, SOURCE, PROBE)).toThrow(
      /retry-backoff.*must be longer than 0/,
    );
  });

  it('deadlock-grace: a duration, 30s by default', () => {
    expect(validateConfig({}, SOURCE, PROBE).deadlockGraceMs).toBe(30_000);
    expect(validateConfig({ 'deadlock-grace': '2s' }, SOURCE, PROBE).deadlockGraceMs).toBe(2000);
    expect(validateConfig({ 'deadlock-grace': 0 }, SOURCE, PROBE).deadlockGraceMs).toBe(0);
    expect(() => validateConfig({ 'deadlock-grace': 'later' }, SOURCE, PROBE)).toThrow(
      /deadlock-grace: invalid duration "later"/,
    );
  });

  it('placement.stickiness: a boolean, on by default', () => {
    expect(validateConfig({}, SOURCE, PROBE).placement.stickiness).toBe(true);
    expect(validateConfig({ placement: { stickiness: false } }, SOURCE, PROBE).placement.stickiness).toBe(false);
    expect(validateConfig({ placement: {} }, SOURCE, PROBE).placement.stickiness).toBe(true);
    expect(() => validateConfig({ placement: { stickiness: 'yes please' } }, SOURCE, PROBE)).toThrow(
      /placement\.stickiness: .*boolean/,
    );
    expect(() => validateConfig({ placement: { sticky: true } }, SOURCE, PROBE)).toThrow(/placement.*sticky/);
  });

  it('placement.cache-ttl: a duration longer than 0, 1h by default', () => {
    expect(validateConfig({}, SOURCE, PROBE).placement.cacheTtlMs).toBe(3_600_000);
    expect(validateConfig({ placement: { 'cache-ttl': '15m' } }, SOURCE, PROBE).placement.cacheTtlMs).toBe(900_000);
    expect(
      validateConfig({ placement: { 'cache-ttl': '2h', stickiness: false } }, SOURCE, PROBE).placement,
    ).toMatchObject({ stickiness: false, cacheTtlMs: 7_200_000 });
    expect(() => validateConfig({ placement: { 'cache-ttl': '0s' } }, SOURCE, PROBE)).toThrow(
      /placement\.cache-ttl: invalid placement\.cache-ttl "0s": must be longer than 0/,
    );
    expect(() => validateConfig({ placement: { 'cache-ttl': 'never' } }, SOURCE, PROBE)).toThrow(
      /placement\.cache-ttl: invalid placement\.cache-ttl "never"/,
    );
  });

  it('placement.mode: the baselines are modes too; a near miss gets a suggestion', () => {
    for (const mode of ['static-worker', 'fixed-pipeline', 'round-robin']) {
      expect(
        validateConfig({ placement: { mode, selection: 'min-satisfying' } }, SOURCE, PROBE).placement,
      ).toMatchObject({ mode, selection: 'min-satisfying' });
    }
    expect(() => validateConfig({ placement: { mode: 'static_worker' } }, SOURCE, PROBE)).toThrow(
      /placement\.mode: invalid placement mode "static_worker" \(did you mean "static-worker"\?\)/,
    );
  });

  it('elastic: off by default; on with every default, sub-second durations allowed; bad values named', () => {
    expect(validateConfig({}, SOURCE, PROBE).elastic).toBeNull();
    expect(validateConfig({ elastic: { enabled: false, poll: '1s' } }, SOURCE, PROBE).elastic).toBeNull();
    expect(validateConfig({ elastic: { enabled: true } }, SOURCE, PROBE).elastic).toEqual({
      idleDisableMs: 60_000,
      queueMax: 0,
      enableThreshold: 0,
      minActive: 1,
      pollMs: 30_000,
      cooldownMs: 60_000,
    });
    expect(
      validateConfig(
        {
          elastic: {
            enabled: true,
            'idle-disable': '1s',
            poll: '200ms',
            cooldown: '500ms',
            'queue-max': 2,
            'enable-threshold': 3,
            'min-active': 0,
          },
        },
        SOURCE,
        PROBE,
      ).elastic,
    ).toEqual({
      idleDisableMs: 1000,
      queueMax: 2,
      enableThreshold: 3,
      minActive: 0,
      pollMs: 200,
      cooldownMs: 500,
    });
    expect(() => validateConfig({ elastic: { enabled: true, poll: 0 } }, SOURCE, PROBE)).toThrow(
      /elastic\.poll: invalid poll 0: must be longer than 0/,
    );
    expect(() => validateConfig({ elastic: { enabled: true, 'min-active': -1 } }, SOURCE, PROBE)).toThrow(
      /elastic\.min-active: invalid min-active -1/,
    );
    expect(() => validateConfig({ elastic: { enabled: true, 'idle-disable': 'soon' } }, SOURCE, PROBE)).toThrow(
      /elastic\.idle-disable: invalid idle-disable "soon"/,
    );
    expect(() => validateConfig({ elastic: { enable: true } }, SOURCE, PROBE)).toThrow(/elastic.*enable/);
  });

  it('placement mode, selection, lambda and jitter: adaptive by default, each checked with a hint', () => {
    expect(validateConfig({}, SOURCE, PROBE).placement).toEqual({
      stickiness: true,
      cacheTtlMs: 3_600_000,
      mode: 'adaptive',
      selection: 'first-fit',
      lambda: { training: 0.8, inference: 0.4, other: 0.5 },
      jitter: 0.001,
      keepAccelerators: true,
      merge: { enabled: true, maxBatch: 4 },
    });
    const set = validateConfig(
      {
        placement: {
          mode: 'first-fit',
          selection: 'min-satisfying',
          lambda: { inference: 0.1 },
          jitter: 0,
          'keep-accelerators': false,
        },
      },
      SOURCE,
      PROBE,
    ).placement;
    expect(set).toMatchObject({
      mode: 'first-fit',
      selection: 'min-satisfying',
      lambda: { training: 0.8, inference: 0.1, other: 0.5 },
      jitter: 0,
      keepAccelerators: false,
    });
    expect(() => validateConfig({ placement: { mode: 'adaptiv' } }, SOURCE, PROBE)).toThrow(
      /placement\.mode: invalid placement mode "adaptiv".*adaptive/,
    );
    expect(() => validateConfig({ placement: { selection: 'best-fit' } }, SOURCE, PROBE)).toThrow(
      /placement\.selection: invalid placement selection "best-fit"/,
    );
    expect(() => validateConfig({ placement: { lambda: { training: 2 } } }, SOURCE, PROBE)).toThrow(
      /placement\.lambda\.training: invalid lambda training 2: expected a number from 0 to 1/,
    );
    expect(() => validateConfig({ placement: { lambda: { serving: 0.5 } } }, SOURCE, PROBE)).toThrow(
      /placement\.lambda.*serving/,
    );
    expect(() => validateConfig({ placement: { jitter: 0.5 } }, SOURCE, PROBE)).toThrow(
      /placement\.jitter: invalid jitter 0\.5: expected a number from 0 to 0\.1/,
    );
  });

  it('placement.merge: enabled with batches of 4 by default; max-batch a whole number from 1 to 64', () => {
    const set = (merge: unknown) => validateConfig({ placement: { merge } }, SOURCE, PROBE).placement.merge;
    expect(set({ enabled: false, 'max-batch': 8 })).toEqual({ enabled: false, maxBatch: 8 });
    expect(set({ 'max-batch': 1 })).toEqual({ enabled: true, maxBatch: 1 });
    expect(() => set({ 'max-batch': 0 })).toThrow(/placement\.merge\.max-batch: invalid placement\.merge\.max-batch 0/);
    expect(() => set({ 'max-batch': 2.5 })).toThrow(/placement\.merge\.max-batch/);
    expect(() => set({ 'max-batch': 65 })).toThrow(/placement\.merge\.max-batch.*at most 64/);
    expect(() => set({ enabled: 'yes' })).toThrow(/placement\.merge\.enabled/);
    expect(() => set({ batch: 4 })).toThrow(/placement\.merge.*batch/);
  });

  it('log-limit: a byte size, 1 GiB by default', () => {
    expect(validateConfig({}, SOURCE, PROBE).logLimitBytes).toBe(1024 ** 3);
    expect(validateConfig({ 'log-limit': '512M' }, SOURCE, PROBE).logLimitBytes).toBe(512 * 1024 ** 2);
    expect(validateConfig({ 'log-limit': 4096 }, SOURCE, PROBE).logLimitBytes).toBe(4096);
    expect(() => validateConfig({ 'log-limit': 'lots' }, SOURCE, PROBE)).toThrow(
      /log-limit: invalid log-limit "lots": expected a size such as 512M/,
    );
    expect(() => validateConfig({ 'log-limit': true }, SOURCE, PROBE)).toThrow(/log-limit: invalid log-limit true/);
  });

  it('suggests keys for typos', () => {
    expect(suggestKey('cpus', ['name', 'cpu', 'memory'])).toBe('cpu');
    expect(suggestKey('memroy', ['name', 'cpu', 'memory'])).toBe('memory');
    expect(suggestKey('stopGrace', ['home', 'stop-grace'])).toBe('stop-grace');
    expect(suggestKey('zzzzzz', ['home', 'stop-grace'])).toBeNull();
  });
});

describe('validateConfig: every error names the file and the key', () => {
  const cases: Array<[string, unknown, string, RegExp?]> = [
    [
      'bad memory',
      { workers: [{ name: 'a' }, { name: 'b', memory: 'lots' }] },
      'workers[1].memory',
      /invalid memory "lots": expected a size such as 512M, 4GiB or 2G/,
    ],
    [
      'unknown worker key',
      { workers: [{ name: 'a', cpus: 4 }] },
      'workers[0].cpus',
      /unknown key \(did you mean "cpu"\?\)/,
    ],
    ['unknown top-level key', { worker: [] }, 'worker', /unknown key \(did you mean "workers"\?\)/],
    ['unknown key without suggestion', { colour: 'blue' }, 'colour', /unknown key$/],
    ['bad cpu', { workers: [{ name: 'a', cpu: -1 }] }, 'workers[0].cpu', /invalid cpu -1:/],
    ['cpu of wrong type', { workers: [{ name: 'a', cpu: true }] }, 'workers[0].cpu', /invalid cpu true/],
    [
      'duplicate names',
      { workers: [{ name: 'a' }, { name: 'b' }, { name: 'a' }] },
      'workers[2].name',
      /duplicate worker name "a" \(also workers\[0\]\)/,
    ],
    ['gpu and tpu', { workers: [{ name: 'a', gpu: 1, tpu: 'v4-8' }] }, 'workers[0]', /either gpu or tpu, not both/],
    ['unsafe name', { workers: [{ name: 'a b' }] }, 'workers[0].name', /invalid worker name "a b"/],
    ['name starting with a dot', { workers: [{ name: '.hidden' }] }, 'workers[0].name', /invalid worker name/],
    ['too long name', { workers: [{ name: 'x'.repeat(64) }] }, 'workers[0].name', /at most 63/],
    ['missing name', { workers: [{ cpu: 1 }] }, 'workers[0].name', /missing worker name/],
    ['worker not an object', { workers: ['cpu-0'] }, 'workers[0]', /expected a worker object/],
    ['empty workers', { workers: [] }, 'workers', /at least one worker/],
    ['null workers', { workers: null }, 'workers', /at least one worker/],
    ['workers not a list', { workers: { a: {} } }, 'workers', /expected a list of workers/],
    [
      'unknown tpu variant',
      { workers: [{ name: 'a', tpu: { variant: 'v9-1' } }] },
      'workers[0].tpu.variant',
      /unknown TPU variant "v9-1"/,
    ],
    [
      'tpu without variant',
      { workers: [{ name: 'a', tpu: { chips: 4 } }] },
      'workers[0].tpu.variant',
      /missing TPU variant/,
    ],
    [
      'tpu chips not positive',
      { workers: [{ name: 'a', tpu: { variant: 'v4-8', chips: 0 } }] },
      'workers[0].tpu.chips',
      /whole number of at least 1/,
    ],
    [
      'gpu count fraction',
      { workers: [{ name: 'a', gpu: { variant: 'H100', count: 1.5 } }] },
      'workers[0].gpu.count',
      /invalid gpu count 1.5/,
    ],
    [
      'gpu unknown key',
      { workers: [{ name: 'a', gpu: { varient: 'H100' } }] },
      'workers[0].gpu.varient',
      /did you mean "variant"/,
    ],
    ['bad gpu string', { workers: [{ name: 'a', gpu: 'H100x0' }] }, 'workers[0].gpu', /invalid gpu "H100x0"/],
    [
      'device-type overridden',
      { workers: [{ name: 'a', attributes: { 'device-type': 'gpu' } }] },
      'workers[0].attributes.device-type',
      /reported by the worker itself \("cpu" here\)/,
    ],
    [
      'device-variant on cpu',
      { workers: [{ name: 'a', attributes: { 'device-variant': 'H100' } }] },
      'workers[0].attributes.device-variant',
      /absent here/,
    ],
    [
      'device-variant differs',
      { workers: [{ name: 'a', gpu: 'H100x1', attributes: { 'device-variant': 'A100' } }] },
      'workers[0].attributes.device-variant',
      /"H100" here/,
    ],
    [
      'attribute value object',
      { workers: [{ name: 'a', attributes: { zone: { a: 1 } } }] },
      'workers[0].attributes.zone',
      /expected a string, number or boolean/,
    ],
    [
      'attribute bad name',
      { workers: [{ name: 'a', attributes: { 'bad key': 'x' } }] },
      'workers[0].attributes["bad key"]',
      /invalid attribute name/,
    ],
    [
      'attributes not an object',
      { workers: [{ name: 'a', attributes: ['x'] }] },
      'workers[0].attributes',
      /expected an object/,
    ],
    ['quota cpu zero', { quotas: { alice: { cpu: 0 } } }, 'quotas.alice.cpu', /invalid cpu 0:/],
    ['quota memory bad', { quotas: { alice: { memory: '3 apples' } } }, 'quotas.alice.memory', /invalid memory/],
    [
      'quota accelerators negative',
      { quotas: { alice: { accelerators: -2 } } },
      'quotas.alice.accelerators',
      /at least 1/,
    ],
    [
      'quota pending zero',
      { quotas: { alice: { 'pending-tasks': 0 } } },
      'quotas.alice.pending-tasks',
      /invalid pending-tasks 0/,
    ],
    ['quota weight zero', { quotas: { alice: { weight: 0 } } }, 'quotas.alice.weight', /invalid weight 0: .*above 0/],
    ['quota weight negative', { quotas: { alice: { weight: -1 } } }, 'quotas.alice.weight', /invalid weight -1:/],
    ['quota weight not a number', { quotas: { alice: { weight: 'x' } } }, 'quotas.alice.weight', /invalid weight "x"/],
    [
      'quota hard not a boolean',
      { quotas: { alice: { hard: 'yes' } } },
      'quotas.alice.hard',
      /invalid hard "yes": expected true or false/,
    ],
    [
      'quota hard a number',
      { quotas: { alice: { hard: 1 } } },
      'quotas.alice.hard',
      /invalid hard 1: expected true or false/,
    ],
    ['quota unknown key', { quotas: { alice: { pending: 3 } } }, 'quotas.alice.pending', /unknown key/],
    ['quota not an object', { quotas: { alice: 5 } }, 'quotas.alice', /expected an object/],
    ['quotas not an object', { quotas: ['alice'] }, 'quotas', /expected an object/],
    ['stop-grace without sense', { 'stop-grace': 'soon' }, 'stop-grace', /invalid duration "soon"/],
    ['stop-grace negative', { 'stop-grace': -1 }, 'stop-grace', /must not be negative/],
    ['max-preemptions fraction', { 'max-preemptions': 1.5 }, 'max-preemptions', /whole number of 0 or more/],
    ['home not a string', { home: 42 }, 'home', /invalid home 42/],
    [
      'cpu beyond any machine',
      { workers: [{ name: 'a', cpu: 1e308 }] },
      'workers[0].cpu',
      /invalid cpu 1e\+308: at most 1000000 cores/,
    ],
    [
      'memory beyond exact integers',
      { workers: [{ name: 'a', memory: 1e300 }] },
      'workers[0].memory',
      /invalid memory 1e\+300: too large/,
    ],
    ['stop-grace beyond a day', { 'stop-grace': '25d' }, 'stop-grace', /invalid stop-grace "25d": at most 1d/],
    [
      'a huge worker name is cut in the message',
      { workers: [{ name: 'x'.repeat(10_000) + '!' }] },
      'workers[0].name',
      /"x{48}…" \(10001 characters\)/,
    ],
  ];

  it.each(cases)('%s', (_label, raw, keyPath, detail) => {
    const error = errorOf(raw);
    expect(error.code).toBe('invalid_argument');
    expect(error.message.startsWith(`${SOURCE}: ${keyPath}: `)).toBe(true);
    if (detail) expect(error.message).toMatch(detail);
  });

  it('the exact message for a bad memory value', () => {
    expect(errorOf({ workers: [{ name: 'a' }, { name: 'b', memory: 'lots' }] }).message).toBe(
      '/home/u/proj/.irisrc.yaml: workers[1].memory: invalid memory "lots": expected a size such as 512M, 4GiB or 2G',
    );
  });

  it('a config that is not an object names the file', () => {
    for (const raw of [[1, 2], 'workers', 7]) {
      const error = errorOf(raw);
      expect(error.message).toMatch(/^\/home\/u\/proj\/\.irisrc\.yaml: the configuration must be an object/);
    }
  });

  it('unknown keys carry a hint listing the allowed keys', () => {
    expect(errorOf({ workers: [{ name: 'a', ram: '1G' }] }).hint).toBe(
      'allowed keys here: name, count, cpu, memory, gpu, tpu, hostname, privileged, cost-per-hour, power-watts, ' +
        'attributes',
    );
  });
});
