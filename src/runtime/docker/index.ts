export { DockerRuntime, type DockerRuntimeOptions } from './runtime.js';
export {
  containerCreateOptions,
  containerLabels,
  containerName,
  formatBytes,
  KEPT_CAPABILITIES,
  DROPPED_DEFAULT_CAPABILITIES,
  DEFAULT_PIDS_LIMIT,
  type EngineInfo,
  type CreateOptionsExtra,
} from './create-options.js';
export { engineAddress, probeEngine, EngineLostError, type EngineAddress, type ProbeResult } from './engine.js';
export { reclaimContainers, keyFromLabels } from './reclaim.js';
export { pumpDemuxed } from './demux.js';
