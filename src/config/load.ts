/**
 * Finding and reading the config file with cosmiconfig. Without an explicit path, iris looks in
 * the working directory and each parent up to the home directory (or the filesystem root when
 * the working directory is outside home), then in the global config dir (`~/.config/iris/`).
 */
import { stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { cosmiconfig, defaultLoaders } from 'cosmiconfig';
import type { Loader } from 'cosmiconfig';
import YAML from 'yaml';
import { IrisError, invalid } from '../model/errors.js';
import { MODULE_NAME, SEARCH_PLACES } from './defaults.js';
import { defaultConfig, validateConfig } from './schema/validate.js';
import type { MachineProbe } from './detect.js';
import type { IrisConfig } from './types.js';

export interface LoadConfigOptions {
  /** Directory to start the search from; also the base of a relative explicit path. */
  cwd: string;
  /** Load exactly this file (a missing file is an error). Wins over `IRIS_CONFIG`. */
  explicitPath?: string;
  /** Environment to read `IRIS_CONFIG` from; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** Last directory of the upward search; defaults to the home directory. */
  stopDir?: string;
  /** What this machine offers (CPUs, memory, GPUs, TPU device files); defaults to the real host. */
  probe?: MachineProbe;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const loadYaml: Loader = (filepath, content) => {
  try {
    return YAML.parse(content) as unknown;
  } catch (error) {
    throw invalid(`${filepath}: invalid YAML: ${message(error)}`);
  }
};

const loadJson: Loader = (filepath, content) => {
  try {
    return JSON.parse(content) as unknown;
  } catch (error) {
    throw invalid(`${filepath}: invalid JSON: ${message(error)}`);
  }
};

/** cosmiconfig's own JS/TS loader (a native `import()`, so Node 24 strips the types). */
const loadModule: Loader = async (filepath, content) => {
  const load = defaultLoaders['.ts']!;
  let exported: unknown;
  try {
    exported = await load(filepath, content);
  } catch (error) {
    throw invalid(`${filepath}: could not load: ${message(error)}`, 'TypeScript config files need Node 22.18 or newer (types are stripped: no enum, relative imports with .ts)');
  }
  if (typeof exported === 'function') {
    try {
      exported = await (exported as () => unknown)();
    } catch (error) {
      if (error instanceof IrisError) throw error;
      throw invalid(`${filepath}: the exported config function failed: ${message(error)}`);
    }
  }
  return exported;
};

function expandHome(value: string, home: string): string {
  if (value === '~') return home;
  if (value.startsWith('~/')) return path.join(home, value.slice(2));
  return value;
}

/**
 * Find, read and validate the configuration. Precedence: `explicitPath`, then `IRIS_CONFIG`,
 * then the upward search; no file at all gives the defaults (`source: null`).
 */
export async function loadConfig(opts: LoadConfigOptions): Promise<IrisConfig> {
  const env = opts.env ?? process.env;
  const cwd = path.resolve(opts.cwd);
  const explorer = cosmiconfig(MODULE_NAME, {
    searchPlaces: [...SEARCH_PLACES],
    searchStrategy: 'global',
    stopDir: path.resolve(opts.stopDir ?? os.homedir()),
    cache: false,
    loaders: {
      '.yaml': loadYaml,
      '.yml': loadYaml,
      noExt: loadYaml,
      '.json': loadJson,
      '.js': loadModule,
      '.mjs': loadModule,
      '.cjs': loadModule,
      '.ts': loadModule,
      '.mts': loadModule,
      '.cts': loadModule,
    },
  });

  const given = opts.explicitPath ?? (env.IRIS_CONFIG ? env.IRIS_CONFIG : undefined);
  const origin = opts.explicitPath !== undefined ? '' : ' (from IRIS_CONFIG)';
  let result;
  if (given !== undefined) {
    if (given.trim() === '') throw invalid('config file path is empty');
    const file = path.resolve(cwd, expandHome(given, os.homedir()));
    let info;
    try {
      info = await stat(file);
    } catch {
      throw invalid(`config file not found: ${file}${origin}`, 'check the path, or unset IRIS_CONFIG to search for .irisrc.yaml / iris.config.ts');
    }
    if (!info.isFile()) throw invalid(`config path is not a file: ${file}${origin}`);
    result = await run(() => explorer.load(file), file);
  } else {
    result = await run(() => explorer.search(cwd), null);
  }
  if (!result) return defaultConfig(opts.probe);
  return validateConfig(result.config, result.filepath, opts.probe);
}

async function run<T>(step: () => Promise<T>, file: string | null): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof IrisError) throw error;
    const where = (error as { filepath?: string }).filepath ?? file;
    throw invalid(`${where ? `${where}: ` : ''}could not read config: ${message(error)}`);
  }
}
