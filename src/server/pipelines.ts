/**
 * The answer of POST /v1/pipelines from the admitted specs (root first, then the stages in
 * submit order) and, once stored, their run ids. Pure.
 */
import type { PipelineResponse } from '../api/pipeline-request.js';
import { describeDevice } from '../model/resources.js';
import type { JobSpec } from '../model/types.js';

export function pipelineResponse(
  specs: readonly JobSpec[],
  runs: ReadonlyMap<string, number> | null,
): PipelineResponse {
  const [root, ...stages] = specs;
  return {
    name: root!.name,
    run: runs?.get(root!.name) ?? null,
    dryRun: runs === null,
    stages: stages.map((spec) => ({
      stage: spec.stage?.name ?? spec.name,
      job: spec.name,
      needs: spec.stage?.needs ?? [],
      tasks: spec.replicas,
      cpuMillis: spec.resources.cpuMillis,
      memoryBytes: spec.resources.memoryBytes,
      device: spec.resources.device ? describeDevice(spec.resources.device) : null,
      category: spec.category ?? null,
      run: runs?.get(spec.name) ?? null,
    })),
  };
}
