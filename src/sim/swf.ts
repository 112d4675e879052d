/**
 * Reader for the Standard Workload Format (Parallel Workloads Archive).
 *
 * One job per line, whitespace-separated numeric fields; lines starting with `;` are header
 * comments and blank lines are ignored. Fields used here (1-based): 1 job id, 2 submit time,
 * 4 run time, 5 allocated processors, 8 requested processors, 9 requested time, 12 user, 14
 * executable (application) number.
 *
 * The reader is faithful: it keeps every data line, in file order, and only derives
 *  - procs = max(allocated, requested) (a job needs the larger of the two), and
 *  - requestedTime = field 9, or the actual run time when field 9 is -1 (no estimate given).
 * It never drops or repairs jobs; what to do with a run time <= 0 or a processor count that
 * is <= 0 or wider than the machine is a policy of the consumer (see `usableSwfJobs` for the
 * general simulator's rules and src/sim/rlscheduler.ts for RLScheduler's).
 *
 * The machine size comes from the `; MaxProcs:` header, or `; MaxNodes:` when MaxProcs is
 * absent or 0 (traces whose nodes are single processors, such as the Lublin model files).
 */
import { readFile } from 'node:fs/promises';
import { invalid, IrisError } from '../model/errors.js';

export interface SwfJob {
  /** Field 1. */
  id: number;
  /** Field 2, seconds. */
  submit: number;
  /** Field 4, seconds as in the file (may be -1 = unknown, or 0). */
  run: number;
  /** max(field 5, field 8); -1 when neither is given. */
  procs: number;
  /** Field 9, or `run` when field 9 is -1. */
  requestedTime: number;
  /** 0-based position among the file's data lines. */
  index: number;
  /** Field 12, -1 when absent. */
  user: number;
  /** Field 14 (executable / application number), -1 when absent. */
  app: number;
  /** Field 9 was given (not -1): the job has a requested time of its own. */
  requestGiven: boolean;
}

export interface SwfTrace {
  jobs: SwfJob[];
  /** From `; MaxProcs:` (or `; MaxNodes:` when MaxProcs is absent or 0); null when neither. */
  maxProcs: number | null;
}

/** Fields a data line must have: everything up to the requested time (field 9). */
const MIN_FIELDS = 9;

/** Parses SWF text. `source` names the input in error messages (default "trace"). */
export function parseSwf(text: string, source = 'trace'): SwfTrace {
  const jobs: SwfJob[] = [];
  let maxProcs: number | null = null;
  let maxNodes: number | null = null;
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    if (line.startsWith(';')) {
      const header = /^;\s*(MaxProcs|MaxNodes)\s*:\s*(\d+)/i.exec(line);
      if (header) {
        const value = Number(header[2]);
        if (header[1]!.toLowerCase() === 'maxprocs') maxProcs = value;
        else maxNodes = value;
      }
      continue;
    }
    jobs.push(parseLine(line, jobs.length, `${source}:${i + 1}`));
  }
  const machine = maxProcs !== null && maxProcs > 0 ? maxProcs : maxNodes !== null && maxNodes > 0 ? maxNodes : null;
  return { jobs, maxProcs: machine };
}

function parseLine(line: string, index: number, where: string): SwfJob {
  const parts = line.split(/\s+/);
  if (parts.length < MIN_FIELDS) {
    throw invalid(
      `${where}: expected at least ${MIN_FIELDS} fields (SWF has 18), found ${parts.length}`,
      'each SWF job line holds whitespace-separated numbers; header lines start with ";"',
    );
  }
  const fields = parts.map((text, k) => {
    const value = Number(text);
    if (!Number.isFinite(value)) {
      throw invalid(`${where}: field ${k + 1} is "${text}", not a number`, 'SWF fields are numbers; -1 means unknown');
    }
    return value;
  });
  const run = fields[3]!;
  const requested = fields[8]!;
  return {
    id: fields[0]!,
    submit: fields[1]!,
    run,
    procs: Math.max(fields[4]!, fields[7]!),
    requestedTime: requested === -1 ? run : requested,
    index,
    user: fields.length > 11 ? fields[11]! : -1,
    app: fields.length > 13 ? fields[13]! : -1,
    requestGiven: requested !== -1,
  };
}

/** Reads and parses an SWF file; a missing or unreadable file is a clear IrisError. */
export async function readSwf(path: string): Promise<SwfTrace> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new IrisError('not_found', `trace file ${path} does not exist`);
    if (code === 'EISDIR') throw invalid(`trace ${path} is a directory, not a file`);
    throw invalid(`cannot read trace file ${path}: ${(err as Error).message}`);
  }
  return parseSwf(text, path);
}

export type SkipReason = 'unknown-run-time' | 'no-processors' | 'wider-than-machine';

export interface UsableJobs {
  jobs: SwfJob[];
  skipped: Array<{ job: SwfJob; reason: SkipReason }>;
}

/**
 * The general simulator's rules for SWF edge cases: a job with an unknown run time (< 0) or
 * no processor count (<= 0) cannot be replayed and is skipped; a job wider than the machine
 * could never start and is skipped; a run time of 0 is kept (it ran for under half a second).
 * A requested time below the run time is kept as given (the estimate was wrong).
 */
export function usableSwfJobs(jobs: readonly SwfJob[], machineProcs: number): UsableJobs {
  const out: UsableJobs = { jobs: [], skipped: [] };
  for (const job of jobs) {
    if (job.run < 0) out.skipped.push({ job, reason: 'unknown-run-time' });
    else if (job.procs <= 0) out.skipped.push({ job, reason: 'no-processors' });
    else if (job.procs > machineProcs) out.skipped.push({ job, reason: 'wider-than-machine' });
    else out.jobs.push(job);
  }
  return out;
}
