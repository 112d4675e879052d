/**
 * Stage stickiness (docs/pipelines.md, "Stickiness"), pure: the one home of the rule that says
 * which parent stage a stage sticks to.
 *
 * - A stage sticks to stage P when its command, env values or image reference a result of P
 *   (`${stages.P.result.KEY}` or `${stages.P.task-N.result.KEY}`) whose KEY contains
 *   `checkpoint`, `weights` or `adapter` (case-insensitive: `best_checkpoint`, `LoRA-Adapter`).
 *   Such a result names files the parent wrote on its worker's disk, so the stage is best run there.
 * - When several references qualify, the first one wins, in the order command, env (in its key
 *   order), image. No qualifying reference: the stage sticks to nothing (null).
 * - References are read with stage-refs.ts (the one parser of their syntax).
 */
import { findStageRefs, refFields } from './stage-refs.js';

/** A result key that names model state a later stage loads from its parent's disk. */
export const STICKY_KEY = /checkpoint|weights|adapter/i;

/** The stage `parts` stick to by the rule above, or null. */
export function stickyParent(parts: Parameters<typeof refFields>[0]): string | null {
  for (const [field, text] of refFields(parts)) {
    for (const ref of findStageRefs(text, field)) if (STICKY_KEY.test(ref.key)) return ref.stage;
  }
  return null;
}
