export { ProcessRuntime, LaunchError, type ProcessRuntimeOptions } from './runtime.js';
export { reclaimProcesses, taskIdOf, ENV_CLUSTER, ENV_TASK, ENV_ATTEMPT, ENV_JOB, type ReclaimOptions } from './reclaim.js';
