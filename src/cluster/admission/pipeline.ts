/**
 * Admission of a pipeline (docs/pipelines.md): its root job and one child job per stage, all
 * admitted before any is stored, so a refused stage refuses the whole pipeline.
 *
 * - The stage graph follows src/model/pipeline.ts (unknown stage, self-need, cycle refused with
 *   the path `stages.train.needs[0]`); an error about a stage's field names it under its stage
 *   (`stages.train.memory: …`), any other error of a stage is prefixed with it (`stages.train: …`).
 * - The root `/<name>` is a job of one small task (cpu 0.1, 64MiB) that runs
 *   `iris wait <stage>…` on all its stages (relative names: children of its own job, short enough
 *   for 100,000 stages on one command line): it ends when they have ended, SUCCEEDED
 *   only when they all succeeded (a job of no tasks is not part of the model). While it waits
 *   its CPU is released to the scheduler, as for any task waiting on its own subtree. Stages
 *   are its children, so cancelling the root cancels them.
 * - Each need becomes `after: /<name>/<need>:ok`; the stage's job records `stage` (name, needs,
 *   category, uses) and the root records `pipeline.stages` (in submit order).
 * - A `${stages.X.result.K}` reference (src/model/stage-refs.ts) must name a stage in `needs`;
 *   it is resolved by the store when the stage's needs have succeeded (lifecycle.ts).
 * - Queues (./queue.ts): the root joins the default queue; a stage that names no `queue:` joins the root's.
 * - Bands (./band.ts): the root is in the highest band a stage asks for, so no stage is above it;
 *   a stage that asks for none is `interactive` (or the root's band when that is lower).
 * - Stages are admitted in stageOrder, each against a view in which the root and the stages
 *   before it exist (PENDING), so their dependencies resolve as those of stored jobs do.
 */
import { IrisError } from '../../model/errors.js';
import { formatKeyPath } from '../../model/key-path.js';
import { checkStageGraph, stageOrder } from '../../model/pipeline.js';
import { checkStageRefs, findStageRefs, stageRefProbe } from '../../model/stage-refs.js';
import { stickyParent } from '../../model/stickiness.js';
import type { TaskCaller } from '../../model/caller.js';
import type { JobSpec } from '../../model/types.js';
import { DEFAULT_BAND, bandAbove, bandOf, isBand, type Band } from '../../model/band.js';
import type { AdmissionDefaults, AdmissionRequest, ClusterView } from './types.js';
import { admit } from './index.js';

export interface StageAdmissionRequest extends Omit<AdmissionRequest, 'name' | 'after'> {
  needs?: string[] | null;
}

export interface PipelineAdmissionRequest {
  name: string;
  stages: Record<string, StageAdmissionRequest>;
}

/** The root's resources: it only waits (and its CPU is released while it does). */
export const PIPELINE_ROOT_CPU = '0.1';
export const PIPELINE_ROOT_MEMORY = '64MiB';

/**
 * The spec, or the refusal as an IrisError under `at` (`stages.train`): a refusal about a field
 * reads `stages.train.memory: …` and carries that path as its field; any other `stages.train: …`.
 */
function refuse(result: ReturnType<typeof admit>, at: string | null): JobSpec {
  if (result.ok) return result.spec;
  const { code, message, hint, field } = result.refusal;
  if (at === null) throw new IrisError(code, message, hint, field);
  // A stage's name and `after` are made from its key and `needs`, not written as fields.
  if (field === undefined || /^(name|after)\b/.test(field)) throw new IrisError(code, `${at}: ${message}`, hint);
  const named = message.startsWith(field) ? `${at}.${message}` : `${at}.${field}: ${message}`;
  throw new IrisError(code, named, hint, `${at}.${field}`);
}

/** The highest band of the stages (a stage that asks none: interactive), the root's band, so no stage is above it. */
function highestBand(asked: ReadonlyArray<string | null | undefined>): Band | null {
  let best: Band | null = null;
  for (const band of asked) if (isBand(band) && (best === null || bandAbove(band, best))) best = band;
  return best;
}

/** The root's spec first, then the stages' in submit order; throws the first refusal as an IrisError. */
export function admitPipeline(
  request: PipelineAdmissionRequest,
  caller: TaskCaller | null,
  view: ClusterView,
  defaults: AdmissionDefaults,
): JobSpec[] {
  const needsOf = new Map(Object.entries(request.stages).map(([stage, body]) => [stage, body.needs ?? []] as const));
  checkStageGraph(needsOf);
  const order = stageOrder(needsOf);

  // The stage names are checked before the root exists: ask about `/<name>/<stage>` with the root's name.
  const rootRequest: AdmissionRequest = {
    name: request.name,
    command: ['iris'],
    cpu: PIPELINE_ROOT_CPU,
    memory: PIPELINE_ROOT_MEMORY,
    priority: highestBand(Object.values(request.stages).map((stage) => stage.priority ?? DEFAULT_BAND)),
  };
  const rootProbe = refuse(admit(rootRequest, caller, view, defaults), null);
  const root = rootProbe.name;
  const rootSpec: JobSpec = {
    ...rootProbe,
    // Relative names (inside a task, a child of its own job): the argv of 100,000 stages stays
    // under the kernel's 2 MB for a command line, where `/<name>/<stage>` each would not.
    command: ['iris', 'wait', ...order],
    pipeline: { stages: order.map((stage) => ({ name: stage, needs: [...needsOf.get(stage)!] })) },
  };

  const added = new Map<string, JobSpec>([[root, rootSpec]]);
  // Nothing is stored while the stages are admitted: a user's pending tasks are counted once, not per stage.
  const pending = new Map<string, number>();
  const overlay: ClusterView = {
    ...view,
    pendingTasks: (user) => pending.get(user) ?? pending.set(user, view.pendingTasks(user)).get(user)!,
    isNameTaken: (name) => added.has(name) || view.isNameTaken(name),
    jobState: (name) => (added.has(name) ? 'PENDING' : view.jobState(name)),
    dependenciesOf: (name) =>
      added.has(name) ? (added.get(name)!.after ?? []).map((dep) => dep.job) : view.dependenciesOf(name),
    // A stage depends only on stages of this pipeline, whose graph checkStageGraph found acyclic:
    // no cycle can pass through a stage, so none is walked for (a long pipeline stays linear).
    dependedOn: () => false,
    liveBand: (name) => (added.has(name) ? bandOf(added.get(name)!) : view.liveBand?.(name)),
    // A stage that names no queue joins the root's (./queue.ts).
    liveQueue: (name) => (added.has(name) ? added.get(name)!.queue : view.liveQueue?.(name)),
  };
  // A stage that asks for no band gets the default, or the root's when that is lower (all stages batch).
  const stageDefault = bandAbove(bandOf(rootSpec), DEFAULT_BAND) ? DEFAULT_BAND : bandOf(rootSpec);
  const specs: JobSpec[] = [rootSpec];
  for (const stage of order) {
    const { needs, ...fields } = request.stages[stage]!;
    checkStageRefs(stage, fields, needs ?? []);
    // An image with references is checked with each reference standing in as `ref`; the image
    // it resolves to is checked again when the stage becomes ready (lifecycle.ts).
    const template = typeof fields.image === 'string' && findStageRefs(fields.image).length > 0 ? fields.image : null;
    const image = template === null ? fields.image : stageRefProbe(template);
    const stageRequest: AdmissionRequest = {
      ...fields,
      image,
      priority: fields.priority ?? stageDefault,
      name: `${root}/${stage}`,
      after: (needs ?? []).map((need) => `${root}/${need}:ok`),
    };
    const spec = refuse(admit(stageRequest, caller, overlay, defaults), formatKeyPath(['stages', stage]));
    const stickTo = stickyParent(fields);
    const withStage: JobSpec = {
      ...spec,
      ...(template === null ? {} : { image: template }),
      stage: { name: stage, needs: [...(needs ?? [])], ...(stickTo ? { stickTo } : {}) },
    };
    added.set(withStage.name, withStage);
    specs.push(withStage);
  }
  return specs;
}
