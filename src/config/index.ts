/**
 * The config layer's programmatic surface (docs/configuration.md, "Programmatic use"): `loadConfig`
 * finds, reads and validates `.irisrc.yaml` / `iris.config.ts`; `validateConfig` makes the same
 * checks on a parsed file. The server takes its settings through here; the parts (defaults,
 * detection, the schema) are reached through their own modules.
 */
export { loadConfig } from './load.js';
export type { LoadConfigOptions } from './load.js';
export { validateConfig } from './schema/validate.js';
export type { IrisConfigFile } from './schema/validate.js';
export type { MachineProbe } from './detect.js';
export type { IrisConfig } from './types.js';
