/**
 * What a job says about its work, for placement (docs/configuration.md, "Placement"): its
 * category (`--category`, a pipeline stage's `category`) and the models or data sets it loads
 * (`--uses`, a stage's `uses`). Both are stored on the JobSpec, the one home of them; a job that
 * names no category is `other`.
 */
import { invalid } from './errors.js';
import type { Constraint } from './constraints.js';
import type { ResourceSpec } from './resources.js';

export const JOB_CATEGORIES = ['training', 'inference', 'other'] as const;
export type JobCategory = (typeof JOB_CATEGORIES)[number];

/** Most `uses` keys one job may name, and the longest key. */
export const MAX_USES = 32;
export const MAX_USE_KEY_LENGTH = 200;

/**
 * How long a worker holds a context-reuse hint after a task using the key ended there (config `placement.cache-ttl`).
 */
export const DEFAULT_CACHE_TTL_MS = 3_600_000;

/** `training`, `inference` or `other`; invalid_argument naming the choices otherwise. */
export function parseCategory(input: string): JobCategory {
  const value = input.trim();
  if ((JOB_CATEGORIES as readonly string[]).includes(value)) return value as JobCategory;
  throw invalid(`invalid category "${input}": expected one of ${JOB_CATEGORIES.join(', ')}`);
}

/**
 * The keys a job uses, deduplicated in order; each non-empty, without spaces, at most MAX_USE_KEY_LENGTH characters.
 */
export function parseUses(keys: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of keys) {
    const key = raw.trim();
    if (key === '' || /\s/.test(key) || key.length > MAX_USE_KEY_LENGTH) {
      throw invalid(
        `invalid uses key "${raw}": expected a model or data set name without spaces, at most ${MAX_USE_KEY_LENGTH}` +
          ` characters`,
        'for example --uses llama-3-8b',
      );
    }
    if (!out.includes(key)) out.push(key);
  }
  if (out.length > MAX_USES) throw invalid(`too many uses keys (${out.length}): at most ${MAX_USES}`);
  return out;
}

/** The longest merge key (`--merge-key`, docs/cli.md "Task merging"). */
export const MAX_MERGE_KEY_LENGTH = 200;

/**
 * A job's merge key (`--merge-key`, a stage's `merge`): non-empty, no spaces, at most
 * MAX_MERGE_KEY_LENGTH characters. Jobs with equal keys (and equal specs) may run their ready
 * tasks as one attempt (src/cluster/scheduler/placement/merge.ts).
 */
export function parseMergeKey(raw: string): string {
  const key = raw.trim();
  if (key === '' || /\s/.test(key) || key.length > MAX_MERGE_KEY_LENGTH) {
    throw invalid(
      `invalid merge key "${raw}": expected a name without spaces, at most ${MAX_MERGE_KEY_LENGTH} characters`,
      'for example --merge-key llama-3-8b-serve',
    );
  }
  return key;
}

/** What mergeGroup reads of a job spec (the simulator's jobs have no image or command). */
export interface MergeableSpec {
  mergeKey?: string | null;
  user: string;
  image?: string | null;
  command?: readonly string[];
  resources: ResourceSpec;
  constraints: readonly Constraint[];
  coschedule: string | null;
  /** Its named queue (config `queues:`): tasks merge only within one queue. */
  queue?: string;
}

/**
 * The group a job's tasks merge within: a string equal for two jobs exactly when their key, user,
 * image, command, resources, constraints and named queue are equal. Null: the job never merges (no key, or a gang).
 */
export function mergeGroup(spec: MergeableSpec): string | null {
  if (!spec.mergeKey || spec.coschedule !== null) return null;
  return JSON.stringify([
    spec.mergeKey,
    spec.user,
    spec.image ?? null,
    spec.command ?? null,
    spec.resources,
    spec.constraints,
    ...(spec.queue === undefined ? [] : [spec.queue]),
  ]);
}

/**
 * Config `keep-finished`: the finished job trees the controller keeps in memory by default (the
 * newest; older ones are read from the run archive: cluster/state/finished-trees.ts).
 */
export const DEFAULT_KEEP_FINISHED = 1000;
