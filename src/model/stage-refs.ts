/**
 * References to earlier stages' results in a stage's command, env values and image
 * (docs/pipelines.md, "References"), pure: the one home of their syntax, their check at submit and
 * their resolution when the stage becomes ready.
 *
 * - `${stages.NAME.result.KEY}`: the result KEY of stage NAME's tasks: task-0's value when task-0
 *   published KEY; otherwise the one value all the tasks that published KEY agree on.
 *   `${stages.NAME.task-N.result.KEY}`: the value task N published. Results are those of each
 *   task's latest attempt. `$${` stands for a literal `${`; any other text is left as it is.
 * - A value is never parsed as code: in a shell's script (`sh -c SCRIPT`) a reference becomes a
 *   shell variable whose value is passed in the environment (resolveStageRefs).
 * - At submit a reference must name a stage the stage `needs` (else refused, path-precise:
 *   `stages.eval.command[2]: ${stages.trian.result.x}: stage "trian" is not in needs (needs: train)`).
 * - When the stage becomes ready: a referenced stage that has not SUCCEEDED keeps it waiting
 *   (`stage_reference_pending: stage train is RUNNING`); a stage that SUCCEEDED without the value
 *   fails it for good (`stage_reference_failed: stage train succeeded without result checkpoint`),
 *   as do tasks that disagree on a stage-wide value and a stage that ended otherwise.
 */
import { invalid } from './errors.js';
import { NAME_COMPONENT_CHARS, STAGE_NAME_CHARS } from './names.js';
import { shellScriptIndex } from './shell-command.js';
import { isFinalJobState, type JobState } from './states.js';

export interface StageRef {
  /** As written, `${stages.train.result.checkpoint}`. */
  text: string;
  stage: string;
  /** Task index for `task-N`, or null for the stage-wide value. */
  task: number | null;
  key: string;
}

/** `$${` (an escaped `${`) or a reference. Stage names hold no `.`: the first `.result.` ends it. */
const TOKEN = new RegExp(
  `\\$\\$\\{|\\$\\{stages\\.(${STAGE_NAME_CHARS})\\.(?:task-(\\d+)\\.)?result\\.(${NAME_COMPONENT_CHARS}?)\\}`,
  'g',
);
/** Anything that looks like the start of a reference, to report a malformed one. */
const LOOSE = /\$\{stages\.[^}]*\}?/g;

/** The references in `text`, in order. Throws invalid_argument for a malformed `${stages…`. */
export function findStageRefs(text: string, field = 'value'): StageRef[] {
  const refs: StageRef[] = [];
  const covered: Array<[number, number]> = [];
  for (const m of text.matchAll(TOKEN)) {
    covered.push([m.index, m.index + m[0].length]);
    if (m[0] === '$${') continue;
    refs.push({ text: m[0], stage: m[1]!, task: m[2] === undefined ? null : Number(m[2]), key: m[3]! });
  }
  for (const m of text.matchAll(LOOSE)) {
    if (covered.some(([from, to]) => m.index >= from && m.index < to)) continue;
    if (m.index > 0 && text[m.index - 1] === '$') continue; // `$${stages…}` is escaped
    throw invalid(
      `${field}: malformed reference ${m[0]}`,
      'write ${stages.STAGE.result.KEY} or ${stages.STAGE.task-N.result.KEY} (a literal ${ is written $${)',
    );
  }
  return refs;
}

/**
 * The texts a stage's references may appear in, with their paths (`command[2]`, `env.CKPT`, `image`).
 * `script`: the command was written as one string, run as `sh -c SCRIPT`: the script's path is `command`,
 * as it was written, not the `command[2]` of the argv it became.
 */
export function refFields(
  parts: {
    command: readonly string[];
    env?: Readonly<Record<string, string>> | null;
    image?: string | null;
  },
  script = false,
): Array<[string, string]> {
  const out: Array<[string, string]> = parts.command.map((arg, i) => [
    script && i === 2 ? 'command' : `command[${i}]`,
    arg,
  ]);
  for (const [key, value] of Object.entries(parts.env ?? {})) out.push([`env.${key}`, value]);
  if (typeof parts.image === 'string') out.push(['image', parts.image]);
  return out;
}

/**
 * Refuses (invalid_argument, path-precise under `stages.STAGE.`) a reference to a stage not in `needs`;
 * `script` as for refFields.
 */
export function checkStageRefs(
  stage: string,
  parts: Parameters<typeof refFields>[0],
  needs: readonly string[],
  script = false,
): StageRef[] {
  const all: StageRef[] = [];
  for (const [field, text] of refFields(parts, script)) {
    for (const ref of findStageRefs(text, `stages.${stage}.${field}`)) {
      if (!needs.includes(ref.stage)) {
        throw invalid(
          `stages.${stage}.${field}: ${ref.text}: stage "${ref.stage}" is not in needs (needs: ` +
            `${needs.length > 0 ? needs.join(', ') : 'none'})`,
          `add ${ref.stage} to stages.${stage}.needs: a result is read once its stage has succeeded`,
        );
      }
      all.push(ref);
    }
  }
  return all;
}

/** What is known of a referenced stage: its state and its tasks' results (index -> key -> value). */
export interface StageResults {
  state: JobState;
  tasks: ReadonlyMap<number, Readonly<Record<string, string>>>;
}

export type RefValue =
  | { kind: 'value'; value: string }
  | { kind: 'pending'; reason: string }
  | { kind: 'never'; reason: string };

/** The reason of a stage waiting on a reference whose stage has not ended (it is not a failure). */
export const REF_REASON = 'stage_reference_pending';
/** The reason of a stage failed for good by a reference that can never be resolved (never called pending). */
export const REF_FAILED_REASON = 'stage_reference_failed';

/** The value of one reference, given its stage's results (undefined: the stage is not known). */
export function refValue(ref: StageRef, stage: StageResults | undefined): RefValue {
  if (stage === undefined) return { kind: 'never', reason: `${REF_FAILED_REASON}: stage ${ref.stage} is gone` };
  if (stage.state !== 'SUCCEEDED') {
    return isFinalJobState(stage.state)
      ? { kind: 'never', reason: `${REF_FAILED_REASON}: stage ${ref.stage} ended ${stage.state}` }
      : { kind: 'pending', reason: `${REF_REASON}: stage ${ref.stage} is ${stage.state}` };
  }
  if (ref.task !== null) {
    const value = stage.tasks.get(ref.task)?.[ref.key];
    return value !== undefined
      ? { kind: 'value', value }
      : {
          kind: 'never',
          reason: `${REF_FAILED_REASON}: stage ${ref.stage} task-${ref.task} succeeded without result ${ref.key}`,
        };
  }
  const first = stage.tasks.get(0)?.[ref.key];
  if (first !== undefined) return { kind: 'value', value: first };
  const values = new Set<string>();
  for (const results of stage.tasks.values()) if (results[ref.key] !== undefined) values.add(results[ref.key]!);
  if (values.size === 1) return { kind: 'value', value: [...values][0]! };
  if (values.size === 0)
    return { kind: 'never', reason: `${REF_FAILED_REASON}: stage ${ref.stage} succeeded without result ${ref.key}` };
  return {
    kind: 'never',
    reason:
      `${REF_FAILED_REASON}: stage ${ref.stage}'s tasks published different values of ${ref.key}; name one task: ` +
      `\${stages.${ref.stage}.task-N.result.${ref.key}}`,
  };
}

/** `text` with its references replaced, `$${` turned into `${`; or the first reference that is not resolved. */
export function substitute(
  text: string,
  lookup: (ref: StageRef) => RefValue,
): { kind: 'value'; value: string } | Exclude<RefValue, { kind: 'value' }> {
  let failed: Exclude<RefValue, { kind: 'value' }> | null = null;
  const value = text.replace(
    TOKEN,
    (whole, stage: string | undefined, task: string | undefined, key: string | undefined) => {
      if (whole === '$${') return '${';
      const got = lookup({ text: whole, stage: stage!, task: task === undefined ? null : Number(task), key: key! });
      if (got.kind !== 'value') {
        failed ??= got;
        return whole;
      }
      return got.value;
    },
  );
  return failed ?? { kind: 'value', value };
}

export interface RefParts {
  command: string[];
  env: Record<string, string>;
  image: string | null;
}

/** The environment variable that carries the `n`-th distinct reference of a shell script. */
export const shellRefVar = (n: number): string => `IRIS_REF_${n}`;

/**
 * A stage's command, env and image with every reference resolved (`results` by stage name); or
 * why not: `pending` (keep waiting) or `never` (fail the stage), the first such reference's reason.
 *
 * A value is data, never code: in an argv element, in an env value or in the image it is put
 * as it is (nothing parses those again), but a shell's script (`sh -c SCRIPT`, shell-command.ts)
 * never gets the value pasted in. There each distinct reference becomes `${IRIS_REF_<n>}` and
 * its value the environment variable IRIS_REF_<n> (n from 0, in order of first appearance), so
 * the shell expands it as a variable — never parsed as code, whatever it holds.
 */
export function resolveStageRefs(
  parts: RefParts,
  results: (stage: string) => StageResults | undefined,
): { kind: 'resolved'; parts: RefParts } | Exclude<RefValue, { kind: 'value' }> {
  const lookup = (ref: StageRef) => refValue(ref, results(ref.stage));
  const one = (text: string) => substitute(text, lookup);
  const scriptAt = shellScriptIndex(parts.command);
  const shellVars = new Map<string, string>();
  const shellEnv: Record<string, string> = {};
  const asShellVar = (ref: StageRef): RefValue => {
    const got = lookup(ref);
    if (got.kind !== 'value') return got;
    let name = shellVars.get(ref.text);
    if (name === undefined) {
      name = shellRefVar(shellVars.size);
      shellVars.set(ref.text, name);
      shellEnv[name] = got.value;
    }
    return { kind: 'value', value: `\${${name}}` };
  };
  const command: string[] = [];
  for (const [i, arg] of parts.command.entries()) {
    const got = i === scriptAt ? substitute(arg, asShellVar) : one(arg);
    if (got.kind !== 'value') return got;
    command.push(got.value);
  }
  const env: Record<string, string> = {};
  for (const [key, text] of Object.entries(parts.env)) {
    const got = one(text);
    if (got.kind !== 'value') return got;
    env[key] = got.value;
  }
  Object.assign(env, shellEnv);
  let image = parts.image;
  if (image !== null) {
    const got = one(image);
    if (got.kind !== 'value') return got;
    image = got.value;
  }
  return { kind: 'resolved', parts: { command, env, image } };
}

/** `text` with every reference replaced by `ref`: a stand-in to check the shape of a value before it is known. */
export function stageRefProbe(text: string): string {
  const probe = substitute(text, () => ({ kind: 'value', value: 'ref' }));
  return probe.kind === 'value' ? probe.value : text;
}

/** Whether any of these texts holds a reference (or an escaped `$${`) to resolve. */
export function hasStageRefs(parts: RefParts): boolean {
  return refFields(parts).some(([, text]) => text.includes('${stages.') || text.includes('$${'));
}
