/**
 * The one door to oclif: every part of iris that needs oclif (the commands, the base command,
 * the flag helpers, bin/run.js) imports it from here, never from `@oclif/core/...` directly.
 *
 * Why: @oclif/core is ~100 small CommonJS modules; resolving, reading and evaluating them one by
 * one cost every CLI start ~30 ms of CPU. `npm run build` (scripts/bundle.js) replaces the
 * compiled dist/oclif.js with ONE file holding these exports and all of @oclif/core they reach,
 * so a start reads one file. Without that step dist/oclif.js stays these re-exports and iris
 * works the same, only slower to start.
 *
 * Guarantees: one copy of oclif per process for iris's own code (commands, base command and the
 * entry all get their classes from this module), so `instanceof` and oclif's settings hold.
 * The autocomplete plugin (loaded only for `iris help …`, `iris autocomplete …` and the root help)
 * imports '@oclif/core' too: bin/run.js points those imports here, so it shares this copy;
 * `loadHelpClass` (also `iris help`'s) and `ux` are exported for it.
 */
export * as Args from '@oclif/core/args';
export { Command } from '@oclif/core/command';
export * as Errors from '@oclif/core/errors';
export { execute } from '@oclif/core/execute';
export { loadHelpClass } from '@oclif/core/help';
export * as Flags from '@oclif/core/flags';
export { settings } from '@oclif/core/settings';
export { toConfiguredId } from '@oclif/core/util/ids';
export { ux } from '@oclif/core/ux';
