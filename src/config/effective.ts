/**
 * The effective settings with where each came from (`iris config`, docs/configuration.md, "What
 * the cluster runs with"). The keys are the config schema's own (src/config/schema/validate.ts):
 * its object shapes are walked, so a key added there is listed here without a word of this file
 * changing. Guarantees:
 *
 * - every key of the schema appears once, as a dotted path (`placement.merge.max-batch`), in the
 *   schema's order; a list or map the file gives (workers, quotas, …) appears as it is written,
 *   one line per entry and key (`workers[0].cpu`, `quotas.alice.cpu`); a `workers:` or `slices:`
 *   entry also lists the defaults of the keys it leaves out that have one (ENTRY_DEFAULTS), and
 *   without either key the built-in worker is listed as the `workers:` entry that gives it;
 * - a key the file gives is `file`, shown as written; a key it leaves out is `default`, shown with
 *   the value the validated config resolved it to (so the defaults are the schema's, never a copy);
 * - `--metrics-port` wins over `metrics.port` (the key then says `flag`); `home` shows the state
 *   directory in use, from IRIS_HOME (`env`) or the default `~/.iris` (the file's `home` is not used
 *   yet, and says so).
 *
 * A default is found in the resolved config by the config's naming: `stop-grace` is `stopGraceMs`,
 * `log-limit` `logLimitBytes`, `runtime` the `kind` of `runtime`; a top-level key may sit in the
 * resolved `defaults` or `runtime` group. A block that is off (`elastic`, `task-door`) shows `off`
 * for its keys; a default that is no value shows `none`.
 */
import type { z } from 'zod';
import { formatDuration } from '../model/duration.js';
import { formatBytes, formatCpu } from '../model/resources.js';
import type { WorkerSpec } from '../model/types.js';
import { configSchema } from './schema/validate.js';
import { ENTRY_DEFAULTS } from './schema/workers.js';
import { hostProbe } from './detect.js';
import type { IrisConfig } from './types.js';
import type { ConfigOrigin, Setting } from '../model/settings.js';
import { loadConfigWithSource, type LoadConfigOptions } from './load.js';

export type { Setting, SettingSource } from '../model/settings.js';

/** What overrides the file: the environment and the flags of `cluster start`. */
export interface Overrides {
  /**
   * The state directory the cluster uses (`home` is not used yet: docs/configuration.md); `by`:
   * `IRIS_HOME` when that variable set it.
   */
  home?: { value: string; by?: 'IRIS_HOME' };
  /** `--metrics-port`. */
  metricsPort?: number;
}

/** The resolved config groups a top-level key of the file may land in (`stop-grace`: defaults.stopGraceMs). */
const FLAT_GROUPS = ['defaults', 'runtime'] as const;

type Def = { type: string; shape?: Record<string, z.ZodType>; innerType?: z.ZodType; in?: z.ZodType };

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The object shape under optional / nullable / pipes (transforms), or null for a leaf. */
function shapeOf(schema: z.ZodType): Record<string, z.ZodType> | null {
  let def = defOf(schema);
  for (;;) {
    if (def.type === 'object' && def.shape) return def.shape;
    const inner = def.innerType ?? def.in;
    if (!inner) return null;
    def = defOf(inner);
  }
}

/** The schema's keys as paths, leaves only, in the schema's order. */
export function schemaKeys(schema: z.ZodType, prefix: readonly string[] = []): string[][] {
  const shape = shapeOf(schema);
  if (!shape) return [[...prefix]];
  return Object.entries(shape).flatMap(([key, child]) => schemaKeys(child, [...prefix, key]));
}

/** The keys of the config file, from the schema (the source only names relative paths in messages). */
export function configKeys(): string[][] {
  return schemaKeys(configSchema('(keys)', hostProbe));
}

const camel = (key: string): string => key.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Map);

/** A resolved value for display; `name` is its field's name, whose suffix says its unit. */
export function formatResolved(value: unknown, name = ''): string {
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'number') {
    if (name.endsWith('Ms')) return formatDuration(value);
    if (name.endsWith('Bytes')) return formatBytes(value, { trimZero: true });
    if (name.endsWith('Millis')) return String(value / 1000);
    return String(value);
  }
  if (typeof value !== 'object') return String(value);
  if (value instanceof Map) return value.size === 0 ? 'none' : formatResolved(Object.fromEntries(value));
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.map((item) => formatResolved(item)).join(', ');
  // A field's unit suffix is said by its value (`cpuMillis: 2000` is `cpu: 2`).
  const entries = Object.entries(value).map(
    ([key, item]) => `${key.replace(/(Ms|Bytes|Millis)$/, '')}: ${formatResolved(item, key)}`,
  );
  return `{${entries.join(', ')}}`;
}

/** The resolved field a file key names (`stop-grace`: `stopGraceMs`), or undefined. */
function field(parent: Record<string, unknown>, key: string): { name: string; value: unknown } | undefined {
  const base = camel(key);
  const name = [base, `${base}Ms`, `${base}Bytes`].find((candidate) => candidate in parent);
  return name === undefined ? undefined : { name, value: parent[name] };
}

/** The value a left-out key resolved to, found by the config's naming (header); `none` or `off` when none. */
function resolvedDefault(config: IrisConfig, path: readonly string[]): string {
  const parents: unknown[] = path.length === 1 ? [config, ...FLAT_GROUPS.map((g) => config[g])] : [config];
  for (const parent of parents) {
    let at: unknown = parent;
    let found: { name: string; value: unknown } | undefined;
    for (const key of path) {
      if (at === null) return 'off';
      found = isObject(at) ? field(at, key) : undefined;
      if (found === undefined) break;
      at = found.value;
    }
    if (found === undefined) continue;
    // A key that names a resolved group (`runtime`) shows the group's kind.
    if (isObject(found.value) && 'kind' in found.value) return formatResolved(found.value.kind);
    return formatResolved(found.value, found.name);
  }
  return 'none';
}

/** A value as the file wrote it, for one line. */
function formatRaw(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || typeof value !== 'object') return String(value);
  return JSON.stringify(value);
}

/** The file's value at `path`, or undefined (YAML `key:` with nothing after it is left out). */
function rawAt(raw: unknown, path: readonly string[]): unknown {
  let at = raw;
  for (const key of path) {
    if (!isObject(at)) return undefined;
    at = at[key];
  }
  return at ?? undefined;
}

/** A list or map the file gives, one line per entry and key (`workers[0].cpu`), as written. */
function flatten(value: unknown, key: string): Array<{ key: string; value: string }> {
  if (Array.isArray(value)) {
    if (value.length === 0) return [{ key, value: '[]' }];
    return value.flatMap((item, i) => flatten(item, `${key}[${i}]`));
  }
  if (isObject(value)) {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined);
    if (entries.length === 0) return [{ key, value: '{}' }];
    return entries.flatMap(([name, item]) => flatten(item, `${key}.${name}`));
  }
  return [{ key, value: formatRaw(value) }];
}

/**
 * A built-in worker as the `workers:` entry that gives it (`name`, `cpu`, `memory`, `gpu`), so
 * `iris config` lists it like a worker of the file; `device-type` and the like are reported by
 * the worker itself and are no keys.
 */
export function workerAsEntry(worker: WorkerSpec): Record<string, unknown> {
  const entry: Record<string, unknown> = {
    name: worker.id,
    cpu: formatCpu(worker.cpuMillis),
    memory: formatBytes(worker.memoryBytes, { trimZero: true }),
  };
  const { device } = worker;
  if (device.type === 'gpu') {
    entry.gpu = {
      ...(device.variant === null ? {} : { variant: device.variant }),
      count: device.count,
      ...(device.memoryBytes == null ? {} : { memory: formatBytes(device.memoryBytes, { trimZero: true }) }),
    };
  }
  return entry;
}

/** The lists whose entries' left-out keys show their defaults (ENTRY_DEFAULTS). */
const ENTRY_LISTS = new Set(['workers', 'slices']);

/** One `workers:`/`slices:` entry: the keys it gives, then the defaults of those it leaves out. */
function entryLines(entry: unknown, key: string): Array<{ key: string; value: string; given: boolean }> {
  const lines = flatten(entry, key).map((line) => ({ ...line, given: true }));
  if (!isObject(entry)) return lines;
  for (const [name, value] of Object.entries(ENTRY_DEFAULTS)) {
    if (entry[name] === undefined || entry[name] === null) lines.push({ key: `${key}.${name}`, value, given: false });
  }
  return lines;
}

/**
 * The lines of `workers` when the file gives no `workers:`: with `slices:` there are none of
 * its own; with neither, the built-in worker, one line per key as the file would write it.
 */
function defaultWorkers(config: IrisConfig, raw: unknown): Array<{ key: string; value: string }> {
  if (rawAt(raw, ['slices']) !== undefined) return [{ key: 'workers', value: 'none' }];
  return config.workers.flatMap((worker, i) => entryLines(workerAsEntry(worker), `workers[${i}]`));
}

/** Every key of the schema with its effective value and where it came from (header). */
export function effectiveSettings(
  config: IrisConfig,
  raw: unknown,
  overrides: Overrides = {},
  keys: readonly string[][] = configKeys(),
): Setting[] {
  const out: Setting[] = [];
  for (const path of keys) {
    const key = path.join('.');
    if (key === 'home' && overrides.home) {
      const { value, by } = overrides.home;
      const written = rawAt(raw, path);
      const unused = written === undefined ? '' : ` (the file's home ${formatRaw(written)} is not used yet)`;
      out.push(
        by ? { key, value: value + unused, source: 'env', by } : { key, value: value + unused, source: 'default' },
      );
      continue;
    }
    if (key === 'metrics.port' && overrides.metricsPort !== undefined) {
      out.push({ key, value: String(overrides.metricsPort), source: 'flag', by: '--metrics-port' });
      continue;
    }
    const given = rawAt(raw, path);
    if (given === undefined && key === 'workers') {
      for (const { key: at, value } of defaultWorkers(config, raw)) out.push({ key: at, value, source: 'default' });
      continue;
    }
    if (given === undefined) {
      out.push({ key, value: resolvedDefault(config, path), source: 'default' });
      continue;
    }
    const by = config.source ?? '';
    if (ENTRY_LISTS.has(key) && Array.isArray(given) && given.length > 0) {
      for (const [i, entry] of given.entries()) {
        for (const { given: set, ...line } of entryLines(entry, `${key}[${i}]`))
          out.push(set ? { ...line, source: 'file', by } : { ...line, source: 'default' });
      }
      continue;
    }
    for (const line of flatten(given, key)) out.push({ ...line, source: 'file', by });
  }
  return out;
}

/** What `iris config` shows: the file a start would load, how it was chosen, and every setting. */
export interface EffectiveConfig {
  /** Absolute path; null: no file was found, the built-in defaults. */
  file: string | null;
  origin: ConfigOrigin | null;
  settings: Setting[];
}

/** Load the config as `cluster start` would (loadConfig) and list its effective settings. */
export async function readEffectiveConfig(opts: LoadConfigOptions, overrides: Overrides): Promise<EffectiveConfig> {
  const loaded = await loadConfigWithSource(opts);
  return {
    file: loaded.file,
    origin: loaded.origin,
    settings: effectiveSettings(loaded.config, loaded.raw, overrides),
  };
}
