/**
 * The words of `iris config` (src/config/effective.ts computes them, src/ui/config.ts renders
 * them): where a setting's value came from, and how the config file was chosen.
 */

/** `file`: the config file gives it; `default`: iris's own; `env` / `flag`: a variable or a flag wins. */
export type SettingSource = 'file' | 'default' | 'env' | 'flag';

/** One key of the config schema with its effective value. */
export interface Setting {
  /** Dotted path of the key as the file spells it (`queue.policy`, `workers[0].cpu`). */
  key: string;
  /** The value as shown: as written in the file, or the resolved default. */
  value: string;
  source: SettingSource;
  /** With `file`: the file; with `env`: the variable; with `flag`: the flag (`--metrics-port`). */
  by?: string;
}

/** How the config file was chosen: `--config`, `IRIS_CONFIG`, or the upward search. */
export type ConfigOrigin = 'flag' | 'env' | 'search';
