/**
 * How an archived run's record is stored in `runs.record` (archive.ts).
 *
 * Guarantees:
 * - A record written now is a BLOB: one format byte, then the run's JSON compressed with raw
 *   DEFLATE against a fixed dictionary (a typical one-task run), so a finished quiet task costs
 *   ~100 B of record instead of ~1.4 KB of text. The dictionary of a format byte never changes:
 *   a new dictionary is a new format byte, and every format ever written stays readable.
 * - A record written before (TEXT, plain JSON) reads the same, so nothing is rewritten.
 * - The run's state-change events travel in the record (`events`, compact tuples) once it is
 *   archived, and leave the `events` table with their indexes (archive.ts `insert`).
 * - Its job's spec, its attempts' placements and log paths are packed as their rows are
 *   (stored-row.ts: no default fields, a log path where the cluster puts it as '').
 * - unpackRun(decodeRecord(encodeRecord(packRun(run)))) equals run
 *   (test/cluster/state/run-record.test.ts).
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Attempt, Job, Task } from '../../model/types.js';
import type { HistoryEntry } from './events.js';
import {
  compactPlacement,
  compactSpec,
  expandPlacement,
  expandSpec,
  packLogPath,
  unpackLogPath,
} from './stored-row.js';

/**
 * An archived run's events as stored: [id, time, kind, name, state, reason], id and time each as
 * the difference from the event before (the first: from 0); the run is the record's.
 */
export type StoredEvent = [number, number, HistoryEntry['kind'], string, string, string | null];

/** Format byte of records compressed against DICTIONARY_1. */
const FORMAT_1 = 1;

/**
 * What a typical archived run looks like, packed (keys in the order the store writes them; the
 * likeliest record last, nearest to what is compressed), for DEFLATE to refer back to. Frozen for
 * FORMAT_1: changing one byte of it makes every record written with it unreadable.
 */
const DICTIONARY_1 = Buffer.from(
  '"env":{},"image":null,"replicas":1,"constraints":[],"coschedule":null,"maxRetries":0,"maxTaskFailure' +
    's":0,"schedulingTimeoutMs":null,"device":{"type":"gpu","variant":"A100","count":1},"tpu","v5litepod-' +
    '16","queue","submittedBy","category","uses","merged","runnerUp","reuseHit":true,"first-fit","FAILED"' +
    ',"KILLED","PREEMPTED","LOST","exit code 1","requeue","preempted","exec","batch","urgent",{"job":{"na' +
    'me":"/train","run":1,"spec":{"user":"alice","command":["python","train.py"],"cwd":"/home/alice","res' +
    'ources":{"cpuMillis":1000,"memoryBytes":268435456},"maxPreemptions":100,"timeoutMs":86400000,"defaul' +
    'tTimeLimit":true,"band":"interactive"},"depth":1,"parent":null,"submittedAt":1764400000000,"rootSubm' +
    'ittedAt":1764400000000,"seq":1,"state":"SUCCEEDED","reason":null,"startedAt":1764400000040,"finished' +
    'At":1764400001100,"failedTasks":0},"tasks":[{"id":"/train/task-0","job":"/train","index":0,"state":"' +
    'SUCCEEDED","attempt":0,"submittedAt":1764400000000,"seq":2,"failures":0,"preemptions":0,"workerId":"' +
    'local","exitCode":0,"reason":null,"startedAt":1764400000040,"finishedAt":1764400001100,"eligibleAt":' +
    'null}],"attempts":[[{"task":"/train/task-0","attempt":0,"workerId":"local","state":"SUCCEEDED","pid"' +
    ':12345,"exitCode":0,"reason":null,"startedAt":1764400000040,"finishedAt":1764400001100,"logPath":"",' +
    '"devices":[],"logCutBytes":null,"cpuSeconds":0.002,"peakMemoryBytes":262144,"placement":{"mode":"ada' +
    'ptive","pool":4,"lambda":0.5,"score":-0.0001}}]],"children":[],"events":[[1,1764400000000,"job","/tr' +
    'ain","PENDING","submitted"],[1,40,"attempt","/train/task-0#0","RUNNING","on local"],[1,0,"task","/tr' +
    'ain/task-0","ASSIGNED",null],[1,0,"job","/train","RUNNING",null],[1,0,"task","/train/task-0","RUNNIN' +
    'G",null],[1,1060,"attempt","/train/task-0#0","SUCCEEDED",null],[1,0,"task","/train/task-0","SUCCEEDE' +
    'D",null],[1,0,"job","/train","SUCCEEDED",null]]}',
);

/** The record to store for `run` (any JSON-serialisable object). */
export function encodeRecord(run: object): Uint8Array {
  const packed = deflateRawSync(Buffer.from(JSON.stringify(run)), { dictionary: DICTIONARY_1, level: 9 });
  const out = new Uint8Array(packed.length + 1);
  out[0] = FORMAT_1;
  out.set(packed, 1);
  return out;
}

/** The run a stored record holds: plain JSON text (older records) or a compressed BLOB. */
export function decodeRecord<T>(stored: string | Uint8Array): T {
  if (typeof stored === 'string') return JSON.parse(stored) as T;
  if (stored[0] !== FORMAT_1) throw new Error(`archived run record of unknown format ${stored[0]}`);
  const text = inflateRawSync(stored.subarray(1), { dictionary: DICTIONARY_1 }).toString('utf8');
  return JSON.parse(text) as T;
}

/** Events as the record keeps them. */
export function storeEvents(events: readonly HistoryEntry[]): StoredEvent[] {
  let id = 0;
  let time = 0;
  return events.map((e) => {
    const stored: StoredEvent = [e.id - id, e.time - time, e.kind, e.name, e.state, e.reason];
    id = e.id;
    time = e.time;
    return stored;
  });
}

/** The record's events as history entries of `run`. */
export function loadEvents(stored: readonly StoredEvent[] | undefined, run: number): HistoryEntry[] {
  let id = 0;
  let time = 0;
  return (stored ?? []).map(([idStep, timeStep, kind, name, state, reason]) => {
    id += idStep;
    time += timeStep;
    return { id, time, kind, name, state, reason, run };
  });
}

/** The parts of an archived run that are packed (archive.ts ArchivedRun has these and more). */
interface RunParts {
  job: Job;
  tasks: Task[];
  attempts: Attempt[][];
}

/** `run` with its spec, placements and log paths packed as their rows are (stored-row.ts). */
export function packRun<T extends RunParts>(run: T, logsRoot: string | null): T {
  const { job } = run;
  return {
    ...run,
    job: { ...job, spec: compactSpec(job.spec) as unknown as Job['spec'] },
    attempts: run.attempts.map((list, i) =>
      list.map((a) => ({
        ...a,
        logPath: packLogPath(logsRoot, a.logPath, job, run.tasks[i]?.index ?? i, a.attempt),
        ...(a.placement ? { placement: compactPlacement(a.placement) as Attempt['placement'] } : {}),
      })),
    ),
  };
}

/** packRun's inverse. */
export function unpackRun<T extends RunParts>(run: T, logsRoot: string | null): T {
  const { job } = run;
  return {
    ...run,
    job: { ...job, spec: expandSpec(job.spec, job.name) },
    attempts: run.attempts.map((list, i) =>
      list.map((a) => ({
        ...a,
        logPath: unpackLogPath(logsRoot, a.logPath, job, run.tasks[i]?.index ?? i, a.attempt),
        ...(a.placement ? { placement: expandPlacement(a.placement) } : {}),
      })),
    ),
  };
}
