/**
 * The stage graph of a pipeline (docs/pipelines.md), pure: the one home of the rules a pipeline's
 * stages must follow before anything is submitted.
 *
 * - A stage name is one job-name component without dots (`[A-Za-z0-9][A-Za-z0-9_-]*`, not
 *   `task-<n>`, so `${stages.NAME.result.KEY}` reads unambiguously); the stage becomes the job
 *   `/<pipeline>/<stage>`.
 * - `needs` names other stages of the same pipeline, each at most once; a stage may not need
 *   itself; the needs may not form a cycle. Each need becomes the dependency `after: <stage>:ok`.
 * - Errors are path-precise: `stages.train.needs[0]: unknown stage "prpe" (stages: prep, train,
 *   eval)`; a cycle is named as a path `stages: cycle prep -> train -> prep`.
 * - `stageOrder` lists the stages so that each comes after the stages it needs (the order given
 *   in the file among stages that are free), which is the order they are submitted in.
 */
import { invalid } from './errors.js';
import { STAGE_NAME_CHARS } from './names.js';

/** What a job stores about the stage it is (JobSpec.stage). */
export interface StageInfo {
  /** The stage's name inside its pipeline (`train`). */
  name: string;
  /** Stages it runs after, by stage name. */
  needs: string[];
  /** The stage whose worker it sticks to (model/stickiness.ts), set at submit; absent: none. */
  stickTo?: string;
}

const STAGE_NAME = new RegExp(`^${STAGE_NAME_CHARS}$`);

/** Throws invalid_argument naming the first stage or need that breaks a rule (see the header). */
export function checkStageGraph(needsOf: ReadonlyMap<string, readonly string[]>): void {
  const names = [...needsOf.keys()];
  if (names.length === 0)
    throw invalid(
      'stages: a pipeline needs at least one stage',
      'add a stage under stages:, e.g. stages: { hello: { command: [echo, hi] } }',
    );
  const list = names.join(', ');
  for (const [stage, needs] of needsOf) {
    if (!STAGE_NAME.test(stage) || /^task-\d+$/.test(stage) || stage.length > 63) {
      throw invalid(
        `stages.${stage}: invalid stage name`,
        'a stage name is letters, digits, "_" and "-" (no dots), starting with a letter or digit, at most 63 ' +
          'characters, not task-<n>',
      );
    }
    const seen = new Set<string>();
    needs.forEach((need, i) => {
      const at = `stages.${stage}.needs[${i}]`;
      if (need === stage) throw invalid(`${at}: stage "${stage}" cannot need itself`, 'name another stage');
      if (!needsOf.has(need))
        throw invalid(`${at}: unknown stage "${need}" (stages: ${list})`, 'needs names other stages of this pipeline');
      if (seen.has(need)) throw invalid(`${at}: stage "${need}" is listed twice`, 'list each needed stage once');
      seen.add(need);
    });
  }
  const cycle = findStageCycle(needsOf);
  if (cycle)
    throw invalid(
      `stages: cycle ${cycle.join(' -> ')}`,
      `a stage may not (indirectly) need itself; drop one of these needs`,
    );
}

/** A cycle among the stages as a path `a -> b -> a`, or null. Iterative: pipelines may be long. */
export function findStageCycle(needsOf: ReadonlyMap<string, readonly string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  for (const start of needsOf.keys()) {
    if (state.has(start)) continue;
    const path: string[] = [start];
    const next: number[] = [0];
    state.set(start, 'open');
    while (path.length > 0) {
      const top = path[path.length - 1]!;
      const needs = needsOf.get(top) ?? [];
      const i = next[next.length - 1]!;
      if (i >= needs.length) {
        state.set(top, 'done');
        path.pop();
        next.pop();
        continue;
      }
      next[next.length - 1] = i + 1;
      const need = needs[i]!;
      if (!needsOf.has(need)) continue;
      const seen = state.get(need);
      if (seen === 'open') return [...path.slice(path.indexOf(need)), need];
      if (seen === undefined) {
        state.set(need, 'open');
        path.push(need);
        next.push(0);
      }
    }
  }
  return null;
}

/**
 * The stages, each after the stages it needs (file order among free ones). Assumes checkStageGraph passed.
 *
 * The order is that of sweeps over the file: each sweep takes, in file order, every stage whose
 * needs are all taken (by an earlier sweep or earlier in this one). Computed without sweeping, in
 * time linear in the stages and needs (a chain written last stage first took one sweep per stage):
 * a stage's sweep is 1 or, for each need, the need's sweep (+1 when the need comes later in the
 * file), whichever is highest; the stages are then listed by sweep, and in file order within one.
 */
export function stageOrder(needsOf: ReadonlyMap<string, readonly string[]>): string[] {
  const names = [...needsOf.keys()];
  const index = new Map(names.map((name, i) => [name, i] as const));
  const missing = names.map((name) => needsOf.get(name)!.length);
  const dependents: number[][] = names.map(() => []);
  names.forEach((name, i) => {
    for (const need of needsOf.get(name)!) {
      const at = index.get(need);
      if (at !== undefined) dependents[at]!.push(i);
    }
  });
  const sweep = names.map(() => 1);
  // Kahn's walk: a stage is taken once all its needs are, and its sweep is final then.
  const ready = names.flatMap((_, i) => (missing[i] === 0 ? [i] : []));
  for (let at = 0; at < ready.length; at++) {
    const i = ready[at]!;
    for (const d of dependents[i]!) {
      sweep[d] = Math.max(sweep[d]!, i < d ? sweep[i]! : sweep[i]! + 1);
      if (--missing[d]! === 0) ready.push(d);
    }
  }
  if (ready.length < names.length) throw invalid('stages: the needs form a cycle');
  const bySweep: string[][] = [];
  names.forEach((name, i) => (bySweep[sweep[i]! - 1] ??= []).push(name));
  return bySweep.flatMap((stages) => stages ?? []);
}
