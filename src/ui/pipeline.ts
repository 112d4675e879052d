/**
 * Plain-text rendering of a pipeline's stage graph: the answer of `iris submit -f` (with
 * `--dry-run`: what would be submitted and when each stage would start) and the "Stages:"
 * section of `iris status PIPELINE`.
 */
import type { PipelineResponse } from '../api/pipeline-request.js';
import { formatCores, formatMemory } from './format.js';
import { renderTable } from './table.js';

const list = (names: readonly string[]) => (names.length === 0 ? '-' : names.join(', '));

/** When a stage would start: at once (if it fits), or after the stages it needs succeeded. */
export function stageStart(needs: readonly string[]): string {
  return needs.length === 0 ? 'when submitted' : `after ${needs.join(' and ')} succeeded`;
}

export function renderPipeline(response: PipelineResponse): string {
  const head = response.dryRun
    ? `pipeline ${response.name}: ${response.stages.length} stage(s); dry run, nothing submitted`
    : `pipeline ${response.name} (run ${response.run}): ${response.stages.length} stage(s) submitted`;
  const table = renderTable(response.stages, [
    { header: 'STAGE', value: (s) => s.stage },
    { header: 'JOB', value: (s) => s.job },
    { header: 'NEEDS', value: (s) => list(s.needs) },
    { header: 'TASKS', value: (s) => String(s.tasks), right: true },
    { header: 'CPU', value: (s) => formatCores(s.cpuMillis), right: true },
    { header: 'MEMORY', value: (s) => formatMemory(s.memoryBytes), right: true },
    { header: 'DEVICE', value: (s) => s.device ?? 'cpu' },
    { header: 'STARTS', value: (s) => stageStart(s.needs) },
  ]);
  return `${head}\n${table}`;
}

export interface StageRow {
  stage: string;
  state: string;
  needs: readonly string[];
  reason: string | null;
}

/** `Stages:` and one row per stage with its state and needs (iris status PIPELINE). */
export function renderStages(rows: readonly StageRow[], state: (s: string) => string = (s) => s): string {
  return `Stages:\n${renderTable(rows, [
    { header: '  STAGE', value: (r) => `  ${r.stage}` },
    { header: 'STATE', value: (r) => r.state, paint: (cell) => state(cell) },
    { header: 'NEEDS', value: (r) => list(r.needs) },
    { header: 'REASON', value: (r) => r.reason ?? '' },
  ])}`;
}
