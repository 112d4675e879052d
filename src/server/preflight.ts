/**
 * The check before a cluster starts: when `iris submit` or `iris run` (a job, or a pipeline with -f)
 * finds no cluster and would
 * start one (client/connect.ts ensureCluster), it first asks here what a cluster started now, in
 * this directory, would answer to the submission. A refusal starts nothing.
 *
 * It runs the cluster's own rules, on what is known before the cluster runs: the request's shape
 * (api/submit-request.ts), admission's values and rules with the config's defaults
 * (admission-defaults.ts), and whether any configured worker could ever run the job (with the
 * device hint naming the config file). It sees none of the saved jobs, so it never refuses what
 * the started cluster would accept: names, dependencies and pending tasks count as free, and a
 * worker as ready. Those, and the container engine, are checked by the cluster once it answers.
 * A config file the cluster could not start with is refused here as the start would refuse it.
 */
import { generateName } from '../model/names.js';
import { IrisError } from '../model/errors.js';
import type { SubmitRequest } from '../api/types.js';
import { parseSubmitRequest } from '../api/submit-request.js';
import { clusterRefusal, resolveJob, type ClusterView } from '../cluster/admission/index.js';
import { admitPipeline } from '../cluster/admission/pipeline.js';
import { parsePipelineRequest, type PipelineRequest } from '../api/pipeline-request.js';
import { workerView } from '../cluster/controller/snapshot.js';
import { loadConfig } from '../config/index.js';
import { admissionDefaults } from './admission-defaults.js';
import { hostPaths } from './host-paths.js';
import { defaultUserName } from './os-user.js';

export interface PreflightOptions {
  /** The state directory the cluster would use. */
  home: string;
  /** The environment the cluster would start with (IRIS_CONFIG). */
  env: NodeJS.ProcessEnv;
  /** The directory it would start in (its config search starts there). */
  cwd: string;
}

/** What a cluster started now knows for admission (no saved job in sight): its defaults and configured workers. */
async function startingCluster(options: PreflightOptions) {
  const config = await loadConfig({ cwd: options.cwd, env: options.env });
  const kube = config.backend.kind === 'kubernetes';
  const defaults = {
    ...admissionDefaults(config, options.home, { cwd: options.cwd, kube }),
    user: defaultUserName(),
    cwd: options.cwd,
  };
  const view: ClusterView = {
    // A kubernetes cluster's workers are its Nodes, known only once it runs.
    workers: kube ? [] : config.workers.map((worker) => workerView({ ...worker, state: 'READY' }, undefined)),
    quotas: config.quotas,
    pendingTasks: () => 0,
    isNameTaken: () => false,
    jobState: () => undefined,
    dependenciesOf: () => [],
    generateName: () => generateName(),
    hostPaths,
  };
  return { kube, defaults, view };
}

/** Throws the IrisError a cluster started now would answer `body` with; resolves when it would take it. */
export async function preflightSubmit(body: SubmitRequest, options: PreflightOptions): Promise<void> {
  const request = parseSubmitRequest(body);
  const { kube, defaults, view } = await startingCluster(options);
  const { spec, generated } = resolveJob(request, null, view, defaults);
  // A kubernetes cluster's Nodes are unknown here: whether a job fits is asked once it runs.
  if (kube) return;
  const refusal = clusterRefusal(spec, view, null, generated, defaults.queues ?? null, defaults.configPlace ?? null);
  if (refusal) throw new IrisError(refusal.code, refusal.message, refusal.hint, refusal.field);
}

/** The same for a pipeline (`-f FILE`): its whole admission (cluster/admission/pipeline.ts). */
export async function preflightPipeline(body: PipelineRequest, options: PreflightOptions): Promise<void> {
  const request = parsePipelineRequest(body);
  const { kube, defaults, view } = await startingCluster(options);
  // On kubernetes no worker is known here, and admission would find that no stage fits: left to the cluster.
  if (kube) return;
  admitPipeline(request, null, view, defaults);
}
