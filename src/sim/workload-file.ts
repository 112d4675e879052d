/**
 * The iris workload format (YAML or JSON) for `iris simulate`: declared workers, TPU slices and
 * jobs with submit time, run time, time limit, replicas, resources, gangs and child jobs (with
 * `wait: true` a job's tasks wait for its subtree after their run, as `iris run` in a task does). One
 * zod schema checks it with the config file's field schemas, so every error is an IrisError
 * naming the file and the key path (`jobs[2].children[0].run: ...`), as config errors do.
 * Times are seconds: a bare number, or a duration such as `90s`, `10m`, `1h30m`, `500ms`.
 * Workers may give `cost-per-hour` and `gpu: {variant, count, memory}` (the config's own field
 * parsers); jobs a `category`, the models they `use` (declared under top-level `models:` with
 * their load time) and, for top-level jobs, the earlier jobs they `need` (pipelines).
 * See docs/simulate.md for the format.
 */
import { BANDS, DEFAULT_BAND, bandAbove, isBand, type Band } from '../model/band.js';
import { runtimeKey } from '../cluster/scheduler/planner/index.js';
import { z } from 'zod';
import {
  attributes,
  boolean,
  byteSize,
  cpu,
  durationMs,
  fail,
  given,
  list,
  memory,
  object,
  positiveInteger,
  resolving,
  text,
} from '../config/schema/fields.js';
import { defaultQueueKey, queues, resolveQueues, type QueuesConfig } from '../config/schema/queues.js';
import { unknownQueue } from '../model/queues.js';
import { parseConstraint, type Constraint } from '../model/constraints.js';
import { invalid } from '../model/errors.js';
import {
  ATTRIBUTE_KEY,
  ATTRIBUTE_KEY_RULE,
  componentNameRule,
  componentProblem,
  isComponentName,
} from '../model/names.js';
import { DEFAULT_RESOURCES, parseGpu, type DeviceRequest, type WorkerDevice } from '../model/resources.js';
import { describeValue, formatKeyPath, parseOrThrow, parseWith } from '../model/schema-errors.js';
import { tpuVariant, type TpuVariant } from '../model/tpu.js';
import type { SimJob, SimWorker, SimWorkload } from './workload.js';
import { DEFAULT_WORKER_CPU_MILLIS, DEFAULT_WORKER_MEMORY_BYTES } from '../config/defaults.js';
import { workerCostPerHour, workerGpu, workerSizeFields, type Ctx, type Path } from '../config/schema/workers.js';
import { parseCategory, parseUses, type JobCategory } from '../model/workload.js';
import { TPU_NAME } from '../model/topology.js';

/** Guard against a `repeat` that would expand into an absurd number of jobs. */
const MAX_JOBS = 1_000_000;

/**
 * `90`, `90s`, `1h30m`, `500ms`, `2d` -> seconds, by the model's duration parser. Throws a plain IrisError (no key
 * path).
 */
export function parseSeconds(input: unknown): number {
  return durationMs(input, 'time') / 1000;
}

const seconds = parseWith<number, number | string>(parseSeconds);

function checkName(value: unknown, what: string): string {
  if (typeof value !== 'string' && typeof value !== 'number')
    throw invalid(`missing or invalid ${what} ${describeValue(value)}`);
  const text = String(value);
  if (!isComponentName(text)) throw invalid(`invalid ${what} ${describeValue(text)}: ${componentNameRule()}`);
  return text;
}

const nameOf = (what: string) => parseWith<string, string | number>((value) => checkName(value, what));

const jobName = parseWith<string, string | number>((value) => {
  const name = checkName(value, 'job name');
  const problem = componentProblem(name);
  if (problem) throw invalid(problem);
  return name;
});

const gpu = parseWith<DeviceRequest, string | number>((value) => parseGpu(String(value)));
const tpu = parseWith<TpuVariant, string>((value) => tpuVariant(String(value)));

const worker = object(
  {
    name: nameOf('worker name'),
    ...workerSizeFields,
    gpu: workerGpu.nullish(),
    tpu: tpu.nullish(),
    'cost-per-hour': workerCostPerHour.nullish(),
    attributes,
  },
  'a worker object with at least a name',
);

const slice = object(
  {
    name: nameOf('slice name'),
    tpu: parseWith<TpuVariant, string>((value) => {
      if (!given(value)) throw invalid('missing TPU variant', 'for example tpu: v5litepod-16');
      return tpuVariant(String(value));
    }),
    cpu: cpu.nullish(),
    memory: memory.nullish(),
    attributes,
  },
  'a slice object such as { name: slice-a, tpu: v5litepod-16 }',
);

const constraint = parseWith<Constraint, string>((item) => {
  if (typeof item !== 'string')
    throw invalid(`invalid constraint ${describeValue(item)}: expected text such as "zone=a"`);
  return parseConstraint(item);
});

const coschedule = parseWith<string, string>((value) => {
  if (typeof value !== 'string' || !ATTRIBUTE_KEY.test(value)) {
    const message = `invalid attribute name ${describeValue(value)}: it ${ATTRIBUTE_KEY_RULE}`;
    throw invalid(message, 'give a worker attribute such as tpu-name');
  }
  return value;
});

/** One entry of `jobs:` or `children:` as written (checked field by field). */
interface JobFields {
  name: string;
  submit?: number | null;
  after?: number | null;
  run: number;
  'time-limit'?: number | null;
  replicas?: number | null;
  cpu?: number | null;
  memory?: number | null;
  gpu?: DeviceRequest | null;
  'gpu-memory'?: number | null;
  tpu?: TpuVariant | null;
  coschedule?: string | null;
  constraints: Constraint[];
  user?: string | null;
  repeat?: { count: number; every?: number | null } | null;
  children?: JobFields[] | null;
  wait?: boolean | null;
  category?: JobCategory | null;
  uses?: string[] | null;
  needs?: string[] | null;
  priority?: Band | null;
  queue?: string | null;
}

const category = parseWith<JobCategory, string>((value) => {
  if (typeof value !== 'string')
    throw invalid(`invalid category ${describeValue(value)}`, 'use training, inference or other');
  return parseCategory(value);
});

/** A list of names (or one name) as written: `uses: llama` or `uses: [llama, mistral]`. */
const names = (what: string, example: string, check: (items: string[]) => string[]) =>
  parseWith<string[], unknown>((value) => {
    const items = typeof value === 'string' ? [value] : value;
    if (!Array.isArray(items) || items.some((item) => typeof item !== 'string'))
      throw invalid(`invalid ${what} ${describeValue(value)}: expected a list of names such as ${example}`);
    return check(items as string[]);
  });

const uses = names('uses', '[llama-3-8b]', parseUses);
const priority = parseWith<Band, unknown>((value) => {
  if (!isBand(value)) throw invalid(`invalid priority ${describeValue(value)}`, `use one of ${BANDS.join(', ')}`);
  return value;
});
const needs = names('needs', '[train]', (items) => items.map((item) => item.replace(/^\//, '')));

const model = object(
  {
    load: parseWith<number, number | string>((value) => {
      if (!given(value)) throw invalid('missing load time', 'for example load: 90s');
      return parseSeconds(value);
    }),
  },
  'an object such as { load: 90s }',
);

const job: z.ZodType<JobFields> = z.lazy(() =>
  object(
    {
      name: jobName,
      submit: seconds.nullish(),
      after: seconds.nullish(),
      run: parseWith<number, number | string>((value) => {
        if (!given(value)) throw invalid('missing run time', 'for example run: 10m');
        return parseSeconds(value);
      }),
      'time-limit': seconds.nullish(),
      replicas: positiveInteger('replicas').nullish(),
      cpu: cpu.nullish(),
      memory: memory.nullish(),
      gpu: gpu.nullish(),
      'gpu-memory': byteSize('gpu memory').nullish(),
      tpu: tpu.nullish(),
      coschedule: coschedule.nullish(),
      constraints: z
        .union([z.string().transform((one) => [one]), list(z.unknown(), 'constraints such as "zone=a"')])
        .nullish()
        .transform((items) => items ?? [])
        .pipe(z.array(constraint)),
      user: nameOf('user').nullish(),
      repeat: object(
        { count: positiveInteger('repeat count'), every: seconds.nullish() },
        'an object such as { count: 100, every: 30s }',
      ).nullish(),
      children: list(job, 'jobs').nullish(),
      wait: boolean('wait').nullish(),
      category: category.nullish(),
      uses: uses.nullish(),
      needs: needs.nullish(),
      priority: priority.nullish(),
      queue: text('queue').nullish(),
    },
    'a job object with at least a name and a run time',
  ),
);

interface Defaults {
  timeLimit: number | null;
  user: string;
  /** Load time (s) of each declared model. */
  models: Readonly<Record<string, number>>;
  /** The parent's band (a child's ceiling and default); absent: a top-level job (default interactive). */
  band?: Band;
  /** The named queues (null: none); a job's queue defaults to its parent's, else the default queue. */
  queues: QueuesConfig | null;
  /** The parent's queue. */
  queue?: string;
}

/** Jobs of one list with their names, inherited defaults and `repeat` expanded. */
class JobExpander {
  private count = 0;
  /** Root job names expanded so far: what a later root job may `need`. */
  private readonly roots = new Set<string>();
  constructor(private readonly ctx: Ctx) {}

  /** A job's queue: the one it names (known to the workload), else its parent's, else the default one. */
  private queueOf(asked: string | null | undefined, defaults: Defaults, path: Path): string | undefined {
    const queues = defaults.queues;
    if (!given(asked)) return defaults.queue ?? queues?.defaultQueue;
    if (queues && queues.queues.some((q) => q.name === asked)) return asked!;
    const error = unknownQueue(queues?.queues ?? [], asked!);
    return fail(this.ctx, path, error.message, error.hint);
  }

  list(items: JobFields[], path: Path, parent: string | null, defaults: Defaults): SimJob[] {
    const out: SimJob[] = [];
    const seen = new Map<string, string>();
    items.forEach((item, i) => {
      const at = [...path, i];
      for (const one of this.job(item, at, parent, defaults)) {
        const other = seen.get(one.name);
        if (other !== undefined) fail(this.ctx, [...at, 'name'], `duplicate job name "${one.name}" (also ${other})`);
        seen.set(one.name, formatKeyPath(at));
        if (parent === null) this.roots.add(one.name);
        out.push(one);
      }
    });
    return out;
  }

  private job(j: JobFields, path: Path, parent: string | null, defaults: Defaults): SimJob[] {
    if (parent === null && given(j.after))
      fail(this.ctx, [...path, 'after'], '"after" is for children; a top-level job uses "submit"');
    if (parent !== null && given(j.submit))
      fail(this.ctx, [...path, 'submit'], 'a child job is submitted "after" its parent starts; use after: instead');
    const submit = (parent === null ? j.submit : j.after) ?? 0;
    const uses = j.uses ?? [];
    let load = 0;
    uses.forEach((key, k) => {
      const seconds = defaults.models[key];
      if (seconds === undefined)
        fail(
          this.ctx,
          [...path, 'uses', k],
          `unknown model "${key}"`,
          `declare it under models:, e.g. models: { ${key}: { load: 90s } }`,
        );
      load += seconds;
    });
    const needs = (j.needs ?? []).map((need, k) => {
      if (parent !== null)
        fail(this.ctx, [...path, 'needs'], '"needs" is for top-level jobs; a child job starts "after" its parent');
      const name = `/${need}`;
      if (!this.roots.has(name))
        fail(
          this.ctx,
          [...path, 'needs', k],
          `"${need}" is not a top-level job declared before this one`,
          'a pipeline stage needs jobs listed earlier in jobs:',
        );
      return name;
    });
    // Without a limit, a task may take its run plus the load time of everything it uses.
    const timeLimit = j['time-limit'] ?? defaults.timeLimit ?? j.run + load;
    if (timeLimit <= 0)
      fail(
        this.ctx,
        [...path, given(j['time-limit']) ? 'time-limit' : 'run'],
        'the time limit must be more than 0 seconds',
      );
    if (given(j.gpu) && given(j.tpu))
      fail(this.ctx, path, 'gpu and tpu cannot be requested together: a task uses one kind of device');
    const variant = j.tpu ?? null;
    if (given(j['gpu-memory']) && j.gpu?.type !== 'gpu')
      fail(
        this.ctx,
        [...path, 'gpu-memory'],
        'applies only to a gpu request',
        'ask for GPUs too, e.g. gpu: 1, gpu-memory: 40GiB',
      );
    let device: DeviceRequest | null =
      j.gpu ?? (variant ? { type: 'tpu', variant: variant.name, chips: variant.chipsPerHost } : null);
    if (device?.type === 'gpu' && given(j['gpu-memory'])) device = { ...device, memoryBytes: j['gpu-memory']! };
    const replicas = j.replicas ?? variant?.hosts ?? 1;
    const coschedule = j.coschedule ?? (variant !== null && variant.hosts > 1 ? TPU_NAME : null);
    const cpuMillis = j.cpu ?? DEFAULT_RESOURCES.cpuMillis;
    const memoryBytes = j.memory ?? DEFAULT_RESOURCES.memoryBytes;
    const user = j.user ?? defaults.user;
    const band = j.priority ?? defaults.band ?? DEFAULT_BAND;
    if (defaults.band !== undefined && bandAbove(band, defaults.band))
      fail(
        this.ctx,
        [...path, 'priority'],
        `a child job may not be in a higher band than its parent (${defaults.band})`,
        "leave priority out to inherit the parent's band, or ask for a lower one",
      );
    const queue = this.queueOf(j.queue, defaults, [...path, 'queue']);
    const count = j.repeat?.count ?? 1;
    const every = j.repeat?.every ?? 0;
    this.count += count;
    if (this.count > MAX_JOBS) fail(this.ctx, path, `the workload expands into more than ${MAX_JOBS} jobs`);
    return Array.from({ length: count }, (_, k) => {
      const name = `${parent ?? ''}/${count > 1 ? `${j.name}-${k}` : j.name}`;
      return {
        name,
        submit: submit + k * every,
        run: j.run,
        timeLimit,
        replicas,
        resources: { cpuMillis, memoryBytes, device },
        constraints: j.constraints,
        coschedule,
        user,
        // No limit given: runs of the declared name by this user predict each other (SimJob.runsOf).
        ...(j['time-limit'] === undefined && defaults.timeLimit === null
          ? { runsOf: runtimeKey(user, `${parent ?? ''}/${j.name}`) }
          : {}),
        procs: (cpuMillis / 1000) * replicas,
        children: given(j.children)
          ? this.list(j.children!, [...path, 'children'], name, {
              ...defaults,
              user,
              band,
              ...(queue ? { queue } : {}),
            })
          : [],
        ...(j.wait ? { wait: true } : {}),
        ...(given(j.category) ? { category: j.category! } : {}),
        ...(uses.length > 0 ? { uses } : {}),
        ...(needs.length > 0 ? { needs } : {}),
        ...(band === DEFAULT_BAND ? {} : { band }),
        ...(queue ? { queue } : {}),
      };
    });
  }
}

function withDeviceAttributes(attributes: Record<string, string>, device: WorkerDevice): Record<string, string> {
  const out: Record<string, string> = { ...attributes, 'device-type': device.type };
  if (device.variant !== null) out['device-variant'] = device.variant;
  else delete out['device-variant'];
  return out;
}

function workers(ctx: Ctx, entries: z.output<typeof worker>[]): SimWorker[] {
  return entries.flatMap((w, i) => {
    if (given(w.gpu) && given(w.tpu))
      fail(ctx, ['workers', i], 'a worker has at most one device: set either gpu or tpu, not both');
    let device: WorkerDevice = { type: 'cpu', variant: null, count: 0 };
    if (w.gpu) device = w.gpu;
    if (w.tpu) device = { type: 'tpu', variant: w.tpu.name, count: w.tpu.chipsPerHost };
    const base = {
      cpuMillis: w.cpu ?? DEFAULT_WORKER_CPU_MILLIS,
      memoryBytes: w.memory ?? DEFAULT_WORKER_MEMORY_BYTES,
      device,
      attributes: withDeviceAttributes(w.attributes, device),
      ...(given(w['cost-per-hour']) ? { costPerHour: w['cost-per-hour']! } : {}),
    };
    if (!given(w.count)) return [{ id: w.name, ...base }];
    return Array.from({ length: w.count! }, (_, k) => ({
      id: `${w.name}-${k}`,
      ...base,
      attributes: { ...base.attributes },
    }));
  });
}

/** A slice expands into one worker per host with tpu-name, tpu-worker-id and the host's chips. */
function slices(entries: z.output<typeof slice>[]): SimWorker[] {
  return entries.flatMap((s) => {
    const device: WorkerDevice = { type: 'tpu', variant: s.tpu.name, count: s.tpu.chipsPerHost };
    return Array.from({ length: s.tpu.hosts }, (_, k) => ({
      id: `${s.name}-${k}`,
      cpuMillis: s.cpu ?? DEFAULT_WORKER_CPU_MILLIS,
      memoryBytes: s.memory ?? DEFAULT_WORKER_MEMORY_BYTES,
      device,
      attributes: { ...withDeviceAttributes(s.attributes, device), [TPU_NAME]: s.name, 'tpu-worker-id': String(k) },
    }));
  });
}

function workloadSchema(source: string) {
  return object(
    {
      workers: list(worker, 'workers').nullish(),
      slices: list(slice, 'slices').nullish(),
      jobs: list(job, 'jobs').nullish(),
      'time-limit': seconds.nullish(),
      user: nameOf('user').nullish(),
      models: z.record(z.string(), model).nullish(),
      queues,
      'default-queue': defaultQueueKey,
    },
    'a workload (a mapping with workers:, jobs: and optionally models:)',
  ).transform(
    resolving((file, ctx): SimWorkload => {
      const all = [...workers(ctx, file.workers ?? []), ...slices(file.slices ?? [])];
      if (all.length === 0)
        fail(
          ctx,
          [],
          'the workload declares no workers',
          'add workers: [{ name: w, count: 4, cpu: 8, memory: 32GiB }] or slices:',
        );
      const ids = new Set<string>();
      for (const w of all) {
        if (ids.has(w.id))
          fail(ctx, ['workers'], `duplicate worker name "${w.id}" (pools and slices expand to NAME-0, NAME-1, ...)`);
        ids.add(w.id);
      }
      if (!given(file.jobs)) fail(ctx, ['jobs'], 'the workload declares no jobs');
      const models: Record<string, number> = {};
      for (const [key, m] of Object.entries(file.models ?? {})) models[key] = m.load;
      const named = resolveQueues(ctx, file.queues, file['default-queue'], false);
      const defaults: Defaults = {
        timeLimit: file['time-limit'] ?? null,
        user: file.user ?? 'sim',
        models,
        queues: named,
      };
      const jobs = new JobExpander(ctx).list(file.jobs!, ['jobs'], null, defaults);
      const order = jobs.map((one, i) => ({ one, i }));
      order.sort((a, b) => a.one.submit - b.one.submit || a.i - b.i);
      const out: SimWorkload = {
        source,
        kind: 'iris',
        workers: all,
        jobs: order.map((o) => o.one),
        skipped: [],
        procs: null,
      };
      if (Object.keys(models).length > 0) out.models = models;
      if (named) out.queues = named;
      return out;
    }),
  );
}

/** Validate a parsed workload document (YAML or JSON) read from `source`. */
export function parseWorkload(raw: unknown, source: string): SimWorkload {
  const schema = workloadSchema(source);
  return parseOrThrow(schema, raw, { file: source });
}
