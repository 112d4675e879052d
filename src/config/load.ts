/**
 * Reading the config file. Which file, and whether iris may read it at all, is src/config/find.ts:
 * an explicit path (`--config`, `IRIS_CONFIG`) or the first file the search finds; either is read
 * only once it passed the ownership rule (another user's file, or one others can change, is
 * refused with exit code 2 before a byte of it is read or imported). The file is parsed by its
 * extension: YAML (also without extension), JSON (`package.json`: its `iris` key), or a JS/TS
 * module imported with cosmiconfig's loader (Node 24 strips TypeScript types). Files are never
 * merged (cosmiconfig's `$import` is not supported). Reading the file and parsing YAML or JSON is
 * src/user-file/load.ts (its size limit and its errors); the JS/TS loader is this module's own.
 */
import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { defaultLoaders } from 'cosmiconfig';
import { IrisError, invalid } from '../model/errors.js';
import { parseUserText, readUserText } from '../user-file/load.js';
import { assertTrusted, callerUid, globalConfigDir, searchDirs } from './find.js';
import { defaultConfig, validateConfig } from './schema/validate.js';
import type { MachineProbe } from './detect.js';
import type { IrisConfig } from './types.js';
import type { ConfigOrigin } from '../model/settings.js';

export interface LoadConfigOptions {
  /** Directory to start the search from; also the base of a relative explicit path. */
  cwd: string;
  /** Load exactly this file (a missing file is an error). Wins over `IRIS_CONFIG`. */
  explicitPath?: string;
  /** Environment to read `IRIS_CONFIG` and `XDG_CONFIG_HOME` from; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** Last directory of the upward search; defaults to the home directory. */
  stopDir?: string;
  /** What this machine offers (CPUs, memory, GPUs, TPU device files); defaults to the real host. */
  probe?: MachineProbe;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

type Loader = (filepath: string, content: string) => unknown;

const loadYaml: Loader = (filepath, content) => parseUserText(content, filepath, 'yaml');
const loadJson: Loader = (filepath, content) => parseUserText(content, filepath, 'json');

/** cosmiconfig's own JS/TS loader (a native `import()`, so Node 24 strips the types). */
const loadModule: Loader = async (filepath, content) => {
  const load = defaultLoaders['.ts']!;
  let exported: unknown;
  try {
    exported = await load(filepath, content);
  } catch (error) {
    throw invalid(
      `${filepath}: could not load: ${message(error)}`,
      'TypeScript config files need Node 22.18 or newer (types are stripped: no enum, relative imports with .ts)',
    );
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

const LOADERS: Readonly<Record<string, Loader>> = {
  '': loadYaml,
  '.yaml': loadYaml,
  '.yml': loadYaml,
  '.json': loadJson,
  '.js': loadModule,
  '.mjs': loadModule,
  '.cjs': loadModule,
  '.ts': loadModule,
  '.mts': loadModule,
  '.cts': loadModule,
};

/**
 * The content of a file that passed assertTrusted: `{ config }`, or null when it is blank or a
 * package.json without an `iris` key. `config` may be null or undefined (only comments, a module
 * exporting nothing).
 */
async function readConfigFile(file: string): Promise<{ config: unknown } | null> {
  const content = await readUserText(file);
  if (content.trim() === '') return null;
  const extension = path.extname(file);
  const loader = LOADERS[extension];
  if (!loader) throw invalid(`${file}: unknown config file type "${extension}"`, 'use .yaml, .json, .js, .mjs or .ts');
  const loaded = await loader(file, content);
  if (path.basename(file) !== 'package.json') return { config: loaded };
  const key = loaded !== null && typeof loaded === 'object' ? (loaded as Record<string, unknown>).iris : undefined;
  return key === undefined || key === null ? null : { config: key };
}

function expandHome(value: string, home: string): string {
  if (value === '~') return home;
  if (value.startsWith('~/')) return path.join(home, value.slice(2));
  return value;
}

/** The first file of the search that holds something; null when none does. */
async function searchConfig(
  cwd: string,
  stopDir: string,
  globalDir: string,
  uid: number | null,
): Promise<{ file: string; config: unknown } | null> {
  for await (const dir of searchDirs(cwd, stopDir, globalDir, uid)) {
    for (const place of dir.places) {
      const file = path.join(dir.path, place);
      const info = await stat(file).catch(() => null);
      if (!info || info.isDirectory()) continue;
      await assertTrusted(file, uid);
      const read = await readConfigFile(file);
      // A file that holds nothing (blank, only comments, a module exporting nothing) is passed over.
      if (read && read.config !== undefined && read.config !== null) return { file, config: read.config };
    }
  }
  return null;
}

/** A loaded configuration with what it was read from (`iris config` shows where each key came from). */
export interface LoadedConfig {
  config: IrisConfig;
  /** The file read (absolute), or null: no file, the built-in defaults. */
  file: string | null;
  origin: ConfigOrigin | null;
  /** The file's content as parsed (before validation); undefined without a file or for an empty one. */
  raw: unknown;
}

/**
 * Find, read and validate the configuration. Precedence: `explicitPath`, then `IRIS_CONFIG`,
 * then the upward search; no file at all gives the defaults (`source: null`).
 */
export async function loadConfig(opts: LoadConfigOptions): Promise<IrisConfig> {
  return (await loadConfigWithSource(opts)).config;
}

/** What to do about a config path that names no file, for the place it came from. */
function missingHint(fromFlag: boolean, env: NodeJS.ProcessEnv): string {
  const search = 'search for .irisrc.yaml / iris.config.ts';
  if (!fromFlag) return `check the path, or unset IRIS_CONFIG to ${search}`;
  if (env.IRIS_CONFIG) return `fix the path, or drop --config to load IRIS_CONFIG (${env.IRIS_CONFIG})`;
  return `fix the path, or drop --config to ${search}`;
}

/** loadConfig, with the file, how it was chosen and its raw content. */
export async function loadConfigWithSource(opts: LoadConfigOptions): Promise<LoadedConfig> {
  const env = opts.env ?? process.env;
  const cwd = path.resolve(opts.cwd);
  const home = os.homedir();
  const uid = callerUid();
  const given = opts.explicitPath ?? (env.IRIS_CONFIG ? env.IRIS_CONFIG : undefined);
  if (given !== undefined) {
    const fromFlag = opts.explicitPath !== undefined;
    const origin = fromFlag ? '' : ' (from IRIS_CONFIG)';
    // Where the path came from, in the messages about a path that is not a file.
    const named = fromFlag ? ' (from --config)' : origin;
    if (given.trim() === '') throw invalid('config file path is empty');
    const file = path.resolve(cwd, expandHome(given, home));
    let info: Stats;
    try {
      info = await stat(file);
    } catch {
      throw invalid(`config file not found: ${file}${named}`, missingHint(fromFlag, env));
    }
    if (!info.isFile()) throw invalid(`config path is not a file: ${file}${named}`);
    await assertTrusted(file, uid, origin);
    const read = await readConfigFile(file);
    return {
      config: validateConfig(read?.config, file, opts.probe),
      file,
      origin: opts.explicitPath !== undefined ? 'flag' : 'env',
      raw: read?.config,
    };
  }
  const stopDir = path.resolve(opts.stopDir ?? home);
  const found = await searchConfig(cwd, stopDir, globalConfigDir(env, home), uid);
  if (!found) return { config: defaultConfig(opts.probe), file: null, origin: null, raw: undefined };
  return {
    config: validateConfig(found.config, found.file, opts.probe),
    file: found.file,
    origin: 'search',
    raw: found.config,
  };
}
