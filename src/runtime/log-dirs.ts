/**
 * The directories of an attempt's log for the layers above the runtimes: once an attempt's end is
 * recorded, the controller removes those that stayed empty (a quiet task leaves none behind), and
 * prune removes those a pruned run left empty. The cluster reaches src/logs through this seam
 * (.dependency-cruiser.cjs, `cluster-reaches-logs-through-runtime`); the rule itself is
 * logs/files.ts removeEmptyDirs (never above its root, never a directory that holds anything).
 */
export { removeEmptyDirs } from '../logs/files.js';
