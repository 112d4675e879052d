/**
 * The shape of a pipeline request (POST /v1/pipelines, docs/pipelines.md): a name and its stages,
 * each a submit request (submit-request.ts: same fields, same meanings, `category` and `uses`
 * included) without `name` and `after`, plus `needs`. Only the shape: the stage graph rules live in
 * src/model/pipeline.ts, the values' meanings in admission. `iris submit -f` checks a file
 * against the same schema, so a file and a body are refused with the same words.
 */
import { z } from 'zod';
import { parseOrThrow } from '../model/schema-errors.js';
import { expecting, requestBody, text } from './request-schema.js';
import { SubmitRequestSchema } from './submit-request.js';

/** What a stage adds to a submit request. */
export const STAGE_FIELDS = {
  needs: z
    .array(text(), { error: expecting('an array of stage names') })
    .nullish()
    .describe(
      'Stages of this pipeline this one runs after (each must succeed): the dependency `after: ' +
        '/<pipeline>/<stage>:ok`.',
    ),
};

export const StageRequestSchema = SubmitRequestSchema.omit({ name: true, after: true }).extend(STAGE_FIELDS);

export const PipelineRequestSchema = requestBody('pipeline request', {
  name: text().describe('Pipeline name: the root job `/<name>`; each stage is the child job `/<name>/<stage>`.'),
  stages: z
    .record(text(), StageRequestSchema, { error: expecting('an object of stages by name') })
    .describe('The stages by name, in the order written.'),
  dryRun: z
    .boolean({ error: expecting('true or false') })
    .nullish()
    .describe('Check the pipeline and answer with its stage graph; submit nothing.'),
});

export type PipelineRequest = z.infer<typeof PipelineRequestSchema>;

/** Check a pipeline body's shape; throws IrisError('invalid_argument') naming the field. */
export function parsePipelineRequest(body: unknown): PipelineRequest {
  return parseOrThrow(PipelineRequestSchema, body, { style: 'body' });
}

/** One stage as `POST /v1/pipelines` answers it. */
export interface PipelineStageInfo {
  stage: string;
  /** The stage's job, `/<pipeline>/<stage>`. */
  job: string;
  needs: string[];
  tasks: number;
  cpuMillis: number;
  memoryBytes: number;
  /** `H100x8`, `v5litepod-16`, or null for none. */
  device: string | null;
  category: string | null;
  run: number | null;
}

/** The answer of POST /v1/pipelines: the root job and its stages in submit order (runs: null on a dry run). */
export interface PipelineResponse {
  name: string;
  run: number | null;
  dryRun: boolean;
  stages: PipelineStageInfo[];
}
