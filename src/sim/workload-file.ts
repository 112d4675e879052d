/**
 * The iris workload format (YAML or JSON) for `iris simulate`: declared workers, TPU slices and
 * jobs with submit time, run time, time limit, replicas, resources, gangs and child jobs. Every
 * error is an IrisError naming the file and the key path (`jobs[2].children[0].run: ...`).
 * Times are seconds: a bare number, or a duration such as `90s`, `10m`, `1h30m`, `500ms`.
 * See docs/simulate.md for the format.
 */
import { IrisError, invalid } from '../model/errors.js';
import { parseConstraint, type Constraint } from '../model/constraints.js';
import { componentProblem } from '../model/names.js';
import { DEFAULT_RESOURCES, parseCpu, parseGpu, parseMemory, type DeviceRequest, type WorkerDevice } from '../model/resources.js';
import { tpuVariant } from '../model/tpu.js';
import { ATTRIBUTE_KEY, SAFE_NAME, Validator, describe, formatKeyPath, type KeyPath, type Obj } from '../config/schema/validator.js';
import type { SimJob, SimWorker, SimWorkload } from './workload.js';

const TOP_KEYS = ['workers', 'slices', 'jobs', 'time-limit', 'user'];
const WORKER_KEYS = ['name', 'count', 'cpu', 'memory', 'gpu', 'tpu', 'attributes'];
const SLICE_KEYS = ['name', 'tpu', 'cpu', 'memory', 'attributes'];
const JOB_KEYS = ['name', 'submit', 'after', 'run', 'time-limit', 'replicas', 'cpu', 'memory', 'gpu', 'tpu', 'coschedule', 'constraints', 'user', 'repeat', 'children'];
const REPEAT_KEYS = ['count', 'every'];

const DEFAULT_WORKER_CPU = 1000;
const DEFAULT_WORKER_MEMORY = 2 * 1024 ** 3;
/** Guard against a `repeat` that would expand into an absurd number of jobs. */
const MAX_JOBS = 1_000_000;

const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 };

/** `90`, `90s`, `1h30m`, `500ms`, `2d` -> seconds. Throws a plain IrisError (no key path). */
export function parseSeconds(input: unknown): number {
  const hint = 'give seconds (90) or a duration such as 90s, 10m, 1h30m or 500ms';
  if (typeof input === 'number') {
    if (!Number.isFinite(input) || input < 0) throw invalid(`invalid time ${input}: must be 0 or more`, hint);
    return input;
  }
  if (typeof input !== 'string') throw invalid(`invalid time ${describe(input)}`, hint);
  const text = input.trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const part = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;
  let total = 0;
  let at = 0;
  let match: RegExpExecArray | null;
  while ((match = part.exec(text)) !== null) {
    total += Number(match[1]) * UNIT_SECONDS[match[2]!]!;
    at = part.lastIndex;
  }
  if (at === 0 || at !== text.length) throw invalid(`invalid time "${input}"`, hint);
  return total;
}

interface Defaults {
  timeLimit: number | null;
  user: string;
}

/** Reads an iris workload file; the shared checks (and their messages) come from the config's Validator. */
class WorkloadReader extends Validator {
  private jobCount = 0;

  given(obj: Obj, key: string): boolean {
    return obj[key] !== undefined && obj[key] !== null;
  }

  name(value: unknown, keys: KeyPath, what: string): string {
    if (typeof value !== 'string' && typeof value !== 'number') throw this.fail(keys, `missing or invalid ${what} ${describe(value)}`);
    const text = String(value);
    if (!SAFE_NAME.test(text) || text.length > 63) {
      throw this.fail(keys, `invalid ${what} "${text}": use letters, digits, "-", "_" and ".", starting with a letter or digit`);
    }
    return text;
  }

  seconds(value: unknown, keys: KeyPath): number {
    return this.at(keys, () => parseSeconds(value));
  }

  workerDevice(obj: Obj, keys: KeyPath): WorkerDevice {
    if (this.given(obj, 'gpu') && this.given(obj, 'tpu')) throw this.fail(keys, 'a worker has at most one device: set either gpu or tpu, not both');
    if (this.given(obj, 'gpu')) {
      const gpu = this.at([...keys, 'gpu'], () => parseGpu(String(obj.gpu)));
      return gpu.type === 'gpu' ? { type: 'gpu', variant: gpu.variant, count: gpu.count } : { type: 'cpu', variant: null, count: 0 };
    }
    if (this.given(obj, 'tpu')) {
      const variant = this.at([...keys, 'tpu'], () => tpuVariant(String(obj.tpu)));
      return { type: 'tpu', variant: variant.name, count: variant.chipsPerHost };
    }
    return { type: 'cpu', variant: null, count: 0 };
  }

  withDeviceAttributes(attributes: Record<string, string>, device: WorkerDevice): Record<string, string> {
    const out: Record<string, string> = { ...attributes, 'device-type': device.type };
    if (device.variant !== null) out['device-variant'] = device.variant;
    else delete out['device-variant'];
    return out;
  }

  workers(value: unknown, keys: KeyPath): SimWorker[] {
    const out: SimWorker[] = [];
    this.list(value, keys, 'workers').forEach((item, i) => {
      const at = [...keys, i];
      const obj = this.object(item, at, 'a worker object with at least a name');
      this.knownKeys(obj, WORKER_KEYS, at);
      const name = this.name(obj.name, [...at, 'name'], 'worker name');
      const count = this.given(obj, 'count') ? this.positiveInteger(obj.count, [...at, 'count'], 'worker count') : null;
      const device = this.workerDevice(obj, at);
      const base = {
        cpuMillis: this.given(obj, 'cpu') ? this.cpu(obj.cpu, [...at, 'cpu']) : DEFAULT_WORKER_CPU,
        memoryBytes: this.given(obj, 'memory') ? this.memory(obj.memory, [...at, 'memory']) : DEFAULT_WORKER_MEMORY,
        device,
        attributes: this.withDeviceAttributes(this.attributes(obj.attributes, [...at, 'attributes']), device),
      };
      if (count === null) out.push({ id: name, ...base });
      else for (let k = 0; k < count; k++) out.push({ id: `${name}-${k}`, ...base, attributes: { ...base.attributes } });
    });
    return out;
  }

  /** A slice expands into one worker per host with tpu-name, tpu-worker-id and the host's chips. */
  slices(value: unknown, keys: KeyPath): SimWorker[] {
    const out: SimWorker[] = [];
    this.list(value, keys, 'slices').forEach((item, i) => {
      const at = [...keys, i];
      const obj = this.object(item, at, 'a slice object such as { name: slice-a, tpu: v5litepod-16 }');
      this.knownKeys(obj, SLICE_KEYS, at);
      const name = this.name(obj.name, [...at, 'name'], 'slice name');
      if (!this.given(obj, 'tpu')) throw this.fail([...at, 'tpu'], 'missing TPU variant', 'for example tpu: v5litepod-16');
      const variant = this.at([...at, 'tpu'], () => tpuVariant(String(obj.tpu)));
      const cpuMillis = this.given(obj, 'cpu') ? this.cpu(obj.cpu, [...at, 'cpu']) : DEFAULT_WORKER_CPU;
      const memoryBytes = this.given(obj, 'memory') ? this.memory(obj.memory, [...at, 'memory']) : DEFAULT_WORKER_MEMORY;
      const attributes = this.attributes(obj.attributes, [...at, 'attributes']);
      const device: WorkerDevice = { type: 'tpu', variant: variant.name, count: variant.chipsPerHost };
      for (let k = 0; k < variant.hosts; k++) {
        out.push({
          id: `${name}-${k}`,
          cpuMillis,
          memoryBytes,
          device,
          attributes: { ...this.withDeviceAttributes(attributes, device), 'tpu-name': name, 'tpu-worker-id': String(k) },
        });
      }
    });
    return out;
  }

  jobDevice(obj: Obj, keys: KeyPath): { device: DeviceRequest | null; hosts: number } {
    if (this.given(obj, 'gpu') && this.given(obj, 'tpu')) throw this.fail(keys, 'gpu and tpu cannot be requested together: a task uses one kind of device');
    if (this.given(obj, 'gpu')) return { device: this.at([...keys, 'gpu'], () => parseGpu(String(obj.gpu))), hosts: 1 };
    if (this.given(obj, 'tpu')) {
      const variant = this.at([...keys, 'tpu'], () => tpuVariant(String(obj.tpu)));
      return { device: { type: 'tpu', variant: variant.name, chips: variant.chipsPerHost }, hosts: variant.hosts };
    }
    return { device: null, hosts: 1 };
  }

  constraints(value: unknown, keys: KeyPath): Constraint[] {
    if (value === undefined || value === null) return [];
    const items = typeof value === 'string' ? [value] : this.list(value, keys, 'constraints such as "zone=a"');
    return items.map((item, i) => {
      if (typeof item !== 'string') throw this.fail([...keys, i], `invalid constraint ${describe(item)}: expected text such as "zone=a"`);
      return this.at([...keys, i], () => parseConstraint(item));
    });
  }

  /** One entry of `jobs:` or `children:`; `repeat` expands it into several jobs. */
  jobs(value: unknown, keys: KeyPath, parent: string | null, defaults: Defaults): SimJob[] {
    const out: SimJob[] = [];
    const seen = new Map<string, string>();
    this.list(value, keys, 'jobs').forEach((item, i) => {
      const at = [...keys, i];
      for (const job of this.job(item, at, parent, defaults)) {
        const other = seen.get(job.name);
        if (other !== undefined) throw this.fail([...at, 'name'], `duplicate job name "${job.name}" (also ${other})`);
        seen.set(job.name, formatKeyPath(at));
        out.push(job);
      }
    });
    return out;
  }

  job(item: unknown, keys: KeyPath, parent: string | null, defaults: Defaults): SimJob[] {
    const obj = this.object(item, keys, 'a job object with at least a name and a run time');
    this.knownKeys(obj, JOB_KEYS, keys);
    const base = this.name(obj.name, [...keys, 'name'], 'job name');
    const problem = componentProblem(base);
    if (problem) throw this.fail([...keys, 'name'], problem);
    if (parent === null && this.given(obj, 'after')) throw this.fail([...keys, 'after'], '"after" is for children; a top-level job uses "submit"');
    if (parent !== null && this.given(obj, 'submit')) throw this.fail([...keys, 'submit'], 'a child job is submitted "after" its parent starts; use after: instead');
    const timeKey = parent === null ? 'submit' : 'after';
    const submit = this.given(obj, timeKey) ? this.seconds(obj[timeKey], [...keys, timeKey]) : 0;
    if (!this.given(obj, 'run')) throw this.fail([...keys, 'run'], 'missing run time', 'for example run: 10m');
    const run = this.seconds(obj.run, [...keys, 'run']);
    const timeLimit = this.given(obj, 'time-limit') ? this.seconds(obj['time-limit'], [...keys, 'time-limit']) : (defaults.timeLimit ?? run);
    if (timeLimit <= 0) throw this.fail([...keys, this.given(obj, 'time-limit') ? 'time-limit' : 'run'], 'the time limit must be more than 0 seconds');
    const { device, hosts } = this.jobDevice(obj, keys);
    const replicas = this.given(obj, 'replicas') ? this.positiveInteger(obj.replicas, [...keys, 'replicas'], 'replicas') : hosts;
    let coschedule: string | null = hosts > 1 ? 'tpu-name' : null;
    if (this.given(obj, 'coschedule')) {
      if (typeof obj.coschedule !== 'string' || !ATTRIBUTE_KEY.test(obj.coschedule)) {
        throw this.fail([...keys, 'coschedule'], `invalid attribute ${describe(obj.coschedule)}`, 'give a worker attribute such as tpu-name');
      }
      coschedule = obj.coschedule;
    }
    const cpuMillis = this.given(obj, 'cpu') ? this.cpu(obj.cpu, [...keys, 'cpu']) : DEFAULT_RESOURCES.cpuMillis;
    const memoryBytes = this.given(obj, 'memory') ? this.memory(obj.memory, [...keys, 'memory']) : DEFAULT_RESOURCES.memoryBytes;
    const user = this.given(obj, 'user') ? this.name(obj.user, [...keys, 'user'], 'user') : defaults.user;
    const constraints = this.constraints(obj.constraints, [...keys, 'constraints']);
    let count = 1;
    let every = 0;
    if (this.given(obj, 'repeat')) {
      const repeat = this.object(obj.repeat, [...keys, 'repeat'], 'an object such as { count: 100, every: 30s }');
      this.knownKeys(repeat, REPEAT_KEYS, [...keys, 'repeat']);
      count = this.positiveInteger(repeat.count, [...keys, 'repeat', 'count'], 'repeat count');
      every = this.given(repeat, 'every') ? this.seconds(repeat.every, [...keys, 'repeat', 'every']) : 0;
    }
    this.jobCount += count;
    if (this.jobCount > MAX_JOBS) throw this.fail(keys, `the workload expands into more than ${MAX_JOBS} jobs`);
    const out: SimJob[] = [];
    for (let k = 0; k < count; k++) {
      const name = `${parent ?? ''}/${count > 1 ? `${base}-${k}` : base}`;
      const children = this.given(obj, 'children') ? this.jobs(obj.children, [...keys, 'children'], name, { ...defaults, user }) : [];
      out.push({
        name,
        submit: submit + k * every,
        run,
        timeLimit,
        replicas,
        resources: { cpuMillis, memoryBytes, device },
        constraints,
        coschedule,
        user,
        procs: (cpuMillis / 1000) * replicas,
        children,
      });
    }
    return out;
  }

  workload(raw: unknown): SimWorkload {
    const obj = this.object(raw, [], 'a workload (a mapping with workers: and jobs:)');
    this.knownKeys(obj, TOP_KEYS, []);
    const workers = [
      ...(this.given(obj, 'workers') ? this.workers(obj.workers, ['workers']) : []),
      ...(this.given(obj, 'slices') ? this.slices(obj.slices, ['slices']) : []),
    ];
    if (workers.length === 0) throw this.fail([], 'the workload declares no workers', 'add workers: [{ name: w, count: 4, cpu: 8, memory: 32GiB }] or slices:');
    const ids = new Set<string>();
    for (const worker of workers) {
      if (ids.has(worker.id)) throw this.fail(['workers'], `duplicate worker name "${worker.id}" (pools and slices expand to NAME-0, NAME-1, ...)`);
      ids.add(worker.id);
    }
    const defaults: Defaults = {
      timeLimit: this.given(obj, 'time-limit') ? this.seconds(obj['time-limit'], ['time-limit']) : null,
      user: this.given(obj, 'user') ? this.name(obj.user, ['user'], 'user') : 'sim',
    };
    if (!this.given(obj, 'jobs')) throw this.fail(['jobs'], 'the workload declares no jobs');
    const jobs = this.jobs(obj.jobs, ['jobs'], null, defaults);
    const order = jobs.map((job, i) => ({ job, i }));
    order.sort((a, b) => a.job.submit - b.job.submit || a.i - b.i);
    return { source: this.source, kind: 'iris', workers, jobs: order.map((o) => o.job), skipped: [], procs: null };
  }
}

/** Validate a parsed workload document (YAML or JSON) read from `source`. */
export function parseWorkload(raw: unknown, source: string): SimWorkload {
  return new WorkloadReader(source).workload(raw);
}
