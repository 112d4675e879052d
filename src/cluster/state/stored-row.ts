/**
 * How a job's spec, an attempt's placement and an attempt's log path are written to their rows,
 * compactly (issue 36: a finished quiet task costs few bytes of state.db), and read back.
 *
 * Guarantees:
 * - read(write(x)) equals x for every value the store holds (a round trip loses nothing).
 * - The spec is stored without its `name` (the row's key) and without the fields that hold their
 *   default (SPEC_DEFAULTS: an empty env, no image, no constraints, no retries, ...); reading
 *   puts them back. A spec stored whole by an older build reads the same.
 * - A placement is stored without a null `runnerUp` and a false `reuseHit`.
 * - An attempt's log path is stored as '' when it is where the cluster puts it (attemptLogPath
 *   under the store's logs root, `<home>/logs` beside state.db); any other path is stored as is.
 */
import path from 'node:path';
import type { JobSpec, PlacementDecision } from '../../model/types.js';

/**
 * Where an attempt's log is written: `<logs root>/<job path>/@<run>/task-<i>/attempt-<n>.log`.
 * The run segment keeps every run of a name apart (`@` never occurs in a job name), and one run's
 * logs are one directory (cluster/controller/launch.ts logPathFor).
 */
export function attemptLogPath(logsRoot: string, job: string, run: number, index: number, attempt: number): string {
  return path.join(logsRoot, ...job.split('/').filter(Boolean), `@${run}`, `task-${index}`, `attempt-${attempt}.log`);
}

/** Fields of a spec left out of its row when they hold these values. */
const SPEC_DEFAULTS = {
  env: {},
  cwd: null,
  image: null,
  replicas: 1,
  constraints: [],
  coschedule: null,
  maxRetries: 0,
  maxTaskFailures: 0,
  schedulingTimeoutMs: null,
} as const;

function isDefault(key: string, value: unknown): boolean {
  if (!(key in SPEC_DEFAULTS)) return false;
  const d = (SPEC_DEFAULTS as Record<string, unknown>)[key];
  if (Array.isArray(d)) return Array.isArray(value) && value.length === 0;
  if (d !== null && typeof d === 'object')
    return value !== null && typeof value === 'object' && Object.keys(value as object).length === 0;
  return value === d;
}

/** The spec's row text (see the header). */
export function packSpec(spec: JobSpec): string {
  return JSON.stringify(compactSpec(spec));
}

/** The spec as stored: without its name and its default fields (an archived record embeds this). */
export function compactSpec(spec: JobSpec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(spec)) {
    if (key === 'name' || value === undefined || isDefault(key, value)) continue;
    if (key === 'resources' && spec.resources.device === null) {
      const { device: _, ...rest } = spec.resources;
      out[key] = rest;
    } else out[key] = value;
  }
  return out;
}

/** The spec of job `name` from its row text; throws when it is not JSON (load-check.ts decides what then). */
export function unpackSpec(text: string, name: string): JobSpec {
  return expandSpec(JSON.parse(text) as Partial<JobSpec> | null, name);
}

/** compactSpec's inverse (a spec stored whole reads the same). */
export function expandSpec(stored: Partial<JobSpec> | null, name: string): JobSpec {
  if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) return stored as unknown as JobSpec;
  const spec = { name, ...structuredDefaults(), ...stored } as JobSpec;
  const resources = stored.resources as Partial<JobSpec['resources']> | undefined;
  if (resources && typeof resources === 'object' && !('device' in resources))
    spec.resources = { ...resources, device: null } as JobSpec['resources'];
  return spec;
}

/** Fresh copies of the defaults (a spec's env or constraints must not share one object). */
function structuredDefaults(): Record<string, unknown> {
  return { ...SPEC_DEFAULTS, env: {}, constraints: [] };
}

/** The placement's row text (see the header). */
export function packPlacement(p: PlacementDecision): string {
  return JSON.stringify(compactPlacement(p));
}

/** The placement as stored: without a null runnerUp and a false reuseHit. */
export function compactPlacement(p: PlacementDecision): Partial<PlacementDecision> {
  const { runnerUp, reuseHit, ...rest } = p;
  return { ...rest, ...(runnerUp !== null ? { runnerUp } : {}), ...(reuseHit ? { reuseHit } : {}) };
}

/** A placement from its row text; throws when it is not JSON. */
export function unpackPlacement(text: string): PlacementDecision {
  return expandPlacement(JSON.parse(text) as Partial<PlacementDecision>);
}

/** compactPlacement's inverse. */
export function expandPlacement(stored: Partial<PlacementDecision>): PlacementDecision {
  return { runnerUp: null, reuseHit: false, ...stored } as PlacementDecision;
}

/** The log path's row text: '' for the path the cluster gives the attempt (see the header). */
export function packLogPath(
  logsRoot: string | null,
  logPath: string,
  job: { name: string; run: number } | undefined,
  index: number,
  attempt: number,
): string {
  if (logsRoot === null || job === undefined || logPath === '') return logPath;
  return logPath === attemptLogPath(logsRoot, job.name, job.run, index, attempt) ? '' : logPath;
}

/** The log path from its row text (packLogPath's inverse). */
export function unpackLogPath(
  logsRoot: string | null,
  stored: string,
  job: { name: string; run: number } | undefined,
  index: number,
  attempt: number,
): string {
  if (stored !== '' || logsRoot === null || job === undefined) return stored;
  return attemptLogPath(logsRoot, job.name, job.run, index, attempt);
}
