/**
 * Log line prefixes: `HH:MM:SS.mmm task-0[1] text` (task relative to the target, attempt in
 * brackets). Commands write a task's stdout lines to stdout and its stderr lines to stderr.
 */
import type { LogLine } from '../api/types.js';
import { formatClock } from './format.js';

/**
 * Short task label relative to the target: for target `/train`, `/train/task-0` is `task-0` and
 * `/train/eval/task-1` is `eval/task-1`; otherwise the full task id.
 */
export function taskLabel(task: string, target: string): string {
  const base = target.replace(/\/task-\d+$/, '');
  if (task.startsWith(base + '/')) return task.slice(base.length + 1);
  return task;
}

export function formatLogLine(line: LogLine, target: string): string {
  return `${formatClock(line.time)} ${taskLabel(line.task, target)}[${line.attempt}] ${line.text}`;
}
