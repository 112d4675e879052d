/**
 * src/config/effective.ts: the keys come from the schema (a key added there is listed without a
 * change here), a key left out shows the value the validated config resolved it to, a key given
 * shows as written, and the overrides name their variable or flag.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configKeys, effectiveSettings, formatResolved, schemaKeys } from '../../src/config/effective.js';
import { defaultConfig, validateConfig } from '../../src/config/schema/validate.js';
import { PROBE, SOURCE } from './probe.js';

const settingsOf = (raw: unknown, overrides = {}) =>
  new Map(effectiveSettings(validateConfig(raw, SOURCE, PROBE), raw, overrides).map((s) => [s.key, s]));

describe('effective settings', () => {
  it('walks object shapes under optional, nullable and transforms; anything else is one key', () => {
    const schema = z
      .strictObject({
        a: z.number().nullish(),
        b: z.strictObject({ c: z.string(), d: z.strictObject({ e: z.boolean() }).nullish() }).transform((x) => x),
        list: z.array(z.strictObject({ f: z.number() })),
      })
      .transform((x) => x);
    expect(schemaKeys(schema).map((k) => k.join('.'))).toEqual(['a', 'b.c', 'b.d.e', 'list']);
  });

  it('lists each key of the config schema once, in order', () => {
    const keys = configKeys().map((k) => k.join('.'));
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.slice(0, 2)).toEqual(['home', 'stop-grace']);
    expect(keys).toContain('placement.merge.max-batch');
    expect(keys).toContain('backend.kind');
    const defaults = effectiveSettings(defaultConfig(PROBE), undefined);
    // The built-in worker is a list of one entry, one line per key (as a file's workers are).
    const worker = ['name', 'cpu', 'memory', 'privileged', 'cost-per-hour'].map((k) => `workers[0].${k}`);
    expect(defaults.map((s) => s.key)).toEqual(keys.flatMap((k) => (k === 'workers' ? worker : [k])));
    expect(defaults.every((s) => s.source === 'default')).toBe(true);
  });

  it('a left-out key shows its resolved default; a given one shows as written, with the file', () => {
    const s = settingsOf({ 'stop-grace': '45s', placement: { mode: 'round-robin' }, quotas: { alice: { cpu: 4 } } });
    expect(s.get('stop-grace')).toEqual({ key: 'stop-grace', value: '45s', source: 'file', by: SOURCE });
    expect(s.get('deadlock-grace')).toMatchObject({ value: '30s', source: 'default' });
    expect(s.get('log-limit')).toMatchObject({ value: '1GiB', source: 'default' });
    expect(s.get('time-limit')).toMatchObject({ value: '1d', source: 'default' });
    expect(s.get('runtime')).toMatchObject({ value: 'process', source: 'default' });
    expect(s.get('container-user')).toMatchObject({ value: '65534:65534', source: 'default' });
    expect(s.get('placement.mode')).toMatchObject({ value: 'round-robin', source: 'file' });
    expect(s.get('placement.selection')).toMatchObject({ source: 'default' });
    expect(s.get('quotas.alice.cpu')).toMatchObject({ value: '4', source: 'file' });
    expect(s.has('quotas')).toBe(false);
    expect(s.get('elastic.enabled')).toMatchObject({ value: 'off', source: 'default' });
    expect(s.get('retry-backoff')).toMatchObject({ value: 'none', source: 'default' });
  });

  it('the built-in worker shows as the workers: entry that gives it, with the config key names', () => {
    const defaults = effectiveSettings(defaultConfig(PROBE), undefined).filter((s) => s.key.startsWith('workers'));
    expect(defaults).toEqual([
      { key: 'workers[0].name', value: 'local', source: 'default' },
      { key: 'workers[0].cpu', value: '8', source: 'default' },
      { key: 'workers[0].memory', value: '32GiB', source: 'default' },
      { key: 'workers[0].privileged', value: 'false', source: 'default' },
      { key: 'workers[0].cost-per-hour', value: '1', source: 'default' },
    ]);
    const gpus = {
      ...PROBE,
      gpus: () => [0, 1].map((index) => ({ index, name: 'NVIDIA H100', memoryBytes: 80 * 1024 ** 3 })),
    };
    const withGpus = effectiveSettings(defaultConfig(gpus), undefined).filter((s) => s.key.startsWith('workers'));
    expect(withGpus.slice(3, 6).map((s) => `${s.key}=${s.value}`)).toEqual([
      'workers[0].gpu.variant=H100',
      'workers[0].gpu.count=2',
      'workers[0].gpu.memory=80GiB',
    ]);
    // A file's entry: the keys it gives, then the defaults of the others that have one (not count, gpu, …).
    const file = settingsOf({
      workers: [
        { name: 'w0', cpu: 4 },
        { name: 'big', memory: '8GiB', 'cost-per-hour': 3 },
      ],
    });
    const lines = [...file.values()].filter((s) => s.key.startsWith('workers'));
    expect(lines.map((s) => `${s.key}=${s.value} ${s.source}`)).toEqual([
      'workers[0].name=w0 file',
      'workers[0].cpu=4 file',
      'workers[0].memory=2GiB default',
      'workers[0].privileged=false default',
      'workers[0].cost-per-hour=1 default',
      'workers[1].name=big file',
      'workers[1].memory=8GiB file',
      'workers[1].cost-per-hour=3 file',
      'workers[1].cpu=1 default',
      'workers[1].privileged=false default',
    ]);
    // Workers from slices: only: `workers` itself has none.
    const sliced = settingsOf({ slices: [{ name: 's', tpu: 'v5litepod-4', devices: Array(4).fill('/dev/zero') }] });
    expect(sliced.get('workers')).toEqual({ key: 'workers', value: 'none', source: 'default' });
    expect(sliced.get('slices[0].cost-per-hour')).toEqual({
      key: 'slices[0].cost-per-hour',
      value: '1',
      source: 'default',
    });
    expect(sliced.get('slices[0].tpu')).toMatchObject({ value: 'v5litepod-4', source: 'file' });
  });

  it('IRIS_HOME and --metrics-port win and say so; the file home is named as not used', () => {
    const s = settingsOf(
      { home: '/srv/iris', metrics: { port: 9000 } },
      { home: { value: '/h', by: 'IRIS_HOME' }, metricsPort: 9464 },
    );
    expect(s.get('home')).toEqual({
      key: 'home',
      value: "/h (the file's home /srv/iris is not used yet)",
      source: 'env',
      by: 'IRIS_HOME',
    });
    expect(s.get('metrics.port')).toEqual({ key: 'metrics.port', value: '9464', source: 'flag', by: '--metrics-port' });
    const plain = settingsOf({}, { home: { value: '/root/.iris' } });
    expect(plain.get('home')).toEqual({ key: 'home', value: '/root/.iris', source: 'default' });
  });

  it('formats resolved values by their unit suffix', () => {
    expect(formatResolved(90_000, 'graceMs')).toBe('1m30s');
    expect(formatResolved(2 * 1024 ** 3, 'memoryBytes')).toBe('2GiB');
    expect(formatResolved({ cpuMillis: 2500, memoryBytes: 1024 ** 3 })).toBe('{cpu: 2.5, memory: 1GiB}');
    expect(formatResolved(new Map())).toBe('none');
    expect(formatResolved([])).toBe('none');
  });
});
