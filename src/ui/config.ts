/**
 * `iris config`: the config file, the running cluster beside it, and every setting with its value
 * and source, one per line and aligned (src/config/effective.ts says what each source means).
 */
import type { ConfigOrigin, Setting } from '../model/settings.js';
import { renderFields, renderTable } from './table.js';

/** The running cluster's config file beside the one `iris config` shows. */
export interface RunningConfig {
  pid: number;
  config: { path: string | null };
  /** Its metrics URL (`--metrics-port` or `metrics.port` when it started); null: none. */
  metrics: { url: string | null };
  /** It loaded the file shown (or, like it, none). */
  sameFile: boolean;
  /** The file was changed after the cluster started: the cluster runs with its earlier content. */
  changedSinceStart: boolean;
}

/** What `iris config --json` prints. */
export interface ConfigView {
  /** The file a start would load now; `path` null: none, the built-in defaults. */
  config: { path: string | null; origin: ConfigOrigin | null };
  /** The running cluster; null when none runs. */
  running: RunningConfig | null;
  settings: Setting[];
}

const ORIGIN: Record<ConfigOrigin, string> = {
  flag: 'from --config',
  env: 'from IRIS_CONFIG',
  search: 'found by searching from',
};

function fileLine(view: ConfigView, cwd: string): string {
  const { path, origin } = view.config;
  if (path === null || origin === null) return 'none: built-in defaults (no config file was found)';
  return `${path} (${origin === 'search' ? `${ORIGIN.search} ${cwd}` : ORIGIN[origin]})`;
}

function runningLine(running: RunningConfig | null): string {
  if (running === null) return 'not running (this is what `iris cluster start` would load now)';
  return fileOfRunning(running) + (running.metrics.url ? `; metrics on ${running.metrics.url}` : '');
}

function fileOfRunning(running: RunningConfig): string {
  const loaded = running.config.path ?? 'the built-in defaults';
  if (!running.sameFile) {
    return (
      `running (pid ${running.pid}) with ${loaded}, not the file above: ` +
      '`iris cluster stop` and start it again from here to use this one'
    );
  }
  if (running.changedSinceStart) {
    return `running (pid ${running.pid}) with this file, changed after it started: restart it to apply the change`;
  }
  return `running (pid ${running.pid}) with this file`;
}

/** `default`, `env IRIS_HOME`, `flag --metrics-port`; `file` alone: the file is named above. */
function sourceText(setting: Setting): string {
  return setting.by && setting.source !== 'file' ? `${setting.source} ${setting.by}` : setting.source;
}

export function renderConfig(view: ConfigView, cwd: string): string {
  const head = renderFields([
    ['Config file', fileLine(view, cwd)],
    ['Cluster', runningLine(view.running)],
  ]);
  const table = renderTable(view.settings, [
    { header: 'KEY', value: (s) => s.key },
    { header: 'VALUE', value: (s) => s.value },
    { header: 'SOURCE', value: sourceText },
  ]);
  return `${head}\n\n${table}`;
}
