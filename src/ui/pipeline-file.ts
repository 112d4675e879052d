/**
 * Reading a pipeline file (`iris submit -f pipeline.yaml`, docs/pipelines.md) into a pipeline
 * request, with every error prefixed by the file as given (`pipeline.yaml: stages.train.needs[0]:
 * unknown stage "prpe" (stages: prep, train, eval)`). Guarantees:
 * - YAML (or JSON, for a `.json` file) with `name` and `stages`, a mapping of stage name to stage,
 *   read by src/user-file/load.ts (its size limit and errors); a duplicate stage name (a duplicate
 *   key) is refused with its line.
 * - A stage's keys are the submit request's fields (src/api/submit-request.ts); the flag
 *   spelling is accepted too (`max-retries` for `maxRetries`). `command` may be a string, run
 *   with `sh -c`.
 * - The shape is checked with the API's own schema, the graph with src/model/pipeline.ts and the
 *   `${stages…}` references with src/model/stage-refs.ts, so
 *   nothing is sent for a file the cluster would refuse for its shape or graph.
 * - Each stage carries the directory `iris` was started in as its `workspace`, as with `iris
 *   submit`: a process stage without `cwd` runs there, a container stage gets it mounted.
 */
import { PipelineRequestSchema, type PipelineRequest } from '../api/pipeline-request.js';
import { IrisError, invalid } from '../model/errors.js';
import { checkStageGraph } from '../model/pipeline.js';
import { checkStageRefs } from '../model/stage-refs.js';
import { parseOrThrow } from '../model/schema-errors.js';
import { formatOf, parseUserText, readUserText } from '../user-file/load.js';

const FORMAT_HINT = 'see docs/pipelines.md for the format';

const camel = (key: string) => key.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** The argv a one-string `command` becomes (docs/pipelines.md, "The file"). */
const isScript = (command: unknown): command is string => typeof command === 'string';

function normaliseStage(stage: unknown): unknown {
  if (stage === null || typeof stage !== 'object' || Array.isArray(stage)) return stage;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(stage)) out[camel(key)] = value;
  // A stage's `merge: KEY` is the submit request's `mergeKey` (`--merge-key`).
  if ('merge' in out && !('mergeKey' in out)) {
    out.mergeKey = out.merge;
    delete out.merge;
  }
  if (isScript(out.command)) out.command = ['sh', '-c', out.command];
  return out;
}

/** The pipeline request a file's text describes; `file` is how errors name it. */
export function parsePipelineText(
  text: string,
  file: string,
  options: { name?: string; cwd: string },
): PipelineRequest {
  const data = parseUserText(text, file, formatOf(file), FORMAT_HINT);
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw invalid(`${file}: expected a mapping with name and stages`, FORMAT_HINT);
  }
  const raw = { ...(data as Record<string, unknown>) };
  if (options.name !== undefined) raw.name = options.name;
  // Stages whose command was written as one string: a reference in it is reported at `command`.
  const scripts = new Set<string>();
  if (raw.stages !== null && typeof raw.stages === 'object' && !Array.isArray(raw.stages)) {
    for (const [stage, body] of Object.entries(raw.stages))
      if (body !== null && typeof body === 'object' && isScript((body as { command?: unknown }).command))
        scripts.add(stage);
    raw.stages = Object.fromEntries(Object.entries(raw.stages).map(([stage, body]) => [stage, normaliseStage(body)]));
  }
  const request = parseOrThrow(PipelineRequestSchema, raw, { file });
  try {
    checkStageGraph(new Map(Object.entries(request.stages).map(([stage, body]) => [stage, body.needs ?? []])));
    for (const [stage, body] of Object.entries(request.stages))
      checkStageRefs(stage, body, body.needs ?? [], scripts.has(stage));
  } catch (error) {
    if (error instanceof IrisError) throw new IrisError(error.code, `${file}: ${error.message}`, error.hint);
    throw error;
  }
  for (const body of Object.values(request.stages)) {
    body.workspace ??= options.cwd;
  }
  return request;
}

/** Reads `file` (src/user-file/load.ts: a missing file is not_found) and parses it (parsePipelineText). */
export async function readPipelineFile(
  file: string,
  options: { name?: string; cwd: string },
): Promise<PipelineRequest> {
  return parsePipelineText(await readUserText(file), file, options);
}

/**
 * The pipeline request of `iris submit|run -f FILE`: only `--name` (the pipeline's name, over the
 * file's) goes with `-f`; a command or another job flag is refused (a stage carries its own).
 */
export async function pipelineFromFlags(
  file: string,
  flags: Record<string, unknown>,
  jobFlags: readonly string[],
  argv: readonly string[],
  cwd: string,
): Promise<PipelineRequest> {
  const other = jobFlags.find((flag) => flag !== 'name' && flags[flag] !== undefined);
  if (other !== undefined) throw invalid(`--${other} cannot be used with -f`, `set ${other} on the stages in ${file}`);
  const words = argv.filter((arg) => arg !== '--');
  if (words.length > 0)
    throw invalid(`a command cannot be given with -f (got "${words[0]}")`, `each stage in ${file} has its own command`);
  return readPipelineFile(file, { cwd, ...(typeof flags.name === 'string' ? { name: flags.name } : {}) });
}
