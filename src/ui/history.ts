/**
 * `iris history` (like sacct): one line per run, or with `attempts` one line per attempt, with
 * its run id, name, user, state, start, end, elapsed time, exit code (a death by signal N shows
 * as `137 (SIGKILL)`), measured CPU time and peak memory (`-` when not measured) and reason. A
 * run's CPU is the sum over its attempts and its memory the highest peak of any attempt. An
 * ENERGY column (the estimate, docs/metrics.md "Energy") is shown when some row has one.
 */
import { bandColumn } from './band-column.js';
import type { Band } from '../model/band.js';
import { constants } from 'node:os';
import type { RunInfo } from '../api/types.js';
import { formatBytes } from '../model/resources.js';
import { formatInstant, formatReason, formatSpan } from './format.js';
import { formatCpuSeconds } from './usage.js';
import { PLAIN, type Style } from './colour.js';
import { renderTable, type Column } from './table.js';

const SIGNALS = new Map(Object.entries(constants.signals).map(([name, n]) => [n, name]));

/** `0`, `3`, `137 (SIGKILL)`; `-` when there is none. */
export function formatExit(code: number | null): string {
  if (code === null) return '-';
  const signal = code > 128 ? SIGNALS.get(code - 128) : undefined;
  return signal ? `${code} (${signal})` : String(code);
}

/** CPU time and peak memory as `iris status` shows them (usage.ts); `-` when not measured. */
const cpuTime = (seconds: number | null) => (seconds === null ? '-' : formatCpuSeconds(seconds));
const memory = (bytes: number | null) => (bytes === null ? '-' : formatBytes(bytes, { trimZero: true }));

/** Joules as `850J`, `12.4kJ`, `3.2MJ`; `-` when there is no estimate. */
export function formatJoules(joules: number | null | undefined): string {
  if (joules === null || joules === undefined) return '-';
  const [value, unit] =
    joules >= 1e9
      ? [joules / 1e9, 'GJ']
      : joules >= 1e6
        ? [joules / 1e6, 'MJ']
        : joules >= 1e3
          ? [joules / 1e3, 'kJ']
          : [joules, 'J'];
  return `${value >= 100 || unit === 'J' ? Math.round(value) : value.toFixed(1)}${unit}`;
}

interface Row {
  run: number;
  name: string;
  user: string;
  band: Band | undefined;
  state: string;
  start: number | null;
  end: number | null;
  exit: number | null;
  cpu: number | null;
  mem: number | null;
  energy: number | null;
  reason: string | null;
}

function runRows(runs: readonly RunInfo[]): Row[] {
  return runs.map((r) => ({
    run: r.run,
    name: r.name,
    user: r.user,
    band: r.band,
    state: r.state,
    start: r.startedAt,
    end: r.finishedAt,
    exit: r.exitCode,
    cpu: r.cpuSeconds,
    mem: r.peakMemoryBytes,
    energy: r.energyJoules ?? null,
    reason: r.reason,
  }));
}

function attemptRows(runs: readonly RunInfo[]): Row[] {
  return runs.flatMap((r) =>
    r.attempts.map((a) => ({
      run: r.run,
      name: `${a.task}[${a.attempt}]`,
      user: r.user,
      band: r.band,
      state: a.state,
      start: a.startedAt,
      end: a.finishedAt,
      exit: a.exitCode,
      cpu: a.cpuSeconds,
      mem: a.peakMemoryBytes,
      energy: a.energyJoules ?? null,
      reason: a.reason,
    })),
  );
}

/** Instants in the one time style (`HH:MM:SS` today, else `YYYY-MM-DD HH:MM`); states coloured by `style`. */
export function renderHistory(
  runs: readonly RunInfo[],
  options: { attempts: boolean; now: number; style?: Style },
): string {
  const { now } = options;
  const style = options.style ?? PLAIN;
  const instant = (time: number | null): string => (time === null ? '-' : formatInstant(time, now));
  const rows = options.attempts ? attemptRows(runs) : runRows(runs);
  const columns: Column<Row>[] = [
    { header: 'RUN', value: (r) => String(r.run), right: true },
    { header: options.attempts ? 'TASK[ATTEMPT]' : 'NAME', value: (r) => r.name },
    { header: 'USER', value: (r) => r.user },
    ...bandColumn(rows, (r) => r.band),
    { header: 'STATE', value: (r) => r.state, paint: (cell) => style.state(cell) },
    { header: 'START', value: (r) => instant(r.start) },
    { header: 'END', value: (r) => instant(r.end) },
    { header: 'ELAPSED', value: (r) => formatSpan(r.start, r.end, now) },
    { header: 'EXIT', value: (r) => formatExit(r.exit), right: true },
    { header: 'CPU', value: (r) => cpuTime(r.cpu), right: true },
    { header: 'MAXMEM', value: (r) => memory(r.mem), right: true },
    ...(rows.some((r) => r.energy !== null)
      ? [{ header: 'ENERGY', value: (r: Row) => formatJoules(r.energy), right: true }]
      : []),
    { header: 'REASON', value: (r) => formatReason(r.reason ?? '', now) },
  ];
  return renderTable(rows, columns, options.attempts ? 'no attempts' : 'no runs');
}
